/* tracepoints: see tracepoints.h.  The blob layout is perf's "tracing data" (version 0.6):
 *   "\027\010\104tracing" "0.6\0" endian(u8) long_size(u8) page_size(u32)
 *   "header_page\0" u64 size, bytes   "header_event\0" u64 size, bytes
 *   u32 nr ftrace formats { u64 size, bytes }
 *   u32 nr systems { "sys\0" u32 nr { u64 size, bytes } }
 *   u32 kallsyms size, bytes   u32 printk_formats size, bytes   u64 saved_cmdlines size, bytes
 */
#include "tracepoints.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <event-parse.h>
#include <trace-seq.h>

static const char tracing_magic[] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};

#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC 0x74726163
#endif

static bool has_events_dir(const char *dir)
{
	char *p = xasprintf("%s/events/header_page", dir);
	bool ok = access(p, R_OK) == 0;
	free(p);
	return ok;
}

const char *tracefs_path(void)
{
	static const char *const candidates[] = {"/sys/kernel/tracing",
						 "/sys/kernel/debug/tracing"};
	for (size_t i = 0; i < ARRAY_SIZE(candidates); i++)
		if (has_events_dir(candidates[i]))
			return candidates[i];
	/* Mounted but closed to us (tracefs is mode 0700, root's, by default): say that, not
	 * "not mounted". */
	for (size_t i = 0; i < ARRAY_SIZE(candidates); i++) {
		struct statfs fs;
		struct stat st;
		if (statfs(candidates[i], &fs) == 0 && fs.f_type == TRACEFS_MAGIC &&
		    stat(candidates[i], &st) == 0) {
			pc_err(
			    "tracefs at %s is mounted but you may not read it (mode %04o, owner "
			    "uid "
			    "%u); the scheduler tracepoints of -offcpu and -threadtime need root "
			    "(or read access to it, CAP_PERFMON and "
			    "kernel.perf_event_paranoid=-1)",
			    candidates[i], (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid);
			return NULL;
		}
	}
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0 &&
	    has_events_dir("/sys/kernel/tracing"))
		return "/sys/kernel/tracing";
	pc_err_errno("tracefs is not mounted and cannot be mounted (tracepoints need it; as "
		     "root: mount -t tracefs nodev /sys/kernel/tracing)");
	return NULL;
}

static int split_event(const char *event, char **sys, char **name)
{
	const char *colon = strchr(event, ':');
	if (!colon || colon == event || !colon[1] || strchr(colon + 1, '/') || strchr(event, '/') ||
	    strstr(event, ".."))
		return pc_err("bad tracepoint name '%s' (expected system:event)", event);
	*sys = xstrndup(event, colon - event);
	*name = xstrdup(colon + 1);
	return 0;
}

int tracepoint_id(const char *event, uint64_t *id)
{
	const char *tfs = tracefs_path();
	char *sys, *name;
	if (!tfs || split_event(event, &sys, &name) < 0)
		return -1;
	char *p = xasprintf("%s/events/%s/%s/id", tfs, sys, name);
	char *text = read_file(p, NULL);
	int r = 0;
	if (!text)
		r = pc_err("tracepoint %s is not available in this kernel (%s)", event,
			   pc_strerror());
	else
		*id = strtoull(text, NULL, 10);
	free(text);
	free(p);
	free(sys);
	free(name);
	return r;
}

struct blob {
	char *data;
	size_t len, cap;
};

static void put(struct blob *b, const void *p, size_t n)
{
	grow_array((void **)&b->data, &b->cap, b->len + n, 1);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void put_u32(struct blob *b, uint32_t v)
{
	put(b, &v, 4);
}

static void put_u64(struct blob *b, uint64_t v)
{
	put(b, &v, 8);
}

/* A file with a size prefix of width 4 or 8; a missing file counts as empty. */
static int put_file(struct blob *b, const char *path, int width, bool required)
{
	size_t len = 0;
	char *text = read_file(path, &len);
	if (!text) {
		if (required)
			return -1;
		len = 0;
	}
	if (width == 4)
		put_u32(b, len);
	else
		put_u64(b, len);
	put(b, text ? text : "", len);
	free(text);
	return 0;
}

int tracing_data_build(const char *const *events, size_t n, void **out, size_t *out_size)
{
	const char *tfs = tracefs_path();
	if (!tfs)
		return -1;
	struct blob b = {0};
	char *path;
	put(&b, tracing_magic, sizeof(tracing_magic));
	put(&b, "0.6", 4);
	uint8_t endian = 0, long_size = sizeof(long);
	put(&b, &endian, 1);
	put(&b, &long_size, 1);
	put_u32(&b, (uint32_t)sysconf(_SC_PAGESIZE));

	put(&b, "header_page", 12);
	path = xasprintf("%s/events/header_page", tfs);
	int r = put_file(&b, path, 8, true);
	free(path);
	put(&b, "header_event", 13);
	path = xasprintf("%s/events/header_event", tfs);
	if (r == 0)
		r = put_file(&b, path, 8, true);
	free(path);
	put_u32(&b, 0); /* no ftrace-internal events */

	/* Group the events by system, keeping first-seen order. */
	char **sys = xcalloc(n, sizeof(*sys)), **name = xcalloc(n, sizeof(*name));
	for (size_t i = 0; i < n && r == 0; i++)
		r = split_event(events[i], &sys[i], &name[i]);
	uint32_t nsys = 0;
	for (size_t i = 0; i < n && r == 0; i++) {
		bool first = true;
		for (size_t j = 0; j < i; j++)
			first &= strcmp(sys[j], sys[i]) != 0;
		nsys += first;
	}
	put_u32(&b, nsys);
	for (size_t i = 0; i < n && r == 0; i++) {
		bool first = true;
		for (size_t j = 0; j < i; j++)
			first &= strcmp(sys[j], sys[i]) != 0;
		if (!first)
			continue;
		put(&b, sys[i], strlen(sys[i]) + 1);
		uint32_t count = 0;
		for (size_t j = i; j < n; j++)
			count += !strcmp(sys[j], sys[i]);
		put_u32(&b, count);
		for (size_t j = i; j < n && r == 0; j++) {
			if (strcmp(sys[j], sys[i]))
				continue;
			path = xasprintf("%s/events/%s/%s/format", tfs, sys[j], name[j]);
			if (put_file(&b, path, 8, true) < 0)
				r = pc_err("tracepoint %s:%s is not available in this kernel",
					   sys[j], name[j]);
			free(path);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(sys[i]), free(name[i]);
	free(sys);
	free(name);

	put_u32(&b, 0); /* kallsyms: perf script does not need them for these events */
	path = xasprintf("%s/printk_formats", tfs);
	if (r == 0)
		put_file(&b, path, 4, false);
	free(path);
	path = xasprintf("%s/saved_cmdlines", tfs);
	if (r == 0)
		put_file(&b, path, 8, false);
	free(path);
	if (r < 0) {
		free(b.data);
		return -1;
	}
	*out = b.data;
	*out_size = b.len;
	return 0;
}

struct trace_formatter {
	struct tep_handle *tep;
	struct trace_seq seq;
	char name[256];
};

struct cursor {
	const char *p, *end;
};

static bool take(struct cursor *c, void *dst, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return false;
	memcpy(dst, c->p, n);
	c->p += n;
	return true;
}

static const char *take_str(struct cursor *c)
{
	const char *s = c->p;
	const char *nul = memchr(c->p, 0, c->end - c->p);
	if (!nul)
		return NULL;
	c->p = nul + 1;
	return s;
}

static bool take_sized(struct cursor *c, int width, const char **data, uint64_t *len)
{
	uint64_t n = 0;
	if (width == 4) {
		uint32_t v;
		if (!take(c, &v, 4))
			return false;
		n = v;
	} else if (!take(c, &n, 8)) {
		return false;
	}
	if (n > (uint64_t)(c->end - c->p))
		return false;
	*data = c->p;
	*len = n;
	c->p += n;
	return true;
}

/* libtraceevent wants NUL-terminated text for kallsyms/printk/cmdlines. */
static char *dup_text(const char *p, uint64_t n)
{
	return xstrndup(p, n);
}

struct trace_formatter *trace_formatter_new(const void *blob, size_t size)
{
	struct cursor c = {blob, (const char *)blob + size};
	char magic[sizeof(tracing_magic)];
	if (!take(&c, magic, sizeof(magic)) || memcmp(magic, tracing_magic, sizeof(magic))) {
		pc_err("tracing data: bad magic");
		return NULL;
	}
	const char *version = take_str(&c);
	uint8_t endian, long_size;
	uint32_t page_size;
	if (!version || !take(&c, &endian, 1) || !take(&c, &long_size, 1) ||
	    !take(&c, &page_size, 4)) {
		pc_err("tracing data: truncated header");
		return NULL;
	}
	double ver = strtod(version, NULL);
	struct trace_formatter *f = xcalloc(1, sizeof(*f));
	f->tep = tep_alloc();
	trace_seq_init(&f->seq);
	tep_set_file_bigendian(f->tep, endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(f->tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(f->tep, long_size);
	tep_set_page_size(f->tep, page_size);

	const char *data, *label;
	uint64_t len;
	uint32_t count;
	/* header_page, header_event */
	if (!(label = take_str(&c)) || strcmp(label, "header_page") ||
	    !take_sized(&c, 8, &data, &len))
		goto bad;
	tep_parse_header_page(f->tep, (char *)data, len, long_size);
	if (!(label = take_str(&c)) || strcmp(label, "header_event") ||
	    !take_sized(&c, 8, &data, &len))
		goto bad;
	if (!take(&c, &count, 4))
		goto bad;
	for (uint32_t i = 0; i < count; i++) {
		if (!take_sized(&c, 8, &data, &len))
			goto bad;
		tep_parse_event(f->tep, data, len, "ftrace");
	}
	uint32_t nsys;
	if (!take(&c, &nsys, 4))
		goto bad;
	for (uint32_t s = 0; s < nsys; s++) {
		const char *sys = take_str(&c);
		if (!sys || !take(&c, &count, 4))
			goto bad;
		for (uint32_t i = 0; i < count; i++) {
			if (!take_sized(&c, 8, &data, &len))
				goto bad;
			/* An event libtraceevent cannot parse prints without its fields. */
			tep_parse_event(f->tep, data, len, sys);
		}
	}
	/* The rest is optional: files from older perf may end here. */
	if (take_sized(&c, 4, &data, &len) && len) {
		char *t = dup_text(data, len);
		tep_parse_kallsyms(f->tep, t);
		free(t);
	}
	if (take_sized(&c, 4, &data, &len) && len) {
		char *t = dup_text(data, len);
		tep_parse_printk_formats(f->tep, t);
		free(t);
	}
	if (ver >= 0.6 && take_sized(&c, 8, &data, &len) && len) {
		char *t = dup_text(data, len);
		tep_parse_saved_cmdlines(f->tep, t);
		free(t);
	}
	return f;
bad:
	pc_err("tracing data: truncated or malformed");
	trace_formatter_free(f);
	return NULL;
}

void trace_formatter_free(struct trace_formatter *f)
{
	if (!f)
		return;
	trace_seq_destroy(&f->seq);
	tep_free(f->tep);
	free(f);
}

/* Whether every field the format declares lies inside the record, dynamic arrays' data
 * included: libtraceevent reads them without looking at the record's size. */
static bool fields_fit(struct tep_handle *tep, struct tep_format_field *field,
		       const struct tep_record *rec)
{
	for (; field; field = field->next) {
		if (field->offset < 0 || field->size < 0 ||
		    (int64_t)field->offset + field->size > rec->size)
			return false;
		if (!(field->flags & TEP_FIELD_IS_DYNAMIC) || field->size < 4)
			continue;
		/* u32 in the file's byte order: data offset in the low half, length above */
		uint32_t loc = (uint32_t)tep_read_number(tep, (char *)rec->data + field->offset, 4);
		int64_t start = loc & 0xffff, len = loc >> 16;
		if (field->flags & TEP_FIELD_IS_RELATIVE)
			start += field->offset + field->size;
		if (start + len > rec->size)
			return false;
	}
	return true;
}

static struct tep_event *event_of(struct trace_formatter *f, struct tep_record *rec)
{
	if (rec->size < 2)
		return NULL;
	struct tep_event *e = tep_find_event_by_record(f->tep, rec);
	if (!e || !fields_fit(f->tep, e->format.common_fields, rec) ||
	    !fields_fit(f->tep, e->format.fields, rec))
		return NULL;
	return e;
}

const char *trace_formatter_format(struct trace_formatter *f, const void *raw, size_t raw_size,
				   int cpu, uint64_t time)
{
	struct tep_record rec = {
	    .ts = time, .size = (int)raw_size, .cpu = cpu, .data = (void *)raw};
	if (!event_of(f, &rec))
		return NULL;
	trace_seq_reset(&f->seq);
	tep_print_event(f->tep, &f->seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&f->seq);
	return f->seq.buffer;
}

const char *trace_formatter_event_name(struct trace_formatter *f, const void *raw, size_t raw_size)
{
	struct tep_record rec = {.size = (int)raw_size, .data = (void *)raw};
	struct tep_event *e = event_of(f, &rec);
	if (!e)
		return NULL;
	snprintf(f->name, sizeof(f->name), "%s:%s", e->system, e->name);
	return f->name;
}
