# PerfView's Thread Time view of <name>.nettrace (TraceEvent's ThreadTimeStackComputer over
# the TraceLog of the file, as PerfView builds it): tests/workloads/blocker sleeps a known
# 3 x 200 ms in blocker_sleep() and waits 3 x 100 ms on a pipe in blocker_pipe_read(); the
# view must show the sleep's blocked time (BLOCKED_TIME) at its stack within 5% (the pipe
# wait, which adds the writer thread's wake-up to its own, within 10%, as view_offcpu.sh),
# from the Universal.Events cswitch events, with -pid and system-wide; and view of the zip
# must count the same waits (within 2% of PerfView's figure).
source "$(dirname "$0")/lib.sh"
source "$TEST_SRCDIR/traceevent/testlib.sh"
need_root
need_traceevent

SLEEP_MS=200 PIPE_MS=100 ROUNDS=3

# The blocked ms TraceLog's thread time gives the stacks of process PID holding frame FN
# (other tests on the machine may run a blocker too: a system-wide trace has them).
tt_blocked() { # TRACELOG_OUTPUT PID FN
	awk -v pid="$2" -v fn="$3" '/^tt_stack / { sub(/^tt_stack /, ""); n = split($0, f, ";")
		if (index(f[2], "(" pid ")") == 0) next
		b = 0; h = 0
		for (i = 3; i <= n; i++) { if (f[i] == "BLOCKED_TIME") b = 1; if (f[i] == fn) h = 1 }
		if (b && h) s += f[1] }
		END { printf "%.3f\n", s }' "$1"
}
# within PCT GOT WANT: whether got (ms) is within PCT% of want (ms).
within() { awk -v p="$1" -v g="$2" -v w="$3" 'BEGIN { exit !(g != "" && w != "" && g >= (1 - p / 100) * w && g <= (1 + p / 100) * w) }'; }
# The inclusive blocked ms of a function in view's off-CPU top-functions table.
view_ms() { # REPORT FN
	awk -v fn="$2" '/^# Top functions by inclusive blocked ms/ { on = 1; next }
		on && /^$/ { exit }
		on && index($0, "] " fn "  (") { print $4; exit }' "$1"
}

check_blocked() { # LABEL NAME PID
	local label=$1 name=$2 pid=$3 fn want got v pct
	traceevent tracelog "$name.nettrace" --threadtime --stacks >"$name.te" 2>"$name.te.err"
	check "$label: TraceLog builds the Thread Time view ($(grep -m1 exception "$name.te"))" \
		grep -q '^tt_state BLOCKED_TIME ' "$name.te"
	check "$label: the file has cswitch events, with stacks" \
		awk '$1 == "event" && $2 == "Universal.Events/cswitch" && $4 > 0 { f = 1 } END { exit !f }' "$name.te"
	"$PC" view "$name.trace.zip" -offcpu -pid "$pid" -top 100 >"$name.view"
	for fn in blocker_sleep blocker_pipe_read; do
		[ $fn = blocker_sleep ] && want=$((SLEEP_MS * ROUNDS)) pct=5 ||
			want=$((PIPE_MS * ROUNDS)) pct=10
		got=$(tt_blocked "$name.te" "$pid" "blocker!$fn")
		v=$(view_ms "$name.view" $fn)
		echo "$label: $fn blocked ${got:-?} ms in PerfView's Thread Time (view: ${v:-?} ms, known: $want ms)"
		check "$label: Thread Time shows $fn blocked ${want} ms +-$pct% (${got:-none})" \
			within $pct "$got" $want
		check "$label: view of the zip counts the same (${v:-none})" within 2 "$v" "$got"
	done
}

# ---- collect -threadtime -pid ----
"$WORKLOADS/blocker" $SLEEP_MS $PIPE_MS $ROUNDS wait &
blocker=$!
cleanup_hooks+=("kill $blocker 2>/dev/null")
start_collect pid -pid "$blocker" -threadtime
kill -USR1 "$blocker"
wait "$collector" || { cat pid.err; fail "collect -threadtime -pid exits non-zero"; }
check_blocked "-pid" pid "$blocker"

# ---- system-wide collect -threadtime ----
# On CPU 0, as view_offcpu.sh: in this kind of VM the other vCPU's idle task emits no
# sched_switch, so a wake-up from idle there has no switch-in record.
# A recording that lost records (rings overflowing on a busy machine) may lack a switch the
# known figures need: it is made again, up to three times.
PIN_CPU0=()
command -v taskset >/dev/null && PIN_CPU0=(taskset -c 0)
for attempt in 1 2 3; do
	rm -rf sw.*
	"${PIN_CPU0[@]}" "$WORKLOADS/blocker" $SLEEP_MS $PIPE_MS $ROUNDS wait &
	blocker=$!
	cleanup_hooks+=("kill $blocker 2>/dev/null")
	start_collect sw -threadtime -collectsec 2 -buffersize 8M
	kill -USR1 "$blocker"
	wait "$blocker"
	check "the blocker ran to its end during the recording" test $? -eq 0
	wait "$collector" || { cat sw.err; fail "collect -threadtime exits non-zero"; }
	lost=$("$PC" log sw.trace.zip | sed -n 's/.*records: .*lost: \([0-9]*\).*/\1/p' | tail -1)
	[ "${lost:-0}" = 0 ] && break
	echo "system-wide: $lost records lost (a busy machine): recording again"
done
check_blocked "system-wide" sw "$blocker"
check "system-wide: CPU samples are CPU_TIME in the Thread Time view" \
	grep -q '^tt_state CPU_TIME [1-9]' sw.te
finish
