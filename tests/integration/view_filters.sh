# view's filters on a real recording of two processes (the demo workload under two names,
# run together under real perf): -processfilter, -pid and -tid keep exactly the samples
# awk counts for them; -graphtype picks the orientation; bad values are refused.
source "$(dirname "$0")/lib.sh"
need_root
need_perf
V=$TEST_SRCDIR/integration/view

cp "$WORKLOADS/hot" other
perf record -q -e cpu-clock -F 1000 -g -o perf.data -- \
	sh -c "\"$WORKLOADS/hot\" 0.7 & ./other 0.7; wait" >/dev/null 2>perf.err ||
	{ cat perf.err; skip "perf record does not work here: run as root (or lower kernel.perf_event_paranoid)"; }
perf script -i perf.data --fields comm,pid,tid,time,period,event,ip,sym,dso >perf.data.txt 2>/dev/null
count() { awk -v mode=total "$@" -f "$V/perfscript.awk" perf.data.txt; }
total=$(count)
n_hot=$(count -v comm=hot)
n_other=$(count -v comm=other)
echo "samples: $total, hot $n_hot, other $n_other"
check "both processes were sampled" test "$n_hot" -gt 50 -a "$n_other" -gt 50

samples_line() { grep -m1 '^# Event:' "$1" | sed 's/^# Event: cpu-clock, \([0-9]*\) samples.*/\1/'; }

"$PC" view perf.data.txt -processfilter other >other.txt
check "-processfilter other keeps its $n_other samples" test "$(samples_line other.txt)" = "$n_other"
check "-processfilter other: the command table lists only other" \
	test "$(sed -n '/by command$/,/^$/p' other.txt | grep -v '^#' | awk 'NF{print $3}')" = other
"$PC" view perf.data.txt -processfilter other --folded other.folded
awk -v mode=folded -v comm=other -f "$V/perfscript.awk" perf.data.txt | sort >want.folded
check "-processfilter other: folded stacks equal awk's for that comm" \
	diff want.folded <(sort other.folded)
check "-processfilter other: every folded stack starts at other" \
	sh -c '! grep -qv "^other;" other.folded'

"$PC" view perf.data.txt -ProcessFilter hot,other >both.txt
check "-processfilter hot,other keeps both ($((n_hot + n_other)))" \
	test "$(samples_line both.txt)" = "$((n_hot + n_other))"

pid=$(awk '/^other /{split($2, a, "/"); print a[1]; exit}' perf.data.txt)
n_pid=$(count -v pid="$pid")
"$PC" view perf.data.txt -pid "$pid" >pid.txt
check "-pid $pid keeps its $n_pid samples" test "$(samples_line pid.txt)" = "$n_pid"
"$PC" view perf.data.txt --tid="$pid" >tid.txt
check "-tid $pid (single-threaded: the same samples)" test "$(samples_line tid.txt)" = "$n_pid"

"$PC" view perf.data.txt -processfilter nosuchcomm >none.txt 2>none.err
check "a filter that matches nothing: exit 1" test $? -eq 1
check "... and says so" grep -q 'no samples in perf.data.txt match the filters' none.err

entry() { sed -n '/^# Call graph/,$p' "$1" | grep -m1 -E '^ +[0-9.]+%  ' | awk '{print $4}'; }
"$PC" view perf.data.txt -graphtype callee -processfilter other >callee.txt
"$PC" view perf.data.txt -graphtype CALLER -processfilter other >caller.txt
check "callee: the first entry is hot_leaf" test "$(entry callee.txt)" = hot_leaf
check "caller: the first entry is the outermost caller" \
	test "$(entry caller.txt)" = "$(awk -v mode=caller -v comm=other -f "$V/perfscript.awk" perf.data.txt | head -1 | cut -d' ' -f2-)"
r=$(awk -v mode=caller -v comm=other -f "$V/perfscript.awk" perf.data.txt |
	awk -v total="$n_other" -f "$V/checkpath.awk" - caller.txt)
check "caller graph of other: top path matches awk ($r)" test "$r" = ok

"$PC" view perf.data.txt -graphtype sideways >/dev/null 2>bad.err
check "-graphtype sideways: exit 2" test $? -eq 2
"$PC" view perf.data.txt -percent-limit lots >/dev/null 2>bad.err
check "-percent-limit lots: exit 2" test $? -eq 2
"$PC" view perf.data.txt -graphtipe caller >/dev/null 2>bad.err
check "a misspelt option is refused with a hint" grep -q "did you mean '-graphtype'" bad.err
"$PC" view perf.data.txt >default.txt
"$PC" view perf.data.txt -percent-limit 0 >all.txt
entries() { grep -cE '^ +[0-9.]+%  +[0-9]+  \[' "$1"; }
if grep -q '^# [0-9]* more entr' default.txt; then
	check "-percent-limit 0 shows the entries under 0.5% too" \
		test "$(entries all.txt)" -gt "$(entries default.txt)"
else
	echo "(no entry under 0.5% in this recording: -percent-limit 0 not compared)"
fi
finish
