/* Unit tests for tracing_data: the tracing data of real perf.data files (this kernel's, and
 * the seed perf recorded) is taken apart whole; what libtraceevent 1.7.1 crashes on is
 * refused before it gets there (the printk lines of issue #19, a print fmt naming a field
 * the format does not declare); every truncation of a blob is refused or parsed within its
 * bounds; only this machine's own formats count as local. */
#include "record/tracepoints.h"
#include "record/tracefs.h"
#include "record/tracing_data.h"
#include "test.h"
#include "tracing_blob.h"

#include <stdlib.h>
#include <unistd.h>

static const char good_fmt[] = "\"value=%u name=%s\", REC->value, REC->name";

/* One pctest:ev format with this print fmt; *b holds the blob td points into. */
static struct tracing_data parse_one(const char *print_fmt, int *ret, struct tblob *b)
{
	*b = tblob_one(print_fmt, NULL, false);
	struct tracing_data td;
	*ret = tracing_data_parse(b->p, b->len, &td);
	return td;
}

static void check_shapes(void)
{
	int ret;
	struct tblob b;
	struct tracing_data td = parse_one(good_fmt, &ret, &b);
	CHECK(ret == 0 && td.nr_formats == 1 && td.nr_bad_formats == 0);
	if (td.nr_formats)
		CHECK_STR(td.formats[0].name, "ev");
	CHECK(!tracing_data_is_local(&td)); /* no tracefs has pctest:ev */
	tracing_data_release(&td);
	free(b.p);

	/* Found by fuzzing: libtraceevent dereferences NULL at a field it cannot find. */
	static const char *const bad[] = {
	    "\"value=%u\", REC->valeu",	 /* undeclared field */
	    "\"value=%u, REC->value",	 /* string not closed */
	    "\"value=%u\", (REC->value", /* parenthesis not closed */
	    "\"value=%u\", REC->value)", /* closed too often */
	    "value=%u, REC->value",	 /* no string */
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		td = parse_one(bad[i], &ret, &b);
		CHECK(ret == 0 && td.nr_formats == 0 && td.nr_bad_formats == 1);
		CHECK(strstr(td.first_bad, "pctest:ev: ") != NULL);
		tracing_data_release(&td);
		free(b.p);
	}

	/* A format's own shape: a NUL inside, a field past any record, no ID. */
	static const char *const shapes[] = {
	    "name: ev\nID: 1\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n\n"
	    "print fmt: \"%d\", REC->a",
	    "name: ev\nID: 1\nformat:\n\tfield:int a;\toffset:65534;\tsize:4;\tsigned:1;\n\n"
	    "print fmt: \"%d\", REC->a\n",
	    "name: ev\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n\n"
	    "print fmt: \"%d\", REC->a\n",
	    "name: ../x\nID: 1\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n\n"
	    "print fmt: \"%d\", REC->a\n",
	    "name: ev\nID: 1\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n\n"
	    "print fmt: \"%d\", REC->a\nmore\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(shapes); i++) {
		const char *formats[] = {shapes[i], NULL};
		b = tblob_build("pctest", formats, NULL, false);
		if (i == 0) /* a NUL in the middle of the text, the size kept */
			memset(memmem(b.p, b.len, "int a", 5) + 3, 0, 1);
		CHECK(tracing_data_parse(b.p, b.len, &td) == 0);
		CHECK(td.nr_formats == 0 && td.nr_bad_formats == 1);
		tracing_data_release(&td);
		free(b.p);
	}
}

/* Issue #19: tep_parse_printk_formats() reads past its copy of the section on a line
 * without "ADDR : X", and tep_register_print_string() before its copy of a short string. */
static void check_printk_lines(void)
{
	struct tblob b = tblob_one(good_fmt,
				   "0xffffffff8281a8ff : \"thaw_processes\"\n"
				   "ffffffff81000000:\n"
				   "ffffffff81000000 : \"\"\n"
				   "::ffff : \"x\"\n"
				   "no address\n"
				   "0xffffffff8281b749 : \"preempt_rcu\"",
				   false);
	struct tracing_data td;
	CHECK(tracing_data_parse(b.p, b.len, &td) == 0);
	CHECK_STR(td.printk_formats, "0xffffffff8281a8ff : \"thaw_processes\"\n"
				     "0xffffffff8281b749 : \"preempt_rcu\"\n");
	CHECK_EQ_U64(td.nr_bad_lines, 4);
	struct trace_formatter *f = trace_formatter_from(&td);
	CHECK(f != NULL);
	trace_formatter_free(f);
	tracing_data_release(&td);

	/* the overflow of #19 itself: the section's last line without a format */
	free(b.p);
	b = tblob_one(good_fmt,
		      "0xffffffff8281a8ff : \"thaw_processes\"\nffffffff81000000:", false);
	CHECK(tracing_data_parse(b.p, b.len, &td) == 0);
	CHECK_EQ_U64(td.nr_bad_lines, 1);
	trace_formatter_free(trace_formatter_from(&td));
	tracing_data_release(&td);

	/* every truncation: refused or parsed, never read out of bounds */
	for (size_t cut = 0; cut < b.len; cut++) {
		char *copy = xmalloc(cut ? cut : 1);
		memcpy(copy, b.p, cut);
		if (tracing_data_parse(copy, cut, &td) == 0)
			tracing_data_release(&td);
		free(copy);
	}
	free(b.p);
}

/* Sizes in the other byte order, as a big-endian machine writes them. */
static void check_big_endian(void)
{
	struct tblob b = tblob_one(good_fmt, NULL, true);
	struct tracing_data td;
	CHECK(tracing_data_parse(b.p, b.len, &td) == 0);
	CHECK(td.big_endian && td.nr_formats == 1 && !tracing_data_is_local(&td));
	tracing_data_release(&td);
	free(b.p);
}

/* A string field without its NUL prints within the record. */
static void check_unterminated_string(void)
{
	struct tblob b = tblob_one(good_fmt, NULL, false);
	struct trace_formatter *f = trace_formatter_new(b.p, b.len);
	CHECK(f != NULL);
	unsigned char raw[TBLOB_RECORD_SIZE] = {0};
	uint16_t id = 900;
	uint32_t value = 7;
	memcpy(raw, &id, 2);
	memcpy(raw + 8, &value, 4);
	memset(raw + 12, 'x', 16);
	if (f) {
		const char *text = trace_formatter_format(f, raw, sizeof(raw), 0, 0);
		CHECK_STR(text, "value=7 name=xxxxxxxxxxxxxxxx");
	}
	trace_formatter_free(f);
	free(b.p);
}

/* This kernel's formats, as collect records them, are local; one byte changed, not. */
static void check_local(void)
{
	if (getuid() != 0 || !tracefs_path()) {
		printf("this kernel's formats: skipped (needs root and tracefs)\n");
		return;
	}
	const char *events[] = {"sched:sched_switch", "sched:sched_process_exit"};
	void *blob;
	size_t size;
	CHECK(tracing_data_build(events, 2, &blob, &size) == 0);
	struct tracing_data td;
	CHECK(tracing_data_parse(blob, size, &td) == 0);
	CHECK(td.nr_formats == 2 && td.nr_bad_formats == 0);
	CHECK(tracing_data_is_local(&td));
	tracing_data_release(&td);
	char *p = memmem(blob, size, "prev_comm=", 10);
	CHECK(p != NULL);
	if (p)
		*p = 'P';
	CHECK(tracing_data_parse(blob, size, &td) == 0 && td.nr_formats == 2);
	CHECK(!tracing_data_is_local(&td));
	tracing_data_release(&td);
	free(blob);
}

/* The seed perf recorded (tests/fuzz/corpus/tracing_data/perf_tp): parsed whole. */
static void check_perf_seed(void)
{
	char *path = xasprintf("%s/fuzz/corpus/tracing_data/perf_tp", getenv("TEST_SRCDIR"));
	size_t size;
	char *blob = read_file(path, &size);
	CHECK(blob != NULL);
	struct tracing_data td;
	if (blob) {
		CHECK(tracing_data_parse(blob, size, &td) == 0);
		CHECK(td.nr_formats == 2 && td.nr_bad_formats == 0 && td.nr_bad_lines == 0);
		CHECK(td.printk_formats != NULL);
		tracing_data_release(&td);
	}
	free(blob);
	free(path);
}

int main(void)
{
	check_shapes();
	check_printk_lines();
	check_big_endian();
	check_unterminated_string();
	check_local();
	check_perf_seed();
	return TEST_DONE();
}
