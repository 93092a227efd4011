/* Unit tests for switch_fill: switch records (laid out as the kernel writes them) against
 * sched_switch tracepoint texts in time order; a line only where the tracepoint's sequence
 * for a thread lacks the switch the record shows.  perfview_threadtime runs it on real
 * recordings where the kernel missed them. */
#include "postprocess/switch_fill.h"
#include "test.h"

/* A PERF_RECORD_SWITCH(_CPU_WIDE) record of task pid/tid on cpu; other = the CPU-wide
 * record's next_prev task (tid), or -1 for a per-thread record. */
struct fake {
	struct perf_event_header h;
	uint32_t other[2];
	struct perfdata_record rec;
};

static struct perfdata_record *rec_of(struct fake *f, bool out, bool preempt, uint32_t pid,
				      uint32_t tid, int other)
{
	memset(f, 0, sizeof(*f));
	f->h.type = other >= 0 ? PERF_RECORD_SWITCH_CPU_WIDE : PERF_RECORD_SWITCH;
	f->h.size = sizeof(f->h) + (other >= 0 ? 8 : 0);
	f->h.misc = (out ? PERF_RECORD_MISC_SWITCH_OUT : 0) |
		    (preempt ? PERF_RECORD_MISC_SWITCH_OUT_PREEMPT : 0);
	f->other[0] = f->other[1] = other >= 0 ? (uint32_t)other : 0;
	f->rec.header = &f->h;
	f->rec.id = (struct perf_sample_id){
	    .pid = pid, .tid = tid, .time = 1000, .cpu = 1, .has_time = true, .has_cpu = true};
	return &f->rec;
}

static const char *tp(int prev, const char *state, int next)
{
	static char s[200];
	snprintf(s, sizeof(s),
		 "prev_comm=a prev_pid=%d prev_prio=120 prev_state=%s ==> next_comm=b "
		 "next_pid=%d next_prio=120",
		 prev, state, next);
	return s;
}

static void test_per_thread(void)
{
	struct machine *m = machine_new();
	struct switch_fill *f = switch_fill_new();
	struct switch_fill_sample s;
	struct fake k;
	/* unknown thread: its records set the state, no line */
	CHECK(!switch_fill_record(f, rec_of(&k, false, false, 50, 51, -1), m, &s));
	/* the tracepoint has the switch-out; the record comes after it: no line */
	switch_fill_tracepoint(f, tp(51, "S", 0));
	CHECK(!switch_fill_record(f, rec_of(&k, true, false, 50, 51, -1), m, &s));
	/* the switch-in is missing from the tracepoint: its record gives it, from the idle task */
	CHECK(switch_fill_record(f, rec_of(&k, false, false, 50, 51, -1), m, &s));
	CHECK_EQ_U64(s.pid, 0);
	CHECK_EQ_U64(s.tid, 0);
	CHECK_STR(s.comm, "swapper");
	CHECK_STR(s.trace, "prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> "
			   "next_comm=:51 next_pid=51 next_prio=120");
	/* the tracepoint has the next switch-out and switch-in: no line */
	switch_fill_tracepoint(f, tp(51, "D", 0));
	CHECK(!switch_fill_record(f, rec_of(&k, true, false, 50, 51, -1), m, &s));
	switch_fill_tracepoint(f, tp(7, "S", 51));
	CHECK(!switch_fill_record(f, rec_of(&k, false, false, 50, 51, -1), m, &s));
	/* a missed switch-out, preempted */
	CHECK(switch_fill_record(f, rec_of(&k, true, true, 50, 51, -1), m, &s));
	CHECK_EQ_U64(s.tid, 51);
	CHECK(strstr(s.trace, "prev_pid=51 prev_prio=120 prev_state=R+ ==> next_comm=swapper/1 "
			      "next_pid=0 ") != NULL);
	/* and then its switch-in, also missed */
	CHECK(switch_fill_record(f, rec_of(&k, false, false, 50, 51, -1), m, &s));
	const struct switch_fill_stats *st = switch_fill_stats(f);
	CHECK_EQ_U64(st->ins, 2);
	CHECK_EQ_U64(st->outs, 1);
	/* not a switch record: ignored */
	k.h.type = PERF_RECORD_COMM;
	CHECK(!switch_fill_record(f, &k.rec, m, &s));
	switch_fill_free(f);
	machine_free(m);
}

static void test_cpu_wide(void)
{
	struct machine *m = machine_new();
	struct switch_fill *f = switch_fill_new();
	struct switch_fill_sample s;
	struct fake k;
	switch_fill_tracepoint(f, tp(0, "R", 60)); /* 60 runs */
	switch_fill_tracepoint(f, tp(70, "S", 0)); /* 70 waits */
	/* 60 -> 70 missed by the tracepoint: the OUT record of 60 gives the whole switch, with
	 * the task it names; 70's own IN record then adds nothing */
	CHECK(switch_fill_record(f, rec_of(&k, true, false, 60, 60, 70), m, &s));
	CHECK_EQ_U64(s.tid, 60);
	CHECK(strstr(s.trace, "prev_pid=60 prev_prio=120 prev_state=S ==> next_comm=:70 "
			      "next_pid=70 ") != NULL);
	CHECK(!switch_fill_record(f, rec_of(&k, false, false, 70, 70, 60), m, &s));
	/* the idle task's own records: no state to follow */
	CHECK(!switch_fill_record(f, rec_of(&k, false, false, 0, 0, 70), m, &s));
	/* idle -> 60 missed: 60's IN record names the idle task */
	CHECK(switch_fill_record(f, rec_of(&k, false, false, 60, 60, 0), m, &s));
	CHECK(strstr(s.trace, "prev_comm=swapper/1 prev_pid=0 ") != NULL);
	/* a truncated CPU-wide record: the other task taken for the idle one */
	rec_of(&k, true, false, 60, 60, 99);
	k.h.size = sizeof(k.h);
	CHECK(switch_fill_record(f, &k.rec, m, &s));
	CHECK(strstr(s.trace, "next_pid=0 ") != NULL);
	switch_fill_free(f);
	machine_free(m);
}

int main(void)
{
	test_per_thread();
	test_cpu_wide();
	return test_failures ? 1 : 0;
}
