#!/bin/bash
# Issue 24, finding 15: stacks acts on a pid a while after it was given one (the runtime's
# IPC alone may take seconds); if the process exits meanwhile and its pid goes to another,
# stacks must not stop, read or report that other process.  In a pid namespace of its own
# (where ns_last_pid chooses the next pid): a "runtime" A (a Python socket named as a .NET
# runtime's) answers stacks' first IPC request with nothing, from a child that keeps the
# connection open; A is killed, and B (sleep) is started with A's pid while stacks waits.
# Before the fix stacks stopped B and printed B's threads as A's.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd python3
need_cmd unshare

cat >mute.py <<'PY'
import os, sys, time
import fake_runtime
s = fake_runtime.listen(sys.argv[1])
c = s.accept()[0]
if os.fork() == 0:  # holds the connection: stacks waits for its answer till its deadline
    s.close()
    time.sleep(30)
    os._exit(0)
open(sys.argv[2], 'w').write('accepted')
time.sleep(60)
PY

cat >inside.sh <<'SH'
set -u
PC=$1 T=$2
PYTHONPATH="$TEST_SRCDIR/integration" python3 mute.py "$T/ready" "$T/accepted" >mute.out 2>&1 &
a=$!
for i in $(seq 100); do [ -s "$T/ready" ] && break; sleep 0.1; done
"$PC" stacks -pid $a -nokernel >stacks.txt 2>&1 &
s=$!
for i in $(seq 100); do [ -s "$T/accepted" ] && break; sleep 0.1; done
[ -s "$T/accepted" ] || { echo "no connection"; exit 2; }
kill -9 $a
wait $a 2>/dev/null
rm -f "$(cat "$T/ready")"
echo $((a - 1)) >/proc/sys/kernel/ns_last_pid
sleep 300 &
b=$!
echo "a=$a b=$b" >pids.txt
wait $s
echo "rc=$?" >>pids.txt
echo "s=$s" >>pids.txt
kill $b
# Round 2: stacks SIGKILLed once its runtime is gone: its guard removes the directory.
rm -f "$T/ready" "$T/accepted"
PYTHONPATH="$TEST_SRCDIR/integration" python3 mute.py "$T/ready" "$T/accepted" >mute2.out 2>&1 &
a=$!
for i in $(seq 100); do [ -s "$T/ready" ] && break; sleep 0.1; done
"$PC" stacks -pid $a -nokernel >stacks2.txt 2>&1 &
s=$!
for i in $(seq 100); do [ -s "$T/accepted" ] && break; sleep 0.1; done
# (pids in a fresh namespace repeat from run to run: only directories made since it started)
made=$(find /tmp -maxdepth 1 -name ".perfcollect-c-stacks-$s-*" -newer marker | wc -l)
kill -9 $a
wait $a 2>/dev/null
rm -f "$(cat "$T/ready")"
kill -9 $s
wait $s 2>/dev/null
# the guard outlives stacks; this shell is the namespace's init, whose exit would end it
for i in $(seq 200); do pgrep -x pc-guard >/dev/null || break; sleep 0.1; done
echo "s2=$s made2=$made" >>pids.txt
SH

touch marker
timeout -s KILL 120 unshare --pid --fork --mount-proc bash inside.sh "$PC" "$T" >inside.out 2>&1
cat pids.txt inside.out stacks.txt 2>/dev/null
read -r a b < <(sed -n 's/^a=\([0-9]*\) b=\([0-9]*\)/\1 \2/p' pids.txt)
rc=$(sed -n 's/^rc=//p' pids.txt)
[ -n "${a:-}" ] && [ "$a" = "${b:-}" ] || skip "could not give A's pid to B here (a=${a:-?} b=${b:-?}): ns_last_pid not writable?"
check "stacks fails (rc $rc)" test "$rc" != 0
check "stacks says the process exited" grep -q "PID $a exited" stacks.txt
check "stacks shows no thread of B (sleep)" bash -c "! grep -q sleep stacks.txt"
# The directory stacks made in A's /tmp (the host's here) for the maps it asked for is
# removed though A is gone: through the /tmp it opened while A ran, not through A's pid.
s=$(sed -n 's/^s=//p' pids.txt)
left=$(find /tmp -maxdepth 1 -name ".perfcollect-c-stacks-$s-*" -newer marker | wc -l)
check "stacks' private directory in A's /tmp is gone ($left left)" test "$left" = 0
read -r s2 made2 < <(sed -n 's/^s2=\([0-9]*\) made2=\([0-9]*\)/\1 \2/p' pids.txt)
left=$(find /tmp -maxdepth 1 -name ".perfcollect-c-stacks-$s2-*" -newer marker | wc -l)
check "stacks SIGKILLed after its runtime died: it had made its directory ($made2)" test "${made2:-0}" = 1
check "... and its guard removed it ($left left)" test "$left" = 0
finish
