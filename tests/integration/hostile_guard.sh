#!/bin/bash
# Issue 24, finding 3: whatever stacks and collect ask of a .NET runtime (perf maps on, the
# maps' directory in its environment, EventPipe sessions) is undone by the guard that
# outlives them when they are SIGKILLed, at several moments: stacks after it borrowed the
# maps, stacks while the target's threads are stopped, collect -pid while it records.
# Afterwards the app's threads run, TracerPid is 0, the runtime holds no file it did not
# hold before (no perf map, no jitdump), stacks' private directory is gone, and the next
# stacks asks the runtime again (it does not reuse a dead run's files).
source "$(dirname "$0")/lib.sh"
need_root
rc=0
DLL=$(sh "$TEST_SRCDIR/workloads/dotnet-hang/build.sh") || rc=$?
[ "$rc" = 77 ] && skip "${DLL#SKIP: }"
[ "$rc" = 0 ] || { echo "FAIL: building the hanging .NET app (see above)"; exit 1; }

env -u DOTNET_PerfMapEnabled -u COMPlus_PerfMapEnabled DOTNET_CLI_TELEMETRY_OPTOUT=1 \
	dotnet "$DLL" monitor >app.out 2>&1 &
PID=$!
cleanup_hooks+=("kill -9 $PID 2>/dev/null; rm -f /tmp/dotnet-diagnostic-$PID-*-socket /tmp/clr-debug-pipe-$PID-*")
wait_until 60 grep -q "^ready $PID\$" app.out || { fail "the .NET app did not get ready"; finish; }

map_fds() { ls -l /proc/$PID/fd 2>/dev/null | grep -cE "perf-[0-9]+\.map|jit-[0-9]+\.dump"; }
dirs_of() { ls -A /tmp | grep -c "^\.perfcollect-c-stacks-$1-"; }
traced() { grep -h '^TracerPid:' /proc/$PID/task/*/status 2>/dev/null | grep -vc '[[:space:]]0$'; }
stopped() { grep -h '^State:' /proc/$PID/task/*/status 2>/dev/null | grep -c '[[:space:]]t'; }
check "the runtime writes no map before" test "$(map_fds)" = 0

# after_kill WHAT SPID: the guard undoes it all within 10 s of the SIGKILL of SPID
after_kill() {
	local what=$1 spid=$2
	restored() { [ "$(map_fds)" = 0 ] && [ "$(dirs_of "$spid")" = 0 ] && [ "$(traced)" = 0 ]; }
	wait_until 10 restored
	check "$what: the runtime holds no map file ($(map_fds) open)" test "$(map_fds)" = 0
	check "$what: stacks' directory is gone ($(dirs_of "$spid") left)" test "$(dirs_of "$spid")" = 0
	check "$what: TracerPid is 0 in every thread ($(traced) traced)" test "$(traced)" = 0
	check "$what: no thread stays stopped ($(stopped) stopped)" test "$(stopped)" = 0
}

# Moments are caught by loops of shell builtins (no fork per round): the borrowing and the
# stop last a fraction of a second.
borrowed_now() { compgen -G "/tmp/.perfcollect-c-stacks-$1-*" >/dev/null; }
traced_now() {
	local f k v
	for f in /proc/$PID/task/*/status; do
		while read -r k v; do
			[ "$k" = TracerPid: ] || continue
			[ "$v" != 0 ] && return 0
			break
		done <"$f"
	done
	return 1
}
kill_when() { # kill_when TEST SPID: SIGKILLs SPID once TEST holds; fails if it never did
	local test=$1 spid=$2 end=$((SECONDS + 30))
	until $test $spid; do
		kill -0 $spid 2>/dev/null && [ $SECONDS -lt $end ] || return 1
	done
	kill -9 $spid
}

# 1. stacks killed once the maps are borrowed (its directory exists), before it stops threads
$PC stacks -pid $PID >s1.out 2>&1 &
spid=$!
check "stacks killed after it borrowed the maps" kill_when borrowed_now $spid
wait $spid 2>/dev/null
after_kill "stacks killed after borrowing" $spid

# 2. stacks killed while the target's threads are stopped (ptrace)
$PC stacks -pid $PID >s2.out 2>&1 &
spid=$!
check "stacks killed while the target was traced" kill_when traced_now $spid
wait $spid 2>/dev/null
after_kill "stacks killed while the target was stopped" $spid

# 3. the next stacks asks the runtime again and gives it back
timeout 60 $PC stacks -pid $PID >s3.out 2>&1
check "stacks afterwards exits 0" test $? = 0
check "stacks afterwards asked the runtime itself" grep -q '^\.NET: asked its runtime over the diagnostics IPC' s3.out
check "stacks afterwards left no map open" test "$(map_fds)" = 0

# 4. collect -pid killed while it records (perf maps on, an EventPipe session open)
$PC collect g4 -pid $PID -collectsec 60 >c4.out 2>&1 &
cpid=$!
wait_until 60 grep -q 'asked its .NET runtime over the diagnostics IPC' c4.out
check "collect asked the runtime for maps" test "$(map_fds)" != 0
kill -9 $cpid
wait $cpid 2>/dev/null
after_kill "collect killed while recording" $cpid
finish
