/* record_ring: see record_ring.h. */
#include "record_ring.h"
#include "record_open.h"
#include "base/proc.h"

#include <unistd.h>

#define CAP_IPC_LOCK_BIT 14

uint64_t record_sample_bytes(const struct perf_event_attr *a)
{
	uint64_t t = a->sample_type;
	uint64_t n = sizeof(struct perf_event_header);
	/* the fixed u64 fields (TID and CPU are two u32 each) */
	n += 8 * (uint64_t)__builtin_popcountll(
		     t & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			  PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
			  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD));
	if (t & PERF_SAMPLE_CALLCHAIN) /* nr, the entries and two context markers */
		n += 8 + 8 * (RING_CHAIN_GUESS + 2);
	if (t & PERF_SAMPLE_RAW) /* a tracepoint's fields: size and a typical body */
		n += 8 + 64;
	if (t & PERF_SAMPLE_REGS_USER)
		n += 8 + 8 * (uint64_t)__builtin_popcountll(a->sample_regs_user);
	if (t & PERF_SAMPLE_STACK_USER) /* size, the copy, dyn_size */
		n += 8 + ((a->sample_stack_user + 7) & ~7ull) + 8;
	return n;
}

uint64_t record_ring_rate(const struct perf_event_attr *a)
{
	bool dummy = a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_DUMMY;
	if (!a->freq || !a->sample_freq || dummy) /* a dummy never samples */
		return 0;
	return a->sample_freq * record_sample_bytes(a);
}

static uint64_t pow2_below(uint64_t x) /* the largest power of two <= x (x > 0) */
{
	return 1ull << (63 - __builtin_clzll(x));
}

uint64_t record_ring_default(uint64_t rate, const struct ring_limits *lim)
{
	uint64_t page = lim->page ? lim->page : 4096;
	uint64_t want = rate / 1000 * RING_SPAN_MS;
	if (want < RING_MIN_BYTES)
		want = RING_MIN_BYTES;
	uint64_t bytes = page;
	while (bytes < want && bytes < RING_MAX_BYTES)
		bytes <<= 1;
	/* all CPUs together within the budget, but never below the minimum for it */
	uint64_t share = RING_BUDGET_BYTES / (lim->ncpus ? lim->ncpus : 1);
	uint64_t cap = share >= RING_MIN_BYTES ? pow2_below(share) : RING_MIN_BYTES;
	if (bytes > cap)
		bytes = cap;
	/* without CAP_IPC_LOCK: what the user may lock per CPU, less the header page */
	if (lim->lock_per_cpu != UINT64_MAX) {
		uint64_t room = lim->lock_per_cpu > 2 * page ? lim->lock_per_cpu - page : page;
		uint64_t fit = pow2_below(room);
		if (bytes > fit)
			bytes = fit;
	}
	return bytes < page ? page : bytes;
}

void record_ring_limits(size_t ncpus, struct ring_limits *lim)
{
	long page = sysconf(_SC_PAGESIZE);
	lim->ncpus = ncpus;
	lim->page = page > 0 ? (uint64_t)page : 4096;
	lim->lock_per_cpu = UINT64_MAX;
	bool ipc_lock = proc_self_caps() >> CAP_IPC_LOCK_BIT & 1;
	if (!ipc_lock && record_paranoid_level() > -1) {
		long kb = sysctl_long("kernel.perf_event_mlock_kb", 516);
		lim->lock_per_cpu = kb > 0 ? (uint64_t)kb << 10 : lim->page;
	}
}
