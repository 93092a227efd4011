/* offcpu: the wait intervals (switch-in by next_pid, or the thread's next sample, open at the
 * end, out of order), the thread table growing, and the blocked-time tree through the report and
 * folded writers in ms and µs. The input is perf script text read by the real stackfile parser, as
 * view reads it. */
#include "report/calltree.h"
#include "report/flamegraph.h"
#include "report/offcpu.h"
#include "report/report.h"
#include "report/stackfile.h"
#include "test.h"

/* What view does per sample: feed it, and give a blocked switch-out the node of its stack. */
struct feeder {
	struct functable *ft;
	struct calltree *tree;
	struct offcpu *oc;
	int only_tid; /* a filter: only this thread's waits begin (0: all) */
};

static int feed(const struct stack_sample *s, void *arg)
{
	struct feeder *f = arg;
	uint32_t path[64];
	size_t n = 0;
	if (!offcpu_sample(f->oc, s) || (f->only_tid && s->tid != f->only_tid))
		return 0;
	path[n++] = functable_intern(f->ft, s->comm, "", FRAME_PROCESS);
	for (size_t i = s->nframes; i-- > 0 && n < ARRAY_SIZE(path);)
		path[n++] = functable_intern_frame(f->ft, s->frames[i].sym, s->frames[i].dso,
						   s->frames[i].ip);
	offcpu_block(f->oc, s->tid, s->time_ns, calltree_insert(f->tree, path, n));
	return 0;
}

static struct feeder *feeder_new(void)
{
	struct feeder *f = xcalloc(1, sizeof(*f));
	f->ft = functable_new();
	f->tree = calltree_new(f->ft);
	f->oc = offcpu_new(f->tree);
	return f;
}

static void feeder_free(struct feeder *f)
{
	offcpu_free(f->oc);
	calltree_free(f->tree);
	functable_free(f->ft);
	free(f);
}

static void run(struct feeder *f, const char *text)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	CHECK(in && !stackfile_read(in, "test", feed, f, NULL));
	if (in)
		fclose(in);
	offcpu_finish(f->oc);
}

/* The inclusive weight of the function(s) shown as name. */
static uint64_t weight_of(const struct calltree *t, const char *name)
{
	uint64_t *self, *incl, w = 0;
	calltree_func_weights(t, &self, &incl);
	const struct functable *ft = calltree_functable(t);
	for (uint32_t i = 0; i < functable_count(ft); i++)
		if (!strcmp(functable_name(ft, i), name))
			w += incl[i];
	free(self);
	free(incl);
	return w;
}

#define SW(comm, pid, tid, cpu, time, prev, state, next)                                           \
	comm " " #pid "/" #tid " [" cpu "] " time ":          1       sched:sched_switch: "        \
	     "prev_comm=" comm " prev_pid=" #prev " prev_prio=120 prev_state=" state               \
	     " ==> next_comm=x next_pid=" #next " next_prio=120\n"
#define FRAMES(fn)                                                                                 \
	"\tffffffff821facd8 __schedule ([kernel.kallsyms])\n"                                      \
	"\t            12ea " fn " (/srv/blocker)\n"                                               \
	"\t            15e8 main (/srv/blocker)\n\n"

/* System-wide: each wait ends exactly at the switch-in that names the thread. */
static void test_system_wide(void)
{
	struct feeder *f = feeder_new();
	run(f, SW("blocker", 10, 10, "000", "100.000100", 10, "S", 0) FRAMES("blocker_sleep")
	    /* another task's sample: not a switch-in of 10 */
	    SW("sh", 20, 20, "001", "100.050000", 20, "R+", 30) FRAMES("sh_main")
	    /* the switch-in of 10, 250 ms after it blocked */
	    SW("swapper", 0, 0, "000", "100.250100", 0, "R", 10) FRAMES("idle")
	    /* 10 waits on a pipe from 100.250200 to its switch-in at 100.400200 */
	    SW("blocker", 10, 10, "000", "100.250200", 10, "D", 0) FRAMES("blocker_pipe_read")
		SW("sh", 20, 20, "001", "100.400200", 20, "S", 10) FRAMES("sh_main")
	    /* preempted: not a wait */
	    SW("blocker", 10, 10, "000", "100.500000", 10, "R+", 30) FRAMES("blocker_spin")
		SW("blocker", 10, 10, "000", "100.600000", 10, "R+", 30) FRAMES("blocker_spin"));
	const struct offcpu_stats *st = offcpu_stats(f->oc);
	CHECK_EQ_U64(weight_of(f->tree, "blocker_sleep"), 250000000);
	CHECK_EQ_U64(weight_of(f->tree, "blocker_pipe_read"), 150000000);
	CHECK_EQ_U64(weight_of(f->tree, "blocker_spin"), 0);
	/* 20 blocked at 100.400200 and was not switched in again: open at the end. */
	CHECK_EQ_U64(weight_of(f->tree, "sh_main"), 0);
	CHECK_EQ_U64(st->intervals, 2);
	CHECK_EQ_U64(st->ended_exact, 2);
	CHECK_EQ_U64(st->ended_sample, 0);
	CHECK_EQ_U64(st->open_at_end, 1);
	CHECK_EQ_U64(st->open_ns, 199800000); /* to the last sample, 100.600000 */
	CHECK_EQ_U64(st->blocked_ns, 400000000);
	CHECK_EQ_U64(calltree_total(f->tree), 400000000);
	CHECK_EQ_U64(st->threads, 2);
	CHECK_EQ_U64(st->switches, 7);
	CHECK_EQ_U64(st->bad_switches, 0);
	feeder_free(f);
}

/* -pid: no switch-in records; the thread's next sample (of any event) ends the wait. */
static void test_per_process(void)
{
	struct feeder *f = feeder_new();
	run(f, SW("blocker", 10, 10, "000", "5.000000", 10, "S", 99) FRAMES("blocker_sleep")
	    /* a cpu-clock sample of the thread 300 ms later */
	    "blocker 10/10 [000] 5.300000:    1000000 cpu-clock:\n" FRAMES("blocker_work")
	    /* its writer thread 11 wakes it: an exact switch-in of 10 */
	    SW("blocker", 10, 10, "001", "5.300500", 10, "S", 11) FRAMES("blocker_pipe_read")
		SW("blocker", 10, 11, "001", "5.400500", 11, "S", 10) FRAMES("blocker_writer")
	    /* a sample without time and a malformed switch count as bad, change nothing */
	    "blocker 10/12 [000] 5.450000:          1       sched:sched_switch: garbage\n\n"
	    /* the writer's next sample: its exit */
	    "blocker 10/11 [001] 5.500500:          1 sched:sched_process_exit: comm=blocker "
	    "pid=11 prio=120 group_dead=false\n\n");
	const struct offcpu_stats *st = offcpu_stats(f->oc);
	CHECK_EQ_U64(weight_of(f->tree, "blocker_sleep"), 300000000);
	CHECK_EQ_U64(weight_of(f->tree, "blocker_pipe_read"), 100000000);
	CHECK_EQ_U64(weight_of(f->tree, "blocker_writer"), 100000000);
	CHECK_EQ_U64(st->intervals, 3);
	CHECK_EQ_U64(st->ended_exact, 1);
	CHECK_EQ_U64(st->ended_sample, 2);
	CHECK_EQ_U64(st->open_at_end, 0);
	CHECK_EQ_U64(st->bad_switches, 1);
	feeder_free(f);

	/* A filter that lets only thread 11's waits begin. */
	f = feeder_new();
	f->only_tid = 11;
	run(f,
	    SW("blocker", 10, 10, "000", "5.000000", 10, "S", 11) FRAMES("blocker_sleep")
		SW("blocker", 10, 11, "000", "5.100000", 11, "S", 10) FRAMES("blocker_writer")
		    SW("blocker", 10, 10, "000", "5.300000", 10, "S", 11) FRAMES("blocker_sleep"));
	CHECK_EQ_U64(calltree_total(f->tree), 200000000);
	CHECK_EQ_U64(weight_of(f->tree, "blocker_writer"), 200000000);
	CHECK_EQ_U64(offcpu_stats(f->oc)->threads, 1);
	feeder_free(f);

	/* Out of time order: an end before its start is left out, not a huge weight. */
	f = feeder_new();
	run(f, SW("blocker", 10, 10, "000", "9.000000", 10, "S", 0) FRAMES("blocker_sleep")
		   SW("sh", 20, 20, "000", "8.000000", 20, "R", 10) FRAMES("sh_main"));
	CHECK_EQ_U64(calltree_total(f->tree), 0);
	CHECK_EQ_U64(offcpu_stats(f->oc)->out_of_order, 1);
	CHECK_EQ_U64(offcpu_stats(f->oc)->intervals, 0);
	feeder_free(f);

	/* Without the time column nothing can be measured. */
	f = feeder_new();
	run(f, "blocker 10/10 sched:sched_switch: prev_comm=blocker prev_pid=10 prev_prio=120 "
	       "prev_state=S ==> next_comm=x next_pid=0 next_prio=120\n\n");
	CHECK_EQ_U64(offcpu_stats(f->oc)->switches, 1);
	CHECK_EQ_U64(offcpu_stats(f->oc)->bad_switches, 1);
	CHECK_EQ_U64(offcpu_stats(f->oc)->threads, 0);
	feeder_free(f);
}

/* Many threads: the table grows and keeps each thread's pending wait. */
static void test_many_threads(void)
{
	struct functable *ft = functable_new();
	struct calltree *t = calltree_new(ft);
	struct offcpu *oc = offcpu_new(t);
	uint32_t path[2] = {functable_intern(ft, "app", "", FRAME_PROCESS),
			    functable_intern(ft, "wait", "/bin/app", FRAME_NATIVE)};
	uint32_t node = calltree_insert(t, path, 2);
	CHECK_EQ_U64(calltree_total(t), 0);
	enum { N = 50000 };
	for (int tid = 1; tid <= N; tid++)
		offcpu_block(oc, tid, 1000, node);
	/* Each thread's next sample, tid microseconds later. */
	char trace[160];
	for (int tid = 1; tid <= N; tid++) {
		struct stack_sample s = {.comm = "app",
					 .pid = 1,
					 .tid = tid,
					 .time_ns = 1000 + (uint64_t)tid * 1000,
					 .event = "cpu-clock",
					 .trace = trace};
		trace[0] = '\0';
		CHECK(!offcpu_sample(oc, &s));
	}
	offcpu_finish(oc);
	const struct offcpu_stats *st = offcpu_stats(oc);
	CHECK_EQ_U64(st->threads, N);
	CHECK_EQ_U64(st->intervals, N);
	CHECK_EQ_U64(st->open_at_end, 0);
	CHECK_EQ_U64(calltree_total(t), 1000ULL * N * (N + 1) / 2);
	CHECK_EQ_U64(calltree_node(t, node)->self, calltree_total(t));
	offcpu_free(oc);
	calltree_free(t);
	functable_free(ft);
}

/* The writers on a blocked-time tree: ms in the report, µs in folded stacks. */
static void test_writers(void)
{
	struct feeder *f = feeder_new();
	run(f,
	    SW("blocker", 10, 10, "000", "1.000000", 10, "S", 0) FRAMES("blocker_sleep")
		SW("swapper", 0, 0, "000", "1.250100", 0, "R", 10) FRAMES("idle")
		    SW("blocker", 10, 10, "000", "1.250200", 10, "S", 0) FRAMES("blocker_pipe_read")
			SW("swapper", 0, 0, "000", "1.400200", 0, "R", 10) FRAMES("idle"));
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	CHECK(!flamegraph_write_folded_scaled(out, f->tree, 1000));
	fclose(out);
	CHECK(strstr(buf, "blocker;main;blocker_sleep;__schedule 250100\n") != NULL);
	CHECK(strstr(buf, "blocker;main;blocker_pipe_read;__schedule 150000\n") != NULL);
	free(buf);

	struct report_opts ro = {
	    .percent_limit = 0.5, .top = 5, .unit = "blocked ms", .unit_div = 1000000};
	out = open_memstream(&buf, &len);
	struct calltree *callee = calltree_derive(f->tree, CALLTREE_DROP_FIRST | CALLTREE_INVERT);
	CHECK(!report_processes(out, f->tree, &ro));
	CHECK(!report_top_functions(out, f->tree, &ro));
	CHECK(!report_tree(out, callee, &ro));
	fclose(out);
	CHECK(strstr(buf, "# Blocked ms by command\n") != NULL);
	CHECK(strstr(buf, "  100.00%      400.10  blocker\n") != NULL);
	CHECK(strstr(buf, "  62.51%      250.10  [.] blocker_sleep  (blocker)\n") != NULL);
	CHECK(strstr(buf, "--62.51% [250.10]--blocker_sleep\n") != NULL);
	CHECK(strstr(buf, "--37.49% [150.00]--blocker_pipe_read\n") != NULL);
	if (test_failures)
		fputs(buf, stderr);
	free(buf);
	calltree_free(callee);
	feeder_free(f);
}

int main(void)
{
	test_system_wide();
	test_per_process();
	test_many_threads();
	test_writers();
	return TEST_DONE();
}
