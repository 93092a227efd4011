/* record_ring: the size of each CPU's ring when the user gave none (-buffersize is
 * honoured as given, record.c).
 *
 * What a ring must absorb is the drain's lateness: the time from the wakeup (a quarter of
 * the ring used) until the collector's thread runs again, which on a loaded machine is tens
 * of milliseconds.  perf record's 512 KiB holds ~250 ms of its 10 kHz samples (frame-pointer
 * chains, ~200 bytes); ours carry the registers and a copy of the user stack (2 KiB in
 * hybrid mode), so the same 1 MiB would hold ~45 ms.  The default is therefore sized from the
 * data rate: every frequency-sampled event's rate times the bytes of one of its samples, for
 * RING_SPAN_MS, rounded up to a power of two of pages; never below RING_MIN_BYTES (the old
 * default, which is what 1 kHz needs), never above RING_MAX_BYTES per CPU nor
 * RING_BUDGET_BYTES over all CPUs (a 64-CPU box locks at most that much, 2 MiB a CPU); and
 * without CAP_IPC_LOCK within what kernel.perf_event_mlock_kb lets a user lock per CPU, as
 * perf record's default (RLIMIT_MEMLOCK is left alone: other mlocks of the user share it). */
#ifndef PC_RECORD_RING_H
#define PC_RECORD_RING_H

#include "base/util.h"
#include "perfdata/perf_abi.h"

#define RING_SPAN_MS	  250
#define RING_MIN_BYTES	  (1ull << 20)
#define RING_MAX_BYTES	  (32ull << 20)
#define RING_BUDGET_BYTES (128ull << 20)

/* What bounds the default besides the rate. */
struct ring_limits {
	size_t ncpus;
	uint64_t page;
	/* Bytes a CPU's ring may lock, its header page included (kernel.perf_event_mlock_kb);
	 * UINT64_MAX: no limit (CAP_IPC_LOCK, or kernel.perf_event_paranoid -1). */
	uint64_t lock_per_cpu;
};

/* The bytes one sample of attr takes in the ring, at most (the stack copy counted whole, a
 * call chain of RING_CHAIN_GUESS entries). */
#define RING_CHAIN_GUESS 32
uint64_t record_sample_bytes(const struct perf_event_attr *attr);

/* Bytes attr writes to one CPU's ring per second, at most: a frequency-sampled event's rate
 * times its sample bytes (an event sampled by period counts nothing: its rate is the
 * workload's; nor does a dummy event, which never samples).  A ring's rate is the sum over
 * its events. */
uint64_t record_ring_rate(const struct perf_event_attr *attr);

/* The default data bytes per ring (a power of two of pages, at least one page). */
uint64_t record_ring_default(uint64_t rate, const struct ring_limits *lim);

/* This process's limits: the online CPUs given, the page size, CAP_IPC_LOCK and the
 * sysctls. */
void record_ring_limits(size_t ncpus, struct ring_limits *lim);

#endif
