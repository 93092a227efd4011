/* tracing_data: see tracing_data.h.  The blob layout is perf's "tracing data" (version 0.6):
 *   "\027\010\104tracing" "0.6\0" endian(u8) long_size(u8) page_size(u32)
 *   "header_page\0" u64 size, bytes   "header_event\0" u64 size, bytes
 *   u32 nr ftrace formats { u64 size, bytes }
 *   u32 nr systems { "sys\0" u32 nr { u64 size, bytes } }
 *   u32 kallsyms size, bytes   u32 printk_formats size, bytes   u64 saved_cmdlines size, bytes
 * with the sizes in the byte order the endian byte gives.
 */
#include "tracing_data.h"
#include "tracefs.h"
#include "base/span.h"

#include <byteswap.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char tracing_data_magic[10] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};

/* A kernel format is a few KiB; the longest print fmts (symbol tables) some tens. */
#define MAX_FORMAT_LEN (256u << 10)
/* A tracepoint record lives in one ring-buffer page. */
#define MAX_RECORD_SIZE 65536

struct cursor {
	struct span s;
	bool big; /* sizes are big-endian */
};

/* A size of 4 or 8 bytes. */
static uint64_t take_size(struct cursor *c, int width)
{
	if (width == 4) {
		uint32_t v = span_u32(&c->s);
		return c->big ? bswap_32(v) : v;
	}
	uint64_t v = span_u64(&c->s);
	return c->big ? bswap_64(v) : v;
}

/* A size of 4 or 8 bytes, then that many bytes. */
static bool take_sized(struct cursor *c, int width, const char **data, size_t *len)
{
	uint64_t n = take_size(c, width);
	*data = (const char *)span_take(&c->s, n);
	*len = (size_t)n;
	return *data != NULL;
}

static bool take_u32(struct cursor *c, uint32_t *v)
{
	*v = (uint32_t)take_size(c, 4);
	return !c->s.bad;
}

static const char *take_str(struct cursor *c)
{
	return span_cstr(&c->s);
}

/* Text libtraceevent can take: printable ASCII, tabs and newlines, no NUL. */
static bool is_text(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		if ((ch < 0x20 || ch > 0x7e) && ch != '\t' && ch != '\n')
			return false;
	}
	return true;
}

static bool is_ident_char(char c)
{
	return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z');
}

static bool is_ident(const char *s, size_t len)
{
	if (len == 0 || len >= sizeof(((struct tracing_format *)0)->name))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!is_ident_char(s[i]))
			return false;
	return true;
}

/* A line of a format: [p, nl) where nl is the newline or the end. */
struct line {
	const char *p, *end;
};

static bool next_line(const char **at, const char *end, struct line *l)
{
	if (*at >= end)
		return false;
	l->p = *at;
	const char *nl = memchr(*at, '\n', end - *at);
	l->end = nl ? nl : end;
	*at = nl ? nl + 1 : end;
	return true;
}

/* Skips prefix at l->p; false when the line does not start with it. */
static bool skip(struct line *l, const char *prefix)
{
	size_t n = strlen(prefix);
	if ((size_t)(l->end - l->p) < n || memcmp(l->p, prefix, n))
		return false;
	l->p += n;
	return true;
}

/* 1 to 5 decimal digits, at most max. */
static bool number(struct line *l, unsigned max, unsigned *v)
{
	unsigned n = 0, digits = 0;
	while (l->p < l->end && *l->p >= '0' && *l->p <= '9' && digits < 6) {
		n = n * 10 + (unsigned)(*l->p++ - '0');
		digits++;
	}
	*v = n;
	return digits >= 1 && digits <= 5 && n <= max;
}

/* The field names a format declares, for its print fmt's REC->name references. */
struct names {
	const char *v[256];
	size_t len[256];
	size_t n;
};

/* "\tfield:DECL;\toffset:N;\tsize:N;" and, in kernels since 2.6.32, "\tsigned:0|1;".  The
 * header page writes "field: " with a space.  DECL's last identifier (before any [N]) is the
 * field's name. */
static bool field_line(struct line l, struct names *names)
{
	unsigned offset, size, sign;
	if (!skip(&l, "\tfield:"))
		return false;
	const char *semi = memchr(l.p, ';', l.end - l.p);
	if (!semi || semi == l.p)
		return false;
	const char *e = semi;
	if (e[-1] == ']') {
		while (e > l.p && *e != '[')
			e--;
	}
	const char *b = e;
	while (b > l.p && is_ident_char(b[-1]))
		b--;
	if (b == e)
		return false;
	if (names->n < ARRAY_SIZE(names->v)) {
		names->v[names->n] = b;
		names->len[names->n++] = e - b;
	}
	l.p = semi + 1;
	if (!skip(&l, "\toffset:") || !number(&l, MAX_RECORD_SIZE, &offset) || !skip(&l, ";") ||
	    !skip(&l, "\tsize:") || !number(&l, MAX_RECORD_SIZE, &size) || !skip(&l, ";") ||
	    offset + size > MAX_RECORD_SIZE)
		return false;
	if (l.p < l.end && (!skip(&l, "\tsigned:") || !number(&l, 1, &sign) || !skip(&l, ";")))
		return false;
	return l.p == l.end;
}

static bool declared(const struct names *names, const char *p, size_t len)
{
	for (size_t i = 0; i < names->n; i++)
		if (names->len[i] == len && !memcmp(names->v[i], p, len))
			return true;
	return false;
}

/* "print fmt: "...", args": the string closed, parentheses and brackets balanced, and every
 * REC->name a declared field (libtraceevent dereferences NULL on others). */
static bool print_fmt_line(struct line l, const struct names *names)
{
	if (!skip(&l, "print fmt: \""))
		return false;
	bool in_str = true;
	int depth = 0;
	for (const char *p = l.p; p < l.end; p++) {
		if (in_str) {
			if (*p == '\\') {
				if (++p == l.end)
					return false;
			} else if (*p == '"') {
				in_str = false;
			}
		} else if (*p == '"') {
			in_str = true;
		} else if (*p == '(' || *p == '[' || *p == '{') {
			depth++;
		} else if (*p == ')' || *p == ']' || *p == '}') {
			if (--depth < 0)
				return false;
		} else if (*p == 'R' && l.end - p > 5 && !memcmp(p, "REC->", 5) &&
			   (p == l.p || !is_ident_char(p[-1]))) {
			const char *name = p + 5, *e = name;
			while (e < l.end && is_ident_char(*e))
				e++;
			if (!declared(names, name, e - name))
				return false;
			p = e - 1;
		}
	}
	return !in_str && depth == 0;
}

/* The kernel's shape of an event format; its name into f->name.  NULL when it has it,
 * else what is wrong. */
static const char *check_format(struct tracing_format *f)
{
	if (f->len > MAX_FORMAT_LEN)
		return "too long";
	if (!is_text(f->text, f->len))
		return "not text";
	const char *at = f->text, *end = f->text + f->len;
	struct line l;
	unsigned id;
	if (!next_line(&at, end, &l) || !skip(&l, "name: ") || !is_ident(l.p, l.end - l.p))
		return "no \"name:\" line";
	memcpy(f->name, l.p, l.end - l.p);
	f->name[l.end - l.p] = 0;
	if (!next_line(&at, end, &l) || !skip(&l, "ID: ") || !number(&l, 65535, &id) ||
	    l.p != l.end)
		return "no \"ID:\" line";
	if (!next_line(&at, end, &l) || !skip(&l, "format:") || l.p != l.end)
		return "no \"format:\" line";
	struct names names = {.n = 0};
	for (;;) {
		if (!next_line(&at, end, &l))
			return "no \"print fmt:\" line";
		if (l.p == l.end)
			continue;
		if (field_line(l, &names))
			continue;
		if (!print_fmt_line(l, &names))
			return "a malformed field or \"print fmt:\" line";
		break;
	}
	if (!names.n)
		return "no fields";
	if (at != end)
		return "text after \"print fmt:\"";
	return NULL;
}

/* Lines libtraceevent's line parsers take without reading past them. */
static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static size_t span(const char *p, const char *end, bool (*ok)(char))
{
	size_t n = 0;
	while (p + n < end && ok(p[n]))
		n++;
	return n;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_word(char c)
{
	return c > ' ' && c <= '~';
}

/* "ADDR TYPE NAME" or "ADDR TYPE NAME\t[MODULE]" (tep_parse_kallsyms) */
static bool kallsyms_line(const char *p, const char *end)
{
	size_t n = span(p, end, is_hex);
	if (n < 1 || n > 16 || end - p < (ptrdiff_t)n + 4 || p[n] != ' ' || !is_word(p[n + 1]) ||
	    p[n + 2] != ' ')
		return false;
	p += n + 3;
	p += n = span(p, end, is_word);
	if (!n)
		return false;
	if (p == end)
		return true;
	if (end - p < 4 || p[0] != '\t' || p[1] != '[' || end[-1] != ']')
		return false;
	return span(p + 2, end, is_word) == (size_t)(end - p - 2);
}

/* "0xADDR : "format"" (tep_parse_printk_formats): it skips one character after the colon
 * and tep_register_print_string() looks three back from the end of what follows (after a
 * leading quote): five characters at least. */
static bool printk_line(const char *p, const char *end)
{
	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	size_t n = span(p, end, is_hex);
	if (n < 1 || n > 16)
		return false;
	p += n;
	while (p < end && *p == ' ')
		p++;
	return p < end && *p == ':' && end - p > 5;
}

/* "PID COMM" (tep_parse_saved_cmdlines) */
static bool cmdline_line(const char *p, const char *end)
{
	size_t n = span(p, end, is_digit);
	return n >= 1 && n <= 7 && end - p > (ptrdiff_t)n + 1 && p[n] == ' ';
}

/* A NUL-terminated copy of the lines of [p, p+len) that ok() accepts; NULL when none. */
static char *keep_lines(const char *p, size_t len, bool (*ok)(const char *, const char *),
			size_t *bad)
{
	char *out = xmalloc(len + 2), *o = out; /* a newline may be added to the last line */
	const char *at = p, *end = p + len;
	struct line l;
	while (next_line(&at, end, &l)) {
		if (l.p == l.end)
			continue;
		if (!is_text(l.p, l.end - l.p) || !ok(l.p, l.end)) {
			(*bad)++;
			continue;
		}
		memcpy(o, l.p, l.end - l.p);
		o += l.end - l.p;
		*o++ = '\n';
	}
	*o = 0;
	if (o == out) {
		free(out);
		return NULL;
	}
	return out;
}

static void add_format(struct tracing_data *td, const char *system, const char *text, size_t len,
		       size_t *cap)
{
	struct tracing_format f = {.system = system, .text = text, .len = len};
	const char *why = check_format(&f);
	if (why) {
		if (!td->nr_bad_formats++)
			snprintf(td->first_bad, sizeof(td->first_bad), "%s:%s: %s", system,
				 f.name[0] ? f.name : "?", why);
		return;
	}
	grow_array((void **)&td->formats, cap, td->nr_formats + 1, sizeof(*td->formats));
	td->formats[td->nr_formats++] = f;
}

int tracing_data_parse(const void *blob, size_t size, struct tracing_data *td)
{
	memset(td, 0, sizeof(*td));
	struct cursor c = {span_of(blob, size), false};
	const uint8_t *magic = span_take(&c.s, sizeof(tracing_data_magic));
	if (!magic || memcmp(magic, tracing_data_magic, sizeof(tracing_data_magic)))
		return pc_err("tracing data: bad magic");
	const char *version = take_str(&c);
	uint8_t endian = span_u8(&c.s), long_size = span_u8(&c.s);
	if (c.s.bad)
		return pc_err("tracing data: truncated header");
	size_t vlen = strlen(version);
	if (vlen == 0 || vlen >= sizeof(td->version) || strspn(version, "0123456789.") != vlen)
		return pc_err("tracing data: bad version");
	if (endian > 1 || (long_size != 4 && long_size != 8))
		return pc_err("tracing data: bad byte order or long size");
	c.big = endian;
	if (!take_u32(&c, &td->page_size) || td->page_size < 1024 || td->page_size > (1u << 30) ||
	    (td->page_size & (td->page_size - 1)))
		return pc_err("tracing data: bad page size");
	memcpy(td->version, version, vlen + 1);
	td->big_endian = endian;
	td->long_size = long_size;

	const char *label, *data;
	size_t len, cap = 0;
	uint32_t count, nsys;
	if (!(label = take_str(&c)) || strcmp(label, "header_page") ||
	    !take_sized(&c, 8, &td->header_page, &td->header_page_len) || !(label = take_str(&c)) ||
	    strcmp(label, "header_event") ||
	    !take_sized(&c, 8, &td->header_event, &td->header_event_len))
		goto bad;
	if (!is_text(td->header_page, td->header_page_len) ||
	    !is_text(td->header_event, td->header_event_len)) {
		tracing_data_release(td);
		return pc_err("tracing data: the header page or event description is not text");
	}
	if (!take_u32(&c, &count))
		goto bad;
	for (uint32_t i = 0; i < count; i++) {
		if (!take_sized(&c, 8, &data, &len))
			goto bad;
		add_format(td, "ftrace", data, len, &cap);
	}
	if (!take_u32(&c, &nsys))
		goto bad;
	for (uint32_t s = 0; s < nsys; s++) {
		const char *sys = take_str(&c);
		if (!sys || !take_u32(&c, &count))
			goto bad;
		if (!is_ident(sys, strlen(sys))) {
			tracing_data_release(td);
			return pc_err("tracing data: bad system name");
		}
		for (uint32_t i = 0; i < count; i++) {
			if (!take_sized(&c, 8, &data, &len))
				goto bad;
			add_format(td, sys, data, len, &cap);
		}
	}
	/* The rest is optional: files from older perf may end here. */
	if (take_sized(&c, 4, &data, &len))
		td->kallsyms = keep_lines(data, len, kallsyms_line, &td->nr_bad_lines);
	if (take_sized(&c, 4, &data, &len))
		td->printk_formats = keep_lines(data, len, printk_line, &td->nr_bad_lines);
	if (strtod(td->version, NULL) >= 0.6 && take_sized(&c, 8, &data, &len))
		td->cmdlines = keep_lines(data, len, cmdline_line, &td->nr_bad_lines);
	return 0;
bad:
	tracing_data_release(td);
	return pc_err("tracing data: truncated or malformed");
}

void tracing_data_release(struct tracing_data *td)
{
	free(td->formats);
	free(td->kallsyms);
	free(td->printk_formats);
	free(td->cmdlines);
	memset(td, 0, sizeof(*td));
}

static bool same_as_file(const char *path, const char *text, size_t len)
{
	size_t flen;
	char *f = read_file(path, &flen);
	bool same = f && flen == len && !memcmp(f, text, len);
	free(f);
	return same;
}

bool tracing_data_is_local(const struct tracing_data *td)
{
	bool host_big = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	if (td->big_endian != host_big || td->long_size != sizeof(long) ||
	    td->page_size != (uint32_t)sysconf(_SC_PAGESIZE) || td->nr_bad_formats)
		return false;
	bool readable;
	const char *tfs = tracefs_find(&readable); /* tracefs_path() would mount it */
	if (!tfs || !readable)
		return false;
	char *path = xasprintf("%s/events/header_page", tfs);
	bool local = same_as_file(path, td->header_page, td->header_page_len);
	free(path);
	for (size_t i = 0; local && i < td->nr_formats; i++) {
		const struct tracing_format *f = &td->formats[i];
		/* system and name are identifiers (checked), so the path stays in tracefs */
		if (!strcmp(f->system, "ftrace"))
			return false;
		path = xasprintf("%s/events/%s/%s/format", tfs, f->system, f->name);
		local = same_as_file(path, f->text, f->len);
		free(path);
	}
	return local;
}
