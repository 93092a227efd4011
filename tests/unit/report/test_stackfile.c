/* stackfile: header and frame lines as perf 6.1's `perf script` prints them (copied from
 * its output on this machine: system-wide, per-process, node, .NET, tracepoints), whole
 * inputs read through stackfile_read(), and input that is not perf script text. */
#include "report/stackfile.h"
#include "test.h"

static void test_headers(void)
{
	struct stack_sample s;
	char l1[] = "hot  2888/2888  [001]   253.847211:    1000000 cpu-clock: ";
	CHECK(!stackfile_parse_header(l1, &s));
	CHECK_STR(s.comm, "hot");
	CHECK(s.pid == 2888 && s.tid == 2888 && s.cpu == 1);
	CHECK_EQ_U64(s.time_ns, 253847211000ULL);
	CHECK_EQ_U64(s.period, 1000000);
	CHECK_STR(s.event, "cpu-clock");
	CHECK_STR(s.trace, "");

	/* No [cpu] column (perf record -p), a comm with spaces, a 9-digit time. */
	char l2[] = ".NET TP Worker 4100/4133    12.000000001:     250000 cpu-clock:u: ";
	CHECK(!stackfile_parse_header(l2, &s));
	CHECK_STR(s.comm, ".NET TP Worker");
	CHECK(s.pid == 4100 && s.tid == 4133 && s.cpu == -1);
	CHECK_EQ_U64(s.time_ns, 12000000001ULL);
	CHECK_EQ_U64(s.period, 250000);
	CHECK_STR(s.event, "cpu-clock:u");

	/* A comm with a slash and digits; perf right-aligns comms when there is no callchain. */
	char l3[] = "     kworker/1:1 12/12 [000] 1.5: 1 cpu-clock: ";
	CHECK(!stackfile_parse_header(l3, &s));
	CHECK_STR(s.comm, "kworker/1:1");
	CHECK(s.pid == 12 && s.cpu == 0);
	CHECK_EQ_U64(s.time_ns, 1500000000ULL);

	/* A comm that looks like a pid/tid itself. */
	char l4[] = "7/7 99/100 [003] 2.000001: 1 cpu-clock: ";
	CHECK(!stackfile_parse_header(l4, &s));
	CHECK_STR(s.comm, "7/7");
	CHECK(s.pid == 99 && s.tid == 100 && s.cpu == 3);

	/* A tracepoint: its fields follow the event name. */
	char l5[] = "perf  2781/2781  [000]    10.000001:          1 sched:sched_switch: "
		    "prev_comm=perf prev_pid=2781 prev_prio=120 prev_state=S ==> "
		    "next_comm=swapper/0 next_pid=0 next_prio=120  ";
	CHECK(!stackfile_parse_header(l5, &s));
	CHECK_STR(s.event, "sched:sched_switch");
	CHECK_STR(s.trace, "prev_comm=perf prev_pid=2781 prev_prio=120 prev_state=S ==> "
			   "next_comm=swapper/0 next_pid=0 next_prio=120");

	/* No period column. */
	char l6[] = "swapper     0/0     [001]   5.100000: cpu-clock: ";
	CHECK(!stackfile_parse_header(l6, &s));
	CHECK_STR(s.comm, "swapper");
	CHECK(s.pid == 0 && s.period == 1);

	char bad1[] = "hello world";
	char bad2[] = "hot 12/12 [001] 1.0: 1 nocolon";
	char bad3[] = "";
	char bad4[] = "hot 12/ 1.0: 1 cpu-clock:";
	char bad5[] = "hot 99999999999/1 1.0: 1 cpu-clock:";
	CHECK(stackfile_parse_header(bad1, &s) < 0);
	CHECK(stackfile_parse_header(bad2, &s) < 0);
	CHECK(stackfile_parse_header(bad3, &s) < 0);
	CHECK(stackfile_parse_header(bad4, &s) < 0);
	CHECK(stackfile_parse_header(bad5, &s) < 0);
	/* A failed parse leaves the line as it was (the reader tries it as a frame next). */
	CHECK_STR(bad2, "hot 12/12 [001] 1.0: 1 nocolon");
}

static void test_frames(void)
{
	struct stack_frame f;
	char l1[] = "\t            11e0 leaf (/srv/app/hot)";
	CHECK(!stackfile_parse_frame(l1, &f));
	CHECK_EQ_U64(f.ip, 0x11e0);
	CHECK_STR(f.sym, "leaf");
	CHECK_STR(f.dso, "/srv/app/hot");

	char l2[] = "\t    7f10737c621b JS:*fib /srv/app/spin.js:1:13 (/tmp/perf-2912.map)";
	CHECK(!stackfile_parse_frame(l2, &f));
	CHECK_EQ_U64(f.ip, 0x7f10737c621bULL);
	CHECK_STR(f.sym, "JS:*fib /srv/app/spin.js:1:13");
	CHECK_STR(f.dso, "/tmp/perf-2912.map");

	/* .NET and C++ signatures hold parentheses and spaces. */
	char l3[] =
	    "\t    7f5a1c2b3c4d instance bool [System.Private.CoreLib] System.Collections."
	    "Generic.Dictionary`2[System.__Canon,System.__Canon]::TryInsert(!0,!1,valuetype "
	    "System.Collections.Generic.InsertionBehavior)[OptimizedTier1] "
	    "(/tmp/perf-4100.map)";
	CHECK(!stackfile_parse_frame(l3, &f));
	CHECK(strstr(f.sym, "TryInsert(!0,!1,valuetype") != NULL);
	CHECK(str_endswith(f.sym, "[OptimizedTier1]"));
	CHECK_STR(f.dso, "/tmp/perf-4100.map");

	char l4[] = "\t          113edc [unknown] (/memfd:doublemapper (deleted))";
	CHECK(!stackfile_parse_frame(l4, &f));
	CHECK_STR(f.sym, "[unknown]");
	CHECK_STR(f.dso, "/memfd:doublemapper (deleted)");

	char l5[] = "\tffffffff8f40010b entry_SYSCALL_64_after_hwframe ([kernel.kallsyms])";
	CHECK(!stackfile_parse_frame(l5, &f));
	CHECK_EQ_U64(f.ip, 0xffffffff8f40010bULL);
	CHECK_STR(f.dso, "[kernel.kallsyms]");

	char l6[] = "\t               0 [unknown] ([unknown])";
	CHECK(!stackfile_parse_frame(l6, &f));
	CHECK_STR(f.sym, "[unknown]");
	CHECK_STR(f.dso, "[unknown]");

	char l7[] = "\t1234 (/lib/x.so)"; /* no symbol */
	CHECK(!stackfile_parse_frame(l7, &f));
	CHECK_STR(f.sym, "");
	CHECK_STR(f.dso, "/lib/x.so");

	char l8[] = "\t1234 operator()(int) const"; /* no dso */
	CHECK(!stackfile_parse_frame(l8, &f));
	CHECK_STR(f.sym, "operator()(int) const");
	CHECK_STR(f.dso, "");

	char l9[] = "\t1234 f (unbalanced (x.so)"; /* parentheses that do not balance */
	CHECK(!stackfile_parse_frame(l9, &f));
	CHECK_STR(f.dso, "x.so");

	char bad1[] = "\tzzz foo (bar)";
	char bad2[] = "\t12345678901234567 foo (bar)"; /* more than 64 bits */
	char bad3[] = "\t1234x foo";
	CHECK(stackfile_parse_frame(bad1, &f) < 0);
	CHECK(stackfile_parse_frame(bad2, &f) < 0);
	CHECK(stackfile_parse_frame(bad3, &f) < 0);
}

struct seen {
	int samples;
	char comms[8][32];
	size_t nframes[8];
	char leaf[8][64];
	char root[8][64];
	char event[8][32];
	int stop_after;
};

static int record(const struct stack_sample *s, void *arg)
{
	struct seen *v = arg;
	int i = v->samples++;
	if (i < 8) {
		snprintf(v->comms[i], sizeof(v->comms[i]), "%s", s->comm);
		snprintf(v->event[i], sizeof(v->event[i]), "%s", s->event);
		v->nframes[i] = s->nframes;
		if (s->nframes) {
			snprintf(v->leaf[i], sizeof(v->leaf[i]), "%s|%s", s->frames[0].sym,
				 s->frames[0].dso);
			snprintf(v->root[i], sizeof(v->root[i]), "%s|%s",
				 s->frames[s->nframes - 1].sym, s->frames[s->nframes - 1].dso);
		}
	}
	return v->stop_after && v->samples >= v->stop_after ? 42 : 0;
}

static int read_text(const char *text, struct seen *v, struct stackfile_stats *st)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc = stackfile_read(f, "test", record, v, st);
	fclose(f);
	return rc;
}

static void test_read(void)
{
	/* Two samples with stacks, the second without its closing blank line before the third
	 * header; a sample whose one frame is on the header line (no callchain); a tracepoint
	 * with no frames; CRLF line ends; a '#' comment before the first sample. */
	const char *text =
	    "# a comment\n"
	    "hot  2888/2888  [001]   253.847211:    1000000 cpu-clock: \n"
	    "\t            1199 hot_leaf (/srv/hot)\n"
	    "\t            12cd main (/srv/hot)\n"
	    "\t           2724a __libc_start_call_main (/usr/lib/libc.so.6)\n"
	    "\n"
	    "my app 7/8 [000] 253.847300: 1000000 cpu-clock: \r\n"
	    "\t  10 a (/x)\r\n"
	    "\t  20 b (/x)\r\n"
	    "hot 2888/2888 [001] 253.848: 1000000 cpu-clock:      1199 hot_leaf (/srv/hot)\n"
	    "\n"
	    "perf 1/1 [000] 1.0: 1 sched:sched_switch: prev_comm=perf ==> next_comm=x\n"
	    "\n";
	struct seen v = {0};
	struct stackfile_stats st;
	CHECK(read_text(text, &v, &st) == 0);
	CHECK(v.samples == 4);
	CHECK_EQ_U64(st.samples, 4);
	CHECK_EQ_U64(st.bad_lines, 0);
	CHECK_STR(v.comms[0], "hot");
	CHECK(v.nframes[0] == 3);
	CHECK_STR(v.leaf[0], "hot_leaf|/srv/hot");
	CHECK_STR(v.root[0], "__libc_start_call_main|/usr/lib/libc.so.6");
	CHECK_STR(v.comms[1], "my app");
	CHECK(v.nframes[1] == 2);
	CHECK_STR(v.root[1], "b|/x");
	CHECK(v.nframes[2] == 1);
	CHECK_STR(v.leaf[2], "hot_leaf|/srv/hot");
	CHECK_STR(v.event[3], "sched:sched_switch");
	CHECK(v.nframes[3] == 0);

	/* The callback's non-zero value stops the reading and comes back. */
	struct seen w = {.stop_after = 2};
	CHECK(read_text(text, &w, NULL) == 42);
	CHECK(w.samples == 2);

	/* Stray lines are counted, not fatal, once the input has samples. */
	struct seen x = {0};
	CHECK(read_text("\t10 orphan (/x)\nhot 1/1 1.0: 1 cpu-clock:\n\t10 a (/x)\nnot a header\n",
			&x, &st) == 0);
	CHECK(x.samples == 1);
	CHECK_EQ_U64(st.bad_lines, 2);
	CHECK_EQ_U64(st.first_bad_line, 1);

	/* Something that is not perf script output at all. */
	struct seen y = {0};
	CHECK(read_text("PK\003\004 binary junk\n\001\002\n", &y, NULL) < 0);
	CHECK(strstr(pc_strerror(), "not perf script output") != NULL);
	CHECK(y.samples == 0);

	/* Empty input: no samples, no error. */
	struct seen z = {0};
	CHECK(read_text("", &z, NULL) == 0);
	CHECK(z.samples == 0);
}

static void test_deep_stack(void)
{
	/* A stack deeper than the cap is cut, counted, and read without harm. */
	size_t n = STACKFILE_MAX_FRAMES + 100;
	char *text = xmalloc(64 + n * 32);
	size_t len = (size_t)sprintf(text, "deep 1/1 1.0: 1 cpu-clock:\n");
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "\t%zx f%zu (/d)\n", i + 1, i);
	strcpy(text + len, "\n");
	struct seen v = {0};
	struct stackfile_stats st;
	CHECK(read_text(text, &v, &st) == 0);
	CHECK(v.samples == 1);
	CHECK(v.nframes[0] == STACKFILE_MAX_FRAMES);
	CHECK_STR(v.leaf[0], "f0|/d");
	CHECK_EQ_U64(st.truncated_stacks, 1);
	free(text);
}

int main(void)
{
	test_headers();
	test_frames();
	test_read();
	test_deep_stack();
	return TEST_DONE();
}
