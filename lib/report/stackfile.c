/* stackfile: see stackfile.h. */
#include "stackfile.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static const char *skip_blanks(const char *p)
{
	while (is_blank(*p))
		p++;
	return p;
}

static void trim_right(char *s)
{
	size_t n = strlen(s);
	while (n && is_blank(s[n - 1]))
		s[--n] = '\0';
}

/* A decimal int (optionally negative), at most 10 digits; p advanced past it. */
static bool take_int(const char **pp, int *out)
{
	const char *p = *pp;
	bool neg = *p == '-';
	if (neg)
		p++;
	long long v = 0;
	int nd = 0;
	while (isdigit((unsigned char)*p) && nd < 11) {
		v = v * 10 + (*p++ - '0');
		nd++;
	}
	if (!nd || isdigit((unsigned char)*p) || v > 0x7fffffffLL)
		return false;
	*out = (int)(neg ? -v : v);
	*pp = p;
	return true;
}

/* The length of a token made of digits only, ending at a blank or the end of the line. */
static size_t digit_token(const char *p)
{
	size_t n = 0;
	while (isdigit((unsigned char)p[n]))
		n++;
	return n && (!p[n] || is_blank(p[n])) ? n : 0;
}

/* "351.772106:" (seconds.fraction, then a colon) */
static bool take_time(const char **pp, uint64_t *ns)
{
	const char *p = *pp;
	uint64_t sec = 0, frac = 0;
	int nd = 0, nf = 0;
	while (isdigit((unsigned char)*p)) {
		if (++nd > 10) /* keeps sec * 1e9 within 64 bits */
			return false;
		sec = sec * 10 + (uint64_t)(*p++ - '0');
	}
	if (!nd || *p++ != '.')
		return false;
	while (isdigit((unsigned char)*p)) {
		if (++nf <= 9)
			frac = frac * 10 + (uint64_t)(*p - '0');
		p++;
	}
	if (!nf || *p != ':' || (p[1] && !is_blank(p[1])))
		return false;
	for (int i = nf; i < 9; i++)
		frac *= 10;
	*ns = sec * 1000000000ULL + frac;
	*pp = p + 1;
	return true;
}

struct header_tail {
	int pid, tid, cpu;
	uint64_t time_ns, period;
	const char *event;
	size_t event_len; /* without its ':' */
	const char *trace;
};

/* Everything after the comm: "pid/tid [cpu] time: period event: trace".  Reads only.
 * pid/tid is the anchor that ends the comm, so both must be there. */
static bool parse_tail(const char *p, struct header_tail *t)
{
	if (!take_int(&p, &t->pid) || *p++ != '/' || !take_int(&p, &t->tid) || !is_blank(*p))
		return false;
	p = skip_blanks(p);
	t->cpu = -1;
	if (*p == '[') {
		p++;
		if (!take_int(&p, &t->cpu) || t->cpu < 0 || *p != ']' || !is_blank(p[1]))
			return false;
		p = skip_blanks(p + 1);
	}
	t->time_ns = 0;
	if (isdigit((unsigned char)*p) && take_time(&p, &t->time_ns))
		p = skip_blanks(p);
	t->period = 1;
	size_t n = digit_token(p);
	if (n && n <= 19) {
		t->period = strtoull(p, NULL, 10);
		p = skip_blanks(p + n);
	}
	/* The event: one word ending in ':' ("cpu-clock:", "sched:sched_switch:"). */
	const char *e = p;
	while (*p && !is_blank(*p))
		p++;
	if (p - e < 2 || p[-1] != ':')
		return false;
	t->event = e;
	t->event_len = (size_t)(p - e) - 1;
	t->trace = skip_blanks(p);
	return true;
}

int stackfile_parse_header(char *line, struct stack_sample *s)
{
	char *start = (char *)skip_blanks(line);
	if (!*start)
		return -1;
	/* The comm may contain spaces and digits: try each word that starts with a digit as the
	 * pid/tid and keep the first one after which the rest of the line parses. */
	struct header_tail t;
	char *p = start;
	bool found = false;
	for (; *p; p++) {
		if (p > start && !is_blank(p[-1]))
			continue;
		if (!(isdigit((unsigned char)*p) || (*p == '-' && isdigit((unsigned char)p[1]))))
			continue;
		if (parse_tail(p, &t)) {
			found = true;
			break;
		}
	}
	if (!found)
		return -1;
	/* Success: now cut the line into its strings. */
	char *comm_end = p;
	while (comm_end > start && is_blank(comm_end[-1]))
		comm_end--;
	*comm_end = '\0';
	char *event = (char *)t.event;
	event[t.event_len] = '\0';
	trim_right((char *)t.trace);
	s->comm = start;
	s->pid = t.pid;
	s->tid = t.tid;
	s->cpu = t.cpu;
	s->time_ns = t.time_ns;
	s->period = t.period;
	s->event = event;
	s->trace = t.trace;
	s->frames = NULL;
	s->nframes = 0;
	return 0;
}

int stackfile_parse_frame(char *line, struct stack_frame *fr)
{
	char *p = (char *)skip_blanks(line);
	uint64_t ip = 0;
	int nd = 0;
	while (isxdigit((unsigned char)*p)) {
		if (++nd > 16)
			return -1;
		int c = tolower((unsigned char)*p++);
		ip = ip << 4 | (uint64_t)(isdigit(c) ? c - '0' : c - 'a' + 10);
	}
	if (!nd || (*p && !is_blank(*p)))
		return -1;
	char *rest = (char *)skip_blanks(p);
	trim_right(rest);
	size_t n = strlen(rest);
	fr->ip = ip;
	fr->sym = rest;
	fr->dso = rest + n;
	if (!n || rest[n - 1] != ')')
		return 0;
	/* The dso is the last parenthesized group; the symbol may hold parentheses itself
	 * (C++ and .NET signatures), and the dso may too ("/x.so (deleted)"): match from the
	 * end, and fall back to the last " (" when the parentheses do not balance. */
	long open = -1;
	int depth = 0;
	for (long i = (long)n - 1; i >= 0; i--) {
		if (rest[i] == ')')
			depth++;
		else if (rest[i] == '(' && --depth == 0) {
			open = i;
			break;
		}
	}
	if (open > 0 && rest[open - 1] != ' ')
		open = -1;
	if (open < 0) {
		for (long i = (long)n - 2; i > 0; i--)
			if (rest[i] == '(' && rest[i - 1] == ' ') {
				open = i;
				break;
			}
		if (open < 0 && rest[0] == '(')
			open = 0;
	}
	if (open < 0)
		return 0;
	rest[n - 1] = '\0';
	fr->dso = rest + open + 1;
	rest[open] = '\0';
	trim_right(rest);
	return 0;
}

/* The sample being assembled: its header line and its frames' strings. */
struct reader {
	char *hdr;
	size_t hdr_cap;
	struct stack_sample s;
	bool in_sample;
	bool truncated;
	char *arena; /* "sym\0dso\0" per frame; offsets, since the arena moves when it grows */
	size_t arena_len, arena_cap;
	size_t *offs; /* two per frame */
	size_t offs_cap;
	size_t nframes;
	struct stack_frame *frames;
	size_t frames_cap;
	struct stackfile_stats st;
};

static size_t arena_add(struct reader *r, const char *s)
{
	size_t n = strlen(s) + 1, off = r->arena_len;
	grow_array((void **)&r->arena, &r->arena_cap, off + n, 1);
	memcpy(r->arena + off, s, n);
	r->arena_len += n;
	return off;
}

static void add_frame(struct reader *r, const struct stack_frame *fr)
{
	if (r->nframes >= STACKFILE_MAX_FRAMES) {
		r->truncated = true;
		return;
	}
	grow_array((void **)&r->offs, &r->offs_cap, 2 * (r->nframes + 1), sizeof(*r->offs));
	grow_array((void **)&r->frames, &r->frames_cap, r->nframes + 1, sizeof(*r->frames));
	r->frames[r->nframes].ip = fr->ip;
	r->offs[2 * r->nframes] = arena_add(r, fr->sym);
	r->offs[2 * r->nframes + 1] = arena_add(r, fr->dso);
	r->nframes++;
}

static int emit(struct reader *r, stackfile_cb cb, void *arg)
{
	r->in_sample = false;
	if (!r->nframes && *r->s.trace) {
		/* Without callchains perf prints the one frame on the header line: after the
		 * event name, or after a tracepoint's fields ("... next_prio=120  ffff8 sym
		 * (dso)"): the first " HEX " from which the rest reads as a frame. */
		char *copy = xstrdup(r->s.trace);
		struct stack_frame fr;
		if (!stackfile_parse_frame(copy, &fr) && *fr.sym) {
			add_frame(r, &fr);
			r->s.trace = "";
		} else if (copy[0] && copy[strlen(copy) - 1] == ')') {
			for (char *p = strchr(r->s.trace, ' '); p; p = strchr(p + 1, ' ')) {
				if (!isxdigit((unsigned char)p[1]) && p[1] != ' ')
					continue;
				free(copy);
				copy = xstrdup(p);
				if (stackfile_parse_frame(copy, &fr) || !*fr.sym || !*fr.dso)
					continue;
				add_frame(r, &fr);
				/* The fields alone stay: end the trace before the frame. */
				char *end = p;
				while (end > r->s.trace && end[-1] == ' ')
					end--;
				*end = 0;
				break;
			}
		}
		free(copy);
	}
	for (size_t i = 0; i < r->nframes; i++) {
		r->frames[i].sym = r->arena + r->offs[2 * i];
		r->frames[i].dso = r->arena + r->offs[2 * i + 1];
	}
	r->s.frames = r->frames;
	r->s.nframes = r->nframes;
	if (r->truncated)
		r->st.truncated_stacks++;
	r->st.samples++;
	r->nframes = 0;
	r->arena_len = 0;
	r->truncated = false;
	return cb(&r->s, arg);
}

static void note_bad(struct reader *r)
{
	if (!r->st.bad_lines++)
		r->st.first_bad_line = r->st.lines;
}

int stackfile_read(FILE *f, const char *name, stackfile_cb cb, void *arg,
		   struct stackfile_stats *stats)
{
	struct reader r = {0};
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;
	while (!rc && (len = getline(&line, &cap, f)) >= 0) {
		r.st.lines++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (!*skip_blanks(line)) {
			if (r.in_sample)
				rc = emit(&r, cb, arg);
			continue;
		}
		if (line[0] == '#' && !r.in_sample)
			continue;
		struct stack_frame fr;
		if (line[0] == '\t') {
			if (r.in_sample && !stackfile_parse_frame(line, &fr))
				add_frame(&r, &fr);
			else
				note_bad(&r);
			continue;
		}
		struct stack_sample s;
		if (stackfile_parse_header(line, &s)) {
			/* Other tools indent frames with spaces; perf right-aligns comms. */
			if (r.in_sample && line[0] == ' ' && !stackfile_parse_frame(line, &fr))
				add_frame(&r, &fr);
			else
				note_bad(&r);
			continue;
		}
		if (r.in_sample && (rc = emit(&r, cb, arg)))
			break;
		/* The header's strings point into `line`: keep that buffer for the sample. */
		char *tmp = r.hdr;
		size_t tcap = r.hdr_cap;
		r.hdr = line;
		r.hdr_cap = cap;
		line = tmp;
		cap = tcap;
		r.s = s;
		r.s.line = r.st.lines;
		r.in_sample = true;
	}
	if (!rc && ferror(f))
		rc = pc_err_errno("cannot read %s", name);
	else if (!rc && r.in_sample)
		rc = emit(&r, cb, arg);
	if (!rc && !r.st.samples && r.st.bad_lines)
		rc = pc_err("%s: line %llu: not perf script output (no sample header found)", name,
			    (unsigned long long)r.st.first_bad_line);
	if (stats)
		*stats = r.st;
	free(line);
	free(r.hdr);
	free(r.arena);
	free(r.offs);
	free(r.frames);
	return rc;
}
