/* nettrace_write: see nettrace_write.h. */
#include "nettrace_write.h"
#include "nettrace_blocks.h"

#include "base/hash.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_BLOCK	     0xffffffu /* a block's size is 24 bits */
#define EVENT_HEADER_SIZE    20	       /* HeaderSize, Flags, Min and Max Timestamp */
#define DEFAULT_BLOCK_BYTES  (64 * 1024)
#define DEFAULT_REGION_BYTES (4 * 1024 * 1024)
#define MAX_EVENT_HEADER     (1 + 5 + 5 + 10 + 5 + 10 + 5 + 10 + 5 + 5)

/* Compressed event header flags. */
enum {
	HDR_METADATA = 1,
	HDR_CAPTURE = 2, /* capture thread, sequence number, processor */
	HDR_THREAD = 4,
	HDR_STACK = 8,
	HDR_LABELS = 16,
	HDR_SORTED = 64,
	HDR_SIZE = 128,
};

/* ---- interning of stacks and label lists until the next sequence point ---- */

struct intern_slot {
	uint64_t hash;
	uint32_t id; /* 0: empty */
	uint32_t len;
	size_t off; /* into the table's bytes */
};

struct blob {
	const void *p;
	size_t n;
	uint64_t hash;
};

#define HTAB_NAME	intern_table
#define HTAB_ENTRY	struct intern_slot
#define HTAB_KEY	struct blob
#define HTAB_CTX	const struct bytebuf * /* the blobs */
#define HTAB_EMPTY(e)	(!(e)->id)
#define HTAB_HASH(t, e) ((e)->hash)
#define HTAB_MATCH(t, e, k)                                                                        \
	((e)->hash == (k).hash && (e)->len == (k).n &&                                             \
	 !memcmp((t)->ctx->data + (e)->off, (k).p, (k).n))
#define HTAB_MIN 1024
#include "base/htab.h"

struct intern {
	struct intern_table slots;
	struct bytebuf bytes; /* every interned blob of the region */
	size_t bound;	      /* what a region holds at most, 0: unbounded (see intern()) */
};

/* The id of blob p[0..n) (hash h), interned as new_id when new (*added set). */
static uint32_t intern(struct intern *t, const void *p, size_t n, uint64_t h, uint32_t new_id,
		       bool *added)
{
	bool found;
	t->slots.ctx = &t->bytes;
	struct intern_slot *s = intern_table_insert(&t->slots, (struct blob){p, n, h}, h, &found);
	*added = !found;
	if (found)
		return s->id;
	*s = (struct intern_slot){.hash = h, .id = new_id, .len = (uint32_t)n, .off = t->bytes.len};
	/* Doubling past the region's bound would hold twice what a region can use for the rest
	 * of the trace (8 MiB for a 4 MiB region): the last step stops at the bound. */
	size_t need = t->bytes.len + n;
	if (need > t->bytes.cap && need <= t->bound && t->bytes.cap * 2 > t->bound) {
		t->bytes.data = xrealloc(t->bytes.data, t->bound);
		t->bytes.cap = t->bound;
	}
	bytebuf_bytes(&t->bytes, p, n);
	return new_id;
}

static void intern_reset(struct intern *t)
{
	intern_table_clear(&t->slots);
	t->bytes.len = 0;
}

static void intern_free(struct intern *t)
{
	intern_table_free(&t->slots);
	bytebuf_free(&t->bytes);
}

/* ---- the writer ---- */

struct thread_state {
	uint32_t seq; /* last sequence number given */
	bool live;
};

/* The previous event of the block, as header compression compares with it. */
struct prev_header {
	uint32_t metadata_id, seq, cpu, stack_id, label_list_id, payload_size;
	uint64_t thread, capture_thread, timestamp;
};

struct nettrace_writer {
	int fd;
	FILE *copy; /* NULL, or what gets every byte written to fd too */
	bool failed;
	uint32_t pointer_size;
	size_t block_bytes, region_bytes;

	struct bytebuf meta, threads, stacks, labels, events, removes, out;
	uint32_t nmeta_pending, next_metadata_id;
	uint32_t stacks_pending, next_stack_id, region_first_stack;
	uint32_t labels_pending, next_label_id, region_first_label;
	uint32_t first_metadata_id; /* ids below were flushed from readers' caches */

	struct thread_state *thr; /* by index */
	size_t thr_cap;
	uint64_t next_thread;

	struct intern stack_table, label_table;

	/* the event block being filled */
	uint32_t block_events;
	uint64_t block_min_ts, block_max_ts;
	struct prev_header prev;

	uint64_t max_ts;     /* latest timestamp written */
	uint64_t last_sp_ts; /* of the last sequence point */
	bool any_sp;
	struct nettrace_writer_stats st;
	struct bytebuf scratch;
};

/* Appends a block (header + payload) to out. */
static void put_block(struct bytebuf *out, enum block_kind kind, const void *payload, size_t size)
{
	bytebuf_u32(out, (uint32_t)size | (uint32_t)kind << 24);
	bytebuf_bytes(out, payload, size);
}

static int write_out(struct nettrace_writer *w)
{
	if (w->failed)
		return -1;
	if (w->out.len && write_all(w->fd, w->out.data, w->out.len) < 0) {
		w->failed = true;
		w->out.len = 0;
		return pc_err_errno("cannot write the NetTrace file");
	}
	if (w->out.len && w->copy)
		fwrite(w->out.data, 1, w->out.len, w->copy);
	w->st.bytes += w->out.len;
	w->out.len = 0;
	return 0;
}

/* The interned bytes a region can reach: the region is checked when a block is full, so
 * it ends past region_bytes by at most a block of new stacks (each also in the pending stack
 * block) and one more blob (here up to 8 000 frames; a longer one just doubles the buffer). */
static void set_bounds(struct nettrace_writer *w)
{
	size_t b = w->region_bytes ? w->region_bytes + w->block_bytes + 64 * 1024 : 0;
	w->stack_table.bound = w->label_table.bound = b;
}

static void utc_fields(int64_t ns, uint16_t f[8])
{
	time_t secs = (time_t)(ns / 1000000000);
	int64_t rem = ns % 1000000000;
	if (rem < 0) {
		secs--;
		rem += 1000000000;
	}
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	gmtime_r(&secs, &tm);
	f[0] = (uint16_t)(tm.tm_year + 1900);
	f[1] = (uint16_t)(tm.tm_mon + 1);
	f[2] = (uint16_t)tm.tm_wday;
	f[3] = (uint16_t)tm.tm_mday;
	f[4] = (uint16_t)tm.tm_hour;
	f[5] = (uint16_t)tm.tm_min;
	f[6] = (uint16_t)tm.tm_sec;
	f[7] = (uint16_t)(rem / 1000000);
}

struct nettrace_writer *nettrace_writer_new(int fd, const struct nettrace_trace_info *info)
{
	return nettrace_writer_new_copy(fd, NULL, info);
}

struct nettrace_writer *nettrace_writer_new_copy(int fd, FILE *copy,
						 const struct nettrace_trace_info *info)
{
	struct nettrace_writer *w = xcalloc(1, sizeof(*w));
	w->fd = fd;
	w->copy = copy;
	w->pointer_size = info->pointer_size == 4 ? 4 : 8;
	w->block_bytes = DEFAULT_BLOCK_BYTES;
	w->region_bytes = DEFAULT_REGION_BYTES;
	set_bounds(w);
	w->next_metadata_id = w->first_metadata_id = 1;
	w->next_stack_id = w->region_first_stack = 1;
	w->next_label_id = w->region_first_label = 1;
	w->next_thread = 1;

	bytebuf_bytes(&w->out, "Nettrace", 8);
	bytebuf_u32(&w->out, 0); /* reserved */
	bytebuf_u32(&w->out, 6); /* major */
	bytebuf_u32(&w->out, 0); /* minor */
	struct bytebuf *b = &w->scratch;
	uint16_t utc[8];
	utc_fields(info->sync_utc_ns, utc);
	for (int i = 0; i < 8; i++)
		bytebuf_u16(b, utc[i]);
	bytebuf_u64(b, info->sync_ticks);
	bytebuf_u64(b, info->tick_freq);
	bytebuf_u32(b, w->pointer_size);
	bytebuf_u32(b, (uint32_t)info->nkv);
	for (size_t i = 0; i < 2 * info->nkv; i++)
		bytebuf_string(b, info->kv[i]);
	put_block(&w->out, BLOCK_TRACE, b->data, b->len);
	b->len = 0;
	w->max_ts = w->last_sp_ts = info->sync_ticks;
	if (write_out(w) < 0) {
		nettrace_writer_free(w);
		return NULL;
	}
	return w;
}

void nettrace_writer_set_limits(struct nettrace_writer *w, size_t block_bytes, size_t region_bytes)
{
	if (block_bytes)
		w->block_bytes = block_bytes < MAX_BLOCK / 2 ? block_bytes : MAX_BLOCK / 2;
	w->region_bytes = region_bytes;
	set_bounds(w);
}

/* ---- metadata ---- */

static int put_type(struct bytebuf *b, const struct nettrace_field_type *t, int depth);

static int put_fields(struct bytebuf *b, const struct nettrace_field_desc *f, uint16_t n, int depth)
{
	bytebuf_u16(b, n);
	for (uint16_t i = 0; i < n; i++) {
		size_t at = b->len;
		bytebuf_u16(b, 0); /* FieldSize, patched below */
		bytebuf_string(b, f[i].name);
		if (put_type(b, &f[i].type, depth + 1) < 0)
			return -1;
		size_t size = b->len - at - 2;
		if (size > 0xffff)
			return pc_err("NetTrace metadata: field %s is too large", f[i].name);
		bytebuf_patch_le(b, at, size, 2);
	}
	return 0;
}

static int put_type(struct bytebuf *b, const struct nettrace_field_type *t, int depth)
{
	if (depth > 32)
		return pc_err("NetTrace metadata: types nested too deep");
	bytebuf_u8(b, t->code);
	switch (t->code) {
	case NETTRACE_ARRAY:
	case NETTRACE_FIXED_ARRAY:
	case NETTRACE_RELLOC:
	case NETTRACE_DATALOC:
		if (!t->element)
			return pc_err("NetTrace metadata: an array type without its element type");
		if (put_type(b, t->element, depth + 1) < 0)
			return -1;
		if (t->code == NETTRACE_FIXED_ARRAY)
			bytebuf_u16(b, t->count);
		return 0;
	case NETTRACE_OBJECT:
		return put_fields(b, t->fields, t->nfields, depth + 1);
	default:
		return 0;
	}
}

uint32_t nettrace_writer_add_metadata(struct nettrace_writer *w,
				      const struct nettrace_event_desc *d)
{
	struct bytebuf *b = &w->scratch;
	b->len = 0;
	uint32_t id = w->next_metadata_id;
	bytebuf_varuint(b, id);
	bytebuf_string(b, d->provider);
	bytebuf_varuint(b, d->event_id);
	bytebuf_string(b, d->name);
	if (put_fields(b, d->fields, d->nfields, 0) < 0)
		return 0;
	/* optional metadata */
	size_t at = b->len;
	bytebuf_u16(b, 0);
	if (d->opcode >= 0) {
		bytebuf_u8(b, 1);
		bytebuf_u8(b, (uint8_t)d->opcode);
	}
	if (d->keywords) {
		bytebuf_u8(b, 3);
		bytebuf_u64(b, d->keywords);
	}
	if (d->message) {
		bytebuf_u8(b, 4);
		bytebuf_string(b, d->message);
	}
	for (size_t i = 0; i < d->nkv; i++) {
		bytebuf_u8(b, 6);
		bytebuf_string(b, d->kv[2 * i]);
		bytebuf_string(b, d->kv[2 * i + 1]);
	}
	if (d->provider_guid) {
		bytebuf_u8(b, 7);
		bytebuf_bytes(b, d->provider_guid, 16);
	}
	if (d->level >= 0) {
		bytebuf_u8(b, 8);
		bytebuf_u8(b, (uint8_t)d->level);
	}
	if (d->version >= 0) {
		bytebuf_u8(b, 9);
		bytebuf_u8(b, (uint8_t)d->version);
	}
	size_t opt = b->len - at - 2;
	if (opt > 0xffff || b->len > 0xffff) {
		pc_err("NetTrace metadata for %s/%s is too large", d->provider, d->name);
		return 0;
	}
	bytebuf_patch_le(b, at, opt, 2);
	if (!w->meta.len)
		bytebuf_u16(&w->meta, 0); /* the block's HeaderSize */
	bytebuf_u16(&w->meta, (uint16_t)b->len);
	bytebuf_bytes(&w->meta, b->data, b->len);
	w->nmeta_pending++;
	w->next_metadata_id++;
	return id;
}

/* ---- threads ---- */

static struct thread_state *thread_state(struct nettrace_writer *w, uint64_t index)
{
	if (!index || index >= w->next_thread || !w->thr[index].live)
		return NULL;
	return &w->thr[index];
}

uint64_t nettrace_writer_add_thread(struct nettrace_writer *w, const struct nettrace_thread_info *t)
{
	uint64_t index = w->next_thread++;
	grow_array((void **)&w->thr, &w->thr_cap, index + 1, sizeof(*w->thr));
	w->thr[index] = (struct thread_state){.live = true};
	struct bytebuf *b = &w->scratch;
	b->len = 0;
	bytebuf_varuint(b, index);
	if (t->name) {
		bytebuf_u8(b, 1);
		/* a row's size is 16 bits: a name never needs more than this */
		char name[1024];
		snprintf(name, sizeof(name), "%s", t->name);
		bytebuf_string(b, name);
	}
	if (t->has_pid) {
		bytebuf_u8(b, 2);
		bytebuf_varuint(b, t->pid);
	}
	if (t->has_tid) {
		bytebuf_u8(b, 3);
		bytebuf_varuint(b, t->tid);
	}
	bytebuf_u16(&w->threads, (uint16_t)b->len);
	bytebuf_bytes(&w->threads, b->data, b->len);
	return index;
}

int nettrace_writer_remove_thread(struct nettrace_writer *w, uint64_t thread)
{
	struct thread_state *ts = thread_state(w, thread);
	if (!ts)
		return pc_err("NetTrace: removing thread %llu, which is not live",
			      (unsigned long long)thread);
	ts->live = false;
	bytebuf_varuint(&w->removes, thread);
	bytebuf_varuint(&w->removes, ts->seq);
	return 0;
}

void nettrace_writer_lost(struct nettrace_writer *w, uint64_t capture_thread, uint32_t n)
{
	struct thread_state *ts = thread_state(w, capture_thread);
	if (ts)
		ts->seq += n;
}

/* ---- stacks and label lists ---- */

uint32_t nettrace_writer_stack(struct nettrace_writer *w, const uint64_t *ips, size_t n)
{
	struct bytebuf *b = &w->scratch;
	b->len = 0;
	if (w->pointer_size == 8 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
		bytebuf_bytes(b, ips, n * 8); /* the file's layout already */
	} else {
		for (size_t i = 0; i < n; i++)
			bytebuf_le(b, ips[i], (int)w->pointer_size);
	}
	w->st.stack_refs++;
	bool added;
	uint32_t id = intern(&w->stack_table, b->data, b->len, hash_bytes(b->data, b->len),
			     w->next_stack_id, &added);
	if (!added)
		return id;
	w->next_stack_id++;
	bytebuf_u32(&w->stacks, (uint32_t)b->len);
	bytebuf_bytes(&w->stacks, b->data, b->len);
	w->stacks_pending++;
	w->st.stacks++;
	return id;
}

uint32_t nettrace_writer_label_list(struct nettrace_writer *w, const struct nettrace_label *l,
				    size_t n)
{
	struct bytebuf *b = &w->scratch;
	b->len = 0;
	for (size_t i = 0; i < n; i++) {
		uint8_t kind = l[i].kind | (i + 1 == n ? 0x80 : 0);
		bytebuf_u8(b, kind);
		switch (l[i].kind) {
		case NETTRACE_LABEL_ACTIVITY_ID:
		case NETTRACE_LABEL_RELATED_ACTIVITY_ID:
		case NETTRACE_LABEL_TRACE_ID:
			bytebuf_bytes(b, l[i].bytes, 16);
			break;
		case NETTRACE_LABEL_SPAN_ID:
		case NETTRACE_LABEL_KEYWORDS:
			bytebuf_u64(b, l[i].u64);
			break;
		case NETTRACE_LABEL_KEY_STRING:
			bytebuf_string(b, l[i].key);
			bytebuf_string(b, l[i].value);
			break;
		case NETTRACE_LABEL_KEY_INT:
			bytebuf_string(b, l[i].key);
			bytebuf_varint(b, l[i].i64);
			break;
		case NETTRACE_LABEL_OPCODE:
		case NETTRACE_LABEL_LEVEL:
		case NETTRACE_LABEL_VERSION:
			bytebuf_u8(b, (uint8_t)l[i].u64);
			break;
		default:
			pc_err("NetTrace: unknown label kind %u", l[i].kind);
			return 0;
		}
	}
	if (!n || b->len > MAX_BLOCK / 4) {
		pc_err("NetTrace: a label list must have 1 to a few thousand labels");
		return 0;
	}
	bool added;
	uint32_t id = intern(&w->label_table, b->data, b->len, hash_bytes(b->data, b->len),
			     w->next_label_id, &added);
	if (!added)
		return id;
	w->next_label_id++;
	bytebuf_bytes(&w->labels, b->data, b->len);
	w->labels_pending++;
	return id;
}

/* ---- flushing ---- */

/* Appends the pending metadata, thread, stack and label list blocks to out. */
static void put_declarations(struct nettrace_writer *w)
{
	if (w->meta.len) {
		put_block(&w->out, BLOCK_METADATA, w->meta.data, w->meta.len);
		w->meta.len = 0;
		w->nmeta_pending = 0;
	}
	if (w->threads.len) {
		put_block(&w->out, BLOCK_THREAD, w->threads.data, w->threads.len);
		w->threads.len = 0;
	}
	if (w->stacks_pending) {
		struct bytebuf *b = &w->scratch;
		b->len = 0;
		bytebuf_u32(b, w->next_stack_id - w->stacks_pending);
		bytebuf_u32(b, w->stacks_pending);
		bytebuf_u32(&w->out, (uint32_t)(b->len + w->stacks.len) | BLOCK_STACK << 24);
		bytebuf_bytes(&w->out, b->data, b->len);
		bytebuf_bytes(&w->out, w->stacks.data, w->stacks.len);
		w->stacks.len = 0;
		w->stacks_pending = 0;
	}
	if (w->labels_pending) {
		struct bytebuf *b = &w->scratch;
		b->len = 0;
		bytebuf_u32(b, w->next_label_id - w->labels_pending);
		bytebuf_u32(b, w->labels_pending);
		bytebuf_u32(&w->out, (uint32_t)(b->len + w->labels.len) | BLOCK_LABEL_LIST << 24);
		bytebuf_bytes(&w->out, b->data, b->len);
		bytebuf_bytes(&w->out, w->labels.data, w->labels.len);
		w->labels.len = 0;
		w->labels_pending = 0;
	}
}

int nettrace_writer_flush(struct nettrace_writer *w)
{
	if (w->failed)
		return -1;
	put_declarations(w);
	if (w->block_events) {
		uint8_t hdr[EVENT_HEADER_SIZE];
		struct bytebuf h = {.data = hdr, .cap = sizeof(hdr)};
		bytebuf_u16(&h, EVENT_HEADER_SIZE);
		bytebuf_u16(&h, 1); /* header compression */
		bytebuf_u64(&h, w->block_min_ts);
		bytebuf_u64(&h, w->block_max_ts);
		bytebuf_u32(&w->out,
			    (uint32_t)(EVENT_HEADER_SIZE + w->events.len) | BLOCK_EVENT << 24);
		bytebuf_bytes(&w->out, hdr, EVENT_HEADER_SIZE);
		bytebuf_bytes(&w->out, w->events.data, w->events.len);
		w->events.len = 0;
		w->block_events = 0;
		memset(&w->prev, 0, sizeof(w->prev));
		w->st.blocks++;
	}
	if (w->removes.len) {
		put_block(&w->out, BLOCK_REMOVE_THREAD, w->removes.data, w->removes.len);
		w->removes.len = 0;
	}
	return write_out(w);
}

int nettrace_writer_sequence_point(struct nettrace_writer *w, uint64_t timestamp,
				   bool flush_threads, bool flush_metadata)
{
	if (nettrace_writer_flush(w) < 0)
		return -1;
	if (timestamp < w->max_ts)
		timestamp = w->max_ts;
	struct bytebuf *b = &w->scratch;
	b->len = 0;
	bytebuf_u64(b, timestamp);
	bytebuf_u32(b, (flush_threads ? 1u : 0u) | (flush_metadata ? 2u : 0u));
	bytebuf_u32(b, 0); /* no thread sequence numbers: they are all in the events */
	put_block(&w->out, BLOCK_SEQUENCE_POINT, b->data, b->len);
	intern_reset(&w->stack_table);
	intern_reset(&w->label_table);
	w->region_first_stack = w->next_stack_id;
	w->region_first_label = w->next_label_id;
	if (flush_threads)
		for (uint64_t i = 1; i < w->next_thread; i++)
			w->thr[i].live = false;
	if (flush_metadata)
		w->first_metadata_id = w->next_metadata_id;
	w->last_sp_ts = timestamp;
	w->any_sp = true;
	w->st.sequence_points++;
	return write_out(w);
}

/* ---- events ---- */

int nettrace_writer_event(struct nettrace_writer *w, const struct nettrace_event_out *e)
{
	if (w->failed)
		return -1;
	uint64_t capture = e->capture_thread ? e->capture_thread : e->thread;
	struct thread_state *cap = thread_state(w, capture);
	if (!thread_state(w, e->thread) || !cap)
		return pc_err("NetTrace: an event of thread %llu, which was not declared",
			      (unsigned long long)e->thread);
	if (e->metadata_id < w->first_metadata_id || e->metadata_id >= w->next_metadata_id)
		return pc_err("NetTrace: an event of metadata %u, which was not declared",
			      e->metadata_id);
	if ((e->stack_id &&
	     (e->stack_id < w->region_first_stack || e->stack_id >= w->next_stack_id)) ||
	    (e->label_list_id &&
	     (e->label_list_id < w->region_first_label || e->label_list_id >= w->next_label_id)))
		return pc_err("NetTrace: an event refers to a stack or label list of an earlier "
			      "region");
	if (e->payload_size > MAX_BLOCK / 2)
		return pc_err("NetTrace: an event of %zu bytes is too large", e->payload_size);
	uint64_t ts = e->timestamp;
	if (ts < w->last_sp_ts) {
		ts = w->last_sp_ts;
		w->st.raised_timestamps++;
	}
	/* A block's timestamps only go forward (they are deltas), and the reader follows a
	 * change of capture thread only at a sorted event: otherwise a new block. */
	if (w->block_events &&
	    (ts < w->prev.timestamp || (!e->sorted && capture != w->prev.capture_thread)))
		if (nettrace_writer_flush(w) < 0)
			return -1;

	uint32_t seq = ++cap->seq;
	struct prev_header *p = &w->prev;
	uint8_t flags = 0;
	if (e->metadata_id != p->metadata_id)
		flags |= HDR_METADATA;
	if (!w->block_events || capture != p->capture_thread || e->cpu != p->cpu ||
	    seq != p->seq + 1)
		flags |= HDR_CAPTURE;
	if (e->thread != p->thread)
		flags |= HDR_THREAD;
	if (e->stack_id != p->stack_id)
		flags |= HDR_STACK;
	if (e->label_list_id != p->label_list_id)
		flags |= HDR_LABELS;
	if (e->sorted)
		flags |= HDR_SORTED;
	if (e->payload_size != p->payload_size)
		flags |= HDR_SIZE;

	struct bytebuf *b = &w->events;
	bytebuf_reserve(b, MAX_EVENT_HEADER + e->payload_size);
	b->data[b->len++] = flags;
	if (flags & HDR_METADATA)
		bytebuf_varuint(b, e->metadata_id);
	if (flags & HDR_CAPTURE) {
		bytebuf_varuint(b, (uint32_t)(seq - p->seq - 1));
		bytebuf_varuint(b, capture);
		bytebuf_varuint(b, e->cpu);
	}
	if (flags & HDR_THREAD)
		bytebuf_varuint(b, e->thread);
	if (flags & HDR_STACK)
		bytebuf_varuint(b, e->stack_id);
	bytebuf_varuint(b, ts - p->timestamp);
	if (flags & HDR_LABELS)
		bytebuf_varuint(b, e->label_list_id);
	if (flags & HDR_SIZE)
		bytebuf_varuint(b, e->payload_size);
	if (e->payload_size) {
		memcpy(b->data + b->len, e->payload, e->payload_size);
		b->len += e->payload_size;
	}

	*p = (struct prev_header){
	    .metadata_id = e->metadata_id,
	    .seq = seq,
	    .cpu = e->cpu,
	    .stack_id = e->stack_id,
	    .label_list_id = e->label_list_id,
	    .payload_size = (uint32_t)e->payload_size,
	    .thread = e->thread,
	    .capture_thread = capture,
	    .timestamp = ts,
	};
	if (!w->block_events++)
		w->block_min_ts = ts;
	w->block_max_ts = ts;
	if (ts > w->max_ts)
		w->max_ts = ts;
	w->st.events++;

	if (w->events.len + w->stacks.len + w->labels.len + w->meta.len + w->threads.len >=
	    w->block_bytes) {
		if (w->region_bytes &&
		    w->stack_table.bytes.len + w->label_table.bytes.len >= w->region_bytes)
			return nettrace_writer_sequence_point(w, w->max_ts, false, false);
		return nettrace_writer_flush(w);
	}
	return 0;
}

int nettrace_writer_finish(struct nettrace_writer *w)
{
	if (nettrace_writer_sequence_point(w, w->max_ts, false, false) < 0)
		return -1;
	put_block(&w->out, BLOCK_END, NULL, 0);
	return write_out(w);
}

const struct nettrace_writer_stats *nettrace_writer_stats(const struct nettrace_writer *w)
{
	return &w->st;
}

void nettrace_writer_free(struct nettrace_writer *w)
{
	if (!w)
		return;
	bytebuf_free(&w->meta);
	bytebuf_free(&w->threads);
	bytebuf_free(&w->stacks);
	bytebuf_free(&w->labels);
	bytebuf_free(&w->events);
	bytebuf_free(&w->removes);
	bytebuf_free(&w->out);
	bytebuf_free(&w->scratch);
	intern_free(&w->stack_table);
	intern_free(&w->label_table);
	free(w->thr);
	free(w);
}
