/* The NetTrace writer (lib/nettrace/nettrace_write.c, its encodings in base/bytebuf.h), round trip:
 * the input is a program of writer calls (declare metadata and threads, remove threads, write
 * events with stacks, label lists and payloads, report lost events, flush, sequence points that may
 * forget metadata and threads, tiny block and region limits), run against a writer on a memfd; the
 * file is then read back with nettrace_read.  The reader must accept every byte the writer
 * wrote (no error, the end mark seen) and give back every event the writer took, in order,
 * with its metadata (provider, name, id), thread, processor, payload, stack and activity id.
 * A call the writer's contract allows must not fail. */
#include "fuzz.h"
#include "nettrace/nettrace_read.h"
#include "nettrace/nettrace_write.h"

#define MAX_EVENTS 2000
#define MAX_STACK  64

struct in {
	const uint8_t *p;
	size_t n, at;
};

static uint64_t take(struct in *in, int bytes)
{
	uint64_t v = 0;
	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)(in->at < in->n ? in->p[in->at++] : 0) << (8 * i);
	return v;
}

/* A short name made of the input's bytes (any byte but NUL: UTF-8 or not). */
static char *take_name(struct in *in, char *buf, size_t cap)
{
	size_t len = take(in, 1) % cap, i = 0;
	/* One byte at a time with the bound in the loop: gcc -O3 vectorized the plain loop
	 * and took its 16-byte store for an overflow of a 16-byte name (-Werror). */
	while (i < len && i + 1 < cap)
		buf[i++] = (char)(take(in, 1) | 1);
	buf[i] = 0;
	return buf;
}

/* Field lists to pick from: scalars, strings, arrays, nested objects. */
static const struct nettrace_field_type T_U32 = {.code = NETTRACE_UINT32};
static const struct nettrace_field_type T_U8 = {.code = NETTRACE_UTF8_CHAR};
static const struct nettrace_field_type T_STR = {.code = NETTRACE_UTF16_STRING};
static const struct nettrace_field_desc INNER[] = {
    {"A", {.code = NETTRACE_INT64}},
    {"B", {.code = NETTRACE_ARRAY, .element = &T_U8}},
};
static const struct nettrace_field_desc FIELDS[] = {
    {"Count", {.code = NETTRACE_UINT32}},
    {"Name", {.code = NETTRACE_UTF16_STRING}},
    {"Ids", {.code = NETTRACE_ARRAY, .element = &T_U32}},
    {"Fixed", {.code = NETTRACE_FIXED_ARRAY, .element = &T_STR, .count = 3}},
    {"Obj", {.code = NETTRACE_OBJECT, .fields = INNER, .nfields = 2}},
    {"Guid", {.code = NETTRACE_GUID}},
    {"V", {.code = NETTRACE_VARUINT}},
};

struct meta_model {
	char provider[64], name[64];
	uint32_t event_id;
};

struct event_model {
	uint32_t metadata_id;
	uint64_t thread;
	uint32_t cpu;
	size_t payload_at, payload_size; /* in the input */
	uint64_t stack[MAX_STACK];
	size_t depth;
	bool has_activity;
	uint8_t activity[16];
};

struct model {
	struct meta_model *meta; /* by metadata id */
	size_t nmeta;
	uint32_t first_meta; /* ids before it were forgotten */
	uint64_t threads[64];
	size_t nthreads;
	struct event_model *events;
	size_t nevents;
	unsigned pointer_size;
};

static void add_metadata(struct nettrace_writer *w, struct model *m, struct in *in)
{
	struct meta_model mm = {.event_id = (uint32_t)take(in, 2)};
	static const char *const kv[] = {"Key", "Value", "Other", ""};
	uint8_t guid[16];
	for (int i = 0; i < 16; i++)
		guid[i] = (uint8_t)take(in, 1);
	uint8_t shape = (uint8_t)take(in, 1);
	struct nettrace_event_desc d = {
	    .provider = take_name(in, mm.provider, sizeof(mm.provider)),
	    .provider_guid = shape & 1 ? guid : NULL,
	    .event_id = mm.event_id,
	    .name = take_name(in, mm.name, sizeof(mm.name)),
	    .fields = FIELDS + (shape >> 1) % ARRAY_SIZE(FIELDS),
	    .nfields = (uint16_t)((shape >> 4) %
				  (ARRAY_SIZE(FIELDS) - (shape >> 1) % ARRAY_SIZE(FIELDS) + 1)),
	    .opcode = (int)take(in, 1) - 1,
	    .level = (int)take(in, 1) % 7 - 1,
	    .version = (int)take(in, 1) - 1,
	    .keywords = take(in, 8),
	    .message = shape & 0x80 ? "Message {0}" : NULL,
	    .kv = kv,
	    .nkv = shape & 0x40 ? 2 : 0,
	};
	uint32_t id = nettrace_writer_add_metadata(w, &d);
	FUZZ_CHECK(id >= 1);
	if (id >= m->nmeta) {
		m->meta = realloc(m->meta, (id + 1) * sizeof(*m->meta));
		memset(m->meta + m->nmeta, 0, (id + 1 - m->nmeta) * sizeof(*m->meta));
		m->nmeta = id + 1;
	}
	m->meta[id] = mm;
}

static void add_thread(struct nettrace_writer *w, struct model *m, struct in *in)
{
	uint8_t flags = (uint8_t)take(in, 1);
	char name[16];
	struct nettrace_thread_info t = {
	    .has_pid = flags & 1,
	    .has_tid = flags & 2,
	    .pid = take(in, 4),
	    .tid = take(in, 4),
	    .name = flags & 4 ? take_name(in, name, sizeof(name)) : NULL,
	};
	uint64_t idx = nettrace_writer_add_thread(w, &t);
	FUZZ_CHECK(idx >= 1);
	if (m->nthreads < ARRAY_SIZE(m->threads))
		m->threads[m->nthreads++] = idx;
}

static void write_event(struct nettrace_writer *w, struct model *m, struct in *in)
{
	uint8_t flags = (uint8_t)take(in, 1);
	uint32_t meta = m->first_meta + (uint32_t)take(in, 1) % 8;
	if (!m->nthreads || meta >= m->nmeta || !m->meta[meta].provider[0] ||
	    m->nevents == MAX_EVENTS)
		return;
	struct event_model em = {
	    .metadata_id = meta,
	    .thread = m->threads[take(in, 1) % m->nthreads],
	    .cpu = (uint32_t)take(in, 2),
	};
	uint64_t capture = flags & 1 ? m->threads[take(in, 1) % m->nthreads] : 0;
	uint64_t timestamp = take(in, 3) << (flags & 2 ? 20 : 0);
	uint32_t stack_id = 0, labels_id = 0;
	if (flags & 4) {
		struct nettrace_label l[4];
		size_t n = 1 + take(in, 1) % 4;
		char key[8], value[8];
		for (size_t i = 0; i < n; i++) {
			l[i] = (struct nettrace_label){.kind = 1 + take(in, 1) % 10};
			for (int k = 0; k < 16; k++)
				l[i].bytes[k] = (uint8_t)take(in, 1);
			l[i].u64 = take(in, 8);
			l[i].i64 = (int64_t)take(in, 8);
			l[i].key = take_name(in, key, sizeof(key));
			l[i].value = take_name(in, value, sizeof(value));
			if (l[i].kind == NETTRACE_LABEL_ACTIVITY_ID) {
				em.has_activity = true;
				memcpy(em.activity, l[i].bytes, 16);
			}
		}
		labels_id = nettrace_writer_label_list(w, l, n);
		FUZZ_CHECK(labels_id >= 1);
	}
	if (flags & 8) {
		em.depth = 1 + take(in, 1) % MAX_STACK;
		for (size_t i = 0; i < em.depth; i++) {
			em.stack[i] = take(in, flags & 16 ? 8 : 2) * 16;
			if (m->pointer_size == 4)
				em.stack[i] &= 0xffffffffu;
		}
		stack_id = nettrace_writer_stack(w, em.stack, em.depth);
		FUZZ_CHECK(stack_id >= 1);
	}
	em.payload_size = take(in, 2) % 512;
	em.payload_at = in->at < in->n ? in->at : in->n;
	if (em.payload_size > in->n - em.payload_at)
		em.payload_size = in->n - em.payload_at;
	in->at = em.payload_at + em.payload_size;
	struct nettrace_event_out e = {
	    .metadata_id = meta,
	    .thread = em.thread,
	    .capture_thread = capture,
	    .cpu = em.cpu,
	    .stack_id = stack_id,
	    .label_list_id = labels_id,
	    .timestamp = timestamp,
	    .sorted = flags & 32,
	    .payload = in->p + em.payload_at,
	    .payload_size = em.payload_size,
	};
	FUZZ_CHECK(nettrace_writer_event(w, &e) == 0);
	m->events[m->nevents++] = em;
}

/* Runs the program; the writer's file is left in fd. */
static void run(int fd, struct model *m, struct in *in)
{
	static const char *const kv[] = {"HardwareThreadCount", "2", "ProcessId", "42"};
	m->pointer_size = take(in, 1) & 1 ? 4 : 8;
	struct nettrace_trace_info info = {
	    .sync_utc_ns = 1700000000000000000LL,
	    .sync_ticks = 1000,
	    .tick_freq = 1000000000,
	    .pointer_size = m->pointer_size,
	    .kv = kv,
	    .nkv = 2,
	};
	struct nettrace_writer *w = nettrace_writer_new(fd, &info);
	FUZZ_CHECK(w);
	m->first_meta = 1;
	while (in->at < in->n) {
		switch (take(in, 1) % 10) {
		case 0:
			add_metadata(w, m, in);
			break;
		case 1:
			add_thread(w, m, in);
			break;
		case 2:
			if (m->nthreads) {
				size_t i = take(in, 1) % m->nthreads;
				FUZZ_CHECK(nettrace_writer_remove_thread(w, m->threads[i]) == 0);
				m->threads[i] = m->threads[--m->nthreads];
			}
			break;
		case 3:
			nettrace_writer_lost(w, m->nthreads ? m->threads[0] : 1,
					     (uint32_t)take(in, 1));
			break;
		case 4:
			FUZZ_CHECK(nettrace_writer_flush(w) == 0);
			break;
		case 5: {
			uint8_t flags = (uint8_t)take(in, 1);
			FUZZ_CHECK(nettrace_writer_sequence_point(w, take(in, 3), flags & 1,
								  flags & 2) == 0);
			if (flags & 1)
				m->nthreads = 0;
			if (flags & 2)
				m->first_meta = (uint32_t)m->nmeta;
			break;
		}
		case 6:
			nettrace_writer_set_limits(w, 64 + take(in, 2), take(in, 2));
			break;
		default:
			write_event(w, m, in);
			break;
		}
	}
	FUZZ_CHECK(nettrace_writer_finish(w) == 0);
	FUZZ_CHECK(nettrace_writer_stats(w)->events == m->nevents);
	nettrace_writer_free(w);
}

static void check_event(const struct model *m, const struct in *in, size_t n,
			const struct nettrace_event *e)
{
	FUZZ_CHECK(n < m->nevents);
	const struct event_model *em = &m->events[n];
	const struct meta_model *mm = &m->meta[em->metadata_id];
	FUZZ_CHECK(e->meta && !strcmp(e->meta->provider, mm->provider));
	FUZZ_CHECK(!strcmp(e->meta->event_name, mm->name));
	FUZZ_CHECK(e->meta->event_id == mm->event_id);
	FUZZ_CHECK(e->thread_index == em->thread);
	FUZZ_CHECK(e->processor == em->cpu);
	FUZZ_CHECK(e->payload_size == em->payload_size);
	FUZZ_CHECK(!em->payload_size ||
		   !memcmp(e->payload, in->p + em->payload_at, em->payload_size));
	FUZZ_CHECK(e->stack_depth == em->depth);
	for (size_t i = 0; i < em->depth; i++)
		FUZZ_CHECK(e->stack[i] == em->stack[i]);
	if (em->has_activity)
		FUZZ_CHECK(!memcmp(e->activity_id, em->activity, 16));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_quiet(true);
	if (size > 256 * 1024)
		return 0;
	struct in in = {data, size, 0};
	struct model m = {.events = calloc(MAX_EVENTS, sizeof(struct event_model))};
	int fd = fuzz_fd(NULL, 0);
	run(fd, &m, &in);

	lseek(fd, 0, SEEK_SET);
	struct nettrace_reader *r = nettrace_reader_new_fd(fd, "fuzz");
	struct nettrace_item it;
	size_t n = 0;
	int rc;
	while ((rc = nettrace_reader_next(r, &it)) > 0)
		if (it.kind == NETTRACE_ITEM_EVENT)
			check_event(&m, &in, n++, it.event);
	if (rc < 0)
		fprintf(stderr, "the reader refused the writer's file: %s\n", pc_strerror());
	FUZZ_CHECK(rc == 0);
	FUZZ_CHECK(nettrace_reader_stats(r)->ended);
	FUZZ_CHECK(n == m.nevents);
	nettrace_reader_free(r);
	close(fd);
	free(m.events);
	free(m.meta);
	return 0;
}
