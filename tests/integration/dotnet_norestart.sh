# A .NET app started WITHOUT DOTNET_PerfMapEnabled: collect -pid asks its runtime over the
# diagnostics IPC (EnablePerfMap, .NET 8+) to write perf maps with the methods it already
# compiled, says so on screen and in the log, names the managed frames, and turns the maps
# off again at the end (or, when the collector was killed, the merge that finishes its
# trace does).  -nodotnetipc does not ask, and warns with the fix.  A process
# without a runtime gets neither.
source "$(dirname "$0")/lib.sh"
source "$TEST_SRCDIR/workloads/dotnet/testlib.sh"
need_root
need_perf
need_cmd unzip
need_dotnet_app

start_app 60
map=/tmp/perf-$APP_PID.map
check "the app writes no perf map by itself" test ! -e "$map"

"$PC" collect n1 -pid "$APP_PID" -collectsec 2 2>collect.err
rc=$?
cat collect.err
check "collect -pid exits 0" test "$rc" -eq 0
check "it says on screen that it asked the runtime" \
	grep -q "pid $APP_PID: asked its .NET runtime over the diagnostics IPC to write perf maps" collect.err
"$PC" log n1.trace.zip >n1.log
check "and in the log" grep -q "asked its .NET runtime over the diagnostics IPC" n1.log
check "the log has the runtime's version" grep -q "pid $APP_PID: .NET [0-9][0-9.]*, entry assembly pc-dotnet-app" n1.log
check "the log says the maps were turned off again" grep -q "perf maps turned off again" n1.log
holds_open "$APP_PID" "$map" && fail "the app still writes $map after collect" || pass "the app stopped writing $map"
unzip -q n1.trace.zip || fail "unzip"
check "perf-$APP_PID.map is in the zip" test -s n1.trace/perf-$APP_PID.map
check "jit-$APP_PID.dump is in the zip" test -s n1.trace/jit-$APP_PID.dump
txt=n1.trace/perf.data.txt
# Churn was compiled before the maps were turned on: it is there because the runtime
# wrote its existing methods too.
check "perf.data.txt names the app's methods" grep -q 'PcDotnetApp.HotLoop::Churn(int32)' $txt
check "and ReadyToRun CoreLib code (String.Join, loaded before)" \
	grep -q "System.String::Join(.*)\[PreJIT\] (/tmp/perf-$APP_PID.map)\$" $txt

# Asked again, with the map of the first time still there: the jitdump alone, the map as it was.
cp "$map" map.before
"$PC" collect n1b -pid "$APP_PID" -collectsec 1 2>again.err
rc=$?
cat again.err
check "a second collect exits 0" test "$rc" -eq 0
check "it asked for the jitdump alone" grep -q "pid $APP_PID: asked .* to write its jitdump" again.err
check "the map is left as it was (byte for byte)" cmp -s map.before "$map"
unzip -q n1b.trace.zip || fail "unzip n1b"
check "the app's methods are still named" grep -q 'PcDotnetApp.HotLoop::Churn(int32)' n1b.trace/perf.data.txt

# A collector killed (SIGKILL) while the maps are on cannot turn them off: its guard does
# (dotnet_guard.h), and the merge that finishes its directory takes the maps from the app's
# files (it would turn them off too, were the guard killed as well).
rm -f "$map" /tmp/jit-$APP_PID.dump
start_collect k -pid "$APP_PID"
wait_until 30 sh -c 'perf report -D -i k.trace/perf.data 2>/dev/null | grep -q "PERF_RECORD_SAMPLE("' ||
	fail "killed collector: no sample was flushed"
kill -KILL "$collector"
wait "$collector" 2>/dev/null
wait_until 10 eval '! holds_open "$APP_PID" "$map"'
check "killed collector: its guard turned the maps off" eval '! holds_open "$APP_PID" "$map"'
"$PC" merge k.trace 2>kmerge.err
rc=$?
cat kmerge.err
check "merge of the left-over: exit 0" test "$rc" -eq 0
holds_open "$APP_PID" "$map" && fail "the app still writes $map after the merge" ||
	pass "the app stopped writing $map"
check "merge of the left-over: the managed frames are named from the live maps" \
	bash -c "'$PC' cat k.trace.zip perf.data.txt | grep -q 'PcDotnetApp.HotLoop'"

# -nodotnetipc: nothing is asked; a warning says managed frames will be unnamed and how to fix.
rm -f "$map" /tmp/jit-$APP_PID.dump
"$PC" collect n2 -pid "$APP_PID" -collectsec 1 -nodotnetipc 2>noipc.err
rc=$?
cat noipc.err
check "-nodotnetipc: collect exits 0" test "$rc" -eq 0
check "-nodotnetipc: warns that managed frames will be unnamed" grep -q "warning: pid $APP_PID runs .NET without perf maps.*will be \[unknown\]" noipc.err
check "-nodotnetipc: names the fix" grep -q "DOTNET_PerfMapEnabled=1 .*perfcollect-c setenv" noipc.err
check "-nodotnetipc: no perf map was turned on" test ! -e "$map"
unzip -q n2.trace.zip || fail "unzip n2"
check "-nodotnetipc: and indeed the app's frames are unnamed" \
	bash -c "! grep -q 'PcDotnetApp.HotLoop' n2.trace/perf.data.txt"

# In a container (its own pid namespace and /tmp, as a sidecar sees it): the runtime is pid 1
# there; its socket and maps are reached through /proc/<pid>/root, the zip names them by the
# pid collect was given.
if unshare --pid --mount --fork --mount-proc true 2>/dev/null; then
	unshare --pid --mount --fork --mount-proc --kill-child sh -c \
		'mount --bind "$0" /mnt && mount -t tmpfs tmpfs /tmp && exec dotnet /mnt/pc-dotnet-app.dll 30' \
		"$(dirname "$DLL")" >cont.out 2>&1 &
	ush=$!
	wait_until 60 grep -q '^ready 1$' cont.out || { cat cont.out; fail "the app in the container did not start"; }
	cpid=$(pgrep -P "$ush" | head -1)
	# unshare ignores SIGTERM, and so may a pid 1: SIGKILL the app, the namespace goes with it.
	cleanup_hooks+=("kill -KILL $cpid 2>/dev/null; wait $ush 2>/dev/null")
	check "the containerized app is pid 1 in its namespace" grep -qP '^NSpid:\t'"$cpid"'\t1$' /proc/"$cpid"/status
	check "its socket is in its own /tmp only" test -S /proc/"$cpid"/root/tmp/dotnet-diagnostic-1-*-socket
	"$PC" collect c1 -pid "$cpid" -collectsec 1 2>cont.err
	rc=$?
	cat cont.err
	check "container: collect exits 0" test "$rc" -eq 0
	check "container: it asked the runtime in the container" \
		grep -q "pid $cpid: asked its .NET runtime.*/proc/$cpid/root/tmp/perf-1.map" cont.err
	unzip -q c1.trace.zip || fail "unzip c1"
	check "container: perf-$cpid.map is in the zip" test -s c1.trace/perf-$cpid.map
	check "container: jit-$cpid.dump is in the zip" test -s c1.trace/jit-$cpid.dump
	check "container: the app's methods are named" grep -q 'PcDotnetApp.HotLoop::Churn(int32)' c1.trace/perf.data.txt
	check "container: so is ReadyToRun CoreLib code" grep -q 'System.String::Join(.*)\[PreJIT\]' c1.trace/perf.data.txt
else
	echo "note: unshare --pid --mount does not work here; the container case is skipped"
fi

# Not .NET: no warning, a line in the log.
"$WORKLOADS/hot" 10 &
hot=$!
cleanup_hooks+=("kill $hot 2>/dev/null")
"$PC" collect n3 -pid "$hot" -collectsec 1 2>native.err
# (the .nettrace's "saved to" line names a file, not .NET)
check "native target: no .NET message on screen" \
	bash -c "! grep -v ' saved to ' native.err | grep -qi '\.NET'"
"$PC" log n3.trace.zip >n3.log
check "native target: the log says there is no runtime" grep -q "pid $hot: no .NET runtime" n3.log
finish
