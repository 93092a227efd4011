# Call stacks through Debian's own libc, built without frame pointers: tests/workloads/
# libc_hot spends its time in qsort calling back into sort_cmp and in memcpy, each called
# from frame-pointer code (sort_loop, copy_loop, main).  Recorded by collect -pid (hybrid
# call stacks, the default) and by perf record --call-graph dwarf -p at the same time; the
# samples in sort_cmp must show qsort and its callers above libc, those in memcpy theirs,
# in >= 95 % of them, as perf's own dwarf unwinding does; perf script of the zip's perf.data
# (rewritten with the unwound chains) shows the same.  Our perf.data is at most a quarter of
# perf's.
source "$(dirname "$0")/lib.sh"
need_root
need_perf
[ -e /lib/x86_64-linux-gnu/libc.so.6 ] || skip "not Debian's x86-64 libc"

"$WORKLOADS/libc_hot" 8 >/dev/null &
pid=$!
cleanup_hooks+=("kill $pid 2>/dev/null")
sleep 0.2
"$PC" collect libc -pid "$pid" -collectsec 3 >collect.out 2>&1 &
c=$!
perf record -q --call-graph dwarf -F 1000 -p "$pid" -o perf.data -- sleep 3 >/dev/null 2>&1
wait "$c" || { fail "collect failed"; cat collect.out; }
kill "$pid" 2>/dev/null
"$PC" cat libc.trace.zip libc.trace/perf.data.txt >ours.txt
"$PC" cat libc.trace.zip libc.trace/perf.data >ours.data
perf script -i perf.data -F comm,tid,time,ip,sym,dso >perf.txt 2>/dev/null
perf script -i ours.data -F comm,tid,time,ip,sym,dso >chain.txt 2>/dev/null

# name LEAF CALLERS: one hot path, in the three texts.
path() {
	local name=$1 leaf=$2; shift 2
	read -r ok n <<<"$(callers_share ours.txt "$leaf" "$@")"
	read -r pok pn <<<"$(callers_share perf.txt "$leaf" "$@")"
	read -r cok cn <<<"$(callers_share chain.txt "$leaf" "$@")"
	echo "$name: the callers $* in ours $ok of $n ($(percent "$ok" "$n") %)," \
		"perf --call-graph dwarf $pok of $pn ($(percent "$pok" "$pn") %)," \
		"perf script of the zip's perf.data $cok of $cn ($(percent "$cok" "$cn") %)"
	check "$name: samples recorded ($n)" test "$n" -ge 50
	check "$name: >= 95 % keep their callers above libc" test "$((ok * 100))" -ge "$((n * 95))"
	check "$name: so does perf's own dwarf unwinding (>= 95 %)" test "$((pok * 100))" -ge "$((pn * 95))"
	check "$name: perf script of the zip's perf.data shows as many" test "$cok $cn" = "$ok $n"
}
path "qsort's callback" '^sort_cmp$' sort_loop main
# (qsort's merge sort copies with memcpy too: those samples are the other path's)
CALLERS_SKIP='msort|qsort|sort_loop' path "memcpy" '^__mem(cpy|move)' copy_loop main
ours=$(stat -c %s ours.data) theirs=$(stat -c %s perf.data)
echo "perf.data: ours $ours bytes, perf's $theirs ($((theirs / (ours > 0 ? ours : 1)))x)"
check "our perf.data is at most a quarter of perf's" test "$((ours * 4))" -le "$theirs"
finish
