#!/bin/bash
# `stacks` on a real deadlock: WAITERS threads block on a mutex whose owner sleeps in read()
# on a pipe.  The report must name the owner TID (the workload wrote it down), show the
# owner's kernel stack in the pipe read first, group the waiters into one group of exactly
# WAITERS, and leave the process running: it finishes with exit 0 once the pipe is written.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "stacks needs root (ptrace, /proc/<pid>/task/<tid>/stack): run the tests as root"
[ -x "$WORKLOADS/deadlock" ] || skip "tests/workloads/deadlock is not built: ninja -C build builds it"

WAITERS=12
"$WORKLOADS/deadlock" $WAITERS "$T/ready" >dl.out 2>&1 &
dl=$!
cleanup_hooks+=("kill -9 $dl 2>/dev/null")
wait_until 30 test -s "$T/ready" || { fail "the workload never got ready: $(cat dl.out)"; finish; }
read -r owner wfd <"$T/ready"

$PC stacks -pid $dl >out.txt 2>err.txt
rc=$?
check "stacks exits 0 (stderr: $(head -c 300 err.txt))" [ $rc = 0 ]

# What the kernel says, independently of us: the waiters are every thread but main and owner.
waiters=$(ls /proc/$dl/task | grep -vx -e "$dl" -e "$owner" | sort -n | tr '\n' ' ')

check "the lock line names the owner TID and the waiter count" \
	grep -Eq "^  $WAITERS threads wait for mutex 0x[0-9a-f]+ held by TID $owner \(deadlock\)$" out.txt
owner_sec=$(awk '/^Owner of mutex/{on=1} on&&/^$/{exit} on' out.txt)
check "the owner's section is about TID $owner" \
	grep -q "^Owner of mutex 0x[0-9a-f]*: TID $owner (deadlock), state S" <<<"$owner_sec"
check "the owner's kernel stack is in the pipe read" \
	grep -Eq '^    (anon_)?pipe_read\+0x' <<<"$owner_sec"
check "... called from the read syscall" grep -Eq '^    (ksys|vfs)_read\+0x' <<<"$owner_sec"
check "the owner's user stack is in read() called by wait_for_input" \
	bash -c 'grep -Eq " read\+0x[0-9a-f]+ \(.*/libc\.so" <<<"$1" && grep -q " wait_for_input+0x.*/deadlock)" <<<"$1"' _ "$owner_sec"
owner_line=$(grep -n '^Owner of mutex' out.txt | head -1 | cut -d: -f1)
first_group=$(grep -nE '^[0-9]+ threads?:' out.txt | head -1 | cut -d: -f1)
check "the owner's stack comes before the groups" [ "${owner_line:-99999}" -lt "${first_group:-0}" ]

check "exactly one group of $WAITERS threads" [ "$(grep -c "^$WAITERS threads: " out.txt)" = 1 ]
group_tids=$(grep "^$WAITERS threads: " out.txt | sed 's/^[0-9]* threads: \([0-9 ]*\) (.*/\1/' |
	tr ' ' '\n' | grep . | sort -n | tr '\n' ' ')
check "the group holds exactly the waiter threads ($waiters)" [ "$group_tids" = "$waiters" ]
group_sec=$(awk -v h="^$WAITERS threads: " '$0~h{on=1} on&&/^$/{exit} on' out.txt)
check "the group says which mutex and whose" \
	grep -Eq "^  wait for mutex 0x[0-9a-f]+ held by TID $owner \(deadlock\)$" <<<"$group_sec"
check "the group's kernel frames (futex wait) come above its user frames" \
	bash -c 'k=$(grep -n "^  kernel:" <<<"$1" | cut -d: -f1); u=$(grep -n "^  user:" <<<"$1" | cut -d: -f1);
		 [ -n "$k" ] && [ "$k" -lt "$u" ] && grep -Eq "^    (futex_|__futex_|do_futex)" <<<"$1"' _ "$group_sec"
check "the group's user stack goes pthread_mutex_lock <- take_the_lock <- waiter_main" \
	bash -c 'grep -q "pthread_mutex_lock" <<<"$1" && grep -q " take_the_lock+0x" <<<"$1" &&
		 grep -q " waiter_main+0x" <<<"$1"' _ "$group_sec"
check "every thread is in some group exactly once (counts add up to $((WAITERS + 2)))" \
	[ "$(grep -E '^[0-9]+ threads?:' out.txt | awk '{s+=$1} END{print s}')" = $((WAITERS + 2)) ]
check "the main thread is a group of its own, in pthread_join" \
	bash -c 'awk "/^1 thread: $1 /{on=1} on&&/^\$/{exit} on" out.txt | grep -q "pthread_clockjoin\|pthread_join"' _ "$dl"

# Options: -o writes the same report; -module filters; -nokernel drops kernel frames.
$PC stacks -pid $dl -o snap.txt >o.stdout 2>o.stderr
check "-o writes the report to the file, nothing on stdout" bash -c '[ -s snap.txt ] && [ ! -s o.stdout ]'
check "-o: the file has the same lock line and group" \
	bash -c 'grep -q "^  '$WAITERS' threads wait for mutex .* held by TID '$owner' " snap.txt &&
		 grep -q "^'$WAITERS' threads: " snap.txt'
$PC stacks -pid $dl -module deadlock >mod.txt
check "-module deadlock keeps all $((WAITERS + 2)) threads" \
	[ "$(grep -E '^[0-9]+ threads?:' mod.txt | awk '{s+=$1} END{print s}')" = $((WAITERS + 2)) ]
$PC stacks -pid $dl -module no_such_module >nomod.txt
check "-module no_such_module keeps none" \
	bash -c '! grep -Eq "^[0-9]+ threads?:" nomod.txt && grep -q "^Showing the 0 threads" nomod.txt'
$PC stacks -pid $dl -nokernel >nok.txt
check "-nokernel: no kernel frames, groups unchanged" \
	bash -c '! grep -q "^  kernel:" nok.txt && grep -q "^'$WAITERS' threads: " nok.txt'

# The process must be exactly as before: every thread back asleep where it was.
back_asleep() {
	[ "$(awk '{print $1}' /proc/$dl/task/$owner/syscall)" = 0 ] || return 1
	for t in $waiters; do
		[ "$(awk '{print $1}' /proc/$dl/task/$t/syscall 2>/dev/null)" = 202 ] || return 1
	done
}
check "after four snapshots the owner is back in read() and the waiters in futex()" wait_until 10 back_asleep
check "the process is not left stopped or traced" \
	bash -c '! grep -q "^State:.*T" /proc/'$dl'/status && grep -q "^TracerPid:[[:space:]]*0$" /proc/'$dl'/status'

# Release the owner: everyone gets the lock in turn and the program exits 0.
echo x >/proc/$dl/fd/$wfd
exited() { ! grep -q '^State:[[:space:]]*[^Z]' /proc/$dl/status 2>/dev/null; }
wait_until 20 exited || kill -9 $dl
wait $dl
dl_rc=$?
check "the workload finishes normally after the pipe is written (exit $dl_rc: $(cat dl.out))" [ $dl_rc = 0 ]
finish
