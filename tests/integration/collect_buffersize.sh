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

# No -buffersize: sized from the data rate (record_ring.h), said in the log with the span it
# holds.  At 10 kHz with hybrid call stacks (2 KiB stack copies) the old 1 MiB held ~40 ms and
# lost samples on a loaded machine where perf record lost none; now >= 250 ms (the budget over
# all CPUs binds only past 16 CPUs).  -buffersize is still taken as given at that rate, and
# without CAP_IPC_LOCK the default stays within kernel.perf_event_mlock_kb.
ring_kib() { "$PC" log "$1" | sed -n 's/.*ring buffers: [0-9]* CPUs, \([0-9]*\) KiB each.*/\1/p'; }
"$PC" collect d1 -pid $hot -collectsec 0.2 >d1.out 2>&1
"$PC" collect d10 -pid $hot -collectsec 0.2 -freq 10000 >d10.out 2>&1
"$PC" log d10.trace.zip >d10.log
kb1=$(ring_kib d1.trace.zip) kb10=$(ring_kib d10.trace.zip)
ms=$(sed -n 's/.*ring buffers: .* per CPU by default: \([0-9]*\) ms of samples.*/\1/p' d10.log)
echo "default rings: ${kb1:-?} KiB at 1 kHz, ${kb10:-?} KiB at 10 kHz (${ms:-?} ms of samples)"
check "default ring at 1 kHz: 1 MiB, as before" test "${kb1:-0}" = 1024
check "  at 10 kHz: larger (${kb10:-?} KiB), a power of two" \
	bash -c "[ ${kb10:-0} -gt 1024 ] && [ \$(( ${kb10:-0} & (${kb10:-0} - 1) )) = 0 ]"
if [ "$(nproc)" -le 16 ] && ! grep -q 'above kernel.perf_event_max_sample_rate' d10.out; then
	check "  holds >= 250 ms of samples (${ms:-?} ms)" test "${ms:-0}" -ge 250
fi
"$PC" collect k10 -pid $hot -collectsec 0.2 -freq 10000 -buffersize 8K >k10.out 2>&1
check "-buffersize 8K at 10 kHz: 8 KiB, as given" test "$(ring_kib k10.trace.zip)" = 8
setpriv --bounding-set -ipc_lock --inh-caps -ipc_lock \
	"$PC" collect u10 -pid $hot -collectsec 0.2 -freq 10000 >u10.out 2>&1
kbu=$(ring_kib u10.trace.zip)
check "without CAP_IPC_LOCK at 10 kHz: within kernel.perf_event_mlock_kb (${kbu:-?} KiB)" \
	bash -c "[ -n '$kbu' ] && [ ${kbu:-0} -le $((mlock - page / 1024)) ]"

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
