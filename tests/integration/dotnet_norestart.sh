# A .NET app started WITHOUT DOTNET_PerfMapEnabled: collect -pid asks its runtime over the
# diagnostics IPC (EnablePerfMap, .NET 8+) to write perf maps with the methods it already
# compiled, says so on screen and in the log, names the managed frames, and turns the maps
# off again at the end.  -nodotnetipc does not ask, and warns with the fix.  A process
# without a runtime gets neither.
source "$(dirname "$0")/lib.sh"
source "$TEST_SRCDIR/workloads/dotnet/testlib.sh"
need_root
need_cmd unzip
need_dotnet_app

start_app 30
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
	grep -q 'System.String::Join(.*)\[PreJIT\] (.*/System.Private.CoreLib.dll)$' $txt

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
