# Side by side with Microsoft's own writers of such files, on the same .NET app at the same
# time; TraceLog (PerfView's reader) opens both, and a table compares them.
#
# Everywhere: `dotnet-trace collect` (EventPipe: its SampleProfiler samples each managed
# thread every millisecond, managed frames only), read as PerfView's "Thread Time" view of
# such a file builds it, against `collect -format nettrace`'s CPU samples.  Both must name
# the app's two hot methods with the same names, reach them through the same managed
# callers on the same thread, and find that thread in them most of the time.
#
# Where the kernel has user_events (CONFIG_USER_EVENTS, 6.4 and later) and .NET 10 runs:
# also `dotnet-trace collect-linux` (microsoft/one-collect's record-trace: CPU samples through
# perf events, as ours), compared sample for sample kind, and view must read
# collect-linux's file too.  The output says which parts ran.
source "$(dirname "$0")/lib.sh"
source "$TEST_SRCDIR/traceevent/testlib.sh"
need_root
need_traceevent
source "$TEST_SRCDIR/workloads/dotnet/testlib.sh"
need_dotnet_app

# dotnet-trace from NuGet (the pinned version, tests/dotnet_trace.sh).
need_dotnet_trace
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1

# ---- dotnet-trace collect (EventPipe), every kernel ----
echo "part 1: dotnet-trace collect (EventPipe SampleProfiler) beside collect -format nettrace"
start_app 30 DOTNET_PerfMapEnabled=1
"$DOTNET_TRACE" collect -p "$APP_PID" --duration 00:00:00:04 -o ep.nettrace >ep.out 2>&1 &
ep=$!
"$PC" collect ours -pid "$APP_PID" -collectsec 3 -format nettrace 2>ours.err
wait $ep
check "dotnet-trace collect wrote its file ($(tail -1 ep.out))" test -s ep.nettrace
check "collect wrote ours.nettrace" test -s ours.nettrace
traceevent tracelog ep.nettrace --sampleprofiler --stacks >ep.te 2>&1
traceevent tracelog ours.nettrace --stacks >ours.te 2>&1
check "dotnet-trace's file: TraceLog opens it, PerfView's SampleProfiler view has samples" \
	grep -q '^sp_state CPU_TIME [1-9]' ep.te
check "ours: TraceLog opens it, PerfView's CPU view has samples" grep -q '^cpu_samples [1-9]' ours.te

# One line per sample of the app's main thread (its TID is the app's PID): the managed frames
# from the root down to the app's hot method (HotLoop.Churn or HotLoop.Digits), or "other".
# Below the hot method the two differ by design: EventPipe has managed frames only, ours has
# the runtime's native frames (GC, allocation) too.
signatures() { # signatures FILE PREFIX
	awk -v tid="$APP_PID" -v prefix="$2" '
	$1 == prefix {
		n = split(substr($0, length(prefix) + 2), f, ";")
		t = ""
		for (i = 1; i <= n; i++)
			if (f[i] ~ /^Thread \(/) { t = f[i]; sub(/^Thread \(/, "", t); sub(/\).*/, "", t) }
		if (prefix == "sp_stack") t = f[1]
		if (t != tid) next
		sig = ""; cut = ""
		for (i = 1; i <= n; i++) {
			split(f[i], mf, "!")
			mod = mf[1]
			if (index(f[i], "!") == 0 || mod ~ /\.so(\.[0-9]+)*$/ || mod ~ /^\[/ || mod == "dotnet" ||
			    mod == "?" || mod ~ /^memfd:/) continue
			sig = sig (sig == "" ? "" : ";") f[i]
			if (f[i] ~ /!PcDotnetApp\.HotLoop\.(Churn|Digits)\(/) cut = sig
		}
		print (cut == "" ? "other" : cut)
	}' "$1"
}
signatures ep.te sp_stack | sort | uniq -c | sort -rn >ep.sig
signatures ours.te cpu_stack | sort | uniq -c | sort -rn >ours.sig
share() { # share FILE METHOD: % of the main thread's samples under METHOD
	awk -v m="$2" '{ t += $1; if (index($0, "HotLoop." m "(")) n += $1 }
		END { printf "%.1f", t ? 100 * n / t : 0 }' "$1"
}
total() { awk '{ t += $1 } END { print t + 0 }' "$1"; }
types() { grep -c '^event ' "$1"; }
echo "                         main-thread samples  HotLoop.Churn  HotLoop.Digits  event types"
printf "dotnet-trace collect:    %19d  %12s%%  %13s%%  %11d\n" "$(total ep.sig)" \
	"$(share ep.sig Churn)" "$(share ep.sig Digits)" "$(types ep.te)"
printf "perfcollect-c:           %19d  %12s%%  %13s%%  %11d\n" "$(total ours.sig)" \
	"$(share ours.sig Churn)" "$(share ours.sig Digits)" "$(types ours.te)"
echo "(dotnet-trace's samples are wall-clock: a thread held in a GC counts too; ours are CPU time)"
for m in Churn Digits; do
	ep_chain=$(grep -m1 "HotLoop\.$m(" ep.sig | sed 's/^ *[0-9]* //')
	ours_chain=$(grep -m1 "HotLoop\.$m(" ours.sig | sed 's/^ *[0-9]* //')
	check "HotLoop.$m: named alike, through the same managed callers, in both (${ep_chain//;/ > })" \
		test -n "$ep_chain" -a "$ep_chain" = "$ours_chain"
done
# The shares themselves are not compared: dotnet-trace's samples count a thread preempted
# or held for a GC where it stands, ours only CPU time, and on a busy machine the two part
# (10.8 % and 32.5 % for Churn under a load of 14 on 2 CPUs).  Both must find the main
# thread in the app's hot methods most of the time.
for f in ep ours; do
	both=$(awk -v a="$(share $f.sig Churn)" -v b="$(share $f.sig Digits)" 'BEGIN { print a + b }')
	check "$f: HotLoop.Churn and HotLoop.Digits hold most of the main thread's samples ($both%)" \
		awk -v s="$both" 'BEGIN { exit !(s >= 50) }'
done
for f in ep ours; do
	check "$f: the runtime's GC events are there" grep -q '^event Microsoft-Windows-DotNETRuntime/GC/Start ' $f.te
done
kill "$APP_PID" 2>/dev/null

# ---- dotnet-trace collect-linux, where the kernel has user_events ----
tracefs=/sys/kernel/tracing
why=
if ! [ -e $tracefs/user_events_data ] && ! [ -e /sys/kernel/debug/tracing/user_events_data ]; then
	why="this kernel ($(uname -r)) has no user_events ($tracefs/user_events_data; CONFIG_USER_EVENTS, Linux 6.4+), which dotnet-trace collect-linux records through"
else
	case $(dotnet --list-runtimes 2>/dev/null) in *"Microsoft.NETCore.App 1"[0-9]*) ;;
	*) why="dotnet-trace collect-linux needs a .NET 10 runtime" ;; esac
	"$DOTNET_TRACE" collect-linux --help >/dev/null 2>&1 ||
		why="this dotnet-trace has no collect-linux verb ($("$DOTNET_TRACE" --version))"
fi
if [ -n "$why" ]; then
	echo "part 2 (dotnet-trace collect-linux) not run: $why; part 1 above is the side-by-side check here"
	finish
fi
echo "part 2: dotnet-trace collect-linux beside collect -format nettrace"
start_app 30 DOTNET_PerfMapEnabled=1
"$DOTNET_TRACE" collect-linux -p "$APP_PID" --duration 00:00:04 -o ms.nettrace \
	>ms.out 2>&1 &
ms=$!
"$PC" collect ours2 -pid "$APP_PID" -collectsec 3 -format nettrace 2>ours2.err
wait $ms
check "dotnet-trace collect-linux wrote its file ($(tail -1 ms.out))" test -s ms.nettrace
check "collect wrote ours2.nettrace" test -s ours2.nettrace
traceevent tracelog ms.nettrace >ms.te 2>&1
traceevent tracelog ours2.nettrace >ours2.te 2>&1
for f in ms ours2; do
	check "$f: TraceLog converts it" grep -q '^cpu_samples ' $f.te
done
row() { # FILE: samples, % of leaf frames named, event types
	awk '$1 == "cpu_samples" { s = $2 } $1 == "cpu_leaf" { t += $2; if ($3 !~ /!\?$|^\?!\?$/) n += $2 }
		$1 == "event" { e++ } END { printf "%8d %7.1f%% %6d", s, t ? 100 * n / t : 0, e }' "$1"
}
echo "                     samples  named  event types"
echo "dotnet-trace:       $(row ms.te)"
echo "perfcollect-c:      $(row ours2.te)"
for f in ms ours2; do
	check "$f: the app's hot method is among the top leaf frames" \
		bash -c "grep '^cpu_leaf' $f.te | head -5 | grep -q 'PcDotnetApp.HotLoop'"
done
# view reads collect-linux's file (Universal providers) as TraceLog does.
"$PC" view ms.nettrace >ms.view 2>ms.view.err
check "view reads dotnet-trace collect-linux's file ($(head -1 ms.view.err))" \
	grep -q '^# Event: cpu-clock, [1-9][0-9]* samples' ms.view
check "view: the app's hot method is among its top functions" \
	bash -c "grep -m1 -A8 '^#   Self%' ms.view | grep -q 'HotLoop'"
finish
