# collect without -pid: every CPU.  perf reads the file without complaint, sees more than one
# process, and finds a workload that was already running when recording started (its maps
# came from the synthesized records) with its hot function named.
source "$(dirname "$0")/lib.sh"
need_root
need_perf
need_cmd unzip

# (it outlives the test, killed at exit: at a load of 22 on 2 CPUs collect took 6 s to
# record 1 s, attaching to other tests' .NET processes first, and a workload of 3 s was gone)
start_hot 600
# A second, short-lived process started once recording runs (fork + exec under recording).
(wait_until 20 test -e sys.trace/perf.data && exec "$WORKLOADS/hot" 0.3) &
late=$!
cleanup_hooks+=("kill $late 2>/dev/null")

"$PC" collect sys -collectsec 1 2>collect.err
rc=$?
cat collect.err
check "collect (all CPUs) exits 0" test "$rc" -eq 0
unzip -q sys.trace.zip || fail "unzip"
data=sys.trace/perf.data

perf script -i "$data" -F pid,tid,cpu,ip,sym >script.txt 2>script.err
check "perf script prints no warnings: $(head -3 script.err)" test ! -s script.err
# Each sample: "pid/tid [cpu]" then its frames.
pids=$(awk 'BEGIN{RS=""} {split($1, a, "/"); print a[1]}' script.txt | sort -u | wc -l)
echo "distinct pids sampled: $pids"
check "more than one process is sampled" test "$pids" -gt 1
check "the running workload is sampled with hot_leaf named" \
	bash -c "awk 'BEGIN{RS=\"\"} \$1 == \"$hot/$hot\" && /hot_leaf/{n++} END{exit !(n > 50)}' script.txt"
cpus=$(awk 'BEGIN{RS=""} {print $2}' script.txt | sort -u)
echo "CPUs seen:" $cpus
check "samples carry the CPU" bash -c "[[ '$(echo $cpus)' =~ ^(\[[0-9]+\] ?)+$ ]]"
check "the process started during recording is seen (FORK/COMM from the kernel)" bash -c \
	"perf script -i $data --show-task-events 2>/dev/null | grep -q 'PERF_RECORD_COMM exec: hot:'"
logged=$(sed -n 's/.*samples written: \([0-9]*\).*/\1/p' sys.trace/perfcollect.log)
total=$(awk 'BEGIN{RS=""} END{print NR}' script.txt)
check "perf script sees the $logged samples we wrote ($total)" test "$total" = "$logged"
check "log: all CPUs" grep -q "options: target all CPUs" sys.trace/perfcollect.log
wait "$late" 2>/dev/null
finish
