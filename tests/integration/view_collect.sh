# view on a real trace.zip written by our own `collect -pid` of the demo workload: the
# zip is read in place (no unzip), and the call graph, the folded stacks, the filters and
# the flame graph agree with awk's reading of the perf.data.txt inside it.  A collect that
# fails or writes no samples fails it.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd unzip
need_cmd xmllint
V=$TEST_SRCDIR/integration/view

"$WORKLOADS/hot" 4 &
hot=$!
cleanup_hooks+=("kill $hot 2>/dev/null")
"$PC" collect vt -pid "$hot" -collectsec 1 >collect.out 2>&1 ||
	{ cat collect.out; fail "collect -pid of the demo workload failed"; finish; }
kill "$hot" 2>/dev/null
wait "$hot" 2>/dev/null
[ -s vt.trace.zip ] || { fail "collect wrote no vt.trace.zip"; finish; }
unzip -p vt.trace.zip vt.trace/perf.data.txt >txt 2>/dev/null || { fail "the zip has no perf.data.txt"; finish; }
total=$(awk -v mode=total -f "$V/perfscript.awk" txt)
[ "$total" -gt 0 ] || { fail "perf.data.txt in the zip has no samples"; finish; }
echo "$total samples in vt.trace.zip"

"$PC" view vt.trace.zip >callee.txt
check "view of the zip exits 0" test $? -eq 0
awk -v mode=callee -f "$V/perfscript.awk" txt >path.callee
r=$(awk -v total="$total" -f "$V/checkpath.awk" path.callee callee.txt)
check "callee graph: top path matches awk ($r)" test "$r" = ok
check "the hottest function is hot_leaf" test "$(head -1 path.callee | cut -d' ' -f2-)" = hot_leaf

"$PC" view vt.trace.zip -graphtype caller >caller.txt
awk -v mode=caller -f "$V/perfscript.awk" txt >path.caller
r=$(awk -v total="$total" -f "$V/checkpath.awk" path.caller caller.txt)
check "caller graph: top path matches awk ($r)" test "$r" = ok

"$PC" view vt.trace.zip --folded got.folded --flamegraph vt.svg 2>/dev/null
awk -v mode=folded -f "$V/perfscript.awk" txt | sort >want.folded
check "folded output equals awk's" diff want.folded <(sort got.folded)
check "flame graph is well-formed XML" xmllint --noout vt.svg
check "flame graph shows hot_leaf" grep -q '<title>hot_leaf$' vt.svg

n_pid=$(awk -v mode=total -v pid="$hot" -f "$V/perfscript.awk" txt)
"$PC" view vt.trace.zip -pid "$hot" -processfilter hot >pid.txt
check "-pid $hot -processfilter hot keeps its $n_pid samples" \
	grep -q "^# Event: cpu-clock, $n_pid samples" pid.txt
finish
