#!/usr/bin/env bash
# `setenv` starts a shell (or `setenv -- COMMAND`) with the .NET perf map variables set, as
# perfcollect's setenv; a .NET app started from it really writes its perf map.
. "$(dirname "$0")/lib.sh"

env -u DOTNET_PerfMapEnabled -u COMPlus_PerfMapEnabled "$PC" setenv -- env >env.out 2>env.err
check "setenv -- env exits 0" [ $? = 0 ]
check "DOTNET_PerfMapEnabled=1 is set" grep -qx 'DOTNET_PerfMapEnabled=1' env.out
check "the legacy COMPlus_PerfMapEnabled=1 is set" grep -qx 'COMPlus_PerfMapEnabled=1' env.out
check "DOTNET_PerfMapStubGranularity=2 keeps .NET 10's jitdump whole" \
	grep -qx 'DOTNET_PerfMapStubGranularity=2' env.out
check "the caller's environment is kept" grep -q '^PATH=' env.out

# Without a command: $SHELL (here /bin/sh reading commands from stdin), which says what it is.
echo 'echo "in-shell $DOTNET_PerfMapEnabled $COMPlus_PerfMapEnabled"' |
	SHELL=/bin/sh "$PC" setenv >sh.out 2>sh.err
check "the shell sees both variables" grep -qx 'in-shell 1 1' sh.out
check "it says which shell it started" grep -q 'starting /bin/sh with DOTNET_PerfMapEnabled=1' sh.err
echo 'echo "fallback $DOTNET_PerfMapEnabled"' | SHELL=relative/sh "$PC" setenv >fb.out 2>/dev/null
check "an unusable \$SHELL falls back to /bin/sh" grep -qx 'fallback 1' fb.out

"$PC" setenv -- /nonexistent/cmd 2>missing.err
check "a missing command exits 127" [ $? = 127 ]
check "and says which" grep -q 'cannot run /nonexistent/cmd' missing.err
"$PC" setenv -bogus 2>bogus.err
check "an unknown option is an error" [ $? = 2 ]
check "with a hint" grep -q "setenv -- COMMAND" bogus.err
"$PC" setenv --help >help.out
check "--help lists the variables" grep -q 'COMPlus_PerfMapEnabled=1' help.out

# A real .NET app started through setenv writes its perf map (and a whole jitdump).
if command -v dotnet >/dev/null; then
	. "$TEST_SRCDIR/workloads/dotnet/testlib.sh"
	need_dotnet_app
	"$PC" setenv -- sh -c 'echo $$ >app.pid; exec dotnet "$0" 0.5' "$DLL" >app.out 2>&1
	check "the app ran" grep -q '^done' app.out
	pid=$(cat app.pid)
	cleanup_hooks+=("remove_runtime_files $pid")
	check "its perf map names its methods" grep -q 'PcDotnetApp.HotLoop::Spin(float64)' /tmp/perf-$pid.map
	check "its jitdump names ReadyToRun framework methods" \
		grep -qa 'System.Private.CoreLib.*\[PreJIT\]' /tmp/jit-$pid.dump
else
	echo "note: no dotnet; the app part is skipped"
fi
finish
