# view on real `perf script` text of the demo workload (recorded here by real perf):
# the call graph's heaviest path in both orientations, the top functions, the folded stacks
# and the flame graph, each checked against counts an awk script computes from the same
# text on its own (tests/integration/view/perfscript.awk); the pager on a terminal.
source "$(dirname "$0")/lib.sh"
need_root
need_perf
need_cmd xmllint
V=$TEST_SRCDIR/integration/view

perf record -q -e cpu-clock -F 1000 -g -o perf.data -- "$WORKLOADS/hot" 1 >/dev/null 2>perf.err ||
	{ cat perf.err; skip "perf record does not work here: run as root (or lower kernel.perf_event_paranoid)"; }
perf script -i perf.data --fields comm,pid,tid,time,period,event,ip,sym,dso >perf.data.txt 2>/dev/null
total=$(awk -v mode=total -f "$V/perfscript.awk" perf.data.txt)
check "perf recorded the workload ($total samples)" test "$total" -gt 100

# Callee (the default): hot_leaf first, then its callers, each level's count and percentage.
"$PC" view perf.data.txt >callee.txt 2>view.err
check "view exits 0" test $? -eq 0
awk -v mode=callee -f "$V/perfscript.awk" perf.data.txt >path.callee
head -3 path.callee
check "the heaviest leaf is hot_leaf (awk)" test "$(head -1 path.callee | cut -d' ' -f2-)" = hot_leaf
r=$(awk -v total="$total" -f "$V/checkpath.awk" path.callee callee.txt)
check "callee graph: top path and percentages match awk ($r)" test "$r" = ok
check "callee graph: the top path goes through main" grep -q '^ *[| ]*main$\|--main$' callee.txt
check "header counts every sample" grep -q "^# Event: cpu-clock, $total samples$" callee.txt

# Caller: the outermost caller at the root, hot_leaf under main.
"$PC" view perf.data.txt -graphtype caller >caller.txt
awk -v mode=caller -f "$V/perfscript.awk" perf.data.txt >path.caller
r=$(awk -v total="$total" -f "$V/checkpath.awk" path.caller caller.txt)
check "caller graph: top path and percentages match awk ($r)" test "$r" = ok
first=$(sed -n '/^# Call graph/,$p' caller.txt | grep -m1 -E '^ +[0-9.]+%  ' | awk '{print $4}')
check "caller graph: the root entry ($first) is the outermost caller, not hot_leaf" \
	test "$first" = "$(head -1 path.caller | cut -d' ' -f2-)" -a "$first" != hot_leaf
check "caller graph: hot_leaf sits below main" \
	awk '/^# Call graph/{g=1} g && /main$/{m=1} g && m && /hot_leaf$/{f=1} END{exit !f}' caller.txt

# Top functions: hot_leaf's self samples are the samples whose leaf frame is hot_leaf.
self=$(awk '/^[^ \t#]/{h=1; next} h && /^\t/{print $2; h=0} /^$/{h=0}' perf.data.txt | grep -c '^hot_leaf$')
row=$(sed -n '/^# Top functions by self/,/^$/p' callee.txt | grep -m1 -v '^#')
echo "top row: $row"
check "top function is hot_leaf with $self self samples" \
	test "$(echo "$row" | awk '{print $2, $6}')" = "$self hot_leaf"

# Folded stacks equal awk's, line by line.
"$PC" view perf.data.txt --folded out.folded
awk -v mode=folded -f "$V/perfscript.awk" perf.data.txt | sort >want.folded
sort out.folded >got.folded
check "folded output equals awk's ($(wc -l <want.folded) stacks)" diff want.folded got.folded
check "folded counts add up to every sample" \
	test "$(awk '{s += $NF} END {print s}' out.folded)" = "$total"

# Flame graph: well-formed, the hot function in it, the root frame with every sample.
"$PC" view perf.data.txt --flamegraph out.svg 2>svg.err
check "flame graph written" test -s out.svg
check "flame graph is well-formed XML" xmllint --noout out.svg
check "flame graph shows hot_leaf" grep -q '<title>hot_leaf$' out.svg
check "flame graph root holds all $total samples" grep -q "^$total samples, 100.00%" out.svg
if command -v node >/dev/null; then
	# Its script, run by a real JavaScript engine on the file's own frames.
	node "$V/svgcheck.js" out.svg hot_leaf >js.out 2>&1
	rc=$?
	cat js.out
	check "flame graph script: hover, zoom, search and reset work (node)" test "$rc" -eq 0
else
	echo "(node is not installed: the flame graph's script is not run)"
fi

# Piped: plain text, no pager.  On a terminal: $PAGER.
PAGER="sed s/^/PAGED:/" "$PC" view perf.data.txt >piped.txt
check "piped output is not paged" sh -c '! grep -q PAGED: piped.txt'
if command -v script >/dev/null; then
	PAGER="sed s/^/PAGED:/" script -qec "\"$PC\" view perf.data.txt" /dev/null >tty.txt </dev/null
	check "on a terminal the report goes through \$PAGER" grep -q 'PAGED:# Call graph' tty.txt
fi
finish
