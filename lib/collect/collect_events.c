/* collect_events: see collect_events.h. */
#include "collect_events.h"
#include "base/log.h"
#include "base/proc.h"
#include "record/tracepoints.h"
#include "record/tracefs.h"
#include "unwind/unwind.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define DEFAULT_FREQ 1000 /* perfcollect's */
/* The copy of the user stack per sample.  hybrid: HYBRID_STACK (see bench/README.md's
 * "Call stacks" for the measurement it comes from); dwarf: perf's default. */
#define HYBRID_STACK	2048
#define DWARF_STACK	8192
#define MAX_STACK_BYTES 65528 /* the kernel's limit (u16, 8-aligned) */

static const char *const callgraph_names[] = {
    [CALLGRAPH_HYBRID] = "hybrid",
    [CALLGRAPH_FP] = "fp",
    [CALLGRAPH_DWARF] = "dwarf",
};

const char *callgraph_name(enum callgraph_mode mode)
{
	return mode < ARRAY_SIZE(callgraph_names) ? callgraph_names[mode] : "?";
}

int callgraph_parse(const char *s, struct callgraph *out)
{
	memset(out, 0, sizeof(*out));
	size_t len = strcspn(s, ",");
	size_t m = 0;
	while (m < ARRAY_SIZE(callgraph_names) &&
	       (strlen(callgraph_names[m]) != len || strncasecmp(s, callgraph_names[m], len)))
		m++;
	if (m == ARRAY_SIZE(callgraph_names))
		return pc_err("-callgraph '%s': choose fp, hybrid (the default) or dwarf, with a "
			      "stack size after a comma for the last two (dwarf,16K)",
			      s);
	out->mode = (enum callgraph_mode)m;
	if (!s[len])
		return 0;
	uint64_t bytes;
	if (out->mode == CALLGRAPH_FP)
		return pc_err("-callgraph fp records no stack copy: drop ',%s'", s + len + 1);
	if (parse_size(s + len + 1, &bytes) < 0 || !bytes || bytes > MAX_STACK_BYTES)
		return pc_err("-callgraph %s: '%s' is not a stack size from 8 bytes to 64K "
			      "(bytes; K allowed)",
			      callgraph_names[m], s + len + 1);
	out->stack_bytes = (uint32_t)((bytes + 7) & ~7ull);
	if (out->stack_bytes > MAX_STACK_BYTES)
		out->stack_bytes = MAX_STACK_BYTES;
	return 0;
}

uint32_t callgraph_stack_bytes(const struct callgraph *cg)
{
	if (cg->mode == CALLGRAPH_FP)
		return 0;
	if (cg->stack_bytes)
		return cg->stack_bytes;
	return cg->mode == CALLGRAPH_DWARF ? DWARF_STACK : HYBRID_STACK;
}

/* The user registers and stack copy the call-graph mode asks for, on every event that has
 * call stacks.  hybrid keeps the kernel's chain of user frames; dwarf has none (perf's
 * layout: the copy is unwound instead). */
static void apply_callgraph(struct collect_events *ce, const struct callgraph *cg)
{
#ifndef __x86_64__
	if (cg->mode != CALLGRAPH_FP) {
		add_note(ce, true,
			 xasprintf("-callgraph %s: only on x86-64 here; frame pointers alone",
				   callgraph_name(cg->mode)));
		return;
	}
#endif
	if (cg->mode == CALLGRAPH_FP)
		return;
	for (size_t i = 0; i < ce->nevents; i++) {
		struct perf_event_attr *a = &ce->events[i].attr;
		if (!(a->sample_type & PERF_SAMPLE_CALLCHAIN))
			continue;
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_stack_user = callgraph_stack_bytes(cg);
		if (cg->mode == CALLGRAPH_DWARF) {
			a->sample_regs_user = UNWIND_PERF_REGS_ALL;
			a->exclude_callchain_user = 1;
		} else {
			a->sample_regs_user = UNWIND_PERF_REGS_HYBRID;
		}
	}
}

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

/* A counter sampled at ce->freq Hz. */
static struct record_event *add_sampled(struct collect_events *ce, const char *name, uint32_t type,
					uint64_t config)
{
	struct record_event *ev = add_event(ce, name);
	ev->attr.type = type;
	ev->attr.config = config;
	ev->attr.freq = 1;
	ev->attr.sample_freq = ce->freq;
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
		int err = recorder_probe_event(&ev->attr, 0, -1);
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

/* One run lo..hi of thread ids for the switch-in filter. */
struct tid_run {
	pid_t lo, hi;
};

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return x < y ? -1 : x > y;
}

/* "next_pid==a||(next_pid>=b&&next_pid<=c)||...", or NULL when longer than max_len. */
static char *switch_in_text(const struct tid_run *runs, size_t n, size_t max_len)
{
	size_t cap = max_len + 64, len = 0;
	char *s = xmalloc(cap);
	s[0] = 0;
	for (size_t i = 0; i < n && len <= max_len; i++) {
		const char *sep = i ? "||" : "";
		if (runs[i].lo == runs[i].hi)
			len += (size_t)snprintf(s + len, cap - len, "%snext_pid==%d", sep,
						(int)runs[i].lo);
		else
			len +=
			    (size_t)snprintf(s + len, cap - len, "%s(next_pid>=%d&&next_pid<=%d)",
					     sep, (int)runs[i].lo, (int)runs[i].hi);
	}
	if (len > max_len) {
		free(s);
		return NULL;
	}
	return s;
}

/* The filter of the per-CPU sched_switch that records one process's switch-ins: switches to
 * one of its threads (the recorder drops those taken in one of them: the per-thread
 * sched_switch has them, with the stack that blocked).  Thread ids that follow each other
 * make one range.  Past the kernel's length limit (a few hundred threads) ranges are
 * merged over the smallest gaps, and switches to the threads of other processes in those
 * gaps are recorded too: real switches, of no harm to the process's own. */
static char *switch_in_filter(const pid_t *tids, size_t n, size_t max_len)
{
	if (!n)
		return xstrdup("next_pid==-1"); /* no thread left: nothing */
	pid_t *sorted = xmalloc(n * sizeof(*sorted));
	memcpy(sorted, tids, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_pid);
	struct tid_run *runs = xmalloc(n * sizeof(*runs));
	size_t nruns = 0;
	for (size_t i = 0; i < n; i++) {
		if (nruns && sorted[i] <= runs[nruns - 1].hi + 1) {
			if (sorted[i] > runs[nruns - 1].hi)
				runs[nruns - 1].hi = sorted[i];
			continue;
		}
		runs[nruns++] = (struct tid_run){sorted[i], sorted[i]};
	}
	free(sorted);
	char *text;
	for (long gap = 2; !(text = switch_in_text(runs, nruns, max_len)); gap *= 2) {
		size_t m = 0;
		for (size_t i = 0; i < nruns; i++) {
			if (m && (long)runs[i].lo - (long)runs[m - 1].hi <= gap)
				runs[m - 1].hi = runs[i].hi;
			else
				runs[m++] = runs[i];
		}
		nruns = m;
	}
	free(runs);
	return text;
}

static int add_tracepoints(struct collect_events *ce, bool one_process)
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
		/* One process: a per-thread sched_switch fires only when its thread leaves
		 * the CPU.  Its switch-ins from other tasks, which end each wait (PerfView's
		 * thread time needs them, as does any blocked time), come from a per-CPU one
		 * filtered to them; without a call stack (it would be the other task's). */
		if (one_process && !strcmp(sched_tracepoints[i].name, "sched:sched_switch")) {
			struct perf_event_attr attr = ev->attr; /* add_event() moves ev */
			struct record_event *in = add_event(ce, sched_tracepoints[i].name);
			in->attr = attr;
			in->attr.sample_type &= ~(uint64_t)PERF_SAMPLE_CALLCHAIN;
			in->tid_filter = switch_in_filter;
		}
	}
	return tracing_data_build(names, n, &ce->tracing_data, &ce->tracing_data_size);
}

/* As perf record -F: above kernel.perf_event_max_sample_rate the kernel refuses the event,
 * so the rate is lowered to it, and said. */
static void set_freq(struct collect_events *ce, long want)
{
	ce->freq = want > 0 ? (uint64_t)want : DEFAULT_FREQ;
	long max = sysctl_long("kernel.perf_event_max_sample_rate", 0);
	if (max > 0 && ce->freq > (uint64_t)max) {
		add_note(ce, true,
			 xasprintf("-freq %" PRIu64 " is above kernel.perf_event_max_sample_rate "
				   "(%ld Hz): sampling at %ld Hz (raise it with 'sysctl "
				   "kernel.perf_event_max_sample_rate=N'; the kernel lowers it "
				   "again when sampling takes too long)",
				   ce->freq, max, max));
		ce->freq = (uint64_t)max;
	}
}

/* Side-band records (process names, maps, forks and exits) come once, with sb. */
static void add_side_band(struct perf_event_attr *sb, bool switches)
{
	sb->mmap = 1;
	sb->mmap2 = 1;
	sb->comm = 1;
	sb->comm_exec = 1;
	sb->task = 1;
	sb->context_switch = switches;
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
		add_side_band(&ev->attr, false);
		return 0;
	}
	set_freq(ce, o->freq);
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
	if (tracepoints && add_tracepoints(ce, one_process) < 0) {
		collect_events_release(ce);
		return -1;
	}
	apply_callgraph(ce, &o->callgraph);
	if (!ce->nevents) { /* not reached: -offcpu has sched_switch or failed above */
		collect_events_release(ce);
		return pc_err("no event to record");
	}
	/* Side-band records come once: -pid, with the first event (which counts from the
	 * start: its FORK records tell which threads inherited the events while they were
	 * opened).  All CPUs, as perf record -a: the sampling events start disabled, so the
	 * rings do not fill while /proc is read, and a dummy event opened enabled carries the
	 * side-band from the start, so a process started meanwhile is not missed. */
	struct perf_event_attr *sb = &ce->events[0].attr;
	if (!one_process) {
		for (size_t i = 0; i < ce->nevents; i++)
			ce->events[i].attr.disabled = 1;
		struct record_event *dummy =
		    add_sampled(ce, "dummy:HG", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
		sb = &dummy->attr;
	}
	add_side_band(sb, tracepoints);
	/* perf's unwinder reads each file's .eh_frame_hdr through its data mapping */
	sb->mmap_data = o->callgraph.mode == CALLGRAPH_DWARF;
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
