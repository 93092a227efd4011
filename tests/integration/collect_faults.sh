# collect -system (page faults): a process that touches fresh memory (dd filling a 32 MiB
# buffer from /dev/zero) is recorded with minor-faults samples with stacks, whose periods add
# up to about the fault count `perf stat` measures for the same command (most of them on the
# fresh buffer); major-faults is recorded too.
source "$(dirname "$0")/lib.sh"
need_root
need_perf
need_cmd unzip
need_cmd dd

# A target that waits (stopped) until we record, then becomes dd with the same pid.
dd_cmd="dd if=/dev/zero of=/dev/null bs=32M count=4"
bash -c "kill -STOP \$\$; exec $dd_cmd 2>/dev/null" &
target=$!
cleanup_hooks+=("kill -9 $target 2>/dev/null")
wait_until 10 grep -q '^State:.*T' /proc/$target/status || fail "the target did not stop"

start_collect faults -pid "$target" -system
kill -CONT "$target"
wait "$collector"
rc=$?
cat faults.err
check "collect -system exits 0" test "$rc" -eq 0
unzip -q faults.trace.zip || fail "unzip"
data=faults.trace/perf.data

perf evlist -i "$data" >evlist.txt 2>/dev/null
check "perf.data has major-faults" grep -qx major-faults evlist.txt
check "perf.data has minor-faults" grep -qx minor-faults evlist.txt
perf script -i "$data" -F comm,period,event,ip,sym >script.txt 2>script.err
check "perf script prints no warnings: $(head -3 script.err)" test ! -s script.err
# dd's minor-faults samples: how many, how many with a stack, and their periods' sum.
read -r n stacked sum <<<"$(awk 'BEGIN{RS=""} /^ *dd +[0-9]+ minor-faults:/ {
	split($0, f, " "); n++; sum += f[2]; if (NF > 4) s++ } END {print n+0, s+0, sum+0}' \
	script.txt)"
perf stat -x, -e minor-faults $dd_cmd 2>stat.txt >/dev/null
want=$(awk -F, '$3 == "minor-faults" {print $1}' stat.txt)
echo "dd minor-faults samples: $n ($stacked with a stack), periods add up to $sum; perf stat counts $want"
check "dd's page faults are sampled, with stacks" test "$n" -gt 0 -a "$stacked" -eq "$n"
check "the sampled periods add up to about perf stat's count ($sum vs $want)" \
	test -n "$want" -a $((sum * 2)) -ge "${want:-0}" -a $((sum * 2)) -le $((${want:-0} * 3))
check "perf.data.txt has the minor-faults samples" grep -q ' minor-faults:' faults.trace/perf.data.txt
finish
