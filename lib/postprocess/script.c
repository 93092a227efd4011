/* script: see script.h.  The writer's jobs: the process names PerfView would misread
 * (renamed once, logged once, on the caller's thread), where the text goes (the FILE or
 * give()), and whether it is formatted here (script_format.h) or on workers (script_pool.h). */
#include "script.h"
#include "base/bytebuf.h"
#include "base/log.h"
#include "perfview_text.h"
#include "script_format.h"
#include "script_pool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Text is collected up to this much before it goes to the FILE. */
#define DRAIN_SIZE (256 * 1024)

struct script_writer {
	FILE *out;
	int name_width;
	struct script_format *fmt;
	struct script_pool *pool; /* NULL: formatted here, into text */
	struct bytebuf text;	  /* not yet handed to out */
	size_t drain_at;	  /* text this long goes out */
	script_give_fn give;	  /* NULL: fwrite */
	void *give_arg;
	size_t piece;
	uint64_t bytes;
	bool failed;
	int err;
	/* Process names written otherwise for PerfView (perfview_text.h): each logged once. */
	struct {
		char *from, *to;
	} * renames;
	size_t nrenames, renames_cap;
};

struct script_writer *script_writer_new(FILE *out, int name_width)
{
	struct script_writer *w = xcalloc(1, sizeof(*w));
	w->out = out;
	w->name_width = name_width;
	w->fmt = script_format_new(name_width);
	bytebuf_reserve(&w->text, DRAIN_SIZE + 8192);
	w->drain_at = DRAIN_SIZE;
	return w;
}

void script_writer_free(struct script_writer *w)
{
	if (!w)
		return;
	script_pool_free(w->pool);
	script_format_free(w->fmt);
	for (size_t i = 0; i < w->nrenames; i++) {
		free(w->renames[i].from);
		free(w->renames[i].to);
	}
	free(w->renames);
	bytebuf_free(&w->text);
	free(w);
}

uint64_t script_writer_bytes(const struct script_writer *w)
{
	return w->bytes + w->text.len;
}

/* comm as PerfView reads it back (perfview_text.h); a renamed one is logged once. */
static const char *safe_comm(struct script_writer *w, const char *comm, int pid, int tid)
{
	if (perfview_comm_ok(comm, pid, tid))
		return comm;
	for (size_t i = 0; i < w->nrenames; i++)
		if (!strcmp(w->renames[i].from, comm))
			return w->renames[i].to;
	bool renamed;
	char *to = perfview_comm(comm, pid, tid, &renamed);
	grow_array((void **)&w->renames, &w->renames_cap, w->nrenames + 1, sizeof(*w->renames));
	w->renames[w->nrenames].from = xstrdup(comm);
	w->renames[w->nrenames].to = to;
	w->nrenames++;
	log_info("perf.data.txt: process name '%s' (pid %d) is written '%s': PerfView's reader "
		 "would take its ' N/N' or ' N [' for the pid and cpu and fail",
		 comm, pid, to);
	return to;
}

void script_writer_give_to(struct script_writer *w, script_give_fn give, void *arg, size_t piece)
{
	w->give = give;
	w->give_arg = arg;
	w->piece = piece;
	/* a buffer of a whole piece, handed over once nearly full (a sample that overflows
	 * it is written the usual way) */
	if (w->text.len < piece)
		bytebuf_reserve(&w->text, piece - w->text.len);
	w->drain_at = piece - piece / 16;
}

/* Hands text to the FILE in large pieces, which glibc writes straight through without
 * copying it into the stream's own buffer; or gives it away whole.  Leaves t empty. */
static int drain_text(struct script_writer *w, struct bytebuf *t)
{
	if (!t->len || w->failed) {
		t->len = 0;
		return w->failed ? -1 : 0;
	}
	if (w->give && t->len <= w->piece && w->give(w->give_arg, &t->data, &t->cap, t->len) == 0) {
		w->bytes += t->len;
		t->len = 0;
		return 0;
	}
	size_t n = fwrite(t->data, 1, t->len, w->out);
	if (n != t->len) {
		w->err = errno;
		w->failed = true;
		t->len = 0;
		return pc_err("cannot write perf.data.txt: %s", strerror(w->err ? w->err : EIO));
	}
	w->bytes += n;
	t->len = 0;
	return 0;
}

static int emit_text(void *arg, struct bytebuf *t)
{
	return drain_text(arg, t);
}

int script_writer_parallel(struct script_writer *w, int workers, size_t batch_bytes)
{
	if (workers > 0 && !w->pool)
		w->pool = script_pool_new(workers, w->name_width, w->give ? w->piece : DRAIN_SIZE,
					  batch_bytes, emit_text, w);
	return w->pool ? script_pool_threads(w->pool) : 0;
}

int script_writer_sample(struct script_writer *w, const struct script_sample *s)
{
	if (w->failed)
		return pc_err("cannot write perf.data.txt: %s", strerror(w->err ? w->err : EIO));
	struct script_sample safe = *s;
	safe.comm = safe_comm(w, s->comm ? s->comm : ":-1", s->pid, s->tid);
	if (w->pool)
		return script_pool_add(w->pool, &safe);
	script_format_sample(w->fmt, &w->text, &safe);
	return w->text.len >= w->drain_at ? drain_text(w, &w->text) : 0;
}

int script_writer_flush(struct script_writer *w)
{
	if (w->pool)
		script_pool_finish(w->pool);
	drain_text(w, &w->text);
	if (fflush(w->out) != 0 && !w->failed) {
		w->failed = true;
		w->err = errno;
	}
	if (w->failed || ferror(w->out))
		return pc_err("cannot write perf.data.txt: %s", strerror(w->err ? w->err : EIO));
	return 0;
}
