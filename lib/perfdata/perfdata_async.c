/* perfdata_async: see perfdata_async.h.  One lock guards the queue and the free list; the
 * producer holds it only to hand a buffer over or take one, never while the writer works. */
#include "perfdata_async.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MIN_BUFS 4

struct async_buf {
	uint8_t *data; /* PERFDATA_ASYNC_BUF bytes, allocated the first time it is needed */
	size_t len;
	bool round_end; /* the producer's round ended here */
};

struct perfdata_async {
	struct perfdata_writer *w;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t work, space; /* the writer waits for work, the producer for a buffer */
	struct async_buf *bufs;
	size_t nbufs, nalloc; /* the bound, and how many have memory */
	size_t *queue;	      /* ring of buffer indexes, oldest at qhead */
	size_t qhead, nqueued;
	size_t *free_bufs, nfree; /* emptied buffers */
	bool stopping;
	bool may_pause;
	bool failed; /* atomic: a write failed, error says why */
	char *error; /* set once, before failed */
	size_t cur;  /* the producer's buffer, or nbufs for none */
	uint64_t cur_started_ns;
	struct perfdata_build_id *bids; /* held until _stop() */
	size_t nbids, bids_cap;
	struct perfdata_async_stats st;
};

/* The writer thread: buffers in order; on a failure it keeps emptying the queue (dropping
 * what it holds) so that the producer never waits for a writer that gave up. */
static void *writer_main(void *arg)
{
	struct perfdata_async *a = arg;
	bool paused = false;
	pthread_mutex_lock(&a->lock);
	for (;;) {
		while (!a->nqueued && !a->stopping)
			pthread_cond_wait(&a->work, &a->lock);
		if (!a->nqueued)
			break;
		/* Counting the one about to be written: what the producer cannot use. */
		if (!paused && a->may_pause && a->nqueued > a->nbufs / 2)
			paused = true;
		else if (paused && a->nqueued <= a->nbufs / 4)
			paused = false;
		size_t i = a->queue[a->qhead];
		a->qhead = (a->qhead + 1) % a->nbufs;
		a->nqueued--;
		struct async_buf *b = &a->bufs[i];
		bool failed = a->failed;
		pthread_mutex_unlock(&a->lock);

		if (!failed) {
			perfdata_writer_pause_compression(a->w, paused);
			int rc = perfdata_writer_write(a->w, b->data, b->len);
			/* A buffer filled mid-round carries no round end (its rounds' ends are
			 * records in it): the file is flushed on time all the same. */
			if (rc == 0)
				rc = b->round_end ? perfdata_writer_finished_round(a->w)
						  : perfdata_writer_flush_due(a->w);
			if (rc < 0) {
				a->error = xstrdup(pc_strerror());
				__atomic_store_n(&a->failed, true, __ATOMIC_RELEASE);
			}
		}

		pthread_mutex_lock(&a->lock);
		a->st.handed_off++;
		a->st.uncompressed += paused;
		b->len = 0;
		b->round_end = false;
		a->free_bufs[a->nfree++] = i;
		pthread_cond_signal(&a->space);
	}
	pthread_mutex_unlock(&a->lock);
	perfdata_writer_pause_compression(a->w, false);
	return NULL;
}

/* Frees a, its buffers and its locks (its thread joined or never started). */
static void async_free(struct perfdata_async *a)
{
	for (size_t i = 0; i < a->nalloc; i++)
		free(a->bufs[i].data);
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->work);
	pthread_cond_destroy(&a->space);
	free(a->bufs);
	free(a->queue);
	free(a->free_bufs);
	free(a->bids);
	free(a->error);
	free(a);
}

struct perfdata_async *perfdata_async_start(struct perfdata_writer *w, size_t queue_bytes,
					    bool may_pause)
{
	struct perfdata_async *a = xcalloc(1, sizeof(*a));
	a->w = w;
	a->may_pause = may_pause;
	a->nbufs = queue_bytes / PERFDATA_ASYNC_BUF;
	if (a->nbufs < MIN_BUFS)
		a->nbufs = MIN_BUFS;
	a->bufs = xcalloc(a->nbufs, sizeof(*a->bufs));
	a->queue = xcalloc(a->nbufs, sizeof(*a->queue));
	a->free_bufs = xcalloc(a->nbufs, sizeof(*a->free_bufs));
	a->cur = a->nbufs;
	a->st.nbufs = a->nbufs;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->work, NULL);
	pthread_cond_init(&a->space, NULL);
	int err = pthread_create(&a->thread, NULL, writer_main, a);
	if (err) {
		pc_err("cannot start the perf.data writer thread: %s", strerror(err));
		async_free(a);
		return NULL;
	}
	return a;
}

/* Queues the producer's buffer (under the lock). */
static void hand_off_locked(struct perfdata_async *a, bool round_end)
{
	a->bufs[a->cur].round_end = round_end;
	a->queue[(a->qhead + a->nqueued) % a->nbufs] = a->cur;
	a->nqueued++;
	if (a->nqueued > a->st.peak_queued)
		a->st.peak_queued = a->nqueued;
	a->cur = a->nbufs;
	pthread_cond_signal(&a->work);
}

/* Hands the current buffer over (if any) and takes an empty one when `take`. */
static void next_buffer(struct perfdata_async *a, bool round_end, bool take)
{
	pthread_mutex_lock(&a->lock);
	if (a->cur < a->nbufs)
		hand_off_locked(a, round_end);
	if (take) {
		if (!a->nfree && a->nalloc == a->nbufs) {
			uint64_t t0 = monotonic_ns();
			a->st.waits++;
			while (!a->nfree)
				pthread_cond_wait(&a->space, &a->lock);
			a->st.wait_ns += monotonic_ns() - t0;
		}
		if (a->nfree) {
			a->cur = a->free_bufs[--a->nfree];
		} else {
			a->cur = a->nalloc++;
			a->bufs[a->cur].data = xmalloc(PERFDATA_ASYNC_BUF);
		}
		a->cur_started_ns = monotonic_ns();
	}
	pthread_mutex_unlock(&a->lock);
}

static int write_error(struct perfdata_async *a)
{
	if (!__atomic_load_n(&a->failed, __ATOMIC_ACQUIRE))
		return 0;
	return pc_err("%s", a->error);
}

void *perfdata_async_reserve(struct perfdata_async *a, size_t max)
{
	if (write_error(a) < 0)
		return NULL;
	if (max > PERFDATA_ASYNC_BUF) {
		pc_err("perf.data writer: no room for a record of %zu bytes", max);
		return NULL;
	}
	/* Whole records per buffer: the writer is given whole records. */
	if (a->cur >= a->nbufs || max > PERFDATA_ASYNC_BUF - a->bufs[a->cur].len)
		next_buffer(a, false, true);
	struct async_buf *b = &a->bufs[a->cur];
	return b->data + b->len;
}

int perfdata_async_commit(struct perfdata_async *a, size_t len)
{
	if (a->cur >= a->nbufs)
		return pc_err("perf.data writer: a record committed without room reserved");
	struct async_buf *b = &a->bufs[a->cur];
	uint16_t size;
	memcpy(&size, b->data + b->len + 6, sizeof(size));
	if (size < 8 || size != len || len > PERFDATA_ASYNC_BUF - b->len)
		return pc_err("perf.data writer: a record of %u bytes in %zu", size, len);
	b->len += len;
	return 0;
}

int perfdata_async_write(struct perfdata_async *a, const void *records, size_t len)
{
	const uint8_t *p = records;
	while (len) {
		uint16_t size;
		memcpy(&size, p + 6, sizeof(size));
		if (size < 8 || size > len)
			return pc_err("perf.data writer: a record of %u bytes in %zu", size, len);
		void *room = perfdata_async_reserve(a, size);
		if (!room)
			return -1;
		memcpy(room, p, size);
		perfdata_async_commit(a, size);
		p += size;
		len -= size;
	}
	return 0;
}

int perfdata_async_finished_round(struct perfdata_async *a)
{
	if (write_error(a) < 0)
		return -1;
	if (a->cur >= a->nbufs)
		return 0; /* nothing since the last hand-off, which ended a round or a buffer */
	struct async_buf *b = &a->bufs[a->cur];
	if (b->len >= PERFDATA_ASYNC_BUF / 2 ||
	    monotonic_ns() - a->cur_started_ns >= PERFDATA_ASYNC_HANDOFF_MS * 1000000ull) {
		next_buffer(a, true, false);
		return 0;
	}
	struct perf_event_header h = {.type = PERF_RECORD_FINISHED_ROUND, .size = sizeof(h)};
	return perfdata_async_write(a, &h, sizeof(h));
}

void perfdata_async_add_build_id(struct perfdata_async *a, const struct perfdata_build_id *b)
{
	grow_array((void **)&a->bids, &a->bids_cap, a->nbids + 1, sizeof(*a->bids));
	a->bids[a->nbids] = *b;
	a->bids[a->nbids].filename = b->filename ? xstrdup(b->filename) : NULL;
	a->nbids++;
}

int perfdata_async_stop(struct perfdata_async *a, struct perfdata_async_stats *stats)
{
	pthread_mutex_lock(&a->lock);
	if (a->cur < a->nbufs)
		hand_off_locked(a, false);
	a->stopping = true;
	pthread_cond_signal(&a->work);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
	int rc = a->failed ? pc_err("%s", a->error) : 0;
	for (size_t i = 0; i < a->nbids; i++) {
		perfdata_writer_add_build_id(a->w, &a->bids[i]);
		free((char *)a->bids[i].filename);
	}
	if (stats)
		*stats = a->st;
	async_free(a);
	return rc;
}
