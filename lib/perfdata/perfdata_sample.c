/* perfdata_sample: see perfdata_sample.h.  Of the fields after RAW, the user registers and
 * stack copy are returned; the rest are walked only to validate the record. */
#include "perfdata_sample.h"
#include "base/span.h"

#include <stddef.h>
#include <string.h>

/* n u64s of the body: false (and b bad) when it has fewer left. */
static bool skip_u64s(struct span *b, uint64_t n)
{
	return span_take(b, n <= SIZE_MAX / 8 ? n * 8 : SIZE_MAX) != NULL;
}

/* The header's size of a record built in out, which may sit misaligned (after odd-sized
 * records in a writer's buffer): written bytewise. */
static void set_record_size(void *out, size_t n)
{
	uint16_t size = (uint16_t)n;
	memcpy((uint8_t *)out + offsetof(struct perf_event_header, size), &size, sizeof(size));
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

/* Where the fields after RAW are in a record: the user registers' block (abi word and
 * values) and the user stack's (size, bytes, dyn_size), as offsets from the header. */
struct tail {
	size_t regs_at, regs_len;   /* 0, 0: none */
	size_t stack_at, stack_len; /* 0, 0: none */
	uint64_t stack_size, dyn_size;
};

/* A register block (abi word and values); *values is NULL when the abi says none. */
static bool regs_block(struct span *b, uint64_t mask, const uint8_t **values)
{
	*values = NULL;
	uint64_t abi = span_u64(b);
	if (b->bad)
		return false;
	if (abi == PERF_SAMPLE_REGS_ABI_NONE)
		return true;
	*values = b->p + b->pos;
	return skip_u64s(b, __builtin_popcountll(mask));
}

/* The fields after RAW: the user registers and stack are kept, the rest only checked (a
 * record they overrun is bad).  b's positions are offsets from the header's end. */
static bool tail_fields(struct span *b, const struct perf_event_attr *attr, struct perf_sample *s,
			struct tail *t)
{
	uint64_t type = attr->sample_type;
	const size_t hdr = sizeof(struct perf_event_header);
	memset(t, 0, sizeof(*t));
	if (type & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t nr = span_u64(b);
		if (attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			span_u64(b);
		/* struct perf_branch_entry is three u64 */
		if (nr > span_left(b) / 24 || !skip_u64s(b, nr * 3))
			return false;
	}
	if (type & PERF_SAMPLE_REGS_USER) {
		const uint8_t *values;
		t->regs_at = hdr + b->pos;
		if (!regs_block(b, attr->sample_regs_user, &values))
			return false;
		t->regs_len = hdr + b->pos - t->regs_at;
		if (values) {
			s->user_regs = values;
			s->user_regs_mask = attr->sample_regs_user;
		}
	}
	if (type & PERF_SAMPLE_STACK_USER) {
		t->stack_at = hdr + b->pos;
		t->stack_size = span_u64(b);
		const uint8_t *data = span_take(b, t->stack_size);
		if (b->bad)
			return false;
		if (t->stack_size) {
			t->dyn_size = span_u64(b);
			if (b->bad || t->dyn_size > t->stack_size)
				return false;
			s->user_stack = data;
			s->user_stack_size = t->dyn_size;
		}
		t->stack_len = hdr + b->pos - t->stack_at;
		/* our hybrid layout: the registers are the copy's first words */
		size_t regs = (size_t)__builtin_popcountll(attr->sample_regs_user) * 8;
		if (perfdata_attr_regs_in_stack(attr) && s->user_stack) {
			if (s->user_stack_size < regs) {
				s->user_stack = NULL;
				s->user_stack_size = 0;
			} else {
				s->user_regs = s->user_stack;
				s->user_regs_mask = attr->sample_regs_user;
				s->user_stack += regs;
				s->user_stack_size -= regs;
			}
		}
	}
	static const uint64_t plain_u64[] = {
	    PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT,
	    PERF_SAMPLE_DATA_SRC,
	    PERF_SAMPLE_TRANSACTION,
	};
	for (size_t i = 0; i < ARRAY_SIZE(plain_u64); i++)
		if (type & plain_u64[i])
			span_u64(b);
	if (type & PERF_SAMPLE_REGS_INTR) {
		const uint8_t *values;
		if (!regs_block(b, attr->sample_regs_intr, &values))
			return false;
	}
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

bool perfdata_attr_regs_in_stack(const struct perf_event_attr *attr)
{
	return (attr->sample_type & PERF_SAMPLE_STACK_USER) &&
	       !(attr->sample_type & PERF_SAMPLE_REGS_USER) && attr->sample_regs_user;
}

void perfdata_attr_fold_regs(struct perf_event_attr *attr)
{
	if ((attr->sample_type & PERF_SAMPLE_REGS_USER) &&
	    (attr->sample_type & PERF_SAMPLE_STACK_USER))
		attr->sample_type &= ~(uint64_t)PERF_SAMPLE_REGS_USER;
}

static int parse_sample(const struct perf_event_attr *attr, const struct perf_event_header *h,
			struct perf_sample *s, struct tail *t);

size_t perfdata_sample_pack_stack(const struct perf_event_attr *attr,
				  const struct perf_event_header *h, bool fold_regs, void *out,
				  struct perf_sample *parsed)
{
	struct perf_sample s;
	struct tail t;
	if (h->type != PERF_RECORD_SAMPLE || !(attr->sample_type & PERF_SAMPLE_STACK_USER) ||
	    parse_sample(attr, h, &s, &t) < 0 || !t.stack_len)
		return 0;
	fold_regs = fold_regs && (attr->sample_type & PERF_SAMPLE_REGS_USER);
	const uint8_t *rec = (const uint8_t *)h;
	uint8_t *o = out;
	/* everything up to the registers (or the stack, when they stay where they are) */
	size_t head = fold_regs ? t.regs_at : t.stack_at;
	memcpy(o, rec, head);
	size_t n = head;
	if (fold_regs && t.regs_at + t.regs_len < t.stack_at) { /* fields between (none today) */
		memcpy(o + n, rec + t.regs_at + t.regs_len, t.stack_at - t.regs_at - t.regs_len);
		n += t.stack_at - t.regs_at - t.regs_len;
	}
	size_t regs =
	    fold_regs && s.user_regs ? (size_t)__builtin_popcountll(attr->sample_regs_user) * 8 : 0;
	uint64_t dyn = s.user_stack ? s.user_stack_size : 0;
	/* a copy without registers is of no use to the folded layout's readers: none */
	if (fold_regs && !regs)
		dyn = 0;
	uint64_t size = dyn || regs ? regs + ((dyn + 7) & ~(uint64_t)7) : 0;
	memcpy(o + n, &size, 8);
	n += 8;
	if (size) {
		if (regs)
			memcpy(o + n, s.user_regs, regs);
		memcpy(o + n + regs, s.user_stack, dyn);
		memset(o + n + regs + dyn, 0, size - regs - dyn);
		n += size;
		uint64_t dyn_size = regs + dyn;
		memcpy(o + n, &dyn_size, 8);
		n += 8;
	}
	size_t after = t.stack_at + t.stack_len;
	memcpy(o + n, rec + after, h->size - after);
	n += h->size - after;
	set_record_size(out, n);
	if (parsed)
		*parsed = s;
	return n;
}

size_t perfdata_sample_with_chain(const struct perf_event_attr *attr,
				  const struct perf_event_header *h, const uint64_t *chain,
				  size_t nchain, void *out)
{
	struct perf_sample s;
	struct tail t;
	if (h->type != PERF_RECORD_SAMPLE || !(attr->sample_type & PERF_SAMPLE_CALLCHAIN) ||
	    parse_sample(attr, h, &s, &t) < 0)
		return 0;
	const uint8_t *rec = (const uint8_t *)h;
	size_t chain_at = (size_t)((const uint8_t *)s.callchain - rec) - 8;
	size_t chain_end = chain_at + 8 + s.nr_callchain * 8;
	/* the register and stack blocks are next to each other (nothing comes between) */
	size_t cut_at = t.regs_len ? t.regs_at : t.stack_len ? t.stack_at : h->size;
	size_t cut_end = t.stack_len ? t.stack_at + t.stack_len : cut_at + t.regs_len;
	size_t n = chain_at + 8 + nchain * 8 + (cut_at - chain_end) + (h->size - cut_end);
	if (n > UINT16_MAX)
		return 0;
	uint8_t *o = out;
	memcpy(o, rec, chain_at);
	uint64_t nr = nchain;
	memcpy(o + chain_at, &nr, 8);
	memcpy(o + chain_at + 8, chain, nchain * 8);
	size_t k = chain_at + 8 + nchain * 8;
	memcpy(o + k, rec + chain_end, cut_at - chain_end);
	k += cut_at - chain_end;
	memcpy(o + k, rec + cut_end, h->size - cut_end);
	set_record_size(out, n);
	return n;
}

void perfdata_attr_drop_user_stack(struct perf_event_attr *attr)
{
	attr->sample_type &= ~(uint64_t)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
	attr->sample_regs_user = 0;
	attr->sample_stack_user = 0;
	attr->exclude_callchain_user = 0;
}

int perfdata_parse_sample(const struct perf_event_attr *attr, const struct perf_event_header *h,
			  struct perf_sample *s)
{
	struct tail t;
	return parse_sample(attr, h, s, &t);
}

static int parse_sample(const struct perf_event_attr *attr, const struct perf_event_header *h,
			struct perf_sample *s, struct tail *t)
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
	if (!tail_fields(&b, attr, s, t))
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
