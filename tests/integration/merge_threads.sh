# perf.data.txt formatted on threads beside the pass (lib/postprocess/script_pool.h) is the
# one-thread text byte for byte: a real system-wide trace (node's JIT'd code by its perf
# map, the C workload, the kernel; callchains and tracepoints with their text) merged with
# no text thread, one and three, and by default on one CPU and on all of them, gives the
# same entries; the log says how many threads formatted; a bad PERFCOLLECT_C_PASS_THREADS
# is named and the default used.
source "$(dirname "$0")/lib.sh"
need_root
need_perf
need_cmd unzip
need_cmd node

start_node_spin
start_hot 3
perf record -q -a -g -F 4000 -e cpu-clock -e sched:sched_switch -o sys.data -- sleep 1.5 \
	>/dev/null 2>&1 || skip "perf record failed: run as root (or lower kernel.perf_event_paranoid)"

# merge_with LABEL ENV...: merges sys.data with the environment given; entries to LABEL/.
merge_with() {
	local label=$1; shift
	env "$@" "$PC" merge sys.data -o "$label.trace.zip" 2>"$label.err" || fail "$label: merge"
	mkdir "$label" && (cd "$label" && unzip -q "../$label.trace.zip") || fail "$label: unzip"
}
merge_with zero PERFCOLLECT_C_PASS_THREADS=0
merge_with one PERFCOLLECT_C_PASS_THREADS=1
merge_with three PERFCOLLECT_C_PASS_THREADS=3
merge_with cpu0 taskset -c 0
merge_with bad PERFCOLLECT_C_PASS_THREADS=lots

samples=$(grep -c 'cpu-clock: *$' zero/sys.trace/perf.data.txt)
frames=$(grep -c $'^\t' zero/sys.trace/perf.data.txt)
echo "one-thread text: $samples cpu-clock samples, $frames frame lines"
check "the trace is large enough to be cut into many batches" \
	test "$(stat -c %s zero/sys.trace/perf.data.txt)" -gt 2000000
check "node's JIT'd code is named in it" grep -q 'fib' zero/sys.trace/perf.data.txt
check "tracepoint text is in it" grep -q 'prev_comm=' zero/sys.trace/perf.data.txt
for label in one three cpu0 bad; do
	for entry in perf.data.txt sys.nettrace perf.data; do
		check "$label: $entry is the one-thread $entry" \
			cmp "zero/sys.trace/$entry" "$label/sys.trace/$entry"
	done
done
threads() { grep -o '[0-9]* threads\? formatting' "$1/sys.trace/perfcollect.log" | cut -d' ' -f1; }
check "the log says no thread formatted (0)" test "$(threads zero)" = 0
check "the log says one thread formatted (1)" test "$(threads one)" = 1
check "the log says three threads formatted (3)" test "$(threads three)" = 3
check "on one CPU the pass formats the text itself" test "$(threads cpu0)" = 0
check "a bad PERFCOLLECT_C_PASS_THREADS is named" grep -q 'PERFCOLLECT_C_PASS_THREADS=lots' bad.err
finish
