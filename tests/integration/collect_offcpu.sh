# collect -offcpu -pid on a program that sleeps and blocks on a pipe for known times
# (tests/workloads/blocker), read back by real perf: perf script decodes our sched_switch
# records (tracing data in perf.data) without warnings, each sleep and each pipe wait is one
# switch-out with the blocking stack, perf.data.txt has the same sched_switch samples as perf
# script prints (and those the kernel's tracepoint missed, from the switch records, as many
# as the log says; deliberately, with callers in libc's syscall wrappers that perf's
# frame-pointer chains lack: same_but_mended), and the switch-in records make the blocked time measurable: switch-out in
# blocker_sleep to switch-in of the same thread adds up to the known sleep time.
source "$(dirname "$0")/lib.sh"
need_root
need_perf
need_cmd unzip

SLEEP_MS=250 PIPE_MS=150 ROUNDS=4
"$WORKLOADS/blocker" $SLEEP_MS $PIPE_MS $ROUNDS wait &
blocker=$!
cleanup_hooks+=("kill $blocker 2>/dev/null")

# Record until the blocker exits; it starts its timed part once we are recording.
start_collect off -pid "$blocker" -offcpu
kill -USR1 "$blocker"
wait "$collector"
rc=$?
cat off.err
check "collect -offcpu exits 0" test "$rc" -eq 0
check "it stopped because the target exited" grep -q "target process exited" off.err
unzip -q off.trace.zip || fail "unzip"
data=off.trace/perf.data
log=off.trace/perfcollect.log

# perf decodes the tracepoints: our tracing data and event names are in perf.data.
perf script -i "$data" >default.txt 2>default.err
check "perf script prints no warnings: $(head -3 default.err)" test ! -s default.err
check "perf script decodes sched_switch fields" \
	grep -qE "sched:sched_switch: prev_comm=blocker prev_pid=$blocker prev_prio=[0-9]+ prev_state=S ==> next_comm=.* next_pid=[0-9]+ next_prio=[0-9]+" \
	default.txt
check "-offcpu records no cpu-clock samples" bash -c "! grep -q ' cpu-clock:' default.txt"
check "perf evlist names the tracepoints" bash -c \
	"perf evlist -i $data 2>/dev/null | grep -qx 'sched:sched_switch'"
check "log: the events" grep -q "event sched:sched_switch: type 2 config [0-9]*, period 1" "$log"

fields=comm,pid,tid,cpu,time,period,event,ip,sym,dso,trace
perf script -i "$data" -F $fields >perf.txt 2>/dev/null
# One block per sample: the header line and its frames.
blocks() { awk 'BEGIN{RS=""; ORS="\n\n"} /sched:sched_switch:/' "$1"; }
blocks perf.txt >perf.switch
drop_filled_switches off.trace/perf.data.txt >ours.txt
blocks ours.txt >ours.switch
filled=$(filled_switches off.trace/perf.data.txt)
check "perf.data.txt's switches written from switch records are those the log counts ($filled)" \
	test "$filled" -eq "$(logged_filled_switches "$log")"
n=$(grep -c 'sched:sched_switch:' perf.switch)
echo "sched_switch samples: $n"
check "perf script shows sched_switch samples" test "$n" -gt 0
check "perf.data.txt has the same sched_switch samples, fields and frames as perf script (ours mended where libc broke the chain)" \
	same_but_mended perf.switch ours.switch

# Each sleep is one switch-out (state S) of the main thread in blocker_sleep, each pipe
# wait one in blocker_pipe_read, with the kernel frames that block.  (A record is its
# header line and its frame lines: one without a call stack, as the switches to the blocker
# from other tasks are, is one line with no blank line after it.)
count() { awk -v want="$1" -v kernel="$2" -v tid="$blocker" '
	function done() { if (hit && w && k) n++; hit = w = k = 0 }
	/^[^\t]/ { done(); hit = $0 ~ "/" tid " " && / prev_pid=/ && $0 ~ "prev_pid=" tid " " && /prev_state=S / }
	/^\t/ { if ($0 ~ want) w = 1; if ($0 ~ kernel) k = 1 }
	END { done(); print n + 0 }' perf.txt; }
sleeps=$(count blocker_sleep do_nanosleep)
reads=$(count blocker_pipe_read pipe_read)
echo "switch-outs in blocker_sleep: $sleeps, in blocker_pipe_read: $reads"
check "one switch-out per sleep ($sleeps of $ROUNDS)" test "$sleeps" -eq $ROUNDS
check "one switch-out per pipe wait ($reads of $ROUNDS)" test "$reads" -eq $ROUNDS

# Blocked time as perf sees it in our records: from a switch-out to sleep (sched_switch with
# prev_state S, and its stack) to the same thread's next PERF_RECORD_SWITCH IN.
perf script -i "$data" --show-switch-events -F tid,time,event,trace,ip,sym >switch.txt 2>/dev/null
blocked() { awk -v fn="$1" '
	/PERF_RECORD_SWITCH IN/ { t = $2; sub(":", "", t)
		if ($1 in out) { total += t - out[$1]; n++; delete out[$1] } next }
	/sched:sched_switch:/ { tid = $1; t = $2; sub(":", "", t); pending = ""
		if (/ prev_state=S /) pending = t; next }
	pending != "" && $0 ~ " " fn "$" { out[tid] = pending }
	/^$/ { pending = "" }
	END { printf "%d %d\n", total * 1000 + 0.5, n }' switch.txt; }
read -r sleep_ms nsleep <<<"$(blocked blocker_sleep)"
read -r pipe_ms npipe <<<"$(blocked blocker_pipe_read)"
echo "blocked in blocker_sleep: $sleep_ms ms over $nsleep waits; in blocker_pipe_read: $pipe_ms ms over $npipe"
want=$((SLEEP_MS * ROUNDS))
check "blocked time in blocker_sleep within 10% of $want ms ($sleep_ms)" \
	test "$nsleep" -eq $ROUNDS -a $((sleep_ms * 10)) -ge $((want * 9)) -a $((sleep_ms * 10)) -le $((want * 11))
want=$((PIPE_MS * ROUNDS))
check "blocked time in blocker_pipe_read within 10% of $want ms ($pipe_ms)" \
	test "$npipe" -eq $ROUNDS -a $((pipe_ms * 10)) -ge $((want * 9)) -a $((pipe_ms * 10)) -le $((want * 11))

# -threadtime keeps the CPU samples next to the tracepoints: a CPU-bound program shows both
# (it is switched out when preempted), perf reads the mix without a warning, and perf.data.txt
# has the same sched_switch samples (but for those the kernel's tracepoint missed, written from
# the switch records).
"$WORKLOADS/hot" 30 &
hot=$!
cleanup_hooks+=("kill $hot 2>/dev/null")
"$PC" collect tt -pid "$hot" -threadtime -collectsec 1 2>tt.err
check "collect -threadtime exits 0 ($(tail -1 tt.err))" test $? -eq 0
unzip -q tt.trace.zip || fail "unzip tt"
perf script -i tt.trace/perf.data -F $fields >tt.txt 2>/dev/null
perf script -i tt.trace/perf.data >/dev/null 2>tt-script.err
check "-threadtime: perf script prints no warnings: $(head -3 tt-script.err)" test ! -s tt-script.err
cpu=$(grep -c ' cpu-clock:' tt.txt)
sw=$(grep -c 'sched:sched_switch: prev_comm=hot' tt.txt)
echo "-threadtime: $cpu cpu-clock and $sw sched_switch samples"
check "-threadtime records cpu-clock samples" test "$cpu" -gt 100
check "-threadtime records the target's switch-outs" test "$sw" -gt 0
blocks tt.txt >tt-perf.switch
drop_filled_switches tt.trace/perf.data.txt >tt-ours.txt
blocks tt-ours.txt >tt-ours.switch
check "-threadtime: perf.data.txt has the same sched_switch samples as perf script (mended)" \
	same_but_mended tt-perf.switch tt-ours.switch
finish
