/* Unit tests for nettrace_read (and the runtime_events decoders it feeds): streams built here
 * byte by byte as NetTraceFormat.md and NetTraceFormat_v5.md lay them out (v4 with
 * FastSerialization objects and compressed headers; v6 blocks with threads and typed
 * fields), every truncation of them, bad input, and the real runtime files of the fuzz
 * corpus, which must read to their end mark. */
#include "nettrace/nettrace_read.h"
#include "nettrace/runtime_events.h"
#include "test.h"

#include <dirent.h>
#include <unistd.h>

/* ---- a byte builder ------------------------------------------------------------------------ */

struct b {
	uint8_t p[8192];
	size_t n;
};

static void put(struct b *b, const void *p, size_t n)
{
	memcpy(b->p + b->n, p, n);
	b->n += n;
}
static void u8(struct b *b, uint8_t v)
{
	put(b, &v, 1);
}
static void u16(struct b *b, uint16_t v)
{
	u8(b, v & 0xff);
	u8(b, v >> 8);
}
static void u32(struct b *b, uint32_t v)
{
	u16(b, v & 0xffff);
	u16(b, v >> 16);
}
static void u64(struct b *b, uint64_t v)
{
	u32(b, (uint32_t)v);
	u32(b, (uint32_t)(v >> 32));
}
static void var(struct b *b, uint64_t v)
{
	do {
		u8(b, (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
		v >>= 7;
	} while (v);
}
static void utf16z(struct b *b, const char *s)
{
	for (; *s; s++)
		u16(b, (uint8_t)*s);
	u16(b, 0);
}
static void utf8(struct b *b, const char *s)
{
	var(b, strlen(s));
	put(b, s, strlen(s));
}

static void sync_time(struct b *b, uint64_t ticks)
{
	static const uint16_t utc[8] = {2026, 11, 0, 22, 19, 24, 13, 999};
	for (int i = 0; i < 8; i++)
		u16(b, utc[i]);
	u64(b, ticks);
	u64(b, 1000000000); /* ns: CLOCK_MONOTONIC */
	u32(b, 8);
}

/* v4: a FastSerialization object: tags, type, [size, padding], body, end tag. */
static void object(struct b *out, const char *type, const struct b *body)
{
	u8(out, 5);
	u8(out, 5);
	u8(out, 1);
	u32(out, strcmp(type, "Trace") ? 2 : 4);
	u32(out, strcmp(type, "Trace") ? 2 : 4);
	u32(out, (uint32_t)strlen(type));
	put(out, type, strlen(type));
	u8(out, 6);
	if (strcmp(type, "Trace")) {
		u32(out, (uint32_t)body->n);
		while (out->n & 3)
			u8(out, 0);
	}
	put(out, body->p, body->n);
	u8(out, 6);
}

/* An EventBlock/MetadataBlock header: 20 bytes, compressed. */
static void block_header(struct b *b)
{
	u16(b, 20);
	u16(b, 1);
	u64(b, 0);
	u64(b, 0);
}

#define T0 5000000000ULL

/* A v4 stream: GCStart's metadata, a stack, two GCStarts (the second from another thread,
 * two sequence numbers skipped), a sequence point, the end. */
static size_t build_v4(struct b *s)
{
	s->n = 0;
	put(s, "Nettrace", 8);
	u32(s, 20);
	put(s, "!FastSerialization.1", 20);
	struct b body = {.n = 0};
	sync_time(&body, T0);
	u32(&body, 4242); /* pid */
	u32(&body, 2);
	u32(&body, 1000000);
	object(s, "Trace", &body);

	struct b meta = {.n = 0}, payload = {.n = 0};
	u32(&payload, 7); /* metadata id */
	utf16z(&payload, "Microsoft-Windows-DotNETRuntime");
	u32(&payload, 1);
	utf16z(&payload, "");
	u64(&payload, 1);
	u32(&payload, 2);
	u32(&payload, 4);
	u32(&payload, 0); /* no fields */
	u32(&payload, 1); /* v5 tag: opcode */
	u8(&payload, 1);
	u8(&payload, 1);
	block_header(&meta);
	u8(&meta, 0x80 | 0x01); /* metadata id 0, payload size */
	var(&meta, 0);
	var(&meta, 0); /* timestamp delta */
	var(&meta, payload.n);
	put(&meta, payload.p, payload.n);
	object(s, "MetadataBlock", &meta);

	struct b stack = {.n = 0};
	u32(&stack, 1);
	u32(&stack, 1);
	u32(&stack, 16);
	u64(&stack, 0x7f0000001000ULL);
	u64(&stack, 0x7f0000002000ULL);
	object(s, "StackBlock", &stack);

	struct b ev = {.n = 0}, gc = {.n = 0};
	u32(&gc, 5); /* count */
	u32(&gc, 2); /* depth */
	u32(&gc, 1); /* reason: induced */
	u32(&gc, 0);
	u16(&gc, 0);
	u64(&gc, 0);
	block_header(&ev);
	/* all groups: metadata, thread+seq, thread, stack, sorted, size */
	u8(&ev, 0x01 | 0x02 | 0x04 | 0x08 | 0x40 | 0x80);
	var(&ev, 7);
	var(&ev, 0);   /* sequence: 0 + 1 */
	var(&ev, 111); /* capture thread */
	var(&ev, 1);   /* processor */
	var(&ev, 111); /* thread */
	var(&ev, 1);   /* stack id */
	var(&ev, T0 + 1000);
	var(&ev, gc.n);
	put(&ev, gc.p, gc.n);
	u8(&ev, 0x02 | 0x04 | 0x08); /* same metadata and size, new thread, seq +3, no stack */
	var(&ev, 2);		     /* 1 + 2 + 1 = 4: 2 skipped on thread 222 after seq 1 */
	var(&ev, 222);
	var(&ev, 0);
	var(&ev, 222);
	var(&ev, 0);
	var(&ev, 500);
	put(&ev, gc.p, gc.n);
	object(s, "EventBlock", &ev);

	struct b sp = {.n = 0};
	u64(&sp, T0 + 2000);
	u32(&sp, 1);
	u64(&sp, 111);
	u32(&sp, 3); /* thread 111 tried 3 events: 2 lost */
	object(s, "SPBlock", &sp);
	u8(s, 1); /* NullReference: the end */
	return s->n;
}

struct src {
	const uint8_t *p;
	size_t n, pos, chunk;
};

static ssize_t src_read(void *arg, void *buf, size_t len)
{
	struct src *s = arg;
	size_t n = s->n - s->pos;
	if (n > len)
		n = len;
	if (n > s->chunk)
		n = s->chunk;
	memcpy(buf, s->p + s->pos, n);
	s->pos += n;
	return (ssize_t)n;
}

struct counts {
	int rc;
	size_t metadata, events, sps, with_stack;
	struct rt_gc_start last_gc;
	uint64_t first_ts;
};

static struct counts read_all(const uint8_t *p, size_t n, size_t chunk,
			      struct nettrace_reader **keep)
{
	struct src s = {p, n, 0, chunk};
	struct nettrace_reader *r = nettrace_reader_new(src_read, &s, "test");
	struct counts c;
	memset(&c, 0, sizeof(c));
	struct nettrace_item it;
	while ((c.rc = nettrace_reader_next(r, &it)) > 0) {
		if (it.kind == NETTRACE_ITEM_METADATA)
			c.metadata++;
		if (it.kind == NETTRACE_ITEM_SEQUENCE_POINT)
			c.sps++;
		if (it.kind != NETTRACE_ITEM_EVENT)
			continue;
		if (!c.events++)
			c.first_ts = it.event->timestamp;
		c.with_stack += it.event->stack_depth > 0;
		if (runtime_event_kind(it.event->meta) == RT_GC_START)
			CHECK(rt_decode_gc_start(it.event, &c.last_gc) == 0);
		if (it.event->stack_depth) {
			CHECK_EQ_U64(it.event->stack_depth, 2);
			CHECK_EQ_U64(it.event->stack[0], 0x7f0000001000ULL);
		}
	}
	if (keep)
		*keep = r;
	else
		nettrace_reader_free(r);
	return c;
}

static void test_v4(void)
{
	struct b s;
	size_t n = build_v4(&s);
	struct nettrace_reader *r;
	struct counts c = read_all(s.p, n, 7, &r); /* small chunks: every refill path */
	CHECK_EQ_U64(c.rc, 0);
	CHECK_EQ_U64(c.metadata, 1);
	CHECK_EQ_U64(c.events, 2);
	CHECK_EQ_U64(c.with_stack, 1);
	CHECK_EQ_U64(c.sps, 1);
	CHECK_EQ_U64(c.first_ts, T0 + 1000);
	CHECK_EQ_U64(c.last_gc.count, 5);
	CHECK_EQ_U64(c.last_gc.depth, 2);
	CHECK_EQ_U64(c.last_gc.reason, 1);
	const struct nettrace_trace *t = nettrace_reader_trace(r);
	CHECK(t != NULL);
	if (t) {
		CHECK_EQ_U64(t->version, 4);
		CHECK_EQ_U64(t->pid, 4242);
		CHECK_EQ_U64(t->sync_utc.year, 2026);
		CHECK_EQ_U64(nettrace_ticks_to_ns(t, T0), T0);
	}
	const struct nettrace_stats *st = nettrace_reader_stats(r);
	CHECK(st->ended && !st->truncated);
	/* Thread 222's first event starts its count (as TraceEvent does); the sequence point
	 * says 111 tried 3 events, 1 arrived. */
	CHECK_EQ_U64(st->lost_events, 2);
	const struct nettrace_metadata *m = nettrace_reader_metadata(r, 7);
	CHECK(m && m->opcode == 1 && m->version == 2 && m->fields_known && !m->nfields);
	nettrace_reader_free(r);

	/* Every cut: never a crash, never an error for a clean cut, items before it kept. */
	size_t events_seen_max = 0;
	for (size_t cut = 0; cut < n; cut++) {
		struct counts k = read_all(s.p, cut, 64, NULL);
		CHECK(k.events <= 2);
		if (k.events > events_seen_max)
			events_seen_max = k.events;
		CHECK(k.rc == 0 || k.rc == -1);
		if (cut >= 8 + 24 && k.rc < 0) /* after the magic, a cut is not an error */
			fprintf(stderr, "cut at %zu: %s\n", cut, pc_strerror()), test_failures++;
	}
	CHECK_EQ_U64(events_seen_max, 2);
}

/* ---- v6 ----------------------------------------------------------------------------------- */

static void block6(struct b *s, uint8_t kind, const struct b *body)
{
	u32(s, (uint32_t)body->n | (uint32_t)kind << 24);
	put(s, body->p, body->n);
}

static size_t build_v6(struct b *s)
{
	s->n = 0;
	put(s, "Nettrace", 8);
	u32(s, 0);
	u32(s, 6);
	u32(s, 0);
	struct b t = {.n = 0};
	sync_time(&t, T0);
	u32(&t, 1);
	utf8(&t, "ProcessId");
	utf8(&t, "77");
	block6(s, 1, &t);

	struct b m = {.n = 0}, row = {.n = 0}, field = {.n = 0}, field2 = {.n = 0};
	u16(&m, 0); /* header size */
	var(&row, 3);
	utf8(&row, "MyCompany-MySource");
	var(&row, 9);
	utf8(&row, "Tick");
	u16(&row, 2); /* fields */
	utf8(&field, "Value");
	u8(&field, 10); /* UInt32 */
	u16(&row, (uint16_t)field.n);
	put(&row, field.p, field.n);
	utf8(&field2, "Items");
	u8(&field2, 22); /* fixed-length array of 3 bytes */
	u8(&field2, 6);
	u16(&field2, 3);
	u16(&row, (uint16_t)field2.n);
	put(&row, field2.p, field2.n);
	u16(&row, 2); /* optional metadata: level 4 */
	u8(&row, 8);
	u8(&row, 4);
	u16(&m, (uint16_t)row.n);
	put(&m, row.p, row.n);
	block6(s, 3, &m);

	struct b th = {.n = 0}, trow = {.n = 0};
	var(&trow, 1);
	u8(&trow, 2);
	var(&trow, 77);
	u8(&trow, 3);
	var(&trow, 1234);
	u8(&trow, 1);
	utf8(&trow, "worker");
	u16(&th, (uint16_t)trow.n);
	put(&th, trow.p, trow.n);
	block6(s, 6, &th);

	struct b ev = {.n = 0};
	block_header(&ev);
	u8(&ev, 0x01 | 0x02 | 0x04 | 0x80);
	var(&ev, 3);
	var(&ev, 0);
	var(&ev, 1);
	var(&ev, 0);
	var(&ev, 1);
	var(&ev, T0 + 10);
	var(&ev, 7);
	u32(&ev, 99);
	u8(&ev, 1);
	u8(&ev, 2);
	u8(&ev, 3);
	block6(s, 2, &ev);

	struct b sp = {.n = 0};
	u64(&sp, T0 + 20);
	u32(&sp, 3); /* flush threads and metadata */
	u32(&sp, 0);
	block6(s, 4, &sp);
	struct b unknown = {.n = 0};
	u32(&unknown, 0xdead);
	block6(s, 42, &unknown); /* skipped */
	struct b end = {.n = 0};
	block6(s, 0, &end);
	return s->n;
}

static void test_v6(void)
{
	struct b s;
	size_t n = build_v6(&s);
	struct src src = {s.p, n, 0, 5};
	struct nettrace_reader *r = nettrace_reader_new(src_read, &src, "v6");
	struct nettrace_item it;
	int rc, events = 0;
	while ((rc = nettrace_reader_next(r, &it)) > 0) {
		if (it.kind == NETTRACE_ITEM_METADATA) {
			const struct nettrace_metadata *m = it.metadata;
			CHECK_STR(m->provider, "MyCompany-MySource");
			CHECK_STR(m->event_name, "Tick");
			CHECK_EQ_U64(m->event_id, 9);
			CHECK(m->fields_known && m->nfields == 2);
			if (m->nfields == 2) {
				CHECK_STR(m->fields[0].name, "Value");
				CHECK_EQ_U64(m->fields[0].type, NETTRACE_UINT32);
				CHECK_EQ_U64(m->fields[1].type, NETTRACE_FIXED_ARRAY);
				CHECK(m->fields[1].element && m->fields[1].count == 3);
			}
			CHECK_EQ_U64(m->level, 4);
		}
		if (it.kind == NETTRACE_ITEM_EVENT) {
			events++;
			CHECK_EQ_U64(it.event->thread_id, 1234);
			CHECK_EQ_U64(it.event->process_id, 77);
			CHECK_EQ_U64(it.event->payload_size, 7);
			CHECK_EQ_U64(it.event->timestamp, T0 + 10);
		}
	}
	CHECK_EQ_U64(rc, 0);
	CHECK_EQ_U64(events, 1);
	const struct nettrace_trace *t = nettrace_reader_trace(r);
	CHECK(t && t->version == 6 && t->pid == 77 && t->nkeys == 1);
	CHECK(nettrace_reader_stats(r)->ended);
	CHECK(nettrace_reader_metadata(r, 3) == NULL); /* flushed by the sequence point */
	nettrace_reader_free(r);
	for (size_t cut = 0; cut < n; cut++) {
		struct counts k = read_all(s.p, cut, 3, NULL);
		CHECK(k.rc == 0 || k.rc == -1);
	}
}

static void test_bad(void)
{
	struct b s;
	build_v4(&s);
	struct counts c = read_all((const uint8_t *)"Netflix!", 8, 8, NULL);
	CHECK_EQ_U64(c.rc, -1);
	CHECK(strstr(pc_strerror(), "not a NetTrace file") != NULL);

	s.p[8 + 24 + 1] = 9; /* the Trace object's second tag */
	c = read_all(s.p, s.n, 4096, NULL);
	CHECK_EQ_U64(c.rc, -1);
	CHECK(strstr(pc_strerror(), "at byte") != NULL);

	size_t n = build_v4(&s);
	s.p[n - 1] = 0x55; /* neither an object nor the end */
	c = read_all(s.p, n, 4096, NULL);
	CHECK_EQ_U64(c.rc, -1);
	CHECK_EQ_U64(c.events, 2); /* what came before is delivered */

	/* An event of a metadata id never defined. */
	n = build_v6(&s);
	uint8_t *ev = memmem(s.p, n, "\x87\x03", 2); /* the event's flags, metadata id 3 */
	CHECK(ev != NULL);
	if (ev) {
		ev[1] = 4;
		c = read_all(s.p, n, 4096, NULL);
		CHECK_EQ_U64(c.rc, -1);
		CHECK(strstr(pc_strerror(), "undefined metadata") != NULL);
	}
}

/* The real files of the fuzz corpus (runtime streams of .NET 10 and 8): read to their end. */
static void test_real_files(void)
{
	const char *src = getenv("TEST_SRCDIR");
	char *dir = xasprintf("%s/fuzz/corpus/nettrace_read", src ? src : "tests");
	DIR *d = opendir(dir);
	int files = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		if (!str_endswith(e->d_name, ".nettrace") || strstr(e->d_name, "cut"))
			continue;
		char *path = xasprintf("%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "rb");
		struct nettrace_reader *r = nettrace_reader_new_file(f, path);
		struct nettrace_item it;
		int rc;
		uint64_t gcs = 0;
		while ((rc = nettrace_reader_next(r, &it)) > 0)
			if (it.kind == NETTRACE_ITEM_EVENT &&
			    runtime_event_kind(it.event->meta) == RT_GC_START) {
				struct rt_gc_start g;
				CHECK(rt_decode_gc_start(it.event, &g) == 0);
				gcs++;
			}
		const struct nettrace_stats *st = nettrace_reader_stats(r);
		if (rc != 0 || !st->ended || !st->events)
			fprintf(stderr, "%s: rc %d, ended %d, %llu events: %s\n", path, rc,
				st->ended, (unsigned long long)st->events, pc_strerror()),
			    test_failures++;
		nettrace_reader_free(r);
		fclose(f);
		free(path);
		files++;
	}
	if (d)
		closedir(d);
	printf("%d real NetTrace files read\n", files);
	free(dir);
}

int main(void)
{
	test_v4();
	test_v6();
	test_bad();
	test_real_files();
	return TEST_DONE();
}
