/* script_format: see script_format.h.  Numbers are formatted by hand: printf would parse the
 * same format string a hundred times per sample, and this is the inner loop of
 * post-processing.  The widths are perf 6.1's (builtin-script.c): "%16s "/"%s " comm,
 * "%5d/%-5d ", "[%03d] ", "%12s: " of "%lu.%06lu", "%10lu ", "%*s: " event,
 * "\t%16lx %s (%s)\n" per frame. */
#include "script_format.h"
#include "base/hash.h"
#include "perfview_text.h"

#include <stdlib.h>
#include <string.h>

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

struct script_format {
	size_t name_width;
	struct cached_line *lines;
	char *arena;
	uint64_t arena_pos; /* bytes ever written to the ring, plus 1 (0 marks empty) */
};

struct script_format *script_format_new(int name_width)
{
	struct script_format *f = xcalloc(1, sizeof(*f));
	f->name_width = name_width > 0 ? (size_t)name_width : 0;
	f->lines = xcalloc(LINE_CACHE_SIZE, sizeof(*f->lines));
	f->arena = xmalloc(LINE_ARENA);
	f->arena_pos = 1;
	return f;
}

void script_format_free(struct script_format *f)
{
	if (!f)
		return;
	free(f->lines);
	free(f->arena);
	free(f);
}

/* The text goes into a bytebuf, whose writers are inline: this is the inner loop. */
static void put_str(struct bytebuf *b, const char *s)
{
	bytebuf_bytes(b, s, strlen(s));
}

static void put_char(struct bytebuf *b, char c)
{
	bytebuf_u8(b, (uint8_t)c);
}

/* s right-aligned in width columns ("%*s"). */
static void put_right(struct bytebuf *b, const char *s, size_t n, size_t width)
{
	if (n < width)
		bytebuf_fill(b, ' ', width - n);
	bytebuf_bytes(b, s, n);
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

static void put_num(struct bytebuf *b, uint64_t v, bool negative, unsigned base, size_t width,
		    enum align align)
{
	char tmp[32];
	char *end = tmp + sizeof(tmp);
	char *p = digits(end, v, base);
	size_t ndig = end - p;
	size_t n = ndig + negative;
	if (align == ZERO) {
		if (negative)
			put_char(b, '-');
		if (n < width)
			bytebuf_fill(b, '0', width - n);
		bytebuf_bytes(b, p, ndig);
		return;
	}
	if (align == RIGHT && n < width)
		bytebuf_fill(b, ' ', width - n);
	if (negative)
		put_char(b, '-');
	bytebuf_bytes(b, p, ndig);
	if (align == LEFT && n < width)
		bytebuf_fill(b, ' ', width - n);
}

static void put_int(struct bytebuf *b, int64_t v, size_t width, enum align align)
{
	uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;
	put_num(b, mag, v < 0, 10, width, align);
}

static void format_header(struct script_format *f, struct bytebuf *b, const struct script_sample *s)
{
	const char *comm = s->comm ? s->comm : ":-1";
	if (s->callchain) {
		put_str(b, comm);
		put_char(b, ' ');
	} else {
		put_right(b, comm, strlen(comm), 16);
		put_char(b, ' ');
	}
	put_int(b, s->pid, 5, RIGHT);
	put_char(b, '/');
	put_int(b, s->tid, 5, LEFT);
	put_char(b, ' ');
	if (s->has_cpu) {
		put_char(b, '[');
		put_int(b, (int32_t)s->cpu, 3, ZERO);
		bytebuf_bytes(b, "] ", 2);
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
		put_right(b, p, end - p, 12);
		bytebuf_bytes(b, ": ", 2);
	}
	put_num(b, s->period, false, 10, 10, RIGHT);
	put_char(b, ' ');
	const char *ev = s->event ? s->event : "[unknown]";
	put_right(b, ev, strlen(ev), f->name_width);
	bytebuf_bytes(b, ": ", 2);
	if (s->trace)
		put_str(b, s->trace);
}

static void format_frame_tail(struct bytebuf *b, const char *sym, const char *dso)
{
	put_char(b, ' ');
	put_str(b, sym);
	bytebuf_bytes(b, " (", 2);
	bytebuf_bytes(b, dso, perfview_dso_len(dso));
	put_char(b, ')');
}

/* One callchain line: from the cache, else formatted and kept. */
static void put_frame_line(struct script_format *f, struct bytebuf *b, uint64_t ip, const char *sym,
			   const char *dso)
{
	uint64_t h = hash_two(ip, (uintptr_t)sym ^ (uintptr_t)dso << 16);
	struct cached_line *c = &f->lines[h & (LINE_CACHE_SIZE - 1)];
	if (c->at && c->ip == ip && c->sym == sym && c->dso == dso &&
	    f->arena_pos - c->at <= LINE_ARENA - c->len) {
		bytebuf_bytes(b, f->arena + (c->at - 1) % LINE_ARENA, c->len);
		return;
	}
	size_t start = b->len;
	put_char(b, '\t');
	put_num(b, ip, false, 16, 16, RIGHT);
	format_frame_tail(b, sym, dso);
	put_char(b, '\n');
	size_t n = b->len - start;
	if (n > LINE_MAX_LEN)
		return;
	/* a line does not wrap round the ring's end: skip to its start */
	size_t off = (f->arena_pos - 1) % LINE_ARENA;
	if (off + n > LINE_ARENA)
		f->arena_pos += LINE_ARENA - off, off = 0;
	memcpy(f->arena + off, b->data + start, n);
	c->at = f->arena_pos;
	c->len = (uint32_t)n;
	c->ip = ip;
	c->sym = sym;
	c->dso = dso;
	f->arena_pos += n;
}

/* Frame i of the sample, whichever way it came (script.h). */
static void frame_at(const struct script_sample *s, size_t i, uint64_t *ip, const char **sym,
		     const char **dso)
{
	if (s->packed) {
		*ip = s->packed[i].ip;
		*sym = s->packed[i].sym;
		*dso = s->packed[i].dso;
	} else {
		*ip = s->frames[i].ip;
		*sym = s->frames[i].sym;
		*dso = s->frames[i].dso;
	}
	if (!*sym)
		*sym = "[unknown]";
	if (!*dso)
		*dso = "[unknown]";
}

void script_format_sample(struct script_format *f, struct bytebuf *b, const struct script_sample *s)
{
	uint64_t ip;
	const char *sym, *dso;
	format_header(f, b, s);
	if (s->callchain) {
		put_char(b, '\n');
		for (size_t i = 0; i < s->nframes; i++) {
			frame_at(s, i, &ip, &sym, &dso);
			put_frame_line(f, b, ip, sym, dso);
		}
	} else {
		put_char(b, ' ');
		put_num(b, s->ip, false, 16, 16, RIGHT);
		if (s->nframes) {
			frame_at(s, 0, &ip, &sym, &dso);
			format_frame_tail(b, sym, dso);
		} else {
			bytebuf_bytes(b, " [unknown] ([unknown])", 22);
		}
	}
	put_char(b, '\n');
}
