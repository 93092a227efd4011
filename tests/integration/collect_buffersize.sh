#!/usr/bin/env bash
# -buffersize as perfcollect means it (a bare number counts pages, as perf --mmap-pages; a
# suffix counts bytes), a request the kernel refuses said with its limit instead of capped,
# and what the rings lost shown at the head of view (as perf report warns).
source "$(dirname "$0")/lib.sh"
need_root
need_cmd setpriv

"$WORKLOADS/hot" 120 2 &
hot=$!
cleanup_hooks+=("kill $hot 2>/dev/null")
page=$(getconf PAGESIZE)

"$PC" collect p8 -pid $hot -collectsec 0.2 -buffersize 8 >p8.out 2>&1
"$PC" log p8.trace.zip >p8.log
check "-buffersize 8 is 8 pages per CPU" grep -q "ring buffers: .* $((8 * page / 1024)) KiB each" p8.log
check "  no rounding said for a power of two" bash -c "! grep -q 'rounded up' p8.out"
"$PC" collect p3 -pid $hot -collectsec 0.2 -buffersize 3 >p3.out 2>&1
check "-buffersize 3 pages is rounded up to 4, and said" \
	grep -q "(3 pages) rounded up to .* (4 pages) per CPU" p3.out
"$PC" collect k -pid $hot -collectsec 0.2 -buffersize 64K >k.out 2>&1
"$PC" log k.trace.zip >k.log
check "-buffersize 64K is bytes" grep -q "ring buffers: .* 64 KiB each" k.log

rc=0
"$PC" collect big -pid $hot -collectsec 0.2 -buffersize 4G >big.out 2>&1 || rc=$?
check "-buffersize 4G: exit 1 (not silently capped)" test $rc = 1
check "  the kernel's limit named" grep -q "the kernel cannot map a 4 GiB ring buffer per CPU" big.out
check "  nothing left behind" bash -c "! ls -d big.trace* 2>/dev/null"
rc=0
"$PC" collect huge -pid $hot -buffersize 2048G >huge.out 2>&1 || rc=$?
check "-buffersize 2048G: refused before anything opens" \
	bash -c "[ $rc = 1 ] && grep -q 'more than any kernel maps' huge.out"

# Without CAP_IPC_LOCK the rings are locked memory under kernel.perf_event_mlock_kb.
mlock=$(cat /proc/sys/kernel/perf_event_mlock_kb)
rc=0
setpriv --bounding-set -ipc_lock --inh-caps -ipc_lock \
	"$PC" collect lk -pid $hot -collectsec 0.2 -buffersize 256M >lk.out 2>&1 || rc=$?
check "over kernel.perf_event_mlock_kb without CAP_IPC_LOCK: exit 1" test $rc = 1
check "  the sysctl, its value and the fixes named" \
	grep -q "is more than this user may lock (kernel.perf_event_mlock_kb = $mlock KiB per CPU" lk.out

for v in 0 -1 12Q x; do
	rc=0
	"$PC" collect bad -buffersize "$v" >bad.out 2>&1 || rc=$?
	check "-buffersize '$v' is a usage error" bash -c "[ $rc = 2 ] && grep -q -- -buffersize bad.out"
done

# Lost samples at the head of view: a 1-page ring on each CPU with two busy threads.
"$PC" collect lost -pid $hot -collectsec 1 -buffersize 1 >lost.out 2>&1
"$PC" view lost.trace.zip -top 3 >lost.view 2>&1
lost=$("$PC" log lost.trace.zip | sed -n 's/.*] records: .*, lost: \([0-9]*\).*/\1/p' | tail -1)
echo "lost: $lost"
check "the head says how long, on how many CPUs, how fast" \
	grep -qE "^# Recorded 1\.[0-9]+ s on [0-9]+ CPUs \([0-9]+ with samples\), [0-9]+ samples \([0-9]+/s\), $lost lost$" lost.view
if [ "${lost:-0}" -gt 0 ]; then
	check "  and warns about the $lost lost samples with the fix" \
		grep -q "^# WARNING: $lost samples were lost .*larger -buffersize" lost.view
else
	check "  no warning when none were lost" bash -c "! grep -q WARNING lost.view"
fi
check "  with the rate asked" grep -q "^# cpu-clock: [0-9]* samples/s (asked: 1000 per second" lost.view
finish
