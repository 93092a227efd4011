/* The default ring size: sized from the events' data rate (freq x bytes per sample) to hold
 * RING_SPAN_MS, within its bounds.  The old default (1 MiB whatever the rate) held ~45 ms of
 * 10 kHz hybrid samples (2 KiB stack copies) where perf record's 512 KiB holds ~250 ms of its
 * frame-pointer samples. */
#include "record/record.h"
#include "record/record_ring.h"
#include "test.h"
#include "unwind/unwind.h"

static struct record_event sampled(uint64_t freq, uint64_t stack)
{
	struct record_event e = {.name = "cpu-clock"};
	e.attr.freq = 1;
	e.attr.sample_freq = freq;
	/* collect's: perf_event_attr as collect_events.c sets it for hybrid call stacks */
	e.attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			     PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			     PERF_SAMPLE_CALLCHAIN;
	if (stack) {
		e.attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		e.attr.sample_regs_user = UNWIND_PERF_REGS_HYBRID;
		e.attr.sample_stack_user = (uint32_t)stack;
	}
	return e;
}

static bool pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

int main(void)
{
	const uint64_t K = 1024, M = 1024 * 1024;
	struct ring_limits root2 = {.ncpus = 2, .page = 4096, .lock_per_cpu = UINT64_MAX};

	/* bytes per sample: header, 6 u64 fields, chain (nr + 34), regs (abi + 3), stack
	 * (size + copy + dyn_size) */
	struct record_event fp = sampled(1000, 0), hy = sampled(10000, 2048);
	CHECK_EQ_U64(record_sample_bytes(&fp.attr), 8 + 6 * 8 + 8 + 8 * (RING_CHAIN_GUESS + 2));
	CHECK_EQ_U64(record_sample_bytes(&hy.attr),
		     8 + 6 * 8 + 8 + 8 * (RING_CHAIN_GUESS + 2) + 8 + 3 * 8 + 8 + 2048 + 8);

	/* the rate: frequency-sampled events only (a tracepoint's period says nothing), and
	 * not the dummy event collect opens beside cpu-clock with its attr (it never samples) */
	struct record_event ev[3] = {hy, sampled(0, 0), sampled(10000, 0)};
	ev[1].attr.freq = 0;
	ev[1].attr.sample_period = 1;
	ev[2].attr.type = PERF_TYPE_SOFTWARE;
	ev[2].attr.config = PERF_COUNT_SW_DUMMY;
	uint64_t rate10k = record_ring_rate(&ev[0].attr);
	CHECK_EQ_U64(rate10k, 10000 * record_sample_bytes(&hy.attr));
	CHECK_EQ_U64(record_ring_rate(&ev[1].attr), 0);
	CHECK_EQ_U64(record_ring_rate(&ev[2].attr), 0);

	/* 1 kHz hybrid and 10 kHz fp: the old 1 MiB holds 250 ms already */
	struct record_event hy1k = sampled(1000, 2048), fp10k = sampled(10000, 0);
	CHECK_EQ_U64(record_ring_default(record_ring_rate(&hy1k.attr), &root2), 1 * M);
	CHECK_EQ_U64(record_ring_default(record_ring_rate(&fp10k.attr), &root2), 1 * M);
	CHECK_EQ_U64(record_ring_default(0, &root2), 1 * M);

	/* 10 kHz hybrid on 2 CPUs (the bug: 1 MiB held ~40 ms): 8 MiB, >= 250 ms */
	uint64_t b = record_ring_default(rate10k, &root2);
	CHECK_EQ_U64(b, 8 * M);
	CHECK(b * 1000 / rate10k >= RING_SPAN_MS);

	/* the budget over CPUs: 16 CPUs 8 MiB each, 64 CPUs 2 MiB, 256 CPUs the floor */
	struct ring_limits l = root2;
	l.ncpus = 16;
	CHECK_EQ_U64(record_ring_default(rate10k, &l), 8 * M);
	l.ncpus = 64;
	CHECK_EQ_U64(record_ring_default(rate10k, &l), 2 * M);
	l.ncpus = 48; /* 128 MiB / 48 = 2.67 MiB: a power of two below it */
	CHECK_EQ_U64(record_ring_default(rate10k, &l), 2 * M);
	l.ncpus = 256;
	CHECK_EQ_U64(record_ring_default(rate10k, &l), 1 * M);
	/* and per CPU at most RING_MAX_BYTES, whatever the rate */
	l.ncpus = 1;
	CHECK_EQ_U64(record_ring_default(UINT64_MAX / 2000, &l), RING_MAX_BYTES);

	/* without CAP_IPC_LOCK: within kernel.perf_event_mlock_kb (516 KiB: 512 KiB of data
	 * and the header page, perf record's default); a raised sysctl is used */
	l = root2;
	l.lock_per_cpu = 516 * K;
	CHECK_EQ_U64(record_ring_default(rate10k, &l), 512 * K);
	CHECK_EQ_U64(record_ring_default(0, &l), 512 * K);
	l.lock_per_cpu = 4 * M + 4 * K;
	CHECK_EQ_U64(record_ring_default(rate10k, &l), 4 * M);
	l.lock_per_cpu = 0; /* nothing may be locked: one page, the kernel says the rest */
	CHECK_EQ_U64(record_ring_default(rate10k, &l), 4 * K);

	/* a power of two of pages, with 64 KiB pages too */
	for (uint64_t freq = 1; freq <= 100000; freq *= 7) {
		struct record_event e = sampled(freq, 8192);
		for (size_t ncpus = 1; ncpus <= 512; ncpus *= 3) {
			struct ring_limits p = {ncpus, 65536, UINT64_MAX};
			uint64_t r = record_ring_default(record_ring_rate(&e.attr), &p);
			CHECK(pow2(r) && r % 65536 == 0 && r >= RING_MIN_BYTES &&
			      r <= RING_MAX_BYTES);
		}
	}
	return TEST_DONE();
}
