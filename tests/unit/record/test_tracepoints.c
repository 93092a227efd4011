/* Unit tests for tracepoints: the tracing-data blob built from this kernel's tracefs parses
 * back, and a sched_switch record laid out by the kernel's own format file (offsets read
 * here from tracefs, independently of libtraceevent) prints as perf script prints it. */
#include "record/tracepoints.h"
#include "record/tracefs.h"
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

static int field_offset(const char *format, const char *field)
{
	char *pat = xasprintf(" %s", field);
	const char *p = strstr(format, pat);
	free(pat);
	if (!p)
		return -1;
	p = strstr(p, "offset:");
	return p ? atoi(p + 7) : -1;
}

int main(void)
{
	if (getuid() != 0)
		SKIP("needs root to read tracefs: run the tests as root");
	const char *tfs = tracefs_path();
	if (!tfs)
		SKIP("no tracefs here: scripts/setup mounts it (as root)");
	uint64_t id = 0;
	CHECK(tracepoint_id("sched:sched_switch", &id) == 0 && id > 0);
	CHECK(tracepoint_id("sched:no_such_event", &id) < 0);
	CHECK(tracepoint_id("../../etc:passwd", &id) < 0);
	CHECK(tracepoint_id("nocolon", &id) < 0);

	const char *events[] = {"sched:sched_switch", "sched:sched_process_exit"};
	void *blob;
	size_t size;
	CHECK(tracing_data_build(events, 2, &blob, &size) == 0);
	struct trace_formatter *f = trace_formatter_new(blob, size);
	CHECK(f != NULL);

	char *fmtpath = xasprintf("%s/events/sched/sched_switch/format", tfs);
	char *format = read_file(fmtpath, NULL);
	CHECK(format != NULL);
	unsigned char raw[128] = {0};
	uint16_t type = (uint16_t)id;
	memcpy(raw, &type, 2);
	int o;
	if ((o = field_offset(format, "prev_comm[16]")) > 0)
		memcpy(raw + o, "worker", 7);
	int32_t v = 42;
	if ((o = field_offset(format, "prev_pid")) > 0)
		memcpy(raw + o, &v, 4);
	v = 120;
	if ((o = field_offset(format, "prev_prio")) > 0)
		memcpy(raw + o, &v, 4);
	int64_t state = 1; /* TASK_INTERRUPTIBLE: "S" */
	if ((o = field_offset(format, "prev_state")) > 0)
		memcpy(raw + o, &state, 8);
	if ((o = field_offset(format, "next_comm[16]")) > 0)
		memcpy(raw + o, "swapper/1", 10);
	v = 0;
	if ((o = field_offset(format, "next_pid")) > 0)
		memcpy(raw + o, &v, 4);
	v = 120;
	if ((o = field_offset(format, "next_prio")) > 0)
		memcpy(raw + o, &v, 4);
	if (f) {
		CHECK_STR(trace_formatter_event_name(f, raw, sizeof(raw)), "sched:sched_switch");
		CHECK_STR(trace_formatter_format(f, raw, sizeof(raw), 1, 1000),
			  "prev_comm=worker prev_pid=42 prev_prio=120 prev_state=S ==> "
			  "next_comm=swapper/1 next_pid=0 next_prio=120");
		/* A record shorter than its format says is refused, not read past its end. */
		CHECK(trace_formatter_format(f, raw, 40, 1, 1000) == NULL);
		uint16_t bogus = 0xfffe;
		memcpy(raw, &bogus, 2);
		CHECK(trace_formatter_format(f, raw, sizeof(raw), 0, 0) == NULL);
		CHECK(trace_formatter_format(f, raw, 1, 0, 0) == NULL);
	}
	trace_formatter_free(f);

	/* Every truncation of a good blob is refused or parsed, never read out of bounds. */
	for (size_t cut = 0; cut < size; cut += 1 + cut / 16) {
		void *copy = xmalloc(cut ? cut : 1);
		memcpy(copy, blob, cut);
		trace_formatter_free(trace_formatter_new(copy, cut));
		free(copy);
	}
	CHECK(trace_formatter_new("garbage", 7) == NULL);
	free(format);
	free(fmtpath);
	free(blob);
	return TEST_DONE();
}
