/* tracepoints: see tracepoints.h.  The blob layout: tracing_data.c. */
#include "tracepoints.h"
#include "tracefs.h"
#include "base/bytebuf.h"
#include "tracing_data.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <event-parse.h>
#include <trace-seq.h>

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

/* A file with a size prefix of width 4 or 8; a missing file counts as empty. */
static int put_file(struct bytebuf *b, const char *path, int width, bool required)
{
	size_t len = 0;
	char *text = read_file(path, &len);
	if (!text) {
		if (required)
			return -1;
		len = 0;
	}
	if (width == 4)
		bytebuf_u32(b, (uint32_t)len);
	else
		bytebuf_u64(b, len);
	bytebuf_bytes(b, text ? text : "", len);
	free(text);
	return 0;
}

int tracing_data_build(const char *const *events, size_t n, void **out, size_t *out_size)
{
	const char *tfs = tracefs_path();
	if (!tfs)
		return -1;
	struct bytebuf b = {0};
	char *path;
	bytebuf_bytes(&b, tracing_data_magic, sizeof(tracing_data_magic));
	bytebuf_bytes(&b, "0.6", 4);
	bytebuf_u8(&b, 0); /* little-endian (base/bytebuf.h) */
	bytebuf_u8(&b, sizeof(long));
	bytebuf_u32(&b, (uint32_t)sysconf(_SC_PAGESIZE));

	bytebuf_bytes(&b, "header_page", 12);
	path = xasprintf("%s/events/header_page", tfs);
	int r = put_file(&b, path, 8, true);
	free(path);
	bytebuf_bytes(&b, "header_event", 13);
	path = xasprintf("%s/events/header_event", tfs);
	if (r == 0)
		r = put_file(&b, path, 8, true);
	free(path);
	bytebuf_u32(&b, 0); /* no ftrace-internal events */

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
	bytebuf_u32(&b, nsys);
	for (size_t i = 0; i < n && r == 0; i++) {
		bool first = true;
		for (size_t j = 0; j < i; j++)
			first &= strcmp(sys[j], sys[i]) != 0;
		if (!first)
			continue;
		bytebuf_bytes(&b, sys[i], strlen(sys[i]) + 1);
		uint32_t count = 0;
		for (size_t j = i; j < n; j++)
			count += !strcmp(sys[j], sys[i]);
		bytebuf_u32(&b, count);
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

	bytebuf_u32(&b, 0); /* kallsyms: perf script does not need them for these events */
	path = xasprintf("%s/printk_formats", tfs);
	if (r == 0)
		put_file(&b, path, 4, false);
	free(path);
	path = xasprintf("%s/saved_cmdlines", tfs);
	if (r == 0)
		put_file(&b, path, 8, false);
	free(path);
	if (r < 0) {
		bytebuf_free(&b);
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
	uint64_t *record; /* the record being printed, aligned, zeroes after it */
	size_t record_cap;
};

struct trace_formatter *trace_formatter_from(const struct tracing_data *td)
{
	/* What libtraceevent would print on stderr about formats it cannot use: the caller
	 * says what matters in one line. */
	tep_set_loglevel(TEP_LOG_NONE);
	struct trace_formatter *f = xcalloc(1, sizeof(*f));
	f->tep = tep_alloc();
	trace_seq_init(&f->seq);
	tep_set_file_bigendian(f->tep, td->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(f->tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? TEP_BIG_ENDIAN
									       : TEP_LITTLE_ENDIAN);
	tep_set_long_size(f->tep, td->long_size);
	tep_set_page_size(f->tep, (int)td->page_size);
	tep_parse_header_page(f->tep, (char *)td->header_page, td->header_page_len, td->long_size);
	/* An event libtraceevent cannot parse prints without its fields. */
	for (size_t i = 0; i < td->nr_formats; i++)
		tep_parse_event(f->tep, td->formats[i].text, td->formats[i].len,
				td->formats[i].system);
	/* tracing_data keeps only the lines these parsers read within bounds */
	if (td->kallsyms)
		tep_parse_kallsyms(f->tep, td->kallsyms);
	if (td->printk_formats)
		tep_parse_printk_formats(f->tep, td->printk_formats);
	if (td->cmdlines)
		tep_parse_saved_cmdlines(f->tep, td->cmdlines);
	return f;
}

struct trace_formatter *trace_formatter_new(const void *blob, size_t size)
{
	struct tracing_data td;
	if (tracing_data_parse(blob, size, &td) < 0)
		return NULL;
	struct trace_formatter *f = trace_formatter_from(&td);
	tracing_data_release(&td);
	return f;
}

void trace_formatter_free(struct trace_formatter *f)
{
	if (!f)
		return;
	trace_seq_destroy(&f->seq);
	tep_free(f->tep);
	free(f->record);
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
	if (raw_size > UINT16_MAX)
		return NULL; /* a tracepoint record fits in a ring-buffer page */
	/* A copy: aligned, as libtraceevent reads its fields, and followed by zeroes, where
	 * it prints a string field that lacks its NUL up to the next zero byte. */
	grow_array((void **)&f->record, &f->record_cap, raw_size / 8 + 2, sizeof(uint64_t));
	memset((char *)f->record + raw_size / 8 * 8, 0, 16);
	memcpy(f->record, raw, raw_size);
	struct tep_record rec = {.ts = time, .size = (int)raw_size, .cpu = cpu, .data = f->record};
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
