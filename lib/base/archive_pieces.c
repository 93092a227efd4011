/* archive_pieces: the pieces between the producer and the file.  The caller's thread cuts
 * each entry into PIECE-sized pieces and queues them; one worker thread per CPU compresses
 * whichever piece is next in the queue, and whichever worker finishes the oldest piece
 * writes the finished pieces in order: to the archive, or a side stream's to its spill
 * file.  At most nslots pieces are queued or being compressed at a time, so memory stays
 * bounded whatever the size of the entries, and a producer that outruns the workers waits
 * for them. */
#include "archive_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* After the producer waits, this many turns of the ring are compressed a step lighter: 4
 * turns left the pass waiting again every few dozen pieces on 2 CPUs (the 397k-sample
 * trace's merge 0.69 s, 1.0 s of CPU); 16 turns 0.53 s, 0.74 s of CPU, for a zip 1-4 %
 * larger; more turns gained nothing measurable (bench/README.md, "Lighter for longer"). */
#define LIGHTER_ROUNDS 16

static struct piece *slot(struct archive_writer *w, uint64_t seq)
{
	return &w->slots[seq % w->nslots];
}

/* Writes the finished pieces in order, from the oldest on; one thread at a time. */
static void write_done_pieces(struct archive_writer *w)
{
	if (w->writing)
		return;
	w->writing = true;
	while (w->next_write < w->queued && slot(w, w->next_write)->state == PIECE_DONE) {
		struct piece *p = slot(w, w->next_write);
		struct zentry *e = p->e;
		bool drop = e->abandoned;
		pthread_mutex_unlock(&w->lock);
		if (e->spill_fd >= 0) { /* a side stream's, placed at the end */
			if (!w->write_errno && !drop &&
			    write_all(e->spill_fd, p->out, p->out_len) < 0)
				w->write_errno = errno ? errno : EIO;
		} else {
			if (p->first)
				zip_local_header(w, e);
			zip_write(w, p->out, p->out_len);
		}
		e->crc = e->usize ? crc32_join(e->crc, p->crc, p->len) : p->crc;
		e->usize += p->len;
		e->csize += p->out_len;
		if (p->last && e->spill_fd < 0)
			zip_local_header_end(w, e);
		pthread_mutex_lock(&w->lock);
		w->in_written += p->len;
		p->state = PIECE_FREE;
		w->next_write++;
		pthread_cond_broadcast(&w->space);
		pthread_cond_broadcast(&w->written);
	}
	w->writing = false;
}

/* The effort a piece gets, as a worker takes it (under the lock): its entry's, or a step
 * lighter (BEST to SMALL, SMALL to FAST) for the pieces taken in the LIGHTER_ROUNDS turns of
 * the ring after the producer last had to wait for a free slot.  Where the CPUs have no
 * room for the compressors beside the pass that feeds them, the stronger efforts would
 * hold the pass up: on 2 CPUs, 400k samples' perf.data.txt took 0.78 s of CPU at SMALL and
 * 0.10 s at FAST, and merge's wall fell from 1.59 to 1.00 s for a 7.5 % larger zip
 * (bench/README.md, "Compression that gives way").  Where the workers keep up, every piece
 * gets its entry's effort.  What the entries hold is the same either way; only their
 * compressed size changes. */
static enum deflate_effort piece_effort(struct archive_writer *w, const struct piece *p)
{
	enum deflate_effort effort = p->e->effort;
	if (p->e->method == 0)
		return effort;
	w->deflated++;
	if (effort == DEFLATE_FAST || !w->lighter_left)
		return effort;
	w->lighter_left--;
	w->lighter++;
	return effort == DEFLATE_BEST ? DEFLATE_SMALL : DEFLATE_FAST;
}

static void compress_piece(struct deflate_chunker *c, struct piece *p)
{
	p->crc = crc32_update(0, p->in, p->len);
	if (p->e->method == 0) {
		memcpy(p->out, p->in, p->len);
		p->out_len = p->len;
	} else if (p->e->mixed) {
		p->out_len = deflate_chunk_mixed(c, p->effort, p->dict, p->dict_len, p->in, p->len,
						 p->last, p->out);
	} else {
		p->out_len = deflate_chunk(c, p->effort, p->dict, p->dict_len, p->in, p->len,
					   p->last, p->out);
	}
}

static void *worker(void *arg)
{
	struct archive_writer *w = arg;
	struct deflate_chunker *c = deflate_chunker_new();
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->stop && w->taken == w->queued)
			pthread_cond_wait(&w->work, &w->lock);
		if (w->stop)
			break;
		struct piece *p = slot(w, w->taken++);
		p->state = PIECE_BUSY;
		p->effort = piece_effort(w, p);
		bool failed = w->write_errno != 0;
		pthread_mutex_unlock(&w->lock);
		if (!failed) /* once the file failed, pieces are only passed through */
			compress_piece(c, p);
		pthread_mutex_lock(&w->lock);
		p->state = PIECE_DONE;
		write_done_pieces(w);
	}
	pthread_mutex_unlock(&w->lock);
	deflate_chunker_free(c);
	return NULL;
}

static int nr_workers(void)
{
	int n = usable_cpus();
	return n > MAX_WORKERS ? MAX_WORKERS : n;
}

int pieces_start(struct archive_writer *w)
{
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->space, NULL);
	pthread_cond_init(&w->written, NULL);
	int n = nr_workers();
	/* every worker busy, one piece of each waiting for it, one being filled */
	w->nslots = 2 * (size_t)n + 1;
	w->slots = xcalloc(w->nslots, sizeof(*w->slots));
	for (size_t i = 0; i < w->nslots; i++) {
		w->slots[i].dict = xmalloc(DEFLATE_DICT_MAX);
		w->slots[i].in = xmalloc(PIECE);
		w->slots[i].out = xmalloc(deflate_chunk_bound(PIECE));
	}
	int rc = 0;
	for (int i = 0; i < n; i++) {
		rc = thread_start_nosignals(&w->workers[i], worker, w);
		if (rc)
			break;
		w->nworkers++;
	}
	return w->nworkers ? 0 : rc;
}

void pieces_stop(struct archive_writer *w)
{
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_broadcast(&w->work);
	pthread_mutex_unlock(&w->lock);
	for (int i = 0; i < w->nworkers; i++)
		pthread_join(w->workers[i], NULL);
	w->nworkers = 0;
}

void pieces_free(struct archive_writer *w)
{
	for (size_t i = 0; i < w->nslots; i++) {
		free(w->slots[i].dict);
		free(w->slots[i].in);
		free(w->slots[i].out);
	}
	free(w->slots);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->work);
	pthread_cond_destroy(&w->space);
	pthread_cond_destroy(&w->written);
}

void pieces_queue(struct archive_writer *w, struct filler *f, bool last)
{
	struct zentry *e = f->e;
	pthread_mutex_lock(&w->lock);
	if (slot(w, w->queued)->state != PIECE_FREE) {
		w->waits++;
		w->lighter_left = (uint64_t)LIGHTER_ROUNDS * w->nslots;
		uint64_t t0 = monotonic_ns();
		while (slot(w, w->queued)->state != PIECE_FREE)
			pthread_cond_wait(&w->space, &w->lock);
		w->wait_ns += monotonic_ns() - t0;
	}
	pthread_mutex_unlock(&w->lock);
	struct piece *p = slot(w, w->queued); /* ours until queued */
	uint8_t *in = p->in;
	p->in = f->in;
	p->len = f->len;
	f->in = in;
	f->len = 0;
	p->e = e;
	p->dict_len = e->method ? f->dict_len : 0;
	memcpy(p->dict, f->dict, p->dict_len);
	p->first = e->npieces++ == 0;
	p->last = last;
	if (e->method) { /* the next piece's dictionary: the entry's last 32 KiB */
		if (p->len >= DEFLATE_DICT_MAX) {
			memcpy(f->dict, p->in + p->len - DEFLATE_DICT_MAX, DEFLATE_DICT_MAX);
			f->dict_len = DEFLATE_DICT_MAX;
		} else {
			size_t keep = DEFLATE_DICT_MAX - p->len;
			if (keep > f->dict_len)
				keep = f->dict_len;
			memmove(f->dict, f->dict + f->dict_len - keep, keep);
			memcpy(f->dict + keep, p->in, p->len);
			f->dict_len = keep + p->len;
		}
	}
	pthread_mutex_lock(&w->lock);
	p->state = PIECE_QUEUED;
	w->queued++;
	w->in_total += p->len;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->lock);
}

void pieces_wait(struct archive_writer *w)
{
	struct progress *prog = NULL;
	uint64_t t0 = monotonic_ns();
	pthread_mutex_lock(&w->lock);
	while (w->next_write < w->queued) {
		struct timespec t;
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += 100 * 1000000L;
		if (t.tv_nsec >= 1000000000L) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&w->written, &w->lock, &t);
		if (!prog && monotonic_ns() - t0 > 500 * 1000000ULL)
			prog = progress_new("writing archive", 100);
		if (prog && w->in_total)
			progress_update(prog, w->in_written * 100 / w->in_total);
	}
	pthread_mutex_unlock(&w->lock);
	progress_free(prog);
}
