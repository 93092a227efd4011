/* perfdata_sample: decoding PERF_RECORD_SAMPLE bodies and the sample_id_all trailer of other
 * records against their event's attr, in the field order perf_event_open(2) documents; every
 * read is checked against the record's own size.  The reader decodes files with it, the
 * recorder the same bytes from the ring buffer. */
#ifndef PC_PERFDATA_SAMPLE_H
#define PC_PERFDATA_SAMPLE_H

#include "base/util.h"
#include "perf_abi.h"

struct perfdata_evsel;

/* A decoded PERF_RECORD_SAMPLE.  Pointers point into the record (from the reader: valid until
 * the next perfdata_reader_next()); evsel is set by the reader. */
struct perf_sample {
	const struct perfdata_evsel *evsel;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t id;
	uint32_t cpu;
	bool has_cpu; /* false when the attr had no PERF_SAMPLE_CPU */
	bool has_time;
	uint64_t period;
	uint64_t nr_callchain;
	const uint64_t *callchain; /* includes PERF_CONTEXT_* markers as the kernel wrote them */
	uint32_t raw_size;
	const void *raw_data; /* PERF_SAMPLE_RAW: tracepoint payload */
	uint16_t cpumode;     /* header.misc & PERF_RECORD_MISC_CPUMODE_MASK */
	/* The user-space registers (PERF_SAMPLE_REGS_USER, or where our hybrid layout keeps them:
	 * perf_abi.h): one value per bit of user_regs_mask, in perf's register order; NULL when
	 * the sample has none (a kernel thread, or not recorded).  May be unaligned. */
	const void *user_regs;
	uint64_t user_regs_mask;
	/* PERF_SAMPLE_STACK_USER: the bytes that were copied from the user stack pointer up
	 * (its dyn_size); NULL and 0 when none. */
	const uint8_t *user_stack;
	uint64_t user_stack_size;
};

/* sample_id_all trailer of non-sample records (pid/tid/time/cpu as available). */
struct perf_sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
	bool has_time, has_cpu;
};

/* Decode one sample record against its event's attr. */
int perfdata_parse_sample(const struct perf_event_attr *attr, const struct perf_event_header *h,
			  struct perf_sample *s);
int perfdata_parse_sample_id(const struct perf_event_attr *attr, const struct perf_event_header *h,
			     struct perf_sample_id *id);
/* Whether attr is of perf_abi.h's hybrid layout (the user registers in front of each
 * sample's stack copy). */
bool perfdata_attr_regs_in_stack(const struct perf_event_attr *attr);
/* The attr perf.data gives an event the kernel samples with both PERF_SAMPLE_REGS_USER and
 * PERF_SAMPLE_STACK_USER, written in the hybrid layout: the same without REGS_USER. */
void perfdata_attr_fold_regs(struct perf_event_attr *attr);
/* A sample of attr (as the kernel wrote it) rewritten for perf.data into out (h->size bytes
 * at most): its stack copy cut to the bytes the kernel copied (dyn_size; the kernel pads it
 * to the size asked for), and with fold_regs in the hybrid layout.  Returns the new size; 0
 * when h is no sample with a stack copy (it is written as it is).  With a size, *parsed (if
 * not NULL) is h decoded as perfdata_parse_sample() would (pointing into h): one parse for
 * a caller that needs both. */
size_t perfdata_sample_pack_stack(const struct perf_event_attr *attr,
				  const struct perf_event_header *h, bool fold_regs, void *out,
				  struct perf_sample *parsed);
/* A sample of attr rewritten into out (UINT16_MAX bytes at most, any alignment) with chain as its
 * callchain and without its user registers and stack copy (for an attr given
 * perfdata_attr_drop_user_stack()): the unwound form, as `perf inject` writes it.  Returns
 * the new size; 0 when h is no sample with a callchain or the result would not fit. */
size_t perfdata_sample_with_chain(const struct perf_event_attr *attr,
				  const struct perf_event_header *h, const uint64_t *chain,
				  size_t nchain, void *out);
/* attr without PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER (hybrid layout included),
 * its callchains whole (user frames too). */
void perfdata_attr_drop_user_stack(struct perf_event_attr *attr);
/* The event id a record carries (PERF_SAMPLE_IDENTIFIER, else PERF_SAMPLE_ID where attr's
 * layout puts it: from the start of a sample, from the end of other records' trailer).
 * -1 when attr gives the record no id. */
int perfdata_record_id(const struct perf_event_attr *attr, const struct perf_event_header *h,
		       uint64_t *id);

#endif
