# collect -pid follows threads created after recording started: the target is a shell that
# waits until the collector records, then execs hot with 3 threads.  Every thread is
# sampled (inherited events), the exec's new image resolves, and the collector stops by
# itself when the target exits.
source "$(dirname "$0")/lib.sh"
need_root
need_perf
need_cmd unzip

sh -c 'while [ ! -e go ]; do sleep 0.02; done; exec "$0" 1.5 3' "$WORKLOADS/hot" &
target=$!
cleanup_hooks+=("kill $target 2>/dev/null")

start_collect late -pid "$target"
touch go
wait "$collector"
rc=$?
cat late.err
check "collect ends by itself when the target exits, exit 0" test "$rc" -eq 0
unzip -q late.trace.zip || fail "unzip"
check "log: one thread at start" grep -q "target: pid $target, 1 threads at start" \
	late.trace/perfcollect.log
check "log: stopped by the target's exit" grep -q "stop reason: the target process exited" \
	late.trace/perfcollect.log

perf script -i late.trace/perf.data -F comm,pid,tid,ip,sym >script.txt 2>script.err
check "perf script prints no warnings: $(head -3 script.err)" test ! -s script.err
# Threads of the target that ran hot_leaf, counted by tid.
tids=$(awk -v pid="$target" 'BEGIN{RS=""} $2 ~ "^"pid"/" && /hot_leaf/ {split($2, a, "/"); print a[2]}' \
	script.txt | sort -u | wc -l)
echo "threads of $target sampled in hot_leaf: $tids"
check "all 3 threads created after the start are sampled in hot_leaf" test "$tids" -ge 3
finish
