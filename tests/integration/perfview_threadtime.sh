# PerfView's Thread Time view (TraceEvent's LinuxPerfScriptStackSource with doThreadTime, see
# tests/traceevent) on blocked-time traces of tests/workloads/blocker, whose main thread, 6
# times, sleeps 100 ms in blocker_sleep(), runs 10 ms in blocker_spin() and waits on a pipe
# (briefly) in blocker_pipe_read(); it measures itself how long it waited (600 ms and what a
# loaded machine adds before it runs again):
#   - collect -threadtime -pid: PerfView's BLOCKED_TIME under blocker_sleep and
#     blocker_pipe_read is that time +-5% (view's is at least the 600 ms and at most that:
#     unlike PerfView it does not count a preemption as blocked); the main thread's
#     CPU samples are CPU_TIME (without its switch-ins a thread stays blocked from its first
#     switch-out on, and its CPU samples come out as BLOCKED_TIME);
#   - collect -offcpu -pid and collect -offcpu on all CPUs: the same blocked time.
# Each trace also passes perfview_check (PerfView opens it and reads what view reads).
#
# What PerfView does that these figures leave aside: it counts a preemption as blocked, and
# weighs a CPU sample by the time to the next sample on its CPU, which in a one-process trace
# can span the thread's sleep (labelled by the thread's state when that next sample comes).
# And the kernel misses the odd sched_switch tracepoint hit (`perf record -a` shows it too):
# PerfView then keeps the thread blocked until its next switch-in, which the spin's place
# between the sleep and the short pipe wait keeps out of the sleep's figure.
source "$(dirname "$0")/lib.sh"
source "$TEST_SRCDIR/traceevent/testlib.sh"
need_root
need_traceevent

SLEEP_MS=100 ROUNDS=6 SPIN_MS=10 WANT_MS=600

# run_blocker NAME pid|all OPTION: the blocker, recorded (just it, or all CPUs) from before its
# timed part to its end.  Sets main (its pid).
run_blocker() {
	local name=$1 scope=$2 opt=$3
	"$WORKLOADS/blocker" $SLEEP_MS 0 $ROUNDS wait spin=$SPIN_MS >"$name.out" &
	main=$!
	cleanup_hooks+=("kill $main 2>/dev/null")
	if [ "$scope" = pid ]; then
		start_collect "$name" -pid "$main" "$opt"
	else
		start_collect "$name" "$opt"
	fi
	kill -USR1 "$main"
	wait "$main"
	[ "$scope" = pid ] || kill -INT "$collector" # the -pid one stops when its target exits
	wait "$collector" || { cat "$name.err"; fail "$name: collect exits non-zero"; }
	waited=$(awk '$1 == "waited_ms" { print $2 }' "$name.out")
	check "$name: the blocker waited $WANT_MS ms and a little (${waited:-?} ms)" \
		awk -v w="${waited:-0}" -v n=$WANT_MS 'BEGIN { exit !(w >= n && w < 1.5 * n) }'
}

# ms PerfView shows as BLOCKED_TIME for the main thread in the sleeps and pipe waits.
pv_sleep_ms() { # LABEL (perfview_check's LABEL.pv)
	awk -v t="Thread ($main)" -F';' '$1 ~ /^stack / && $3 == t && $NF == "BLOCKED_TIME" &&
		(index($0, "blocker!blocker_sleep;") || index($0, "blocker!blocker_pipe_read;")) {
		sub(/^stack /, "", $1); s += $1 } END { printf "%.1f\n", s }' "$1.pv"
}

# ms view shows as blocked for the main thread in the same functions.
view_sleep_ms() { # LABEL
	"$PC" view "$1.trace.zip" -offcpu -tid "$main" -folded - 2>/dev/null |
		awk '/;blocker_sleep;|;blocker_pipe_read;/ { s += $NF } END { printf "%.1f\n", s / 1000 }'
}

# check_sleep_figures LABEL NAME: PerfView's and view's blocked time in the sleeps and waits,
# against the blocker's own measure.
check_sleep_figures() {
	local pv vw
	pv=$(pv_sleep_ms "$1")
	vw=$(view_sleep_ms "$2")
	echo "$1: main thread blocked in its sleeps and waits: PerfView $pv ms, view $vw ms, the blocker measured $waited ms (nominal $WANT_MS ms)"
	check "$1: PerfView's BLOCKED_TIME there is the blocker's $waited ms +-5% ($pv)" within5 "$pv" "$waited"
	# view counts a wait from a switch-out that waits (S, D, ...) to the switch-in, not a
	# preemption (R): between the sleeps' 600 ms and the blocker's measure, which has those.
	check "$1: view's blocked time there is $WANT_MS ms or more, up to the blocker's ($vw)" \
		awk -v v="$vw" -v n=$WANT_MS -v w="$waited" 'BEGIN { exit !(v >= n && v <= 1.01 * w) }'
}

within5() { awk -v g="$1" -v w="$2" 'BEGIN { exit !(g >= 0.95 * w && g <= 1.05 * w) }'; }

# 1. -threadtime -pid
run_blocker tt pid -threadtime
perfview_check tt.trace.zip threadtime-pid --threadtime
check_sleep_figures threadtime-pid tt
# The main thread's samples: BLOCKED_TIME ones are its waits, at most one per switch-out
# (and one for a thread blocked when the trace ends or it exits); its CPU samples are
# CPU_TIME (a few may be weighed across a sleep and labelled by the state then, above).
switch_outs=$(grep -cE "^blocker +$main/$main .* sched:sched_switch: .*prev_pid=$main " threadtime-pid.txt)
read -r blocked_n cpu_n < <(awk -v t="\"Thread ($main)\"" '$1 == "tstate" && index($0, t) {
	if ($(NF - 2) == "BLOCKED_TIME") b = $(NF - 1); else if ($(NF - 2) == "CPU_TIME") c = $(NF - 1) }
	END { print b + 0, c + 0 }' threadtime-pid.pv)
cpu_events=$(awk -v pid="$main" '$1 == "evthread" && $2 == "cpu-clock" && $4 == pid { print $5 }' threadtime-pid.pv)
echo "threadtime-pid: main thread: ${cpu_events:-0} CPU samples, $switch_outs switch-outs; PerfView: CPU_TIME $cpu_n, BLOCKED_TIME $blocked_n samples"
check "threadtime-pid: the main thread ran (${cpu_events:-0} CPU samples)" test "${cpu_events:-0}" -gt 20
check "threadtime-pid: its BLOCKED_TIME samples are its waits ($blocked_n <= $switch_outs switch-outs + 2)" \
	test "$blocked_n" -le $((switch_outs + 2))
check "threadtime-pid: its CPU samples are CPU_TIME ($cpu_n of ${cpu_events:-0})" \
	test $((cpu_n * 10)) -ge $((${cpu_events:-0} * 9))

# 2. -offcpu -pid
run_blocker off pid -offcpu
perfview_check off.trace.zip offcpu-pid --threadtime
check_sleep_figures offcpu-pid off

# 3. -offcpu, all CPUs
run_blocker sys all -offcpu
perfview_check sys.trace.zip offcpu-system-wide --threadtime
pv=$(pv_sleep_ms offcpu-system-wide)
echo "offcpu-system-wide: main thread blocked in its sleeps and waits: PerfView $pv ms, the blocker measured $waited ms"
# Every switch on the machine, with stacks: a machine busy enough can overflow the rings.
lost=$("$PC" log sys.trace.zip | awk '/lost samples: [0-9]+$/ { n = $NF } END { print n + 0 }')
if [ "$lost" -gt 0 ]; then
	echo "offcpu-system-wide: $lost records were lost (the log says so): the figure is not checked"
else
	check "offcpu-system-wide: PerfView's BLOCKED_TIME there is the blocker's $waited ms +-5% ($pv)" \
		within5 "$pv" "$waited"
fi
finish
