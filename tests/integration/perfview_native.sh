# PerfView's own reader (TraceEvent's LinuxPerfScriptStackSource and its parser, see
# tests/traceevent) on our native and node traces: collect -pid of a program whose process
# name PerfView would misread ("a 1/2 b"), collect -pid of node running JIT code from its perf
# map, a system-wide collect with a process named "x 5 [y", and a foreign perf.data from
# `perf record -p` (no cpu column) turned into a trace by merge.  Each: PerfView opens it,
# reads as many events, frames and events per thread as view, and shows no name mangled by
# our text (perfview_check); the figures (events PerfView reads vs ours, the share of frames
# it shows as unknown) are printed.
source "$(dirname "$0")/lib.sh"
source "$TEST_SRCDIR/traceevent/testlib.sh"
need_root
need_traceevent

# 1. One process, two threads, a name with " 1/2 " in it.
"$WORKLOADS/hot" 60 2 'a 1/2 b' &
hot=$!
cleanup_hooks+=("kill $hot 2>/dev/null")
wait_until 10 grep -q 'a 1/2 b' /proc/$hot/comm || fail "hot did not take its name"
"$PC" collect nat -pid "$hot" -collectsec 1 2>nat.err || { cat nat.err; fail "collect nat"; }
perfview_check nat.trace.zip native-pid
check "native-pid: PerfView shows the process as 'a_1/2_b'" \
	grep -qF 'thread "Process a_1/2_b ('"$hot"')"' native-pid.pv
check "native-pid: and its hot function" grep -q '^frame [0-9]* hot!hot_leaf$' native-pid.pv
check "native-pid: the rename is in the log" \
	bash -c "'$PC' log nat.trace.zip | grep -q \"process name 'a 1/2 b' (pid $hot) is written 'a_1/2_b'\""

# 2. A foreign perf.data of the same process, without the cpu column, through merge.
if command -v perf >/dev/null; then
	perf record -q -e cpu-clock -F 1000 -g -p "$hot" -o foreign.data -- sleep 0.5 >/dev/null 2>&1
	"$PC" merge foreign.data -o foreign.trace.zip 2>merge.err || { cat merge.err; fail "merge"; }
	check "merged: no cpu column" bash -c "! grep -qE ' \[[0-9]{3}\] ' <('$PC' cat foreign.trace.zip perf.data.txt)"
	perfview_check foreign.trace.zip merged-foreign
else
	echo "perf is not installed: the merged foreign perf.data case is skipped"
fi

# 3. node running JIT code, its frames named from its perf map.
if command -v node >/dev/null; then
	start_node_spin
	"$PC" collect js -pid "$node_pid" -collectsec 1 2>js.err || { cat js.err; fail "collect js"; }
	perfview_check js.trace.zip node-jit
	check "node-jit: PerfView shows the JS function fib, from node's perf map" \
		grep -q '^frame [0-9]* anon!JS:\*fib ' node-jit.pv
else
	echo "node is not installed: the node JIT case is skipped"
fi

# 4. System-wide, with a process named "x 5 [y".
"$WORKLOADS/hot" 60 1 'x 5 [y' &
hot2=$!
cleanup_hooks+=("kill $hot2 2>/dev/null")
wait_until 10 grep -q 'x 5 \[y' /proc/$hot2/comm || fail "hot did not take its second name"
"$PC" collect sys -collectsec 1 2>sys.err || { cat sys.err; fail "collect sys"; }
perfview_check sys.trace.zip system-wide
check "system-wide: PerfView shows 'x_5_[y'" grep -qF "\"Process x_5_[y ($hot2)\"" system-wide.pv
finish
