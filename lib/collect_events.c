/* collect_events: see collect_events.h. */
#include "collect_events.h"
#include "base/log.h"
#include "record/tracepoints.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SAMPLE_FREQ 1000

static void add_note(struct collect_events *ce, bool warn, char *text)
{
	ce->notes = xrealloc(ce->notes, (ce->nnotes + 1) * sizeof(*ce->notes));
	ce->notes[ce->nnotes++] = (struct collect_events_note){warn, text};
}

static struct record_event *add_event(struct collect_events *ce, const char *name)
{
	ce->events = xrealloc(ce->events, (ce->nevents + 1) * sizeof(*ce->events));
	struct record_event *ev = &ce->events[ce->nevents++];
	memset(ev, 0, sizeof(*ev));
	ev->name = name;
	struct perf_event_attr *a = &ev->attr;
	a->size = sizeof(*a);
	/* The same sample_id fields for every event (see the header). */
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			 PERF_SAMPLE_CALLCHAIN;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC; /* the clock .NET's jitdump uses */
	a->sample_id_all = 1;
	a->inherit = 1;
	return ev;
}

/* A counter sampled at SAMPLE_FREQ Hz. */
static struct record_event *add_sampled(struct collect_events *ce, const char *name, uint32_t type,
					uint64_t config)
{
	struct record_event *ev = add_event(ce, name);
	ev->attr.type = type;
	ev->attr.config = config;
	ev->attr.freq = 1;
	ev->attr.sample_freq = SAMPLE_FREQ;
	return ev;
}

static const struct {
	const char *name;
	uint64_t config;
} hw_events[] = {
    {"cycles", PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_COUNT_HW_INSTRUCTIONS},
    {"branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"cache-misses", PERF_COUNT_HW_CACHE_MISSES},
};

/* The PMU events this machine has; the others are named in one warning. */
static void add_hw_events(struct collect_events *ce)
{
	char *missing = NULL;
	int reason = 0;
	for (size_t i = 0; i < ARRAY_SIZE(hw_events); i++) {
		struct record_event *ev =
		    add_sampled(ce, hw_events[i].name, PERF_TYPE_HARDWARE, hw_events[i].config);
		/* Other errors (permissions ...) are recorder_open()'s to report. */
		int err = recorder_probe_event(&ev->attr);
		if (!recorder_event_unsupported(err))
			continue;
		ce->nevents--;
		char *m = xasprintf("%s%s%s", missing ? missing : "", missing ? ", " : "",
				    hw_events[i].name);
		free(missing);
		missing = m;
		if (!reason)
			reason = err;
	}
	if (!missing)
		return;
	add_note(ce, true,
		 xasprintf("hardware events not available here: %s (%s); continuing with the rest",
			   missing,
			   reason == EOPNOTSUPP ? "the PMU cannot sample them" : "no PMU"));
	free(missing);
}

/* perfcollect's order. */
static const struct {
	const char *name;
	bool required;
	const char *why_missing;
} sched_tracepoints[] = {
    {"sched:sched_stat_sleep", false, "the kernel has no schedstats (CONFIG_SCHEDSTATS)"},
    {"sched:sched_switch", true, NULL},
    {"sched:sched_process_exit", false, "this kernel lacks it"},
};

static int add_tracepoints(struct collect_events *ce)
{
	if (!tracefs_path())
		return -1;
	const char *names[ARRAY_SIZE(sched_tracepoints)];
	size_t n = 0;
	for (size_t i = 0; i < ARRAY_SIZE(sched_tracepoints); i++) {
		uint64_t id;
		if (tracepoint_id(sched_tracepoints[i].name, &id) < 0) {
			if (sched_tracepoints[i].required)
				return -1;
			add_note(ce, false,
				 xasprintf("tracepoint %s is not recorded: %s",
					   sched_tracepoints[i].name,
					   sched_tracepoints[i].why_missing));
			continue;
		}
		struct record_event *ev = add_event(ce, sched_tracepoints[i].name);
		ev->attr.type = PERF_TYPE_TRACEPOINT;
		ev->attr.config = id;
		ev->attr.sample_period = 1; /* every occurrence */
		ev->attr.sample_type |= PERF_SAMPLE_RAW;
		names[n++] = sched_tracepoints[i].name;
	}
	return tracing_data_build(names, n, &ce->tracing_data, &ce->tracing_data_size);
}

/* Side-band records come once, with the first event. */
static void add_side_band(struct collect_events *ce, bool switches)
{
	struct perf_event_attr *first = &ce->events[0].attr;
	first->mmap = 1;
	first->mmap2 = 1;
	first->comm = 1;
	first->comm_exec = 1;
	first->task = 1;
	first->context_switch = switches;
}

int collect_events_build(struct collect_events *ce, const struct collect_opts *o, bool one_process)
{
	memset(ce, 0, sizeof(*ce));
	if (o->no_cpu_samples) {
		/* perfcollect's -gc* options record no perf events at all; a dummy event keeps
		 * the processes' side-band records (names, maps) for the runtime events. */
		struct record_event *ev = add_event(ce, "dummy");
		ev->attr.type = PERF_TYPE_SOFTWARE;
		ev->attr.config = PERF_COUNT_SW_DUMMY;
		ev->attr.sample_period = 1;
		add_side_band(ce, false);
		return 0;
	}
	/* perfcollect: -offcpu turns CPU samples off, -threadtime keeps them. */
	if (!o->offcpu)
		add_sampled(ce, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	if (o->hwevents)
		add_hw_events(ce);
	if (o->system) {
		add_sampled(ce, "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ);
		add_sampled(ce, "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN);
	}
	bool tracepoints = o->offcpu || o->threadtime;
	if (tracepoints && add_tracepoints(ce) < 0) {
		collect_events_release(ce);
		return -1;
	}
	if (!ce->nevents) { /* not reached: -offcpu has sched_switch or failed above */
		collect_events_release(ce);
		return pc_err("no event to record");
	}
	add_side_band(ce, tracepoints && one_process);
	return 0;
}

void collect_events_log(const struct collect_events *ce)
{
	for (size_t i = 0; i < ce->nnotes; i++) {
		if (ce->notes[i].warn)
			log_warn("%s", ce->notes[i].text);
		else
			log_info("%s", ce->notes[i].text);
	}
}

void collect_events_release(struct collect_events *ce)
{
	for (size_t i = 0; i < ce->nnotes; i++)
		free(ce->notes[i].text);
	free(ce->notes);
	free(ce->events);
	free(ce->tracing_data);
	memset(ce, 0, sizeof(*ce));
}
