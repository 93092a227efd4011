# view's blocked (off-CPU) time on real recordings of tests/workloads/blocker, which sleeps in
# blocker_sleep() and waits on a pipe in blocker_pipe_read() for known times: `collect -offcpu
# -pid` (its threads' switch-ins come from a per-CPU sched_switch filtered to them) and a
# system-wide `collect -threadtime` (the switch-in is the next_pid of a later sched_switch).  Each time,
# the blocked time view attributes to each function's stacks is within 10% of the known total
# and equal to awk's own reading of perf.data.txt; the folded off-CPU stacks add up to awk's
# total; the off-CPU flame graph is well-formed, blue and shows the blocking functions.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd unzip
need_cmd xmllint

SLEEP_MS=200 PIPE_MS=100 ROUNDS=3

# awk's reading of perf.data.txt (independent of view's parser): a thread blocks at a
# sched_switch with its own prev_pid and a waiting prev_state (not R, R+, X or Z), unless perf
# names it ":<tid>" (a task the recording did not follow), and the
# wait ends at the next sched_switch whose next_pid is the thread or at the thread's next
# sample, whichever comes first.  Prints "total_us fn_us": all waits, and the waits whose
# stack has the function fn (and thread tid, when given).
blocked_us() { # FILE FN [TID]
	awk -v fn="$2" -v want_tid="${3:-}" '
	function us(s,   p) { split(s, p, "."); return p[1] * 1000000 + substr(p[2] "000000", 1, 6) }
	function field(k,   r) { if (!match($0, " " k "=[^ ]*")) return ""
		r = substr($0, RSTART + length(k) + 2, RLENGTH - length(k) - 2); return r }
	function end(id, t) { if (!(id in pend)) return
		total += t - pend[id]; if (hasfn[id]) fntotal += t - pend[id]
		delete pend[id]; delete hasfn[id] }
	/^\t/ { if (open != "" && index($0, " " fn " (")) hasfn[open] = 1; next }
	/^$/ { open = ""; next }
	{
		open = ""
		if (!match($0, / +-?[0-9]+\/-?[0-9]+ /)) next
		split(substr($0, RSTART), a, /[\/ ]+/); tid = a[3]
		comm = substr($0, 1, RSTART - 1); gsub(/^ +| +$/, "", comm)
		rest = substr($0, RSTART + RLENGTH)
		if (!match(rest, /[0-9]+\.[0-9]+:/)) next
		t = us(substr(rest, RSTART, RLENGTH - 1))
		sw = index($0, " sched:sched_switch: ") > 0
		if (sw) end(field("next_pid"), t)
		end(tid, t)
		st = field("prev_state")
		if (sw && tid > 0 && field("prev_pid") == tid && st != "" && st !~ /^R/ && st !~ /[XZ]/ &&
		    comm != ":" tid) {
			pend[tid] = t
			if (want_tid == "" || want_tid == tid) { open = tid; hasfn[tid] = 0 }
		}
	}
	END { printf "%d %d\n", total, fntotal }' "$1"
}

# The inclusive blocked ms of a function in view's off-CPU top-functions table.
incl_ms() { # REPORT FN
	awk -v fn="$2" '/^# Top functions by inclusive blocked ms/ { on = 1; next }
		on && /^$/ { exit }
		on && index($0, "] " fn "  (") { print $4; exit }' "$1"
}

# Whether got (ms) is within 10% of want (ms).
within10() { awk -v g="$1" -v w="$2" 'BEGIN { exit !(g != "" && g >= 0.9 * w && g <= 1.1 * w) }'; }

# The sum of the last column of folded stacks.
folded_sum() { awk '{ s += $NF } END { printf "%d\n", s }' "$1"; }

check_functions() { # LABEL REPORT PERF.DATA.TXT TID
	local label=$1 report=$2 txt=$3 tid=$4 fn want got total fn_us
	for fn in blocker_sleep blocker_pipe_read; do
		[ $fn = blocker_sleep ] && want=$((SLEEP_MS * ROUNDS)) || want=$((PIPE_MS * ROUNDS))
		got=$(incl_ms "$report" $fn)
		read -r total fn_us <<<"$(blocked_us "$txt" $fn "$tid")"
		echo "$label: $fn blocked ${got:-?} ms (awk: $fn_us us, known: $want ms)"
		check "$label: blocked time in $fn within 10% of $want ms (${got:-none})" within10 "$got" $want
		check "$label: $fn's blocked time equals awk's reading of perf.data.txt" \
			test "$got" = "$(awk -v u="$fn_us" 'BEGIN { printf "%.2f", u / 1000 }')"
	done
}

# ---- collect -offcpu -pid: the switch-ins are in perf.data.txt too ----
"$WORKLOADS/blocker" $SLEEP_MS $PIPE_MS $ROUNDS wait &
blocker=$!
cleanup_hooks+=("kill $blocker 2>/dev/null")
start_collect off -pid "$blocker" -offcpu
kill -USR1 "$blocker"
wait "$collector" || { cat off.err; fail "collect -offcpu -pid exits non-zero"; }
unzip -q off.trace.zip || fail "unzip off.trace.zip"
txt=off.trace/perf.data.txt

"$PC" view off.trace.zip -top 100 >off.txt
check "-pid: view exits 0" test $? -eq 0
check "-pid: the report is the blocked time (the trace has no CPU samples)" \
	grep -q "^# Off-CPU (blocked) time: .* ms in [0-9]* waits of 2 threads" off.txt
check "-pid: every wait ends at the switch-in (none at a later sample)" \
	bash -c "grep -q '^#   [0-9]* waits end at the switch-in' off.txt && ! grep -q 'next sample' off.txt"
check "-pid: switches to the blocker from other tasks are in perf.data.txt" \
	grep -qE "^ *:?[^ ]* +[0-9]+/[0-9]+ .*sched:sched_switch: .*==> next_comm=blocker next_pid=$blocker " "$txt"
check_functions "-pid" off.txt "$txt" "$blocker"

"$PC" view off.trace.zip -folded off.folded -flamegraph off.svg 2>view.err
check "-pid: -folded and -flamegraph exit 0 ($(head -1 view.err))" test $? -eq 0
read -r total _ <<<"$(blocked_us "$txt" none)"
check "-pid: folded off-CPU stacks (us) add up to awk's total ($total us)" \
	test "$(folded_sum off.folded)" = "$total"
check "-pid: the off-CPU flame graph goes to the file named (no CPU graph)" \
	test ! -e off.offcpu.svg -a ! -e off.offcpu.folded
check "-pid: the off-CPU flame graph is well-formed XML" xmllint --noout off.svg
check "-pid: it is the off-CPU graph" grep -q '>Off-CPU Time Flame Graph<' off.svg
check "-pid: it shows blocker_sleep" grep -q '<title>blocker_sleep$' off.svg
check "-pid: it shows blocker_pipe_read" grep -q '<title>blocker_pipe_read$' off.svg
# Blue: the blocking function's frame has more blue than red or green.
rgb=$(grep -A2 '<title>blocker_sleep$' off.svg | grep -o 'fill="rgb([0-9,]*)"' | head -1 | tr -dc '0-9,')
check "-pid: frames are blue-ish (blocker_sleep: rgb($rgb))" \
	awk -v c="$rgb" 'BEGIN { split(c, v, ","); exit !(v[3] > v[1] && v[3] > v[2]) }'

PIN_CPU0=()
command -v taskset >/dev/null && PIN_CPU0=(taskset -c 0)
# ---- system-wide collect -threadtime: switch-ins from next_pid ----
# On CPU 0: in this kind of VM the other vCPU's idle task emits no sched_switch at all (real
# perf record -a shows the same), so a wake-up from idle there has no switch-in record.
"${PIN_CPU0[@]}" "$WORKLOADS/blocker" $SLEEP_MS $PIPE_MS $ROUNDS wait &
blocker=$!
cleanup_hooks+=("kill $blocker 2>/dev/null")
start_collect sw -threadtime -collectsec 2
kill -USR1 "$blocker"
wait "$blocker"
check "the blocker ran to its end during the recording" test $? -eq 0
wait "$collector" || { cat sw.err; fail "collect -threadtime exits non-zero"; }
unzip -q sw.trace.zip || fail "unzip sw.trace.zip"
txt=sw.trace/perf.data.txt

"$PC" view sw.trace.zip -top 100000 >sw.txt
check "system-wide: view exits 0" test $? -eq 0
check "system-wide: the CPU samples come first" grep -q "^# Event: cpu-clock, [0-9]* samples" sw.txt
check "system-wide: then the blocked time" grep -q "^# Off-CPU (blocked) time: " sw.txt
"$PC" view sw.trace.zip -offcpu -pid "$blocker" -top 100 >swb.txt
check "system-wide: -offcpu -pid shows the blocker's 2 threads" \
	grep -q "^# Off-CPU (blocked) time: .* waits of 2 threads" swb.txt
check "system-wide: every blocker wait ends at its switch-in" \
	bash -c "grep -q '^#   [0-9]* waits end at the switch-in' swb.txt && ! grep -q 'next sample' swb.txt"
check_functions "system-wide" swb.txt "$txt" "$blocker"
# The same numbers in the full report, after the CPU part.
check "system-wide: the full report has the same blocked time in blocker_sleep" \
	test "$(incl_ms sw.txt blocker_sleep)" = "$(incl_ms swb.txt blocker_sleep)"

"$PC" view sw.trace.zip -folded sw.folded -flamegraph sw.svg 2>view.err
check "system-wide: -folded and -flamegraph exit 0" test $? -eq 0
cat view.err
read -r total _ <<<"$(blocked_us "$txt" none)"
check "system-wide: folded off-CPU stacks (us) add up to awk's total over all threads ($total us)" \
	test "$(folded_sum sw.offcpu.folded)" = "$total"
check "system-wide: the CPU folded stacks count the cpu-clock samples" \
	test "$(folded_sum sw.folded)" = "$(grep -c ' cpu-clock:' "$txt")"
check "system-wide: the CPU flame graph is well-formed" xmllint --noout sw.svg
check "system-wide: the off-CPU flame graph is well-formed" xmllint --noout sw.offcpu.svg
check "system-wide: the off-CPU graph shows blocker_pipe_read" \
	grep -q '<title>blocker_pipe_read$' sw.offcpu.svg
check "system-wide: the CPU graph is not the off-CPU one" \
	bash -c "! grep -q 'Off-CPU Time' sw.svg"
"$PC" view sw.trace.zip -offcpu -folded - >stdout.folded
check "system-wide: -offcpu -folded - writes the same off-CPU stacks" \
	cmp -s stdout.folded sw.offcpu.folded

# ---- what cannot be shown ----
printf 'hot 5/5 [000] 1.000000: 1000000 cpu-clock:\n\t1000 main (/bin/hot)\n\n' >cpu.txt
"$PC" view cpu.txt -offcpu >/dev/null 2>err.txt
check "-offcpu on a trace without sched_switch exits 1" test $? -eq 1
check "... and says how to record it" grep -q "collect -offcpu" err.txt
"$PC" view cpu.txt -offcpu -event cpu-clock >/dev/null 2>&1
check "-offcpu with -event is a usage error" test $? -eq 2
finish
