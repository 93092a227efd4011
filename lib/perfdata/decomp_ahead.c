/* decomp_ahead: see decomp_ahead.h.  The thread keeps the block it decompressed last until
 * the next COMPRESSED record comes: only then is it known whether the record cut off at its
 * end continues (its start moves to the next block) or the stream ends there (it stays). */
#include "decomp_ahead.h"
#include "base/span.h"
#include "base/util.h"
#include "perf_abi.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

struct ahead_entry {
	uint64_t offset; /* of the COMPRESSED record */
	struct oe_block *block;
	char *error; /* instead of a block */
};

struct decomp_ahead {
	const uint8_t *map;
	uint64_t pos, end;
	size_t max_block;
	char *path;
	ZSTD_DCtx *zstd;
	struct ahead_entry pending; /* decompressed last, not yet queued */
	bool has_pending;

	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct ahead_entry *queue; /* a growing list, consumed from head */
	size_t head, n, cap;
	size_t queued_bytes;
	bool stop, done;
};

static void push(struct decomp_ahead *d, struct ahead_entry e)
{
	pthread_mutex_lock(&d->lock);
	while (!__atomic_load_n(&d->stop, __ATOMIC_ACQUIRE) &&
	       d->queued_bytes >= DECOMP_AHEAD_BYTES)
		pthread_cond_wait(&d->changed, &d->lock);
	if (d->head == d->n) /* empty: start the list over */
		d->head = d->n = 0;
	grow_array((void **)&d->queue, &d->cap, d->n + 1, sizeof(*d->queue));
	d->queue[d->n++] = e;
	d->queued_bytes += e.block ? e.block->cap : 0;
	pthread_cond_broadcast(&d->changed);
	pthread_mutex_unlock(&d->lock);
}

/* The length of the whole records at the start of b (all of it when a record's size is
 * bad: the reader stops there, as it would). */
static size_t whole_records(const struct oe_block *b)
{
	size_t off = 0;
	while (b->len - off >= sizeof(struct perf_event_header)) {
		uint16_t size = load_le16(b->data + off + 6);
		if (size < sizeof(struct perf_event_header))
			return b->len;
		if (size > b->len - off)
			break;
		off += size;
	}
	return off;
}

/* Queues the pending block; with next, its cut-off record's start moves into next. */
static void queue_pending(struct decomp_ahead *d, struct oe_block *next)
{
	if (!d->has_pending)
		return;
	struct oe_block *b = d->pending.block;
	if (next && b) {
		size_t whole = whole_records(b), tail = b->len - whole;
		if (tail) {
			grow_array((void **)&next->data, &next->cap, tail, 1);
			memcpy(next->data, b->data + whole, tail);
			next->len = tail;
			b->len = whole;
		}
	}
	if (b)
		oe_block_fit(b);
	push(d, d->pending);
	d->has_pending = false;
}

int decomp_append(void *zstd, struct oe_block *b, const void *src, size_t len, size_t max,
		  const char *path, uint64_t offset)
{
	ZSTD_inBuffer in = {src, len, 0};
	for (;;) {
		size_t room = ZSTD_DStreamOutSize();
		if (b->len + room > max)
			return pc_err("%s: compressed record at offset %llu expands beyond %zu MiB",
				      path, (unsigned long long)offset, max >> 20);
		grow_array((void **)&b->data, &b->cap, b->len + room, 1);
		ZSTD_outBuffer out = {b->data, b->cap, b->len};
		size_t ret = ZSTD_decompressStream(zstd, &out, &in);
		if (ZSTD_isError(ret))
			return pc_err("%s: bad zstd data in the record at offset %llu: %s", path,
				      (unsigned long long)offset, ZSTD_getErrorName(ret));
		b->len = out.pos;
		if (in.pos == in.size && out.pos < out.size)
			return 0;
	}
}

/* The records of the data section as the reader walks them (next_raw(), skip_payload()):
 * false at its end or where the reader would stop. */
static bool next_record(struct decomp_ahead *d, struct perf_event_header *h, uint64_t *at)
{
	uint64_t left = d->end - d->pos;
	if (left < sizeof(*h))
		return false;
	memcpy(h, d->map + d->pos, sizeof(*h));
	if (h->size < sizeof(*h) || h->size > left)
		return false;
	*at = d->pos;
	d->pos += h->size;
	uint64_t payload = 0;
	perf_record_payload(d->map + *at, &payload);
	if (payload > d->end - d->pos)
		return false;
	d->pos += payload;
	return true;
}

static void *ahead_main(void *arg)
{
	struct decomp_ahead *d = arg;
	struct perf_event_header h;
	uint64_t at;
	while (!__atomic_load_n(&d->stop, __ATOMIC_ACQUIRE) && next_record(d, &h, &at)) {
		if (h.type != PERF_RECORD_COMPRESSED)
			continue;
		struct oe_block *b = oe_block_new();
		queue_pending(d, b);
		if (decomp_append(d->zstd, b, d->map + at + sizeof(h), h.size - sizeof(h),
				  d->max_block, d->path, at) < 0) {
			oe_block_put(b);
			push(d, (struct ahead_entry){at, NULL, xstrdup(pc_strerror())});
			break;
		}
		d->pending = (struct ahead_entry){at, b, NULL};
		d->has_pending = true;
	}
	queue_pending(d, NULL);
	pthread_mutex_lock(&d->lock);
	d->done = true;
	pthread_cond_broadcast(&d->changed);
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

struct decomp_ahead *decomp_ahead_start(const uint8_t *map, uint64_t from, uint64_t end,
					size_t max_block, const char *path)
{
	struct decomp_ahead *d = xcalloc(1, sizeof(*d));
	d->map = map;
	d->pos = from;
	d->end = end;
	d->max_block = max_block;
	d->path = xstrdup(path);
	d->zstd = ZSTD_createDCtx();
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->changed, NULL);
	if (!d->zstd) {
		pc_err("%s: cannot create a zstd decompression context", path);
		decomp_ahead_free(d);
		return NULL;
	}
	int err = thread_start_nosignals(&d->thread, ahead_main, d);
	d->started = !err;
	if (err) {
		pc_err("cannot start a thread to decompress %s: %s", path, strerror(err));
		decomp_ahead_free(d);
		return NULL;
	}
	return d;
}

struct oe_block *decomp_ahead_next(struct decomp_ahead *d, uint64_t offset)
{
	pthread_mutex_lock(&d->lock);
	while (d->head == d->n && !d->done)
		pthread_cond_wait(&d->changed, &d->lock);
	struct ahead_entry e = {UINT64_MAX, NULL, NULL};
	if (d->head < d->n) {
		e = d->queue[d->head++];
		d->queued_bytes -= e.block ? e.block->cap : 0;
		pthread_cond_broadcast(&d->changed);
	}
	pthread_mutex_unlock(&d->lock);
	if (e.error || e.offset != offset) {
		if (e.error)
			pc_err("%s", e.error);
		else
			pc_err(
			    "%s: the compressed record at offset %llu was not decompressed ahead",
			    d->path, (unsigned long long)offset);
		free(e.error);
		oe_block_put(e.block);
		return NULL;
	}
	return e.block;
}

void decomp_ahead_free(struct decomp_ahead *d)
{
	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	__atomic_store_n(&d->stop, true, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&d->changed);
	pthread_mutex_unlock(&d->lock);
	if (d->started)
		pthread_join(d->thread, NULL);
	for (size_t i = d->head; i < d->n; i++) {
		oe_block_put(d->queue[i].block);
		free(d->queue[i].error);
	}
	if (d->has_pending)
		oe_block_put(d->pending.block);
	free(d->queue);
	ZSTD_freeDCtx(d->zstd);
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->changed);
	free(d->path);
	free(d);
}
