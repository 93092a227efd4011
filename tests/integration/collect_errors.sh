# collect's failures are one clear line and a non-zero exit, and leave nothing behind:
# a missing PID, an unknown option (with a hint), no name, no permission (an unprivileged
# user with kernel.perf_event_paranoid > 0).  Accepted-but-void perfcollect options say so.
source "$(dirname "$0")/lib.sh"

# One stderr line, non-zero status, no files left.
one_line_failure() { # one_line_failure WHAT PATTERN cmd...
	local what=$1 pattern=$2; shift 2
	"$@" >out.txt 2>err.txt
	local rc=$?
	echo "$what: rc $rc: $(cat err.txt)"
	check "$what: non-zero exit" test "$rc" -ne 0
	check "$what: exactly one line on stderr" test "$(wc -l <err.txt)" -eq 1
	check "$what: says '$pattern'" grep -q -- "$pattern" err.txt
}

one_line_failure "-pid 999999" "no process 999999" "$PC" collect nope -pid 999999
check "-pid 999999: no trace left behind" test ! -e nope.trace -a ! -e nope.trace.zip
one_line_failure "unknown option" "unknown option '-colectsec'; did you mean '-collectsec'" \
	"$PC" collect x -colectsec 1
one_line_failure "no name" "a trace name is needed" "$PC" collect -collectsec 1
one_line_failure "bad size" "is not a size" "$PC" collect x -buffersize 12Q
one_line_failure "name with a slash" "plain name" "$PC" collect ../x -pid $$

"$PC" collect --help >help.txt 2>&1
check "collect --help exits 0" test $? -eq 0
for opt in pid collectsec buffersize threadtime offcpu hwevents system outdir nodotnetipc \
	nolttng noperf events rawevents gccollectonly gconly gcwithheap; do
	check "collect --help lists -$opt" grep -q -- "-$opt" help.txt
done

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
	[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 0 ]; then
	# As nobody, system-wide recording is not allowed at this paranoid level.
	mkdir nb && chmod 777 nb && chmod 755 "$T"
	(cd nb && one_line_failure "no permission" "kernel.perf_event_paranoid" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$PC" collect np -collectsec 1)
	check "no permission: the line says how to fix it" grep -q "CAP_PERFMON" nb/err.txt
	check "no permission: no trace left behind" test ! -e nb/np.trace -a ! -e nb/np.trace.zip
	# install names the same cause and fix, and fails.
	setpriv --reuid=65534 --regid=65534 --clear-groups "$PC" install >nb/install.txt 2>&1
	rc=$?
	cat nb/install.txt
	check "install as nobody: non-zero exit" test "$rc" -ne 0
	check "install as nobody: says recording is not allowed, and the fix" \
		grep -q "MISSING  system-wide recording: no permission" nb/install.txt
	"$PC" install >install.txt 2>&1
	check "install as root: exit 0" test $? -eq 0
	check "install as root: recording works" grep -q "ok .*system-wide recording" install.txt
else
	echo "not root, no setpriv or perf_event_paranoid <= 0: the permission case is not run"
fi

if [ "$(id -u)" = 0 ] && command -v perf >/dev/null; then
	# Accepted perfcollect options that do not apply: said on screen and in the log.
	"$WORKLOADS/hot" 60 & # alive through both collects, however slow (killed at exit)
	hot=$!
	cleanup_hooks+=("kill $hot 2>/dev/null")
	# -nolttng: perfcollect's runtime events came from LTTng; here it turns them off, and
	# says so (the -gc* options: dotnet_events_options.sh).
	"$PC" collect opts -pid "$hot" -collectsec 1 -nolttng -threadtime 2>opts.err
	rc=$?
	cat opts.err
	check "void options: exit 0" test "$rc" -eq 0
	check "void options: -nolttng said on screen" grep -q "warning: -nolttng" opts.err
	check "-threadtime: no warning about it" bash -c "! grep -q 'warning: -threadtime' opts.err"
	unzip -q opts.trace.zip opts.trace/perfcollect.log
	check "void options: said in the log" grep -q "nolttng" opts.trace/perfcollect.log
	check "-threadtime: the log lists its sched_switch event" \
		grep -q "event sched:sched_switch: type 2" opts.trace/perfcollect.log
	# An existing trace directory (an earlier run's leftovers) is never overwritten.
	mkdir keep.trace && echo precious >keep.trace/perf.data
	one_line_failure "existing trace dir" "already exists" "$PC" collect keep -pid "$hot"
	check "existing trace dir untouched" grep -q precious keep.trace/perf.data
fi
finish
