/* nettrace_read: see nettrace_read.h.  The stream is read one block at a time into
 * r->block: v3 and v4 wrap each block in a FastSerialization object (tags, a type object, a
 * size, padding to 4 bytes of the stream), v6 puts a 4-byte header (24-bit size, 8-bit kind)
 * in front of it.  Event and metadata blocks are then walked one row per call; a v3 event
 * block holds both (an event of metadata id 0 is a metadata row), each event followed by
 * its own stack (NetPerfFormat.md). */
#include "nettrace_read.h"
#include "nettrace_blocks.h"
#include "nettrace_metadata.h"
#include "base/span.h"
#include "nettrace_tables.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#define MAGIC		  "Nettrace"
#define FS_MAGIC	  "!FastSerialization.1"
#define MAX_BLOCK	  (256u << 20) /* larger than any writer's block: a corrupt size */
#define INPUT_CHUNK	  65536
#define HEADER_COMPRESSED 1 /* EventBlock flags */

enum { TAG_NULL = 1, TAG_BEGIN_OBJECT = 4, TAG_BEGIN_PRIVATE_OBJECT = 5, TAG_END_OBJECT = 6 };

/* v3's fixed event header: size, metadata id, thread, time, two activity ids, payload size. */
#define V3_HEADER 56

/* Compressed event header flags (both versions). */
enum {
	HF_METADATA_ID = 1,
	HF_CAPTURE_THREAD_AND_SEQUENCE = 2,
	HF_THREAD_ID = 4,
	HF_STACK_ID = 8,
	HF_ACTIVITY_ID = 16,	     /* v4; v6: the label list id */
	HF_RELATED_ACTIVITY_ID = 32, /* v4 only */
	HF_SORTED = 64,
	HF_DATA_LENGTH = 128,
};

struct nettrace_reader {
	nettrace_read_fn read;
	void *arg;
	char *name;
	int state; /* 0: header not read, 1: reading blocks, 2: ended */
	/* input */
	uint8_t *in;
	size_t in_pos, in_len;
	uint64_t offset; /* stream offset of in[in_pos] */
	bool eof;
	/* the block being walked */
	uint8_t *block;
	size_t block_cap;
	struct span cur;
	enum block_kind kind;
	uint64_t block_offset; /* stream offset of its first byte, for messages */
	bool compressed;
	struct nettrace_event hdr; /* the previous header of the block (compression base) */
	uint32_t hdr_meta;	   /* and its metadata id */
	struct nettrace_event ev;  /* handed out */
	struct nettrace_metadata *meta_out;
	struct nettrace_trace trace;
	bool have_trace;
	struct nettrace_stats stats;
	struct nettrace_tables t;
	bool netperf;	  /* v3: no "Nettrace" magic, BeginObject tags */
	uint64_t *v3_ips; /* v3: the stack of the event handed out */
	size_t v3_ips_cap;
};

/* ---- input ----------------------------------------------------------------------------- */

static ssize_t read_file_cb(void *arg, void *buf, size_t len)
{
	FILE *f = arg;
	size_t n = fread(buf, 1, len, f);
	if (n == 0 && ferror(f))
		return pc_err_errno("read error");
	return (ssize_t)n;
}

static ssize_t read_fd_cb(void *arg, void *buf, size_t len)
{
	int fd = (int)(intptr_t)arg;
	for (;;) {
		ssize_t n = read(fd, buf, len);
		if (n >= 0)
			return n;
		if (errno != EINTR)
			return pc_err_errno("read error");
	}
}

/* Makes n bytes available at r->in + r->in_pos; 1 when the input ends first, -1 on error. */
static int need(struct nettrace_reader *r, size_t n)
{
	if (r->in_len - r->in_pos >= n)
		return 0;
	if (r->in_pos) {
		memmove(r->in, r->in + r->in_pos, r->in_len - r->in_pos);
		r->in_len -= r->in_pos;
		r->in_pos = 0;
	}
	while (r->in_len < n) {
		if (r->eof)
			return 1;
		ssize_t got = r->read(r->arg, r->in + r->in_len, INPUT_CHUNK - r->in_len);
		if (got < 0)
			return pc_err("%s: %s", r->name, pc_strerror());
		if (got == 0)
			r->eof = true;
		r->in_len += (size_t)got;
		r->stats.bytes += (size_t)got;
	}
	return 0;
}

/* Copies n bytes of the stream to dst (which may be NULL: skip); 1 at the end, -1 error. */
static int take(struct nettrace_reader *r, void *dst, size_t n)
{
	while (n) {
		size_t chunk = n < INPUT_CHUNK / 2 ? n : INPUT_CHUNK / 2;
		int rc = need(r, chunk);
		if (rc)
			return rc;
		if (dst) {
			memcpy(dst, r->in + r->in_pos, chunk);
			dst = (uint8_t *)dst + chunk;
		}
		r->in_pos += chunk;
		r->offset += chunk;
		n -= chunk;
	}
	return 0;
}

static int take_u8(struct nettrace_reader *r, uint8_t *v)
{
	return take(r, v, 1);
}

static int take_u32(struct nettrace_reader *r, uint32_t *v)
{
	uint8_t b[4];
	int rc = take(r, b, 4);
	*v = load_le32(b);
	return rc;
}

static int bad(struct nettrace_reader *r, uint64_t offset, const char *what)
{
	return pc_err("%s: %s at byte %llu; not a NetTrace file, or a damaged one", r->name, what,
		      (unsigned long long)offset);
}

/* The input stopped: a truncated stream ends normally, its items until then are good. */
static int cut(struct nettrace_reader *r, int rc)
{
	if (rc < 0)
		return -1;
	r->stats.truncated = true;
	r->state = 2;
	return 0;
}

/* Reads a block body of size bytes into r->block; grows with what actually arrives. */
static int take_block(struct nettrace_reader *r, size_t size)
{
	if (size > MAX_BLOCK)
		return bad(r, r->offset, "a block too large");
	size_t got = 0;
	while (got < size) {
		size_t chunk = size - got < INPUT_CHUNK ? size - got : INPUT_CHUNK;
		grow_array((void **)&r->block, &r->block_cap, got + chunk, 1);
		int rc = take(r, r->block + got, chunk);
		if (rc)
			return rc;
		got += chunk;
	}
	r->cur = span_of(r->block, size);
	return 0;
}

/* ---- headers ----------------------------------------------------------------------------- */

static int read_stream_header(struct nettrace_reader *r)
{
	uint8_t magic[8];
	int rc = take(r, magic, 8);
	if (!rc && !memcmp(magic, "\x14\0\0\0!Fas", 8)) { /* a .netperf: no magic */
		char rest[sizeof(FS_MAGIC) - 1 - 4];
		if (take(r, rest, sizeof(rest)) || memcmp(rest, &FS_MAGIC[4], sizeof(rest)))
			return bad(r, 4, "no FastSerialization header");
		r->netperf = true;
		r->trace.version = 3;
		return 0;
	}
	if (rc || memcmp(magic, MAGIC, 8))
		return rc < 0 ? -1
			      : pc_err("%s: not a NetTrace file (no 'Nettrace' magic)", r->name);
	uint32_t word;
	if ((rc = take_u32(r, &word)))
		return rc < 0 ? -1 : bad(r, r->offset, "the header cut short");
	if (word == 0) { /* v6: reserved 0, major, minor */
		uint32_t major, minor;
		if (take_u32(r, &major) || take_u32(r, &minor))
			return bad(r, r->offset, "the header cut short");
		if (major != 6)
			return pc_err("%s: NetTrace version %u is not supported (3 to 6 are)",
				      r->name, major);
		r->trace.version = 6;
		return 0;
	}
	char fs[sizeof(FS_MAGIC) - 1];
	if (word != sizeof(fs) || take(r, fs, sizeof(fs)) || memcmp(fs, FS_MAGIC, sizeof(fs)))
		return bad(r, 8, "no FastSerialization header");
	r->trace.version = 4;
	return 0;
}

static void parse_sync_utc(struct span *s, struct nettrace_trace *t)
{
	t->sync_utc.year = span_u16(s);
	t->sync_utc.month = span_u16(s);
	t->sync_utc.day_of_week = span_u16(s);
	t->sync_utc.day = span_u16(s);
	t->sync_utc.hour = span_u16(s);
	t->sync_utc.minute = span_u16(s);
	t->sync_utc.second = span_u16(s);
	t->sync_utc.millisecond = span_u16(s);
	t->sync_ticks = span_u64(s);
	t->tick_freq = span_u64(s);
	t->pointer_size = span_u32(s);
}

static int parse_trace(struct nettrace_reader *r)
{
	struct span *s = &r->cur;
	struct nettrace_trace *t = &r->trace;
	parse_sync_utc(s, t);
	if (t->version < 6) {
		t->pid = span_u32(s);
		t->processors = span_u32(s);
		t->expected_sampling_ns = span_u32(s);
	} else {
		uint32_t n = span_u32(s);
		for (uint32_t i = 0; i < n && !s->bad; i++) {
			size_t kl = span_varuint(s, UINT32_MAX);
			const uint8_t *k = span_take(s, kl);
			size_t vl = span_varuint(s, UINT32_MAX);
			const uint8_t *v = span_take(s, vl);
			if (s->bad)
				break;
			t->keys = xrealloc(t->keys, (t->nkeys + 1) * sizeof(*t->keys));
			t->values = xrealloc(t->values, (t->nkeys + 1) * sizeof(*t->values));
			t->keys[t->nkeys] = xstrndup((const char *)k, kl);
			t->values[t->nkeys++] = xstrndup((const char *)v, vl);
			long num;
			if (!strcmp(t->keys[t->nkeys - 1], "ProcessId") &&
			    parse_int(t->values[t->nkeys - 1], 0, UINT32_MAX, &num) == 0)
				t->pid = (uint32_t)num;
			if (!strcmp(t->keys[t->nkeys - 1], "HardwareThreadCount") &&
			    parse_int(t->values[t->nkeys - 1], 0, UINT32_MAX, &num) == 0)
				t->processors = (uint32_t)num;
		}
	}
	if (s->bad)
		return bad(r, r->block_offset, "the trace block cut short");
	if (t->pointer_size != 4 && t->pointer_size != 8)
		return bad(r, r->block_offset, "a pointer size other than 4 or 8");
	if (!t->tick_freq)
		return bad(r, r->block_offset, "a clock of 0 ticks per second");
	r->have_trace = true;
	return 0;
}

/* v3, v4: one FastSerialization object header: BeginPrivateObject (v3: BeginObject), the
 * type object (tag, tag NullReference, int version, int minimum reader version, int name
 * length, name, EndObject), then for blocks an int size and padding to a 4-byte stream
 * offset.  Sets r->kind and reads the body; NullReference instead ends the stream. */
static int read_block_v4(struct nettrace_reader *r)
{
	uint8_t tag, t2, t3;
	uint8_t begin = r->netperf ? TAG_BEGIN_OBJECT : TAG_BEGIN_PRIVATE_OBJECT;
	int rc = take_u8(r, &tag);
	if (rc)
		return cut(r, rc);
	uint64_t at = r->offset - 1;
	if (tag == TAG_NULL) {
		r->kind = BLOCK_END;
		return 0;
	}
	if (tag != begin)
		return bad(r, at, "neither an object nor the end of the stream");
	uint32_t version, minver, namelen;
	char name[48];
	if ((rc = take_u8(r, &t2)) || (rc = take_u8(r, &t3)) || (rc = take_u32(r, &version)) ||
	    (rc = take_u32(r, &minver)) || (rc = take_u32(r, &namelen)))
		return cut(r, rc);
	if (t2 != begin || t3 != TAG_NULL || namelen >= sizeof(name))
		return bad(r, at, "a bad object header");
	if ((rc = take(r, name, namelen)) || (rc = take_u8(r, &tag)))
		return cut(r, rc);
	name[namelen] = 0;
	if (tag != TAG_END_OBJECT)
		return bad(r, at, "a bad object type");
	static const struct {
		const char *name;
		enum block_kind kind;
	} kinds[] = {
	    {"Trace", BLOCK_TRACE},	 {"Microsoft.DotNet.Runtime.EventPipeFile", BLOCK_TRACE},
	    {"EventBlock", BLOCK_EVENT}, {"MetadataBlock", BLOCK_METADATA},
	    {"StackBlock", BLOCK_STACK}, {"SPBlock", BLOCK_SEQUENCE_POINT}};
	size_t k = 0;
	while (k < ARRAY_SIZE(kinds) && strcmp(kinds[k].name, name))
		k++;
	if (k == ARRAY_SIZE(kinds))
		return bad(r, at, "an unknown object type");
	r->kind = kinds[k].kind;
	uint32_t size = 48; /* the Trace object's fields */
	if (r->kind == BLOCK_TRACE) {
		if (version != (r->netperf ? 3u : 4u))
			return pc_err("%s: %s version %u is not supported (NetTrace 3 to 6 are; "
				      "TraceEvent reads no older one either)",
				      r->name, r->netperf ? "NetPerf" : "NetTrace", version);
	} else {
		if (version < 1 || version > 2)
			return bad(r, at, "an unknown block version");
		if ((rc = take_u32(r, &size)))
			return cut(r, rc);
		if ((rc = take(r, NULL, (4 - (r->offset & 3)) & 3)))
			return cut(r, rc);
	}
	r->block_offset = r->offset;
	if ((rc = take_block(r, size)) || (rc = take_u8(r, &tag)))
		return cut(r, rc);
	if (tag != TAG_END_OBJECT)
		return bad(r, r->offset - 1, "a block without its end tag");
	return 0;
}

static int read_block_v6(struct nettrace_reader *r)
{
	uint32_t h;
	int rc = take_u32(r, &h);
	if (rc)
		return cut(r, rc);
	r->kind = (enum block_kind)(h >> 24);
	r->block_offset = r->offset;
	if ((rc = take_block(r, h & 0xffffff)))
		return cut(r, rc);
	return 0;
}

/* ---- rows -------------------------------------------------------------------------------- */

/* An event header: uncompressed (fixed layout) or compressed against the previous one
 * (r->hdr and r->hdr_meta, which it updates). */
static int parse_event_header(struct nettrace_reader *r)
{
	struct nettrace_event *h = &r->hdr;
	struct span *s = &r->cur;
	bool v6 = r->trace.version == 6;
	uint32_t meta;
	if (!r->compressed) {
		span_u32(s); /* EventSize */
		meta = span_u32(s);
		h->sorted = !(meta & 0x80000000u); /* TraceEvent's reading of the high bit */
		meta &= 0x7fffffffu;
		h->sequence = span_u32(s);
		h->thread_index = span_u64(s);
		h->capture_thread_id = span_u64(s);
		h->processor = span_u32(s);
		h->stack_id = span_u32(s);
		h->timestamp = span_u64(s);
		if (v6) {
			nettrace_tables_activity_ids(&r->t, span_u32(s), h->activity_id,
						     h->related_activity_id);
		} else {
			const uint8_t *a = span_take(s, 16), *b = span_take(s, 16);
			if (a && b) {
				memcpy(h->activity_id, a, 16);
				memcpy(h->related_activity_id, b, 16);
			}
		}
		h->payload_size = span_u32(s);
	} else {
		uint8_t f = span_u8(s);
		meta = r->hdr_meta;
		if (f & HF_METADATA_ID)
			meta = (uint32_t)span_varuint(s, UINT32_MAX);
		if (f & HF_CAPTURE_THREAD_AND_SEQUENCE) {
			h->sequence += (uint32_t)span_varuint(s, UINT32_MAX) + 1;
			h->capture_thread_id = span_varuint(s, UINT64_MAX);
			h->processor = (uint32_t)span_varuint(s, UINT32_MAX);
		} else if (meta) {
			h->sequence++;
		}
		if (f & HF_THREAD_ID)
			h->thread_index = span_varuint(s, UINT64_MAX);
		if (f & HF_STACK_ID)
			h->stack_id = (uint32_t)span_varuint(s, UINT32_MAX);
		h->timestamp += span_varuint(s, UINT64_MAX);
		if (v6) {
			if (f & HF_ACTIVITY_ID)
				nettrace_tables_activity_ids(
				    &r->t, (uint32_t)span_varuint(s, UINT32_MAX), h->activity_id,
				    h->related_activity_id);
		} else {
			const uint8_t *a = f & HF_ACTIVITY_ID ? span_take(s, 16) : NULL;
			if (a)
				memcpy(h->activity_id, a, 16);
			const uint8_t *b = f & HF_RELATED_ACTIVITY_ID ? span_take(s, 16) : NULL;
			if (b)
				memcpy(h->related_activity_id, b, 16);
		}
		h->sorted = f & HF_SORTED;
		if (f & HF_DATA_LENGTH)
			h->payload_size = (uint32_t)span_varuint(s, UINT32_MAX);
	}
	r->hdr_meta = meta;
	if (s->bad)
		return bad(r, r->block_offset + s->pos, "an event header cut short");
	return 0;
}

static int begin_rows(struct nettrace_reader *r)
{
	struct span *s = &r->cur;
	if (r->trace.version == 3) {
		r->compressed = false;
	} else if (r->trace.version == 6 && r->kind == BLOCK_METADATA) {
		size_t hs = span_u16(s);
		span_take(s, hs);
		r->compressed = false;
	} else {
		uint16_t hs = span_u16(s);
		uint16_t flags = span_u16(s);
		if (hs < 20)
			return bad(r, r->block_offset, "a block header too short");
		span_take(s, hs - 4);
		r->compressed = flags & HEADER_COMPRESSED;
	}
	if (s->bad)
		return bad(r, r->block_offset, "a block header cut short");
	memset(&r->hdr, 0, sizeof(r->hdr));
	r->hdr_meta = 0;
	return 0;
}

/* The next metadata row of the block; 1 with it in r->meta_out, 0 at the block's end. */
static int next_metadata(struct nettrace_reader *r)
{
	struct span *s = &r->cur;
	if (!span_left(s))
		return 0;
	struct nettrace_metadata m;
	uint64_t at = r->block_offset + s->pos;
	const uint8_t *body;
	size_t len;
	if (r->trace.version == 6) {
		len = span_u16(s);
		body = span_take(s, len);
		if (!body)
			return bad(r, at, "a metadata row cut short");
		if (nettrace_metadata_parse_v6(body, len, &m) < 0)
			return bad(r, at, pc_strerror());
	} else {
		if (parse_event_header(r) < 0)
			return -1;
		len = r->hdr.payload_size;
		body = span_take(s, len);
		if (!body)
			return bad(r, at, "a metadata row cut short");
		if (nettrace_metadata_parse_v4(body, len, &m) < 0)
			return bad(r, at, pc_strerror());
	}
	r->meta_out = nettrace_tables_add_metadata(&r->t, &m);
	r->stats.metadata++;
	return 1;
}

/* Counts the event, in the stats' span of time. */
static void count_event(struct nettrace_reader *r)
{
	if (!r->stats.events || r->ev.timestamp < r->stats.first_ticks)
		r->stats.first_ticks = r->ev.timestamp;
	if (r->ev.timestamp > r->stats.last_ticks)
		r->stats.last_ticks = r->ev.timestamp;
	r->stats.events++;
}

/* The next event of the block, resolved; 1 with it in r->ev, 0 at the block's end. */
static int next_event(struct nettrace_reader *r)
{
	struct span *s = &r->cur;
	if (!span_left(s))
		return 0;
	uint64_t at = r->block_offset + s->pos;
	if (parse_event_header(r) < 0)
		return -1;
	uint32_t meta_id = r->hdr_meta;
	r->ev = r->hdr;
	r->ev.payload = span_take(s, r->hdr.payload_size);
	if (!r->ev.payload)
		return bad(r, at, "an event payload cut short");
	r->ev.meta = nettrace_tables_metadata(&r->t, meta_id);
	if (!r->ev.meta)
		return bad(r, at, "an event of undefined metadata");
	r->ev.stack_depth = nettrace_tables_stack(&r->t, r->ev.stack_id, &r->ev.stack);
	if (r->ev.stack_id && !r->ev.stack_depth &&
	    !nettrace_tables_has_stack(&r->t, r->ev.stack_id) && !r->stats.missing_stacks++)
		r->stats.first_missing_stack = r->ev.stack_id;
	if (r->trace.version == 6) {
		nettrace_tables_thread(&r->t, r->ev.thread_index, &r->ev.thread_id,
				       &r->ev.process_id);
	} else {
		r->ev.thread_id = r->ev.thread_index;
		r->ev.process_id = r->trace.pid;
	}
	r->stats.lost_events +=
	    nettrace_tables_sequence(&r->t, r->ev.capture_thread_id, r->ev.sequence);
	count_event(r);
	return 1;
}

/* v3: the next row of an event block, a metadata row (1, in r->meta_out) or an event (2, in
 * r->ev, its stack in r->v3_ips); 0 at the block's end. */
static int next_row_v3(struct nettrace_reader *r)
{
	struct span *s = &r->cur;
	if (!span_left(s))
		return 0;
	uint64_t at = r->block_offset + s->pos;
	size_t start = s->pos;
	uint32_t size = span_u32(s);
	uint32_t meta_id = span_u32(s);
	struct nettrace_event *e = &r->ev;
	memset(e, 0, sizeof(*e));
	e->thread_id = e->thread_index = e->capture_thread_id = span_u32(s);
	e->timestamp = span_u64(s);
	const uint8_t *a = span_take(s, 16), *b = span_take(s, 16);
	e->payload_size = span_u32(s);
	if (s->bad || size < V3_HEADER - 4 + 4 || size - (V3_HEADER - 4) > span_left(s) ||
	    e->payload_size > size - (V3_HEADER - 4))
		return bad(r, at, "an event cut short");
	size_t end = start + 4 + size;
	memcpy(e->activity_id, a, 16);
	memcpy(e->related_activity_id, b, 16);
	e->payload = span_take(s, e->payload_size);
	uint32_t stack_size = span_u32(s);
	const uint8_t *stack = span_take(s, stack_size);
	if (!stack || s->pos > end)
		return bad(r, at, "an event's stack past its end");
	s->pos = end;
	if (meta_id == 0) {
		struct nettrace_metadata m;
		if (nettrace_metadata_parse_v4(e->payload, e->payload_size, &m) < 0)
			return bad(r, at, pc_strerror());
		r->meta_out = nettrace_tables_add_metadata(&r->t, &m);
		r->stats.metadata++;
		return 1;
	}
	e->meta = nettrace_tables_metadata(&r->t, meta_id);
	if (!e->meta)
		return bad(r, at, "an event of undefined metadata");
	size_t n = stack_size / r->trace.pointer_size;
	grow_array((void **)&r->v3_ips, &r->v3_ips_cap, n + 1, sizeof(*r->v3_ips));
	struct span ss = span_of(stack, stack_size);
	for (size_t i = 0; i < n; i++)
		r->v3_ips[i] = span_ptr(&ss, r->trace.pointer_size);
	e->stack = n ? r->v3_ips : NULL;
	e->stack_depth = n;
	e->process_id = r->trace.pid;
	count_event(r);
	return 2;
}

static int parse_stack_block(struct nettrace_reader *r)
{
	struct span *s = &r->cur;
	uint32_t first = span_u32(s), count = span_u32(s);
	for (uint32_t i = 0; i < count && !s->bad; i++) {
		uint32_t size = span_u32(s);
		const uint8_t *ips = span_take(s, size);
		if (ips)
			nettrace_tables_add_stack(&r->t, first + i, ips, size,
						  r->trace.pointer_size);
	}
	if (s->bad)
		return bad(r, r->block_offset, "a stack block cut short");
	r->stats.stacks += count;
	return 0;
}

static int parse_sequence_point(struct nettrace_reader *r, uint64_t *ticks)
{
	struct span *s = &r->cur;
	*ticks = span_u64(s);
	uint32_t flags = 0;
	if (r->trace.version == 6)
		flags = span_u32(s);
	uint32_t n = span_u32(s);
	for (uint32_t i = 0; i < n && !s->bad; i++) {
		uint64_t thread = r->trace.version == 6 ? span_varuint(s, UINT64_MAX) : span_u64(s);
		uint32_t seq =
		    r->trace.version == 6 ? (uint32_t)span_varuint(s, UINT32_MAX) : span_u32(s);
		if (!s->bad)
			r->stats.lost_events += nettrace_tables_checkpoint(&r->t, thread, seq);
	}
	if (s->bad)
		return bad(r, r->block_offset, "a sequence point cut short");
	nettrace_tables_sequence_point(&r->t, flags);
	r->stats.sequence_points++;
	return 0;
}

/* ---- the item loop ----------------------------------------------------------------------- */

int nettrace_reader_next(struct nettrace_reader *r, struct nettrace_item *it)
{
	memset(it, 0, sizeof(*it));
	if (r->state == 0) {
		int rc = read_stream_header(r);
		if (rc)
			return rc < 0 ? -1 : bad(r, r->offset, "the header cut short");
		r->state = 1;
		r->kind = BLOCK_END;
		r->cur = span_of(NULL, 0);
	}
	while (r->state == 1) {
		/* Rows left in the current block? */
		if (r->kind == BLOCK_METADATA && span_left(&r->cur)) {
			int rc = next_metadata(r);
			if (rc < 0)
				return -1;
			if (rc) {
				it->kind = NETTRACE_ITEM_METADATA;
				it->metadata = r->meta_out;
				return 1;
			}
		}
		if (r->kind == BLOCK_EVENT && r->netperf && span_left(&r->cur)) {
			int rc = next_row_v3(r);
			if (rc < 0)
				return -1;
			if (rc) {
				it->kind = rc == 1 ? NETTRACE_ITEM_METADATA : NETTRACE_ITEM_EVENT;
				it->metadata = rc == 1 ? r->meta_out : NULL;
				it->event = rc == 2 ? &r->ev : NULL;
				return 1;
			}
		}
		if (r->kind == BLOCK_EVENT && !r->netperf && span_left(&r->cur)) {
			int rc = next_event(r);
			if (rc < 0)
				return -1;
			if (rc) {
				it->kind = NETTRACE_ITEM_EVENT;
				it->event = &r->ev;
				return 1;
			}
		}
		int rc = r->trace.version == 6 ? read_block_v6(r) : read_block_v4(r);
		if (rc < 0)
			return -1;
		if (r->state != 1)
			break; /* cut short */
		r->stats.blocks++;
		if (!r->have_trace && r->kind != BLOCK_TRACE && r->kind != BLOCK_END)
			return bad(r, r->block_offset, "a block before the trace block");
		uint64_t ticks;
		switch (r->kind) {
		case BLOCK_END:
			r->stats.ended = true;
			r->state = 2;
			break;
		case BLOCK_TRACE:
			if (r->have_trace)
				return bad(r, r->block_offset, "a second trace block");
			if (parse_trace(r) < 0)
				return -1;
			break;
		case BLOCK_EVENT:
		case BLOCK_METADATA:
			if (begin_rows(r) < 0)
				return -1;
			break;
		case BLOCK_STACK:
			if (parse_stack_block(r) < 0)
				return -1;
			break;
		case BLOCK_SEQUENCE_POINT:
			if (parse_sequence_point(r, &ticks) < 0)
				return -1;
			it->kind = NETTRACE_ITEM_SEQUENCE_POINT;
			it->sequence_point_ticks = ticks;
			return 1;
		case BLOCK_THREAD:
			if (nettrace_tables_add_threads(&r->t, r->cur.p, r->cur.len) < 0)
				return bad(r, r->block_offset, "a bad thread block");
			break;
		case BLOCK_REMOVE_THREAD:
			if (nettrace_tables_remove_threads(&r->t, r->cur.p, r->cur.len) < 0)
				return bad(r, r->block_offset, "a bad remove-thread block");
			break;
		case BLOCK_LABEL_LIST:
			if (nettrace_tables_add_labels(&r->t, r->cur.p, r->cur.len) < 0)
				return bad(r, r->block_offset, "a bad label list block");
			break;
		default:
			break; /* v6: unknown blocks are skipped */
		}
		if (r->kind != BLOCK_EVENT && r->kind != BLOCK_METADATA)
			r->cur = span_of(NULL, 0);
	}
	return 0;
}

/* ---- the reader ------------------------------------------------------------------------ */

struct nettrace_reader *nettrace_reader_new(nettrace_read_fn fn, void *arg, const char *name)
{
	struct nettrace_reader *r = xcalloc(1, sizeof(*r));
	r->read = fn;
	r->arg = arg;
	r->name = xstrdup(name ? name : "NetTrace input");
	r->in = xmalloc(INPUT_CHUNK);
	nettrace_tables_init(&r->t);
	return r;
}

struct nettrace_reader *nettrace_reader_new_file(FILE *f, const char *name)
{
	return nettrace_reader_new(read_file_cb, f, name);
}

struct nettrace_reader *nettrace_reader_new_fd(int fd, const char *name)
{
	return nettrace_reader_new(read_fd_cb, (void *)(intptr_t)fd, name);
}

void nettrace_reader_free(struct nettrace_reader *r)
{
	if (!r)
		return;
	nettrace_tables_release(&r->t);
	for (size_t i = 0; i < r->trace.nkeys; i++) {
		free(r->trace.keys[i]);
		free(r->trace.values[i]);
	}
	free(r->trace.keys);
	free(r->trace.values);
	free(r->block);
	free(r->in);
	free(r->v3_ips);
	free(r->name);
	free(r);
}

const struct nettrace_trace *nettrace_reader_trace(const struct nettrace_reader *r)
{
	return r->have_trace ? &r->trace : NULL;
}

const struct nettrace_stats *nettrace_reader_stats(const struct nettrace_reader *r)
{
	return &r->stats;
}

const struct nettrace_metadata *nettrace_reader_metadata(const struct nettrace_reader *r,
							 uint32_t id)
{
	return nettrace_tables_metadata(&r->t, id);
}

size_t nettrace_reader_stack(const struct nettrace_reader *r, uint32_t id, const uint64_t **ips)
{
	return nettrace_tables_stack(&r->t, id, ips);
}

uint64_t nettrace_ticks_to_ns(const struct nettrace_trace *t, uint64_t ticks)
{
	if (t->tick_freq == 1000000000ULL)
		return ticks;
	return (uint64_t)((unsigned __int128)ticks * 1000000000ULL / t->tick_freq);
}
