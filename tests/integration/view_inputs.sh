# view reads the same perf script text from a bare file, a .trace directory, a trace.zip
# (made by zip, not by us), stdin, and a recording without callchains; bad inputs get one
# clear line and exit 1; odd symbol names still give a well-formed SVG.
source "$(dirname "$0")/lib.sh"
need_root
need_perf
need_cmd zip
need_cmd xmllint
V=$TEST_SRCDIR/integration/view

perf record -q -e cpu-clock -F 1000 -g -o perf.data -- "$WORKLOADS/hot" 0.5 >/dev/null 2>perf.err ||
	{ cat perf.err; skip "perf record does not work here: run as root (or lower kernel.perf_event_paranoid)"; }
perf script -i perf.data --fields comm,pid,tid,time,period,event,ip,sym,dso >perf.data.txt 2>/dev/null
awk -v mode=folded -f "$V/perfscript.awk" perf.data.txt | sort >want.folded

mkdir s.trace && cp perf.data.txt s.trace/ && cp perf.data s.trace/
zip -qr s.trace.zip s.trace
"$PC" view perf.data.txt --folded - | sort >file.folded
"$PC" view s.trace --folded - | sort >dir.folded
"$PC" view s.trace.zip --folded - | sort >zip.folded
"$PC" view - --folded - <perf.data.txt | sort >stdin.folded
check "bare perf.data.txt" diff want.folded file.folded
check ".trace directory" diff want.folded dir.folded
check "trace.zip (read without unzip)" diff want.folded zip.folded
check "stdin" diff want.folded stdin.folded
"$PC" view s.trace.zip >zip.txt
check "trace.zip: the text report" grep -q 'hot_leaf' zip.txt

# A zip without perf.data.txt (raw data only) and other wrong inputs.
mkdir r.trace && cp perf.data r.trace/ && zip -qr r.trace.zip r.trace
"$PC" view r.trace.zip >/dev/null 2>err.txt
check "zip without perf.data.txt: exit 1" test $? -eq 1
check "... saying what is missing" grep -q 'has no perf.data.txt' err.txt
check "... and the merge that writes it" grep -q "'perfcollect-c merge r.trace.zip'" err.txt
"$PC" merge r.trace.zip 2>/dev/null
check "... which then works (under a new name)" bash -c "'$PC' view r-merged.trace.zip >/dev/null"
head -c 4096 perf.data >junk.bin
"$PC" view junk.bin >/dev/null 2>err.txt
check "raw perf.data: exit 1" test $? -eq 1
check "... suggesting merge" grep -q "raw perf.data.*'perfcollect-c merge junk.bin'" err.txt
head -c 4096 /dev/urandom | tr -d 'P' >random.bin
"$PC" view random.bin >/dev/null 2>err.txt
check "binary input: exit 1" test $? -eq 1
check "... 'not perf script output'" grep -q 'not perf script output' err.txt
(zip -q notrace.zip random.bin)
"$PC" view notrace.zip >/dev/null 2>err.txt
check "a zip that is no trace: exit 1, said so" \
	bash -c "test $? -eq 1 && grep -q 'not a trace' err.txt"
"$PC" view nosuch.zip >/dev/null 2>err.txt
check "missing input: exit 1" test $? -eq 1
printf 'PK\003\004 not really a zip' >fake.zip
"$PC" view fake.zip >/dev/null 2>err.txt
check "a broken zip: exit 1, one line" test $? -eq 1 -a "$(wc -l <err.txt)" -eq 1
: >empty.txt
"$PC" view empty.txt >/dev/null 2>err.txt
check "empty input: exit 1" test $? -eq 1
check "... 'is empty'" grep -q 'empty.txt is empty' err.txt
"$PC" view >/dev/null 2>err.txt
check "no input: exit 2" test $? -eq 2

# Without -g perf prints the one frame on the header line.
perf record -q -e cpu-clock -F 1000 -o flat.data -- "$WORKLOADS/hot" 0.3 >/dev/null 2>&1
perf script -i flat.data --fields comm,pid,tid,time,period,event,ip,sym,dso >flat.txt 2>/dev/null
"$PC" view flat.txt --folded flat.folded
check "no callchains: one frame per sample, hot_leaf first" \
	test "$(sort -t' ' -k2 -nr flat.folded | head -1 | cut -d' ' -f1)" = "hot;hot_leaf"

# Two events, one a tracepoint with its fields after the name: cpu-clock by default,
# the other one with -event.
if perf record -q -e cpu-clock -e sched:sched_switch -F 1000 -g -o tp.data -- \
	sh -c "\"$WORKLOADS/hot\" 0.3; sleep 0.05" >/dev/null 2>&1; then
	perf script -i tp.data -F comm,pid,tid,time,period,event,ip,sym,dso,trace >tp.txt 2>/dev/null
	n_cpu=$(grep -c ' cpu-clock: ' tp.txt)
	n_sw=$(grep -c ' sched:sched_switch: prev_comm=' tp.txt)
	"$PC" view tp.txt >tp.report
	check "two events: cpu-clock ($n_cpu) by default" grep -q "^# Event: cpu-clock, $n_cpu samples" tp.report
	check "... the other one named" grep -q "^# Other events (-event NAME): sched:sched_switch ($n_sw)" tp.report
	"$PC" view tp.txt -event sched:sched_switch >sw.report
	check "-event sched:sched_switch ($n_sw)" grep -q "^# Event: sched:sched_switch, $n_sw samples" sw.report
	check "... its stacks are the scheduler's" grep -q '\[k\] __schedule' sw.report
	"$PC" view tp.txt -event nope >/dev/null 2>err.txt
	rc=$?
	names_both() { test "$rc" -eq 1 && grep -q "it has: .*cpu-clock ($n_cpu)" err.txt &&
		grep -q "it has: .*sched:sched_switch ($n_sw)" err.txt; }
	check "-event nope: exit 1, naming the events there" names_both
else
	echo "(sched:sched_switch cannot be recorded here: tracepoint events not tested)"
fi

# Names with XML specials, control bytes and invalid UTF-8; a comm with spaces.
{
	printf 'my app  77/78  [001]  1.000001:  1 cpu-clock: \n'
	printf '\t1000 operator<<(std::ostream&, "q" \x27s\x27) (/bin/a b)\n'
	printf '\t2000 bad\x01\xff\xc3(utf8) caf\xc3\xa9 (/bin/a b)\n'
	printf '\t3000 main (/bin/a b)\n\n'
} >odd.txt
"$PC" view odd.txt --flamegraph odd.svg --folded odd.folded 2>/dev/null
check "odd names: well-formed SVG" xmllint --noout odd.svg
check "odd names: the text is escaped" grep -q 'operator&lt;&lt;(std::ostream&amp;, &quot;q&quot;' odd.svg
check "odd names: valid UTF-8 kept" grep -q 'café' odd.svg
check "odd names: a comm with spaces" grep -q '^my app;main;' odd.folded
finish
