#!/bin/bash
# Issue 24, finding 5: one deadline per diagnostics IPC exchange, not per read.  A "runtime"
# (any local user can bind /tmp/dotnet-diagnostic-<its pid>-<start>-socket) answers every
# request with a valid header announcing the largest payload, then one byte every 0.2 s:
# a timeout per read never fired (collect stalled before recording, stacks for hours).
# stacks and collect -pid must finish within seconds, saying the runtime did not answer
# in time.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd python3

cat >trickle.py <<'PY'
import struct, sys, threading, time
import fake_runtime
s = fake_runtime.listen(sys.argv[1])
def trickle(c):
    c.recv(4096)
    answer = b'DOTNET_IPC_V1\0' + struct.pack('<HBBH', 0xFFFF, 0xFF, 0x00, 0)
    answer += b'\0' * (0xFFFF - len(answer))
    try:
        for b in answer:
            c.send(bytes([b]))
            time.sleep(0.2)
    except OSError:
        pass
while True:
    threading.Thread(target=trickle, args=(s.accept()[0],), daemon=True).start()
PY
PYTHONPATH="$TEST_SRCDIR/integration" python3 trickle.py "$T/trickle.ready" >trickle.out 2>&1 &
pid=$!
cleanup_hooks+=("kill -9 $pid 2>/dev/null; rm -f /tmp/dotnet-diagnostic-$pid-*-socket")
wait_until 10 test -s "$T/trickle.ready" || { fail "the socket never came up: $(cat trickle.out)"; finish; }

start=$(date +%s%N)
timeout -s KILL 60 "$PC" stacks -pid $pid -nokernel >stacks.txt 2>&1
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
check "stacks: exit 0 within 20 s (rc $rc, $ms ms)" test $rc = 0 -a $ms -lt 20000
check "stacks: says the runtime did not answer in time" grep -q "no complete answer within" stacks.txt

start=$(date +%s%N)
timeout -s KILL 150 "$PC" collect tr -pid $pid -collectsec 1 >collect.txt 2>&1
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
check "collect -pid: exit 0 within 80 s (rc $rc, $ms ms)" test $rc = 0 -a $ms -lt 80000
check "collect -pid: says the runtime did not answer in time" grep -q "no complete answer within" collect.txt
finish
