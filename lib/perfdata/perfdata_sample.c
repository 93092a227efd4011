/* perfdata_sample: decoding PERF_RECORD_SAMPLE bodies and the sample_id_all trailer of other
 * records, in the field order perf_event_open(2) documents.  Every read is checked against
 * the record's own size; the fields after RAW are walked only to validate the record. */
#include "perfdata_read.h"

#include <string.h>

/* A cursor over a record body; reads never pass `end`. */
struct body {
	const uint8_t *p, *end;
};

static size_t left(const struct body *b)
{
	return (size_t)(b->end - b->p);
}

static bool get_u64(struct body *b, uint64_t *v)
{
	if (left(b) < 8)
		return false;
	memcpy(v, b->p, 8);
	b->p += 8;
	return true;
}

static bool skip_bytes(struct body *b, uint64_t n)
{
	if (left(b) < n)
		return false;
	b->p += n;
	return true;
}

static bool skip_u64s(struct body *b, uint64_t n)
{
	return n <= left(b) / 8 && skip_bytes(b, n * 8);
}

/* u64 holding {u32 a; u32 b;} as the kernel lays it out (little-endian host). */
static void split_u32(uint64_t v, uint32_t *lo, uint32_t *hi)
{
	*lo = (uint32_t)v;
	*hi = (uint32_t)(v >> 32);
}

static bool skip_read_values(struct body *b, uint64_t read_format)
{
	uint64_t per_value =
	    1 + !!(read_format & PERF_FORMAT_ID) + !!(read_format & PERF_FORMAT_LOST);
	uint64_t times = !!(read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			 !!(read_format & PERF_FORMAT_TOTAL_TIME_RUNNING);
	if (!(read_format & PERF_FORMAT_GROUP))
		return skip_u64s(b, times + per_value);
	uint64_t nr;
	if (!get_u64(b, &nr) || !skip_u64s(b, times))
		return false;
	return nr <= left(b) / 8 / per_value && skip_u64s(b, nr * per_value);
}

static bool skip_regs(struct body *b, uint64_t mask)
{
	uint64_t abi;
	if (!get_u64(b, &abi))
		return false;
	return abi == PERF_SAMPLE_REGS_ABI_NONE || skip_u64s(b, __builtin_popcountll(mask));
}

/* The fields after RAW: nothing of them is returned, but a record they overrun is bad. */
static bool skip_tail_fields(struct body *b, const struct perf_event_attr *attr)
{
	uint64_t type = attr->sample_type, v;
	if (type & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t nr;
		if (!get_u64(b, &nr))
			return false;
		if ((attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) && !get_u64(b, &v))
			return false;
		/* struct perf_branch_entry is three u64 */
		if (nr > left(b) / 24 || !skip_u64s(b, nr * 3))
			return false;
	}
	if ((type & PERF_SAMPLE_REGS_USER) && !skip_regs(b, attr->sample_regs_user))
		return false;
	if (type & PERF_SAMPLE_STACK_USER) {
		uint64_t size;
		if (!get_u64(b, &size) || !skip_bytes(b, size))
			return false;
		if (size && !get_u64(b, &v)) /* dyn_size */
			return false;
	}
	static const uint64_t plain_u64[] = {
	    PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT,
	    PERF_SAMPLE_DATA_SRC,
	    PERF_SAMPLE_TRANSACTION,
	};
	for (size_t i = 0; i < ARRAY_SIZE(plain_u64); i++)
		if ((type & plain_u64[i]) && !get_u64(b, &v))
			return false;
	if ((type & PERF_SAMPLE_REGS_INTR) && !skip_regs(b, attr->sample_regs_intr))
		return false;
	static const uint64_t more_u64[] = {
	    PERF_SAMPLE_PHYS_ADDR,
	    PERF_SAMPLE_CGROUP,
	    PERF_SAMPLE_DATA_PAGE_SIZE,
	    PERF_SAMPLE_CODE_PAGE_SIZE,
	};
	for (size_t i = 0; i < ARRAY_SIZE(more_u64); i++)
		if ((type & more_u64[i]) && !get_u64(b, &v))
			return false;
	if (type & PERF_SAMPLE_AUX) {
		uint64_t size;
		if (!get_u64(b, &size) || !skip_bytes(b, size))
			return false;
	}
	return true;
}

int perfdata_parse_sample(const struct perf_event_attr *attr, const struct perf_event_header *h,
			  struct perf_sample *s)
{
	memset(s, 0, sizeof(*s));
	s->pid = s->tid = s->cpu = UINT32_MAX;
	if (h->size < sizeof(*h))
		return pc_err("sample record of %u bytes is too short", h->size);
	s->cpumode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	struct body b = {(const uint8_t *)(h + 1), (const uint8_t *)h + h->size};
	uint64_t type = attr->sample_type, v;

	if ((type & PERF_SAMPLE_IDENTIFIER) && !get_u64(&b, &s->id))
		goto short_record;
	if ((type & PERF_SAMPLE_IP) && !get_u64(&b, &s->ip))
		goto short_record;
	if (type & PERF_SAMPLE_TID) {
		if (!get_u64(&b, &v))
			goto short_record;
		split_u32(v, &s->pid, &s->tid);
	}
	if (type & PERF_SAMPLE_TIME) {
		if (!get_u64(&b, &s->time))
			goto short_record;
		s->has_time = true;
	}
	if ((type & PERF_SAMPLE_ADDR) && !get_u64(&b, &s->addr))
		goto short_record;
	if ((type & PERF_SAMPLE_ID) && !get_u64(&b, &s->id))
		goto short_record;
	if ((type & PERF_SAMPLE_STREAM_ID) && !get_u64(&b, &v))
		goto short_record;
	if (type & PERF_SAMPLE_CPU) {
		uint32_t reserved;
		if (!get_u64(&b, &v))
			goto short_record;
		split_u32(v, &s->cpu, &reserved);
		s->has_cpu = true;
	}
	if ((type & PERF_SAMPLE_PERIOD) && !get_u64(&b, &s->period))
		goto short_record;
	if ((type & PERF_SAMPLE_READ) && !skip_read_values(&b, attr->read_format))
		goto short_record;
	if (type & PERF_SAMPLE_CALLCHAIN) {
		if (!get_u64(&b, &s->nr_callchain) || s->nr_callchain > left(&b) / 8)
			goto short_record;
		s->callchain = (const uint64_t *)b.p;
		b.p += s->nr_callchain * 8;
	}
	if (type & PERF_SAMPLE_RAW) {
		if (left(&b) < 4)
			goto short_record;
		memcpy(&s->raw_size, b.p, 4);
		if (s->raw_size > left(&b) - 4)
			goto short_record;
		s->raw_data = b.p + 4;
		b.p += 4 + (size_t)s->raw_size;
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
	memcpy(v, *end, 8);
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
		struct body b = {start, end};
		if (type & PERF_SAMPLE_IDENTIFIER)
			return get_u64(&b, id) ? 0 : -1;
		if (!(type & PERF_SAMPLE_ID))
			return -1;
		uint64_t before_id = !!(type & PERF_SAMPLE_IP) + !!(type & PERF_SAMPLE_TID) +
				     !!(type & PERF_SAMPLE_TIME) + !!(type & PERF_SAMPLE_ADDR);
		return skip_u64s(&b, before_id) && get_u64(&b, id) ? 0 : -1;
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
