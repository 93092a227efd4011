#!/bin/bash
# `stacks` on a hung .NET service (tests/workloads/dotnet-hang, run by the installed SDK's
# runtime, started without DOTNET_PerfMapEnabled): Program.TakeAB holds lock A and wants B,
# Program.TakeBA holds B and wants A, five Program.Waiter threads wait for A.  The report must
# name the managed frames, put the five waiters in one group, name TakeAB as the owner of A
# and TakeBA of B, print the deadlock cycle, exit 0 and leave the process as it was: no file
# left in its /tmp, its runtime's perf maps off again, every thread back where it slept.  With
# diagnostics disabled, or a "runtime" whose socket accepts and never answers, it must still
# finish within seconds and say why frames are unnamed.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "stacks needs root (ptrace, /proc/<pid>/task/<tid>/stack): run the tests as root"
rc=0
DLL=$(sh "$TEST_SRCDIR/workloads/dotnet-hang/build.sh") || rc=$?
[ "$rc" = 77 ] && skip "${DLL#SKIP: }"
[ "$rc" = 0 ] || { echo "FAIL: building the hanging .NET app (see above)"; exit 1; }

# start_hang NAME MODE [VAR=VALUE...]: runs the app ($DOTNET $DLL) and waits for "ready";
# sets PID.
DOTNET=dotnet
start_hang() {
	local name=$1 mode=$2
	shift 2
	env -u DOTNET_PerfMapEnabled -u COMPlus_PerfMapEnabled DOTNET_CLI_TELEMETRY_OPTOUT=1 \
		"$@" $DOTNET "$DLL" "$mode" >"$T/$name.out" 2>&1 &
	PID=$!
	cleanup_hooks+=("kill -9 $PID 2>/dev/null; rm -f /tmp/dotnet-diagnostic-$PID-*-socket /tmp/clr-debug-pipe-$PID-*")
	wait_until 60 grep -q "^ready $PID\$" "$T/$name.out" ||
		{ fail "the .NET app ($mode) did not get ready: $(cat "$T/$name.out")"; finish; }
}
tids_of() { awk -v n="$2" '$1=="tid" && $2==n {print $3}' "$T/$1.out"; }
section() { awk -v h="$2" 'index($0,h)==1{on=1} on&&/^$/{exit} on' "$1"; }
# What stacks could leave in the target's /tmp for process $1: its perf map and jitdump, in
# /tmp or in a private directory stacks made for them.  (/tmp is shared: other tests' stacks
# make private directories of their own at the same time, named by their own pid, and a
# stacks killed elsewhere leaves one; only the directories holding this process's files are
# this test's to judge.)
tmp_listing() {
	local d
	{
		for d in /tmp/.perfcollect-c-stacks-*; do
			[ -d "$d" ] || continue
			ls -A "$d" 2>/dev/null | grep -qE "^(perf|perfinfo)-$1\.map\$|^jit-$1\.dump\$" &&
				echo "${d#/tmp/}"
		done
		ls -A /tmp | grep -E "^(perf|perfinfo)-$1\.map\$|^jit-$1\.dump\$"
	} | sort
}
# (A /tmp/perf-PID.map of an earlier process with the same pid may be there before: pids
# wrap at pid_max, 32768 here, many times in a whole suite, and runtimes and node leave
# their maps behind; so each part compares with the listing taken before it.)
# stacks_run OUT ARGS...: `timeout 60 $PC stacks ARGS >OUT 2>&1`, its exit status in rc and
# its pid in spid, which names every private directory it makes (mine_left counts them).
stacks_run() {
	local out=$1
	shift
	timeout 60 $PC stacks "$@" >"$out" 2>&1 &
	spid=$!
	wait $spid
	rc=$?
}
mine_left() { compgen -G "/tmp/.perfcollect-c-stacks-$spid-*" | wc -l; }

# ---- the deadlock, with a runtime that answers ------------------------------------------
start_hang mon monitor
ab=$(tids_of mon TakeAB) ba=$(tids_of mon TakeBA)
waiters=$(tids_of mon Waiter | sort -n | tr '\n' ' ')
before=$(tmp_listing $PID)
start=$(date +%s%N)
timeout 60 $PC stacks -pid $PID >out.txt 2>err.txt &
spid=$!
wait $spid
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
check "stacks exits 0 (stderr: $(head -c 300 err.txt))" [ $rc = 0 ]
echo "snapshot of the 14-thread app: $ms ms; $(head -1 out.txt)"
check "it says it asked the runtime for maps and undid it" grep -q '^\.NET: asked its runtime over the diagnostics IPC' out.txt
check "managed frames are named: Program.TakeAB" grep -q ' Program\.TakeAB()' out.txt
check "managed frames are named: Program.Waiter" grep -q ' Program\.Waiter()' out.txt
check "framework (ReadyToRun) frames are named: Monitor.Enter in System.Private.CoreLib" \
	grep -Eq ' System\.Threading\.Monitor\.Enter[^ ]* \(System\.Private\.CoreLib\)' out.txt
check "exactly one group of the five waiters" [ "$(grep -c '^5 threads: ' out.txt)" = 1 ] ||
	{ echo "--- what stacks printed:"; cat out.txt; echo "---"; }
group_tids=$(grep '^5 threads: ' out.txt | sed 's/^5 threads: \([0-9 ]*\) (.*/\1/' | tr ' ' '\n' | grep . | sort -n | tr '\n' ' ')
check "the group is exactly the Waiter threads ($waiters), named" \
	bash -c '[ "$1" = "$2" ] && grep -q "^5 threads: .*(Waiter0,Waiter1,Waiter2,Waiter3,Waiter4)" out.txt' _ "$group_tids" "$waiters"
check "the waiters' group says whose lock it waits for" \
	bash -c 'section() { awk -v h="$2" "index(\$0,h)==1{on=1} on&&/^\$/{exit} on" "$1"; }
		 section out.txt "5 threads: " | grep -Eq "^  wait for lock on object 0x[0-9a-f]+ \(Monitor\) held by TID '$ab' \(TakeAB\)$"'
obj_a=$(grep -oE "^  6 threads wait for lock on object 0x[0-9a-f]+ \(Monitor\) held by TID $ab \(TakeAB\)$" out.txt | awk '{print $8}')
obj_b=$(grep -oE "^  1 thread waits for lock on object 0x[0-9a-f]+ \(Monitor\) held by TID $ba \(TakeBA\)$" out.txt | awk '{print $8}')
check "6 threads (5 waiters and TakeBA) wait for A, held by TakeAB ($ab)" [ -n "$obj_a" ]
check "1 thread (TakeAB) waits for B, held by TakeBA ($ba)" [ -n "$obj_b" ]
check "the deadlock cycle TakeAB -> B -> TakeBA -> A -> TakeAB is printed" \
	grep -q "^  DEADLOCK: TID $ab -> lock on object $obj_b (Monitor) -> TID $ba -> lock on object $obj_a (Monitor) -> TID $ab$" out.txt
owner_sec=$(section out.txt "Owner of lock on object $obj_a")
check "the owner of A (TakeAB) comes with its stack, in Program.TakeAB" \
	bash -c 'grep -q "^Owner of lock on object '$obj_a' (Monitor): TID '$ab' (TakeAB)" <<<"$1" && grep -q " Program\.TakeAB()" <<<"$1"' _ "$owner_sec"
owner_line=$(grep -n '^Owner of' out.txt | head -1 | cut -d: -f1)
first_group=$(grep -nE '^[0-9]+ threads?:' out.txt | head -1 | cut -d: -f1)
check "owners come before the groups" [ "${owner_line:-99999}" -lt "${first_group:-0}" ]
# (the count the header gives: the runtime starts and ends threads of its own meanwhile)
check "every thread is in some group exactly once" \
	[ "$(grep -E '^[0-9]+ threads?:' out.txt | awk '{s+=$1} END{print s}')" = "$(sed -n '1s/^Process [0-9]* ([^)]*): \([0-9]*\) threads.*/\1/p' out.txt)" ]

# The process as before: no file of ours left, its runtime not writing maps, threads asleep.
check "nothing left in /tmp (no private directory, no perf-$PID.map)" [ "$(tmp_listing $PID)" = "$before" ]
check "... not even an empty directory ($(mine_left) left)" [ "$(mine_left)" = 0 ]
check "the runtime holds no map file open (perf maps off again)" \
	bash -c '! ls -l /proc/'$PID'/fd 2>/dev/null | grep -qE "perf-[0-9]+\.map|jit-[0-9]+\.dump"'
back_asleep() {
	for t in $ab $ba $waiters; do
		[ "$(awk '{print $1}' /proc/$PID/task/$t/syscall 2>/dev/null)" = 202 ] || return 1
	done
}
check "the deadlocked and waiting threads are back in futex()" wait_until 10 back_asleep
check "the process is not left stopped or traced" \
	bash -c '! grep -q "^State:.*T" /proc/'$PID'/status && grep -q "^TracerPid:[[:space:]]*0$" /proc/'$PID'/status'
# A second snapshot finds the runtime as the first left it, and does it all again.
$PC stacks -pid $PID -nokernel >again.txt 2>&1
check "a second snapshot names the frames and the owners again" \
	bash -c 'grep -q " Program\.TakeAB()" again.txt && grep -q "held by TID '$ab' (TakeAB)" again.txt'
check "... and leaves /tmp as it was" [ "$(tmp_listing $PID)" = "$before" ]
$PC stacks -pid $PID -nodotnetipc -nokernel >noipc.txt 2>&1
check "-nodotnetipc: frames unnamed, says why; the lock owner is still named" \
	bash -c 'grep -q "unnamed: asking its runtime for perf maps was turned off" noipc.txt &&
		 grep -q "held by TID '$ab' (TakeAB)" noipc.txt && ! grep -q "Program\.TakeAB" noipc.txt'
$PC stacks -pid $PID -module pc-hang-app -nokernel >mod.txt 2>&1
check "-module pc-hang-app keeps the 8 threads in the app's own code (Main too)" \
	[ "$(grep -E '^[0-9]+ threads?:' mod.txt | awk '{s+=$1} END{print s}')" = 8 ]

# ---- diagnostics disabled: no socket at all ---------------------------------------------
start_hang nodiag monitor DOTNET_EnableDiagnostics=0
ab2=$(tids_of nodiag TakeAB)
start=$(date +%s%N)
timeout 60 $PC stacks -pid $PID -nokernel >nodiag.txt 2>&1
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
check "DOTNET_EnableDiagnostics=0: exit 0 within 10 s (took $ms ms)" [ $rc = 0 -a $ms -lt 10000 ]
check "... says why managed frames are unnamed (diagnostics disabled)" \
	grep -q "unnamed: its runtime cannot be asked for perf maps: .*DOTNET_EnableDiagnostics=0" nodiag.txt
check "... and still names the lock owner, read from memory" \
	grep -q "^  6 threads wait for lock on object 0x[0-9a-f]* (Monitor) held by TID $ab2 (TakeAB)" nodiag.txt ||
	{ echo "--- what stacks printed:"; cat nodiag.txt; echo "---"; }

# ---- a runtime that never answers: its socket accepts and says nothing --------------------
if command -v python3 >/dev/null; then
	PYTHONPATH="$TEST_SRCDIR/integration" python3 - "$T/mute.ready" >"$T/mute.out" 2>&1 <<-'EOF' &
		import sys
		import fake_runtime
		s = fake_runtime.listen(sys.argv[1])
		held = []
		while True:
		    held.append(s.accept()[0])  # accepted, never read, never answered
	EOF
	mute=$!
	cleanup_hooks+=("kill -9 $mute 2>/dev/null; rm -f /tmp/dotnet-diagnostic-$mute-*-socket")
	wait_until 10 test -s "$T/mute.ready" || fail "the mute socket never came up: $(cat "$T/mute.out")"
	before=$(tmp_listing $mute)
	start=$(date +%s%N)
	stacks_run mute.txt -pid $mute -nokernel
	ms=$((($(date +%s%N) - start) / 1000000))
	check "a runtime that never answers: exit 0 within 10 s (took $ms ms)" [ $rc = 0 -a $ms -lt 10000 ]
	check "... and says the runtime did not answer" grep -q "no answer within 2.0 s" mute.txt
	check "... and the directory it made for the maps is gone ($(mine_left) left)" \
		[ "$(mine_left)" = 0 -a "$(tmp_listing $mute)" = "$before" ]
else
	echo "python3 is not installed: the never-answering runtime part is not run"
fi

# ---- System.Threading.Lock and SemaphoreSlim: grouped, the missing owner said -------------
start_hang sem semaphore
$PC stacks -pid $PID -nokernel >sem.txt 2>&1
check "SemaphoreSlim: the 5 waiters in one group" grep -q '^5 threads: .*(GateWaiter0,GateWaiter1,GateWaiter2,GateWaiter3,GateWaiter4)' sem.txt
check "SemaphoreSlim: one line says they wait and why no owner is named" \
	grep -q '^  5 threads wait for a SemaphoreSlim: no owner to name (a semaphore is released by whichever thread calls Release)' sem.txt
start_hang lock lock
lab=$(tids_of lock LockAB) lba=$(tids_of lock LockBA)
$PC stacks -pid $PID -nokernel >lock.txt 2>&1
lock_a=$(grep -oE "^  6 threads wait for System\.Threading\.Lock 0x[0-9a-f]+ held by TID $lab \(LockAB\)$" lock.txt | awk '{print $6}')
check "System.Threading.Lock: 6 threads wait for LockA, held by LockAB ($lab)" [ -n "$lock_a" ]
check "System.Threading.Lock: 1 thread waits for LockB, held by LockBA ($lba)" \
	grep -q "^  1 thread waits for System\.Threading\.Lock 0x[0-9a-f]* held by TID $lba (LockBA)$" lock.txt
check "System.Threading.Lock: the deadlock cycle" \
	grep -q "^  DEADLOCK: TID $lab -> System\.Threading\.Lock 0x[0-9a-f]* -> TID $lba -> System\.Threading\.Lock $lock_a -> TID $lab$" lock.txt
check "System.Threading.Lock: the 5 LockWaiter threads are in one group waiting for LockA" \
	bash -c 'grep -A1 -E "^[0-9]+ threads: .*LockWaiter0,LockWaiter1,LockWaiter2,LockWaiter3,LockWaiter4" lock.txt |
		 grep -q "^  wait for System\.Threading\.Lock '$lock_a' held by TID '$lab' (LockAB)$"'

# ---- the same deadlock on .NET 8 (NuGet's runtime package, tests/dotnet_runtime.sh) ------
rc=0
root=$(sh "$TEST_SRCDIR/dotnet_runtime.sh" 8) || rc=$?
DLL8=$(sh "$TEST_SRCDIR/workloads/dotnet-hang/build.sh" net8.0) || rc=$?
if [ $rc = 0 ]; then
	DOTNET=$root/dotnet DLL=$DLL8 start_hang net8 monitor DOTNET_ROOT=$root
	ab=$(tids_of net8 TakeAB) ba=$(tids_of net8 TakeBA)
	check ".NET 8: the app runs on an 8.0 runtime" grep -q "/8\.0\.[0-9]*/libcoreclr.so" /proc/$PID/maps
	before=$(tmp_listing $PID)
	stacks_run net8.txt -pid $PID -nokernel
	check ".NET 8: exit 0" [ $rc = 0 ]
	check ".NET 8: managed frames named (Program.TakeAB, Program.Waiter)" \
		bash -c 'grep -q " Program\.TakeAB()" net8.txt && grep -q " Program\.Waiter()" net8.txt'
	check ".NET 8: the five waiters in one group" grep -q '^5 threads: .*(Waiter0,Waiter1,Waiter2,Waiter3,Waiter4)' net8.txt
	check ".NET 8: A held by TakeAB, waited for by 6" \
		grep -q "^  6 threads wait for lock on object 0x[0-9a-f]* (Monitor) held by TID $ab (TakeAB)$" net8.txt
	check ".NET 8: the deadlock cycle" grep -q "^  DEADLOCK: TID $ab -> .* -> TID $ba -> .* -> TID $ab$" net8.txt
	left=$(tmp_listing $PID)
	check ".NET 8: nothing left in /tmp (before: ${before:-nothing}; after: ${left:-nothing}; $(mine_left) directories of stacks)" \
		[ "$left" = "$before" -a "$(mine_left)" = 0 ]
else
	echo "no .NET 8 runtime or net8.0 build here: the .NET 8 part is not run ($root $DLL8)"
fi
finish
