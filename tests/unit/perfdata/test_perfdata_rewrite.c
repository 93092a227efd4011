/* Unit tests for perfdata_rewrite and perfdata_sample_with_chain: a sample of the hybrid
 * layout (registers in front of the stack copy) with fields on both sides of the copy, given
 * a new chain, keeps every other field where perf_event_open(2) puts it; a file rewritten
 * through the reader has the new chains, no stack copies, and the original's feature
 * sections.  (perf itself reads the rewritten files of real recordings in
 * tests/integration/unwind_nofp.sh and unwind_libc.sh.) */
#include "base/span.h"
#include "perfdata/perfdata_read.h"
#include "perfdata/perfdata_rewrite.h"
#include "perfdata/perfdata_write.h"
#include "test.h"

#include <unistd.h>

#define TYPE                                                                                       \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |          \
	 PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT)
#define REGS   0x7ULL /* three registers, in front of the copy (hybrid layout) */
#define ID     77
#define WEIGHT 4321

static void hybrid_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_type = TYPE;
	a->sample_regs_user = REGS;
	a->sample_stack_user = 64;
	a->sample_id_all = 1;
	a->sample_freq = 1000;
	a->freq = 1;
}

/* A sample: chain [KERNEL, k, USER, u], 4 bytes of raw data, a 64-byte copy (registers then
 * stack), the weight last. */
static size_t hybrid_sample(uint64_t *w, uint64_t time)
{
	size_t n = 1;
	w[n++] = ID;
	w[n++] = 0x401000;	       /* ip */
	w[n++] = 100 | (101ULL << 32); /* pid, tid */
	w[n++] = time;
	w[n++] = 1;	  /* cpu */
	w[n++] = 1000000; /* period */
	w[n++] = 4;	  /* chain */
	w[n++] = PERF_CONTEXT_KERNEL;
	w[n++] = 0xffffffff81000000ULL;
	w[n++] = PERF_CONTEXT_USER;
	w[n++] = 0x401000;
	w[n++] = 4 | (0xabcdULL << 32); /* raw: u32 size, 4 bytes */
	w[n++] = 64;			/* stack size */
	for (int i = 0; i < 8; i++)
		w[n++] = 0x5a5a5a5a00000000ULL + i;
	w[n++] = 64; /* dyn_size */
	w[n++] = WEIGHT;
	struct perf_event_header h = {
	    .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER, .size = (uint16_t)(n * 8)};
	memcpy(w, &h, sizeof(h));
	return n * 8;
}

static const uint64_t new_chain[] = {
    PERF_CONTEXT_KERNEL, 0xffffffff81000000ULL, PERF_CONTEXT_USER, 0x401000, 0x401234,
    0x7f0000001000ULL};

static void check_rewritten(const struct perf_event_attr *a, const struct perf_event_header *h)
{
	struct perf_sample s;
	CHECK(perfdata_parse_sample(a, h, &s) == 0);
	CHECK_EQ_U64(s.id, ID);
	CHECK_EQ_U64(s.ip, 0x401000);
	CHECK_EQ_U64(s.tid, 101);
	CHECK_EQ_U64(s.cpu, 1);
	CHECK_EQ_U64(s.nr_callchain, ARRAY_SIZE(new_chain));
	if (s.nr_callchain == ARRAY_SIZE(new_chain))
		CHECK(!memcmp(s.callchain, new_chain, sizeof(new_chain)));
	CHECK_EQ_U64(s.raw_size, 4);
	CHECK(s.raw_data && load_le32(s.raw_data) == 0xabcd);
	CHECK(!s.user_regs && !s.user_stack);
	CHECK_EQ_U64(load_le64((const uint8_t *)h + h->size - 8), WEIGHT);
}

static void test_sample_layout(void)
{
	struct perf_event_attr a, dropped;
	hybrid_attr(&a);
	CHECK(perfdata_attr_regs_in_stack(&a));
	uint64_t in[64], out[8192];
	hybrid_sample(in, 1000);
	struct perf_sample s;
	CHECK(perfdata_parse_sample(&a, (const void *)in, &s) == 0);
	CHECK(s.user_regs && s.user_stack_size == 40);
	size_t n =
	    perfdata_sample_with_chain(&a, (const void *)in, new_chain, ARRAY_SIZE(new_chain), out);
	struct perf_event_header h;
	memcpy(&h, in, sizeof(h));
	/* the chain 2 words longer, the copy (10 words with its size and dyn_size) gone */
	CHECK_EQ_U64(n, h.size + 2 * 8 - 10 * 8);
	dropped = a;
	perfdata_attr_drop_user_stack(&dropped);
	CHECK(!(dropped.sample_type & (PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_USER)));
	check_rewritten(&dropped, (const void *)out);
}

static void test_file(const char *dir)
{
	char src[4096], dst[4096];
	snprintf(src, sizeof(src), "%s/hybrid.data", dir);
	snprintf(dst, sizeof(dst), "%s/unwound.data", dir);
	struct perf_event_attr a;
	hybrid_attr(&a);
	uint64_t ids[] = {ID};
	struct perfdata_meta meta = {.hostname = "rewrite-test-host", .clockid = -1};
	struct perfdata_writer *w = perfdata_writer_new(src);
	CHECK(w != NULL);
	if (!w)
		return;
	perfdata_writer_add_attr(w, &a, "cpu-clock", ids, 1);
	perfdata_writer_compress(w, 1);
	uint64_t rec[64];
	for (int i = 0; i < 3; i++)
		perfdata_writer_write(w, rec, hybrid_sample(rec, 1000 + i));
	CHECK(perfdata_writer_finish(w, &meta) == 0);
	perfdata_writer_free(w);

	struct perfdata_reader *r = perfdata_reader_open(src);
	CHECK(r != NULL);
	if (!r)
		return;
	struct perfdata_rewrite *rw = perfdata_rewrite_new(dst, r, 3);
	CHECK(rw != NULL);
	struct perfdata_record pr;
	while (rw && perfdata_reader_next(r, &pr) > 0) {
		if (pr.header->type == PERF_RECORD_SAMPLE)
			CHECK(perfdata_rewrite_sample(rw, &pr, new_chain, ARRAY_SIZE(new_chain)) ==
			      0);
		else
			CHECK(perfdata_rewrite_record(rw, &pr) == 0);
	}
	CHECK(rw && perfdata_rewrite_finish(rw) == 0);
	perfdata_rewrite_free(rw);
	perfdata_reader_free(r);

	r = perfdata_reader_open(dst);
	CHECK(r != NULL);
	if (!r)
		return;
	CHECK_STR(perfdata_reader_hostname(r), "rewrite-test-host");
	CHECK(!perfdata_reader_truncated(r));
	CHECK_EQ_U64(perfdata_reader_nr_evsels(r), 1);
	const struct perfdata_evsel *ev = perfdata_reader_evsel(r, 0);
	CHECK_STR(ev->name, "cpu-clock");
	CHECK(!(ev->attr.sample_type & PERF_SAMPLE_STACK_USER) && !ev->attr.sample_regs_user);
	int samples = 0;
	while (perfdata_reader_next(r, &pr) > 0)
		if (pr.header->type == PERF_RECORD_SAMPLE) {
			samples++;
			check_rewritten(&ev->attr, pr.header);
		}
	CHECK_EQ_U64(samples, 3);
	perfdata_reader_free(r);
	unlink(src);
	unlink(dst);
}

int main(void)
{
	char dir[] = "/tmp/pc-test-rewrite.XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	test_sample_layout();
	test_file(dir);
	rmdir(dir);
	return test_failures ? 1 : 0;
}
