/* perfdata_sample: see perfdata_sample.h.  The fields after RAW are walked only to validate
 * the record. */
#include "perfdata_sample.h"
#include "base/span.h"

#include <string.h>

/* n u64s of the body: false (and b bad) when it has fewer left. */
static bool skip_u64s(struct span *b, uint64_t n)
{
	return span_take(b, n <= SIZE_MAX / 8 ? n * 8 : SIZE_MAX) != NULL;
}

/* u64 holding {u32 a; u32 b;} as the kernel lays it out (little-endian host). */
static void split_u32(uint64_t v, uint32_t *lo, uint32_t *hi)
{
	*lo = (uint32_t)v;
	*hi = (uint32_t)(v >> 32);
}

static bool skip_read_values(struct span *b, uint64_t read_format)
{
	uint64_t per_value =
	    1 + !!(read_format & PERF_FORMAT_ID) + !!(read_format & PERF_FORMAT_LOST);
	uint64_t times = !!(read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			 !!(read_format & PERF_FORMAT_TOTAL_TIME_RUNNING);
	if (!(read_format & PERF_FORMAT_GROUP))
		return skip_u64s(b, times + per_value);
	uint64_t nr = span_u64(b);
	if (!skip_u64s(b, times))
		return false;
	return nr <= span_left(b) / 8 / per_value && skip_u64s(b, nr * per_value);
}

static bool skip_regs(struct span *b, uint64_t mask)
{
	uint64_t abi = span_u64(b);
	return !b->bad &&
	       (abi == PERF_SAMPLE_REGS_ABI_NONE || skip_u64s(b, __builtin_popcountll(mask)));
}

/* The fields after RAW: nothing of them is returned, but a record they overrun is bad. */
static bool skip_tail_fields(struct span *b, const struct perf_event_attr *attr)
{
	uint64_t type = attr->sample_type;
	if (type & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t nr = span_u64(b);
		if (attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			span_u64(b);
		/* struct perf_branch_entry is three u64 */
		if (nr > span_left(b) / 24 || !skip_u64s(b, nr * 3))
			return false;
	}
	if ((type & PERF_SAMPLE_REGS_USER) && !skip_regs(b, attr->sample_regs_user))
		return false;
	if (type & PERF_SAMPLE_STACK_USER) {
		uint64_t size = span_u64(b);
		span_take(b, size);
		if (size)
			span_u64(b); /* dyn_size */
	}
	static const uint64_t plain_u64[] = {
	    PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT,
	    PERF_SAMPLE_DATA_SRC,
	    PERF_SAMPLE_TRANSACTION,
	};
	for (size_t i = 0; i < ARRAY_SIZE(plain_u64); i++)
		if (type & plain_u64[i])
			span_u64(b);
	if ((type & PERF_SAMPLE_REGS_INTR) && !skip_regs(b, attr->sample_regs_intr))
		return false;
	static const uint64_t more_u64[] = {
	    PERF_SAMPLE_PHYS_ADDR,
	    PERF_SAMPLE_CGROUP,
	    PERF_SAMPLE_DATA_PAGE_SIZE,
	    PERF_SAMPLE_CODE_PAGE_SIZE,
	};
	for (size_t i = 0; i < ARRAY_SIZE(more_u64); i++)
		if (type & more_u64[i])
			span_u64(b);
	if (type & PERF_SAMPLE_AUX)
		span_take(b, span_u64(b));
	return !b->bad;
}

int perfdata_parse_sample(const struct perf_event_attr *attr, const struct perf_event_header *h,
			  struct perf_sample *s)
{
	memset(s, 0, sizeof(*s));
	s->pid = s->tid = s->cpu = UINT32_MAX;
	if (h->size < sizeof(*h))
		return pc_err("sample record of %u bytes is too short", h->size);
	s->cpumode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	struct span b = span_of(h + 1, h->size - sizeof(*h));
	uint64_t type = attr->sample_type;

	if (type & PERF_SAMPLE_IDENTIFIER)
		s->id = span_u64(&b);
	if (type & PERF_SAMPLE_IP)
		s->ip = span_u64(&b);
	if (type & PERF_SAMPLE_TID)
		split_u32(span_u64(&b), &s->pid, &s->tid);
	if (type & PERF_SAMPLE_TIME) {
		s->time = span_u64(&b);
		s->has_time = true;
	}
	if (type & PERF_SAMPLE_ADDR)
		s->addr = span_u64(&b);
	if (type & PERF_SAMPLE_ID)
		s->id = span_u64(&b);
	if (type & PERF_SAMPLE_STREAM_ID)
		span_u64(&b);
	if (type & PERF_SAMPLE_CPU) {
		uint32_t reserved;
		split_u32(span_u64(&b), &s->cpu, &reserved);
		s->has_cpu = true;
	}
	if (type & PERF_SAMPLE_PERIOD)
		s->period = span_u64(&b);
	if (b.bad || ((type & PERF_SAMPLE_READ) && !skip_read_values(&b, attr->read_format)))
		goto short_record;
	if (type & PERF_SAMPLE_CALLCHAIN) {
		s->nr_callchain = span_u64(&b);
		if (s->nr_callchain > span_left(&b) / 8)
			goto short_record;
		s->callchain = (const uint64_t *)span_take(&b, s->nr_callchain * 8);
	}
	if (type & PERF_SAMPLE_RAW) {
		s->raw_size = span_u32(&b);
		s->raw_data = span_take(&b, s->raw_size);
		if (b.bad)
			goto short_record;
	}
	if (!skip_tail_fields(&b, attr))
		goto short_record;
	return 0;

short_record:
	return pc_err("sample record of %u bytes is shorter than its fields (sample_type %#llx)",
		      h->size, (unsigned long long)type);
}

/* The trailer is read backwards from the record's end: ... TID TIME ID STREAM_ID CPU
 * IDENTIFIER. */
static bool take_back(const uint8_t **end, const uint8_t *start, uint64_t *v)
{
	if ((size_t)(*end - start) < 8)
		return false;
	*end -= 8;
	*v = load_le64(*end);
	return true;
}

int perfdata_record_id(const struct perf_event_attr *attr, const struct perf_event_header *h,
		       uint64_t *id)
{
	*id = 0;
	if (h->size < sizeof(*h))
		return -1;
	const uint8_t *start = (const uint8_t *)(h + 1), *end = (const uint8_t *)h + h->size;
	uint64_t type = attr->sample_type, v;
	if (h->type == PERF_RECORD_SAMPLE) {
		struct span b = span_of(start, (size_t)(end - start));
		if (!(type & PERF_SAMPLE_IDENTIFIER)) {
			if (!(type & PERF_SAMPLE_ID))
				return -1;
			skip_u64s(&b, !!(type & PERF_SAMPLE_IP) + !!(type & PERF_SAMPLE_TID) +
					  !!(type & PERF_SAMPLE_TIME) +
					  !!(type & PERF_SAMPLE_ADDR));
		}
		*id = span_u64(&b);
		return b.bad ? -1 : 0;
	}
	if (!attr->sample_id_all)
		return -1;
	if (type & PERF_SAMPLE_IDENTIFIER)
		return take_back(&end, start, id) ? 0 : -1;
	if (!(type & PERF_SAMPLE_ID))
		return -1;
	if ((type & PERF_SAMPLE_CPU) && !take_back(&end, start, &v))
		return -1;
	if ((type & PERF_SAMPLE_STREAM_ID) && !take_back(&end, start, &v))
		return -1;
	return take_back(&end, start, id) ? 0 : -1;
}

int perfdata_parse_sample_id(const struct perf_event_attr *attr, const struct perf_event_header *h,
			     struct perf_sample_id *id)
{
	memset(id, 0, sizeof(*id));
	id->pid = id->tid = id->cpu = UINT32_MAX;
	if (h->size < sizeof(*h))
		return pc_err("record of %u bytes is too short", h->size);
	if (!attr->sample_id_all)
		return 0;
	const uint8_t *start = (const uint8_t *)(h + 1), *end = (const uint8_t *)h + h->size;
	uint64_t type = attr->sample_type, v;
	if ((type & PERF_SAMPLE_IDENTIFIER) && !take_back(&end, start, &v))
		goto short_record;
	if (type & PERF_SAMPLE_CPU) {
		uint32_t reserved;
		if (!take_back(&end, start, &v))
			goto short_record;
		split_u32(v, &id->cpu, &reserved);
		id->has_cpu = true;
	}
	if ((type & PERF_SAMPLE_STREAM_ID) && !take_back(&end, start, &v))
		goto short_record;
	if ((type & PERF_SAMPLE_ID) && !take_back(&end, start, &v))
		goto short_record;
	if (type & PERF_SAMPLE_TIME) {
		if (!take_back(&end, start, &id->time))
			goto short_record;
		id->has_time = true;
	}
	if (type & PERF_SAMPLE_TID) {
		if (!take_back(&end, start, &v))
			goto short_record;
		split_u32(v, &id->pid, &id->tid);
	}
	return 0;

short_record:
	return pc_err("record type %u of %u bytes is too short for its sample_id trailer", h->type,
		      h->size);
}
