/* script: see script.h.  Numbers are formatted by hand into one buffer per sample: printf
 * would parse the same format string a hundred times per sample, and this is the inner
 * loop of post-processing.  The widths are perf 6.1's (builtin-script.c):
 * "%16s "/"%s " comm, "%5d/%-5d ", "[%03d] ", "%12s: " of "%lu.%06lu", "%10lu ",
 * "%*s: " event, "\t%16lx %s (%s)\n" per frame. */
#include "script.h"
#include "base/bytebuf.h"
#include "base/hash.h"
#include "base/log.h"
#include "perfview_text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Text is collected up to this much before it goes to the FILE. */
#define DRAIN_SIZE (256 * 1024)

/* Formatted frame lines, by (ip, symbol, dso): a trace repeats the same frames over and
 * over, and copying a line is several times cheaper than formatting it.  Direct-mapped; the
 * symbol and dso strings live as long as the symbolizer (symbols.h), so their addresses
 * name them.  The lines themselves sit in a ring of LINE_ARENA bytes: a line is good while
 * the ring has not come round over it, so the cache takes the same memory on any trace. */
#define LINE_CACHE_SIZE 32768
#define LINE_ARENA	(4u << 20)
#define LINE_MAX_LEN	4096 /* longer lines (huge C++ names) are not kept */

struct cached_line {
	uint64_t ip;
	const char *sym, *dso;
	uint64_t at; /* where in the ring's history the line starts; 0 = empty */
	uint32_t len;
};

struct script_writer {
	FILE *out;
	int name_width;
	struct bytebuf text; /* not yet handed to out */
	size_t drain_at;     /* text this long goes out */
	script_give_fn give; /* NULL: fwrite */
	void *give_arg;
	size_t piece;
	uint64_t bytes;
	bool failed;
	int err;
	struct cached_line *lines;
	char *arena;
	uint64_t arena_pos; /* bytes ever written to the ring, plus 1 (0 marks empty) */
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
	bytebuf_reserve(&w->text, DRAIN_SIZE + 8192);
	w->drain_at = DRAIN_SIZE;
	w->lines = xcalloc(LINE_CACHE_SIZE, sizeof(*w->lines));
	w->arena = xmalloc(LINE_ARENA);
	w->arena_pos = 1;
	return w;
}

void script_writer_free(struct script_writer *w)
{
	if (!w)
		return;
	free(w->lines);
	free(w->arena);
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

/* The text goes into a bytebuf, whose writers are inline: this is the inner loop. */
static void put_mem(struct script_writer *w, const char *s, size_t n)
{
	bytebuf_bytes(&w->text, s, n);
}

static void put_str(struct script_writer *w, const char *s)
{
	put_mem(w, s, strlen(s));
}

static void put_char(struct script_writer *w, char c)
{
	bytebuf_u8(&w->text, (uint8_t)c);
}

static void put_spaces(struct script_writer *w, size_t n)
{
	bytebuf_fill(&w->text, ' ', n);
}

/* s right-aligned in width columns ("%*s"). */
static void put_right(struct script_writer *w, const char *s, size_t n, size_t width)
{
	if (n < width)
		put_spaces(w, width - n);
	put_mem(w, s, n);
}

/* Digits of v in base 10 or 16 at the end of tmp; returns where they start. */
static char *digits(char *end, uint64_t v, unsigned base)
{
	static const char hex[] = "0123456789abcdef";
	char *p = end;
	if (base == 16) { /* most numbers are addresses: no division for them */
		do {
			*--p = hex[v & 15];
			v >>= 4;
		} while (v);
		return p;
	}
	do {
		*--p = hex[v % base];
		v /= base;
	} while (v);
	return p;
}

enum align { RIGHT, LEFT, ZERO };

static void put_num(struct script_writer *w, uint64_t v, bool negative, unsigned base, size_t width,
		    enum align align)
{
	char tmp[32];
	char *end = tmp + sizeof(tmp);
	char *p = digits(end, v, base);
	size_t ndig = end - p;
	size_t n = ndig + negative;
	if (align == ZERO) {
		if (negative)
			put_char(w, '-');
		if (n < width)
			bytebuf_fill(&w->text, '0', width - n);
		put_mem(w, p, ndig);
		return;
	}
	if (align == RIGHT && n < width)
		put_spaces(w, width - n);
	if (negative)
		put_char(w, '-');
	put_mem(w, p, ndig);
	if (align == LEFT && n < width)
		put_spaces(w, width - n);
}

static void put_int(struct script_writer *w, int64_t v, size_t width, enum align align)
{
	uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;
	put_num(w, mag, v < 0, 10, width, align);
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

static void format_header(struct script_writer *w, const struct script_sample *s)
{
	const char *comm = safe_comm(w, s->comm ? s->comm : ":-1", s->pid, s->tid);
	if (s->callchain) {
		put_str(w, comm);
		put_char(w, ' ');
	} else {
		put_right(w, comm, strlen(comm), 16);
		put_char(w, ' ');
	}
	put_int(w, s->pid, 5, RIGHT);
	put_char(w, '/');
	put_int(w, s->tid, 5, LEFT);
	put_char(w, ' ');
	if (s->has_cpu) {
		put_char(w, '[');
		put_int(w, (int32_t)s->cpu, 3, ZERO);
		put_mem(w, "] ", 2);
	}
	if (s->has_time) {
		/* "%12s: " of "%lu.%06lu": the seconds get the padding. */
		char tmp[32];
		char *end = tmp + sizeof(tmp);
		uint64_t usecs = s->time % 1000000000ULL / 1000;
		char *p = end;
		for (int i = 0; i < 6; i++, usecs /= 10)
			*--p = '0' + usecs % 10;
		*--p = '.';
		p = digits(p, s->time / 1000000000ULL, 10);
		put_right(w, p, end - p, 12);
		put_mem(w, ": ", 2);
	}
	put_num(w, s->period, false, 10, 10, RIGHT);
	put_char(w, ' ');
	const char *ev = s->event ? s->event : "[unknown]";
	put_right(w, ev, strlen(ev), w->name_width > 0 ? (size_t)w->name_width : 0);
	put_mem(w, ": ", 2);
	if (s->trace)
		put_str(w, s->trace);
}

static void format_frame_tail(struct script_writer *w, const struct frame *f)
{
	put_char(w, ' ');
	put_str(w, f->sym ? f->sym : "[unknown]");
	put_mem(w, " (", 2);
	const char *dso = f->dso ? f->dso : "[unknown]";
	put_mem(w, dso, perfview_dso_len(dso));
	put_char(w, ')');
}

/* One callchain line: from the cache, else formatted and kept. */
static void put_frame_line(struct script_writer *w, const struct frame *f)
{
	const char *sym = f->sym ? f->sym : "[unknown]";
	const char *dso = f->dso ? f->dso : "[unknown]";
	uint64_t h = hash_two(f->ip, (uintptr_t)sym ^ (uintptr_t)dso << 16);
	struct cached_line *c = &w->lines[h & (LINE_CACHE_SIZE - 1)];
	if (c->at && c->ip == f->ip && c->sym == sym && c->dso == dso &&
	    w->arena_pos - c->at <= LINE_ARENA - c->len) {
		put_mem(w, w->arena + (c->at - 1) % LINE_ARENA, c->len);
		return;
	}
	size_t start = w->text.len;
	put_char(w, '\t');
	put_num(w, f->ip, false, 16, 16, RIGHT);
	format_frame_tail(w, f);
	put_char(w, '\n');
	size_t n = w->text.len - start;
	if (n > LINE_MAX_LEN)
		return;
	/* a line does not wrap round the ring's end: skip to its start */
	size_t off = (w->arena_pos - 1) % LINE_ARENA;
	if (off + n > LINE_ARENA)
		w->arena_pos += LINE_ARENA - off, off = 0;
	memcpy(w->arena + off, w->text.data + start, n);
	c->at = w->arena_pos;
	c->len = (uint32_t)n;
	c->ip = f->ip;
	c->sym = sym;
	c->dso = dso;
	w->arena_pos += n;
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

/* Hands the accumulated text to the FILE in large pieces, which glibc writes straight
 * through without copying it into the stream's own buffer; or gives it away whole. */
static int drain(struct script_writer *w)
{
	if (!w->text.len || w->failed) {
		w->text.len = 0;
		return w->failed ? -1 : 0;
	}
	if (w->give && w->text.len <= w->piece &&
	    w->give(w->give_arg, &w->text.data, &w->text.cap, w->text.len) == 0) {
		w->bytes += w->text.len;
		w->text.len = 0;
		return 0;
	}
	size_t n = fwrite(w->text.data, 1, w->text.len, w->out);
	if (n != w->text.len) {
		w->err = errno;
		w->failed = true;
		w->text.len = 0;
		return pc_err("cannot write perf.data.txt: %s", strerror(w->err ? w->err : EIO));
	}
	w->bytes += n;
	w->text.len = 0;
	return 0;
}

int script_writer_sample(struct script_writer *w, const struct script_sample *s)
{
	if (w->failed)
		return pc_err("cannot write perf.data.txt: %s", strerror(w->err ? w->err : EIO));
	format_header(w, s);
	if (s->callchain) {
		put_char(w, '\n');
		for (size_t i = 0; i < s->nframes; i++)
			put_frame_line(w, &s->frames[i]);
	} else {
		put_char(w, ' ');
		put_num(w, s->ip, false, 16, 16, RIGHT);
		if (s->nframes)
			format_frame_tail(w, &s->frames[0]);
		else
			put_mem(w, " [unknown] ([unknown])", 22);
	}
	put_char(w, '\n');
	return w->text.len >= w->drain_at ? drain(w) : 0;
}

int script_writer_flush(struct script_writer *w)
{
	drain(w);
	if (fflush(w->out) != 0 && !w->failed) {
		w->failed = true;
		w->err = errno;
	}
	if (w->failed || ferror(w->out))
		return pc_err("cannot write perf.data.txt: %s", strerror(w->err ? w->err : EIO));
	return 0;
}
