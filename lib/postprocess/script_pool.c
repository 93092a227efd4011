/* script_pool: see script_pool.h.  A batch is a byte stream of packed samples: a fixed head,
 * the frames, then the process name and tracepoint text with their NULs, each sample padded
 * to 8 bytes so the next head is aligned; a worker reads it back in place. */
#include "script_pool.h"
#include "script_format.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_BATCH (256 * 1024)

struct packed_head {
	uint64_t time, period, ip;
	const char *event;
	int32_t pid, tid;
	uint32_t cpu;
	uint32_t nframes;
	uint32_t comm_len;
	uint32_t trace_len; /* UINT32_MAX: no tracepoint text */
	uint8_t has_cpu, has_time, callchain;
};

enum batch_state { BATCH_FREE, BATCH_FILLING, BATCH_QUEUED, BATCH_WORKING, BATCH_DONE };

struct batch {
	enum batch_state state;
	struct bytebuf in; /* packed samples */
	struct bytebuf *out;
	size_t nout, out_cap; /* text pieces, in order; nout used */
};

struct script_pool {
	pthread_mutex_t lock;
	pthread_cond_t work, done;
	bool stop;
	pthread_t *threads;
	struct script_format **fmt; /* one per worker */
	int nthreads;
	struct batch *ring;
	size_t nslots;
	uint64_t head, tail; /* batches ever begun and ever emitted: head <= tail */
	struct batch *filling;
	size_t piece, drain_at, batch_bytes;
	script_emit_fn emit;
	void *arg;
	bool failed;
};

struct worker_arg {
	struct script_pool *p;
	int index;
};

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* The batch's samples as text: pieces of about p->piece bytes. */
static void format_batch(struct script_pool *p, struct script_format *f, struct batch *b)
{
	size_t pos = 0;
	b->nout = 0;
	struct bytebuf *t = NULL;
	while (pos < b->in.len) {
		const struct packed_head *h = (const void *)(b->in.data + pos);
		const struct script_frame *frames = (const void *)(h + 1);
		const char *comm = (const char *)(frames + h->nframes);
		const char *trace = comm + h->comm_len + 1;
		struct script_sample s = {
		    .comm = comm,
		    .pid = h->pid,
		    .tid = h->tid,
		    .has_cpu = h->has_cpu,
		    .cpu = h->cpu,
		    .has_time = h->has_time,
		    .time = h->time,
		    .period = h->period,
		    .event = h->event,
		    .trace = h->trace_len == UINT32_MAX ? NULL : trace,
		    .callchain = h->callchain,
		    .ip = h->ip,
		    .packed = frames,
		    .nframes = h->nframes,
		};
		pos += pad8(sizeof(*h) + h->nframes * sizeof(*frames) + h->comm_len + 1 +
			    (h->trace_len == UINT32_MAX ? 0 : h->trace_len) + 1);
		if (!t || t->len >= p->drain_at) {
			if (b->nout == b->out_cap) {
				size_t had = b->out_cap;
				grow_array((void **)&b->out, &b->out_cap, b->nout + 1,
					   sizeof(*b->out));
				memset(b->out + had, 0, (b->out_cap - had) * sizeof(*b->out));
			}
			t = &b->out[b->nout++];
			t->len = 0;
			bytebuf_reserve(t, p->piece);
		}
		script_format_sample(f, t, &s);
	}
}

static void *worker(void *arg)
{
	struct worker_arg *wa = arg;
	struct script_pool *p = wa->p;
	struct script_format *f = p->fmt[wa->index];
	free(wa);
	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct batch *b = NULL;
		for (uint64_t i = p->head; i < p->tail && !b; i++)
			if (p->ring[i % p->nslots].state == BATCH_QUEUED)
				b = &p->ring[i % p->nslots];
		if (!b) {
			if (p->stop)
				break;
			pthread_cond_wait(&p->work, &p->lock);
			continue;
		}
		b->state = BATCH_WORKING;
		pthread_mutex_unlock(&p->lock);
		format_batch(p, f, b);
		pthread_mutex_lock(&p->lock);
		b->state = BATCH_DONE;
		pthread_cond_broadcast(&p->done);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct script_pool *script_pool_new(int workers, int name_width, size_t piece, size_t batch_bytes,
				    script_emit_fn emit, void *arg)
{
	struct script_pool *p = xcalloc(1, sizeof(*p));
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	p->piece = piece;
	p->drain_at = piece - piece / 16;
	p->batch_bytes = batch_bytes ? batch_bytes : DEFAULT_BATCH;
	p->emit = emit;
	p->arg = arg;
	/* every worker busy, one batch waiting for each, one being filled, one emitted */
	p->nslots = 2 * (size_t)workers + 2;
	p->ring = xcalloc(p->nslots, sizeof(*p->ring));
	p->threads = xcalloc(workers, sizeof(*p->threads));
	p->fmt = xcalloc(workers, sizeof(*p->fmt));
	for (int i = 0; i < workers; i++) {
		struct worker_arg *wa = xmalloc(sizeof(*wa));
		*wa = (struct worker_arg){p, i};
		p->fmt[i] = script_format_new(name_width);
		if (thread_start_nosignals(&p->threads[i], worker, wa) != 0) {
			script_format_free(p->fmt[i]);
			p->fmt[i] = NULL;
			free(wa);
			break;
		}
		p->nthreads++;
	}
	if (!p->nthreads) {
		script_pool_free(p);
		return NULL;
	}
	return p;
}

int script_pool_threads(const struct script_pool *p)
{
	return p->nthreads;
}

/* Hands the oldest batch's text to emit() once it is formatted; waits for it if `wait`.
 * Returns whether a batch was emitted. */
static bool emit_head(struct script_pool *p, bool wait)
{
	pthread_mutex_lock(&p->lock);
	struct batch *b = p->head < p->tail ? &p->ring[p->head % p->nslots] : NULL;
	while (b && wait && b->state != BATCH_DONE)
		pthread_cond_wait(&p->done, &p->lock);
	bool done = b && b->state == BATCH_DONE;
	pthread_mutex_unlock(&p->lock);
	if (!done)
		return false;
	for (size_t i = 0; i < b->nout; i++)
		if (p->emit(p->arg, &b->out[i]) < 0)
			p->failed = true;
	b->in.len = 0;
	pthread_mutex_lock(&p->lock);
	b->state = BATCH_FREE;
	p->head++;
	pthread_mutex_unlock(&p->lock);
	return true;
}

static void submit(struct script_pool *p)
{
	pthread_mutex_lock(&p->lock);
	p->filling->state = BATCH_QUEUED;
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->lock);
	p->filling = NULL;
}

int script_pool_add(struct script_pool *p, const struct script_sample *s)
{
	if (!p->filling) {
		if (p->tail - p->head == p->nslots)
			emit_head(p, true);
		struct batch *b = &p->ring[p->tail % p->nslots];
		pthread_mutex_lock(&p->lock);
		b->state = BATCH_FILLING;
		p->tail++;
		pthread_mutex_unlock(&p->lock);
		b->in.len = 0;
		p->filling = b;
	}
	size_t comm_len = strlen(s->comm);
	size_t trace_len = s->trace ? strlen(s->trace) : 0; /* (of one record: < 64 KiB) */
	struct packed_head h = {
	    .time = s->time,
	    .period = s->period,
	    .ip = s->ip,
	    .event = s->event,
	    .pid = s->pid,
	    .tid = s->tid,
	    .cpu = s->cpu,
	    .nframes = (uint32_t)s->nframes,
	    .comm_len = (uint32_t)comm_len,
	    .trace_len = s->trace ? (uint32_t)trace_len : UINT32_MAX,
	    .has_cpu = s->has_cpu,
	    .has_time = s->has_time,
	    .callchain = s->callchain,
	};
	struct bytebuf *in = &p->filling->in;
	size_t start = in->len;
	size_t size = pad8(sizeof(h) + s->nframes * sizeof(struct script_frame) + comm_len + 1 +
			   trace_len + 1);
	bytebuf_reserve(in, size);
	bytebuf_bytes(in, &h, sizeof(h));
	struct script_frame *f = (void *)(in->data + in->len);
	for (size_t i = 0; i < s->nframes; i++) {
		if (s->packed) {
			f[i] = s->packed[i];
		} else {
			f[i].ip = s->frames[i].ip;
			f[i].sym = s->frames[i].sym;
			f[i].dso = s->frames[i].dso;
		}
	}
	in->len += s->nframes * sizeof(*f);
	bytebuf_bytes(in, s->comm, comm_len);
	bytebuf_u8(in, 0);
	bytebuf_bytes(in, s->trace, trace_len);
	bytebuf_u8(in, 0);
	in->len = start + size; /* the padding */
	if (in->len >= p->batch_bytes) {
		submit(p);
		while (emit_head(p, false))
			;
	}
	return p->failed ? -1 : 0;
}

int script_pool_finish(struct script_pool *p)
{
	if (p->filling)
		submit(p);
	while (emit_head(p, true))
		;
	return p->failed ? -1 : 0;
}

void script_pool_free(struct script_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	for (int i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	for (int i = 0; i < p->nthreads; i++)
		script_format_free(p->fmt[i]);
	for (size_t i = 0; i < p->nslots; i++) {
		bytebuf_free(&p->ring[i].in);
		for (size_t k = 0; k < p->ring[i].out_cap; k++)
			bytebuf_free(&p->ring[i].out[k]);
		free(p->ring[i].out);
	}
	free(p->ring);
	free(p->fmt);
	free(p->threads);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
