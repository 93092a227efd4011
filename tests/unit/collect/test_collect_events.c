/* Unit tests for collect_events against this machine's kernel: which events each option
 * opens, with the attrs perf's readers rely on (one sample_id layout for all, side-band
 * records on the first event only, tracepoint ids from tracefs, tracing data that parses),
 * and -hwevents leaving out exactly the hardware events the kernel refuses. */
#include "collect/collect_events.h"
#include "record/tracepoints.h"
#include "record/tracefs.h"
#include "test.h"

#include <errno.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SAMPLE_ID_FIELDS                                                                           \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_TID |       \
	 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

static const struct record_event *find(const struct collect_events *ce, const char *name)
{
	for (size_t i = 0; i < ce->nevents; i++)
		if (!strcmp(ce->events[i].name, name))
			return &ce->events[i];
	return NULL;
}

static bool noted(const struct collect_events *ce, const char *text, bool warn)
{
	for (size_t i = 0; i < ce->nnotes; i++)
		if (strstr(ce->notes[i].text, text) && ce->notes[i].warn == warn)
			return true;
	return false;
}

/* What every set promises: the same sample_id fields and call stacks everywhere, the
 * side-band records once: with the first event for one process; for all CPUs with a dummy
 * event that counts from the start, while the sampling events start disabled (as perf
 * record -a). */
static void check_common(const struct collect_events *ce)
{
	CHECK(ce->nevents > 0);
	const struct record_event *dummy = find(ce, "dummy:HG");
	const struct record_event *sb = dummy ? dummy : &ce->events[0];
	if (dummy)
		CHECK(dummy == &ce->events[ce->nevents - 1] &&
		      dummy->attr.config == PERF_COUNT_SW_DUMMY && !dummy->attr.disabled);
	for (size_t i = 0; i < ce->nevents; i++) {
		const struct perf_event_attr *a = &ce->events[i].attr;
		CHECK((a->sample_type & SAMPLE_ID_FIELDS) ==
		      (ce->events[0].attr.sample_type & SAMPLE_ID_FIELDS));
		CHECK(a->sample_type & PERF_SAMPLE_IDENTIFIER);
		/* The per-CPU switch-in sched_switch alone has none: it is another task's. */
		CHECK(!(a->sample_type & PERF_SAMPLE_CALLCHAIN) ==
		      (ce->events[i].tid_filter != NULL));
		CHECK(a->sample_id_all && a->use_clockid && a->clockid == CLOCK_MONOTONIC);
		CHECK(a->inherit);
		bool is_sb = &ce->events[i] == sb;
		CHECK(a->mmap == is_sb && a->mmap2 == is_sb && a->comm == is_sb &&
		      a->task == is_sb);
		if (!is_sb)
			CHECK(!a->context_switch);
		if (dummy && !is_sb)
			CHECK(a->disabled);
		if (!dummy)
			CHECK(!a->disabled);
	}
}

static void check_tracepoints(const struct collect_events *ce, const char *tfs)
{
	const char *names[] = {"sched:sched_stat_sleep", "sched:sched_switch",
			       "sched:sched_process_exit"};
	for (size_t i = 0; i < 3; i++) {
		const struct record_event *ev = find(ce, names[i]);
		/* Whether the kernel has it, read from tracefs here. */
		char *p = xasprintf("%s/events/sched/%s/id", tfs, strchr(names[i], ':') + 1);
		char *text = read_file(p, NULL);
		free(p);
		if (!text) {
			CHECK(ev == NULL);
			CHECK(noted(ce, names[i], false));
			continue;
		}
		CHECK(ev != NULL);
		if (ev) {
			CHECK_EQ_U64(ev->attr.type, PERF_TYPE_TRACEPOINT);
			CHECK_EQ_U64(ev->attr.config, strtoull(text, NULL, 10));
			CHECK(!ev->attr.freq && ev->attr.sample_period == 1);
			CHECK(ev->attr.sample_type & PERF_SAMPLE_RAW);
		}
		free(text);
	}
	/* The tracing data decodes a sched_switch record: its formats are in it. */
	CHECK(ce->tracing_data != NULL);
	const struct record_event *sw = find(ce, "sched:sched_switch");
	struct trace_formatter *f =
	    ce->tracing_data ? trace_formatter_new(ce->tracing_data, ce->tracing_data_size) : NULL;
	CHECK(f != NULL);
	if (f && sw) {
		unsigned char raw[64] = {0};
		uint16_t type = (uint16_t)sw->attr.config;
		memcpy(raw, &type, 2);
		CHECK_STR(trace_formatter_event_name(f, raw, sizeof(raw)), "sched:sched_switch");
	}
	trace_formatter_free(f);
}

/* -pid with tracepoints: a second sched:sched_switch, per CPU, filtered to the switches to
 * the process's threads; its filter is one the kernel takes. */
static void check_switch_in(const struct collect_events *ce, bool one_process)
{
	const struct record_event *in = NULL;
	size_t nswitch = 0;
	for (size_t i = 0; i < ce->nevents; i++)
		if (!strcmp(ce->events[i].name, "sched:sched_switch")) {
			nswitch++;
			if (ce->events[i].tid_filter)
				in = &ce->events[i];
		}
	CHECK_EQ_U64(nswitch, one_process ? 2 : 1);
	CHECK((in != NULL) == one_process);
	if (!in)
		return;
	CHECK(in->attr.sample_type & PERF_SAMPLE_RAW);
	pid_t tids[] = {1200, 1201, 1202, 1300, 1204, 7};
	char *f = in->tid_filter(tids, ARRAY_SIZE(tids), 4095);
	CHECK_STR(f, "next_pid==7||(next_pid>=1200&&next_pid<=1202)||next_pid==1204||"
		     "next_pid==1300");
	free(f);
	f = in->tid_filter(tids, 0, 4095);
	CHECK_STR(f, "next_pid==-1");
	free(f);
	/* Too many threads for the kernel's page: ranges merged until it fits. */
	pid_t many[600];
	for (size_t i = 0; i < ARRAY_SIZE(many); i++)
		many[i] = (pid_t)(100000 + 3 * i);
	f = in->tid_filter(many, ARRAY_SIZE(many), 4095);
	CHECK(f && strlen(f) <= 4095 && strstr(f, "next_pid>=100000&&"));
	free(f);
	/* The kernel takes the filter on the real tracepoint. */
	pid_t self = getpid();
	f = in->tid_filter(&self, 1, 4095);
	struct perf_event_attr a = in->attr;
	a.disabled = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, -1, 0, -1, 0);
	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK(ioctl(fd, PERF_EVENT_IOC_SET_FILTER, f) == 0);
		close(fd);
	}
	free(f);
}

/* The kernel's own answer for a hardware event, asked directly. */
static bool kernel_has_hw(uint64_t config)
{
	struct perf_event_attr a = {
	    .type = PERF_TYPE_HARDWARE, .size = sizeof(a), .config = config, .disabled = 1};
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd >= 0)
		close(fd);
	return fd >= 0 || (errno != ENOENT && errno != EOPNOTSUPP && errno != ENODEV);
}

int main(void)
{
	if (getuid() != 0)
		SKIP("needs root for tracefs and perf_event_open: run the tests as root");
	const char *tfs = tracefs_path();
	if (!tfs)
		SKIP("no tracefs here: scripts/setup mounts it (as root)");
	struct collect_events ce;

	/* Default: cpu-clock at 1000 Hz, nothing else. */
	struct collect_opts o = {.pid = -1};
	CHECK(collect_events_build(&ce, &o, false) == 0);
	check_common(&ce);
	CHECK_EQ_U64(ce.nevents, 2); /* and the dummy */
	CHECK_STR(ce.events[0].name, "cpu-clock");
	CHECK(ce.events[0].attr.type == PERF_TYPE_SOFTWARE &&
	      ce.events[0].attr.config == PERF_COUNT_SW_CPU_CLOCK);
	CHECK(ce.events[0].attr.freq && ce.events[0].attr.sample_freq == 1000);
	CHECK(!ce.events[0].attr.context_switch);
	CHECK(ce.tracing_data == NULL);
	collect_events_release(&ce);

	/* -offcpu on one process: tracepoints only, switch-in records on the first event. */
	o = (struct collect_opts){.pid = 1, .offcpu = true};
	CHECK(collect_events_build(&ce, &o, true) == 0);
	check_common(&ce);
	CHECK(find(&ce, "cpu-clock") == NULL);
	check_tracepoints(&ce, tfs);
	check_switch_in(&ce, true);
	CHECK(ce.events[0].attr.context_switch);
	collect_events_release(&ce);

	/* -offcpu system-wide: sched_switch's next_pid says who switches in. */
	o = (struct collect_opts){.pid = -1, .offcpu = true};
	CHECK(collect_events_build(&ce, &o, false) == 0);
	check_common(&ce);
	check_switch_in(&ce, false);
	CHECK(!ce.events[0].attr.context_switch);
	collect_events_release(&ce);

	/* -threadtime (also with -offcpu): CPU samples first, then the tracepoints once. */
	o = (struct collect_opts){.pid = 1, .threadtime = true};
	CHECK(collect_events_build(&ce, &o, true) == 0);
	check_common(&ce);
	CHECK_STR(ce.events[0].name, "cpu-clock");
	CHECK(ce.events[0].attr.context_switch);
	check_tracepoints(&ce, tfs);
	size_t n = ce.nevents;
	collect_events_release(&ce);
	o.offcpu = true;
	CHECK(collect_events_build(&ce, &o, true) == 0);
	CHECK_EQ_U64(ce.nevents, n - 1);
	collect_events_release(&ce);

	/* -hwevents: exactly what the kernel has, one warning naming the rest. */
	o = (struct collect_opts){.pid = -1, .hwevents = true};
	CHECK(collect_events_build(&ce, &o, false) == 0);
	check_common(&ce);
	CHECK(find(&ce, "cpu-clock") != NULL);
	const struct {
		const char *name;
		uint64_t config;
	} hw[] = {{"cycles", PERF_COUNT_HW_CPU_CYCLES},
		  {"instructions", PERF_COUNT_HW_INSTRUCTIONS},
		  {"branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
		  {"cache-misses", PERF_COUNT_HW_CACHE_MISSES}};
	size_t missing = 0, warnings = 0;
	for (size_t i = 0; i < 4; i++) {
		const struct record_event *ev = find(&ce, hw[i].name);
		if (kernel_has_hw(hw[i].config)) {
			CHECK(ev != NULL && ev->attr.type == PERF_TYPE_HARDWARE &&
			      ev->attr.config == hw[i].config && ev->attr.sample_freq == 1000);
		} else {
			CHECK(ev == NULL);
			CHECK(noted(&ce, hw[i].name, true));
			missing++;
		}
	}
	for (size_t i = 0; i < ce.nnotes; i++)
		warnings += ce.notes[i].warn;
	CHECK_EQ_U64(warnings, missing ? 1 : 0);
	if (missing)
		CHECK(noted(&ce, "hardware events not available here: ", true) &&
		      noted(&ce, "; continuing with the rest", true));
	collect_events_release(&ce);

	/* -system: the two fault counters, sampled with stacks. */
	o = (struct collect_opts){.pid = -1, .system = true};
	CHECK(collect_events_build(&ce, &o, false) == 0);
	check_common(&ce);
	const struct record_event *maj = find(&ce, "major-faults"),
				  *min = find(&ce, "minor-faults");
	CHECK(maj && maj->attr.type == PERF_TYPE_SOFTWARE &&
	      maj->attr.config == PERF_COUNT_SW_PAGE_FAULTS_MAJ);
	CHECK(min && min->attr.type == PERF_TYPE_SOFTWARE &&
	      min->attr.config == PERF_COUNT_SW_PAGE_FAULTS_MIN && min->attr.freq);
	CHECK_EQ_U64(ce.nevents, 4); /* cpu-clock, the faults, the dummy */
	collect_events_release(&ce);

	/* -freq: every sampled event at that rate; above the kernel's maximum, lowered to it
	 * with a warning, as perf record -F does. */
	o = (struct collect_opts){.pid = -1, .freq = 250, .system = true};
	CHECK(collect_events_build(&ce, &o, false) == 0);
	for (size_t i = 0; i < ce.nevents; i++)
		CHECK(ce.events[i].attr.freq && ce.events[i].attr.sample_freq == 250);
	CHECK_EQ_U64(ce.freq, 250);
	collect_events_release(&ce);
	char *max_s = read_file("/proc/sys/kernel/perf_event_max_sample_rate", NULL);
	long max = max_s ? atol(max_s) : 0;
	free(max_s);
	if (max > 0) {
		o = (struct collect_opts){.pid = -1, .freq = max + 1};
		CHECK(collect_events_build(&ce, &o, false) == 0);
		CHECK(ce.events[0].attr.sample_freq == (uint64_t)max);
		CHECK(noted(&ce, "kernel.perf_event_max_sample_rate", true));
		collect_events_release(&ce);
	}

	return test_failures ? 1 : 0;
}
