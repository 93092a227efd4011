# Side by side with Microsoft's own writer of such files: `dotnet-trace collect-linux`
# (microsoft/one-collect's record-trace under the hood) and `collect` record the same .NET
# app at once; TraceLog opens both, and the table compares CPU samples, named frames and
# events.  Both must name the app's hot methods at the top.  collect-linux needs a kernel
# with user_events (CONFIG_USER_EVENTS, 6.4 and later), .NET 10 and root; where any is
# missing the test says which in its skip line.
source "$(dirname "$0")/lib.sh"
source "$TEST_SRCDIR/traceevent/testlib.sh"
need_root
tracefs=/sys/kernel/tracing
[ -e $tracefs/user_events_data ] || [ -e /sys/kernel/debug/tracing/user_events_data ] ||
	skip "this kernel ($(uname -r)) has no user_events ($tracefs/user_events_data; CONFIG_USER_EVENTS), which dotnet-trace collect-linux records through: no side-by-side table here"
need_traceevent
source "$TEST_SRCDIR/workloads/dotnet/testlib.sh"
need_dotnet_app
case $(dotnet --list-runtimes 2>/dev/null) in *"Microsoft.NETCore.App 1"[0-9]*) ;;
*) skip "dotnet-trace collect-linux needs a .NET 10 runtime" ;; esac

# dotnet-trace from NuGet, cached in the build directory.
tools=${BUILD_DIR:?}/tests/dotnet-trace
if [ ! -x "$tools/dotnet-trace" ]; then
	DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 \
		dotnet tool install --tool-path "$tools" dotnet-trace >install.log 2>&1 ||
		skip "dotnet tool install dotnet-trace failed (no NuGet?): $(tail -1 install.log)"
fi
"$tools/dotnet-trace" collect-linux --help >/dev/null 2>&1 ||
	skip "this dotnet-trace has no collect-linux verb ($("$tools/dotnet-trace" --version))"

start_app 30 DOTNET_PerfMapEnabled=1
"$tools/dotnet-trace" collect-linux -p "$APP_PID" --duration 00:00:04 -o ms.nettrace \
	>ms.out 2>&1 &
ms=$!
"$PC" collect ours -pid "$APP_PID" -collectsec 3 -format nettrace 2>ours.err
wait $ms
check "dotnet-trace collect-linux wrote its file ($(tail -1 ms.out))" test -s ms.nettrace
check "collect wrote ours.nettrace" test -s ours.nettrace
traceevent tracelog ms.nettrace >ms.te 2>&1
traceevent tracelog ours.nettrace >ours.te 2>&1
for f in ms ours; do
	check "$f: TraceLog converts it" grep -q '^cpu_samples ' $f.te
done
row() { # FILE: samples, % of leaf frames named, event types
	awk '$1 == "cpu_samples" { s = $2 } $1 == "cpu_leaf" { t += $2; if ($3 !~ /!\?$|^\?!\?$/) n += $2 }
		$1 == "event" { e++ } END { printf "%8d %7.1f%% %6d", s, t ? 100 * n / t : 0, e }' "$1"
}
echo "                     samples  named  event types"
echo "dotnet-trace:       $(row ms.te)"
echo "perfcollect-c:      $(row ours.te)"
for f in ms ours; do
	check "$f: the app's hot method is among the top leaf frames" \
		bash -c "grep '^cpu_leaf' $f.te | head -5 | grep -q 'PcDotnetApp.HotLoop::'"
done
finish
