/* perfdata_rewrite: see perfdata_rewrite.h. */
#include "perfdata_rewrite.h"
#include "perfdata_async.h"
#include "perfdata_write.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Records between FINISHED_ROUNDs: they arrive sorted, so any cut is a valid round; perf
 * queues one round at a time. */
#define ROUND_RECORDS 4096

/* The writer's queue (perfdata_async.h): zstd keeps up with the pass on another CPU; where it
 * does not, the pass waits for a buffer. */
#define REWRITE_QUEUE_BYTES (4u << 20)

struct perfdata_rewrite {
	struct perfdata_writer *out;
	struct perfdata_async *async; /* compressing and writing out on its thread, or NULL */
	char *path;
	bool finished;
	uint64_t in_round;
	uint8_t buf[UINT16_MAX + 1];
};

static bool stack_without_chain(const struct perf_event_attr *a)
{
	return (a->sample_type & (PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_USER)) &&
	       !(a->sample_type & PERF_SAMPLE_CALLCHAIN);
}

struct perfdata_rewrite *perfdata_rewrite_new(const char *path, const struct perfdata_reader *r,
					      int zstd_level)
{
	size_t nfeat = 0;
	for (int f = 0; f < HEADER_FEAT_BITS; f++) {
		size_t len;
		nfeat += perfdata_reader_feature_body(r, f, &len) != NULL;
	}
	if (!nfeat) {
		pc_err("%s: no feature sections to copy", path);
		return NULL;
	}
	size_t nev = perfdata_reader_nr_evsels(r);
	for (size_t i = 0; i < nev; i++)
		if (stack_without_chain(&perfdata_reader_evsel(r, i)->attr)) {
			pc_err("%s: event %s copies stacks without a callchain", path,
			       perfdata_reader_evsel(r, i)->name);
			return NULL;
		}
	struct perfdata_writer *out = perfdata_writer_new(path);
	if (!out)
		return NULL;
	struct perfdata_rewrite *w = xcalloc(1, sizeof(*w));
	w->out = out;
	w->path = xstrdup(path);
	for (size_t i = 0; i < nev; i++) {
		const struct perfdata_evsel *ev = perfdata_reader_evsel(r, i);
		struct perf_event_attr a = ev->attr;
		perfdata_attr_drop_user_stack(&a);
		perfdata_writer_add_attr(out, &a, ev->name, ev->ids, ev->nids);
	}
	for (int f = 0; f < HEADER_FEAT_BITS; f++) {
		size_t len;
		const void *body = perfdata_reader_feature_body(r, f, &len);
		if (body && f != HEADER_EVENT_DESC)
			perfdata_writer_copy_feature(out, f, body, len);
	}
	if (perfdata_writer_compress(out, zstd_level) < 0) {
		perfdata_rewrite_free(w);
		return NULL;
	}
	/* (without the thread, written on the caller's: the same file) */
	w->async = perfdata_async_start(out, REWRITE_QUEUE_BYTES, false);
	return w;
}

/* A record written: a round ends every ROUND_RECORDS. */
static int counted(struct perfdata_rewrite *w)
{
	if (++w->in_round < ROUND_RECORDS)
		return 0;
	w->in_round = 0;
	return w->async ? perfdata_async_finished_round(w->async)
			: perfdata_writer_finished_round(w->out);
}

static int put(struct perfdata_rewrite *w, const void *rec, size_t len)
{
	int rc = w->async ? perfdata_async_write(w->async, rec, len)
			  : perfdata_writer_write(w->out, rec, len);
	return rc < 0 ? -1 : counted(w);
}

/* User records the header or the compression already say (or the reader consumed). */
static bool said_elsewhere(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_HEADER_ATTR:
	case PERF_RECORD_HEADER_EVENT_TYPE:
	case PERF_RECORD_HEADER_TRACING_DATA:
	case PERF_RECORD_HEADER_BUILD_ID:
	case PERF_RECORD_FINISHED_ROUND:
	case PERF_RECORD_HEADER_FEATURE:
	case PERF_RECORD_COMPRESSED:
		return true;
	default:
		return false;
	}
}

int perfdata_rewrite_record(struct perfdata_rewrite *w, const struct perfdata_record *rec)
{
	const struct perf_event_header *h = rec->header;
	if (h->type == PERF_RECORD_SAMPLE)
		return perfdata_rewrite_sample(w, rec, rec->sample.callchain,
					       rec->sample.nr_callchain);
	if (said_elsewhere(h->type))
		return 0;
	return put(w, h, h->size);
}

int perfdata_rewrite_sample(struct perfdata_rewrite *w, const struct perfdata_record *rec,
			    const uint64_t *chain, size_t nchain)
{
	const struct perf_sample *s = &rec->sample;
	const struct perf_event_attr *a = s->evsel ? &s->evsel->attr : NULL;
	if (!a)
		return 0; /* the reader delivers none such; nothing to attribute it to */
	if (!(a->sample_type & PERF_SAMPLE_CALLCHAIN))
		return put(w, rec->header, rec->header->size); /* no stack copy (checked at _new) */
	/* built where the writer's thread takes it from, without a copy */
	uint8_t *out = w->async ? perfdata_async_reserve(w->async, sizeof(w->buf)) : w->buf;
	if (!out)
		return -1;
	size_t n = perfdata_sample_with_chain(a, rec->header, chain, nchain, out);
	if (!n) /* a chain too long for the record: the one it came with */
		n = perfdata_sample_with_chain(a, rec->header, s->callchain, s->nr_callchain, out);
	if (!n)
		return 0;
	if (!w->async)
		return put(w, out, n);
	return perfdata_async_commit(w->async, n) < 0 ? -1 : counted(w);
}

void perfdata_rewrite_stats(const struct perfdata_rewrite *w, uint64_t *records_bytes,
			    uint64_t *file_bytes)
{
	perfdata_writer_stats(w->out, records_bytes, file_bytes);
}

/* Everything queued written, the writer the caller's thread's again. */
static int stop_async(struct perfdata_rewrite *w)
{
	int rc = w->async ? perfdata_async_stop(w->async, NULL) : 0;
	w->async = NULL;
	return rc;
}

int perfdata_rewrite_finish(struct perfdata_rewrite *w)
{
	if (stop_async(w) < 0 || perfdata_writer_finish(w->out, NULL) < 0)
		return -1;
	w->finished = true;
	return 0;
}

void perfdata_rewrite_free(struct perfdata_rewrite *w)
{
	if (!w)
		return;
	stop_async(w);
	perfdata_writer_free(w->out);
	if (!w->finished)
		unlink(w->path);
	free(w->path);
	free(w);
}
