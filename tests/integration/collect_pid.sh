# collect -pid on a real workload, read back by real perf: the hot function dominates the
# stacks, perf counts exactly the samples our log says we wrote, and neither perf script nor
# perf report complain about the file.  Then the same with a small -buffersize.
source "$(dirname "$0")/lib.sh"
need_root
need_perf
need_cmd unzip

"$WORKLOADS/hot" 30 &
hot=$!
cleanup_hooks+=("kill $hot 2>/dev/null")

"$PC" collect app -pid "$hot" -collectsec 2 2>collect.err
rc=$?
cat collect.err
check "collect -pid exits 0" test "$rc" -eq 0
check "app.trace.zip written" test -s app.trace.zip
check "the trace directory is removed" test ! -e app.trace
unzip -q app.trace.zip app.trace/perf.data app.trace/perfcollect.log || fail "unzip"
data=app.trace/perf.data

perf script -i "$data" -F tid,ip,sym >script.txt 2>script.err
check "perf script reads perf.data" test -s script.txt
check "perf script prints no warnings: $(head -3 script.err)" test ! -s script.err

# Samples in perf script's eyes (one blank-line separated block each) and with hot_leaf.
total=$(awk 'BEGIN{RS=""} END{print NR}' script.txt)
with_leaf=$(awk 'BEGIN{RS=""} /hot_leaf/{n++} END{print n+0}' script.txt)
echo "samples: $total, with hot_leaf: $with_leaf"
check "hot_leaf is in most samples' stacks ($with_leaf of $total)" \
	test "$total" -gt 100 -a $((with_leaf * 2)) -gt "$total"

logged=$(sed -n 's/.*samples written: \([0-9]*\).*/\1/p' app.trace/perfcollect.log)
echo "log says: $logged samples"
check "perf script sees the samples the log says we wrote" test "$total" = "$logged"
perf report -i "$data" --stdio --no-children -n -g none --sort pid >report.txt 2>report.err
reported=$(awk '/^ *[0-9.]+%/{s+=$2} END{print s+0}' report.txt)
check "perf report counts them too ($reported)" test "$reported" = "$logged"
check "perf report prints no warnings: $(head -3 report.err)" test ! -s report.err
check "perf report: no lost samples" grep -q '^# Total Lost Samples: 0' report.txt

# The log says what was done.
for what in "kernel: Linux" "command line: .*collect app -pid $hot -collectsec 2" \
	"event cpu-clock" "ring buffers: [0-9]* CPUs, 1024 KiB" "lost samples: 0" \
	"stop reason: -collectsec elapsed; recorded for 2"; do
	check "log: $what" grep -q "$what" app.trace/perfcollect.log
done
# The process's existing mappings were synthesized, as perf record does: the executable's
# MMAP2 carries its inode and is there before the first sample.
perf script -i "$data" --show-mmap-events 2>/dev/null | grep -m1 "PERF_RECORD_MMAP2 $hot/$hot:.*r-xp .*/hot$" \
	>mmap.txt
check "synthesized MMAP2 of the workload" test -s mmap.txt
check "the kernel map is there" bash -c \
	"perf script -i $data --show-mmap-events 2>/dev/null | grep -q 'PERF_RECORD_MMAP -1/0: .*\[kernel.kallsyms\]_text'"

# A small ring: 64K per CPU still works (and the log says the rounded size).  Spelled with
# GNU and mixed-case forms, into another directory.
rm -rf app.trace
"$PC" collect small --pid="$hot" -CollectSec 1 -buffersize 64K -o out 2>small.err
rc=$?
check "-buffersize 64K exits 0 ($(tail -1 small.err))" test "$rc" -eq 0
check "-o out: the zip is in out/" test -s out/small.trace.zip -a ! -e small.trace.zip
unzip -q out/small.trace.zip || fail "unzip small"
check "-buffersize 64K: log says 64 KiB rings" grep -q "ring buffers: .* 64 KiB" \
	small.trace/perfcollect.log
n=$(perf script -i small.trace/perf.data -F tid 2>/dev/null | wc -l)
logged=$(sed -n 's/.*samples written: \([0-9]*\).*/\1/p' small.trace/perfcollect.log)
check "-buffersize 64K: perf reads all $logged samples ($n)" test "$n" = "$logged" -a "$n" -gt 0
finish
