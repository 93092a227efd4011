/* collect_events: the events one collection opens, chosen from perfcollect's options.
 *
 *   default        cpu-clock at 1000 Hz
 *   -threadtime    cpu-clock + sched:sched_stat_sleep, sched:sched_switch,
 *                  sched:sched_process_exit (each occurrence sampled: period 1, raw data)
 *   -offcpu        the same tracepoints without cpu-clock (as perfcollect does)
 *   -hwevents      + cycles, instructions, branches, cache-misses at 1000 Hz, those the PMU
 *                  has; one warning names the others and the collection goes on
 *   -system        + major-faults, minor-faults at 1000 Hz
 *   no_cpu_samples (-gccollectonly, -gconly, -gcwithheap) only a dummy event: no samples,
 *                  the processes' names and maps for the .NET runtime events
 *
 * Every event samples user+kernel call stacks (-callgraph: the frame-pointer chain, with the
 * user registers and a copy of the top of the user stack in hybrid and dwarf modes) with the
 * same sample_id layout
 * (PERF_SAMPLE_IDENTIFIER, TID, TIME, CPU), so any record names its event and any
 * trailer parses with any attr.  The first event alone tracks mmap/comm/task, as perf's
 * first event does.  With tracepoints, when recording one process, a per-task sched_switch
 * fires only when the task switches out; the switch-ins off-CPU analysis needs (PerfView's
 * thread time, view's blocked time, the NetTrace's cswitch events) come twice: as
 * PERF_RECORD_SWITCH records on the first event, and as a second sched:sched_switch opened on
 * every CPU without call stacks, which the kernel filters to switches to the process's
 * threads (record.h: tid_filter; perf script prints them, so PerfView reads them).  All
 * CPUs, the side-band event asks for PERF_RECORD_SWITCH_CPU_WIDE records too.  The records
 * have the switches the tracepoint misses on some kernels (a CPU leaving idle for a woken
 * thread): post-processing writes those from them (postprocess/switch_fill.h).
 * Tracepoints need tracefs
 * (mounted when it is not); sched_switch is required, the other two are left out where the
 * kernel lacks them (sched_stat_sleep needs CONFIG_SCHEDSTATS).
 */
#ifndef PC_COLLECT_EVENTS_H
#define PC_COLLECT_EVENTS_H

#include "collect_opts.h"
#include "record/record.h"

struct collect_events_note {
	bool warn; /* a warning (also on stderr), else a log line */
	char *text;
};

struct collect_events {
	struct record_event *events;
	size_t nevents;
	uint64_t freq; /* Hz of the sampled events (-freq, lowered to the kernel's maximum) */
	/* perf's tracing data for the tracepoints (HEADER_TRACING_DATA); NULL without them */
	void *tracing_data;
	size_t tracing_data_size;
	/* What was left out and why: lines for the log, written by collect_events_log() once
	 * it is open (warnings also go to stderr then, once). */
	struct collect_events_note *notes;
	size_t nnotes;
};

/* -callgraph: "fp", "hybrid[,SIZE]", "dwarf[,SIZE]" (SIZE in bytes, K allowed; rounded up to
 * 8, at most 65528 as the kernel takes it).  -1 with pc_err() when it is none of those. */
int callgraph_parse(const char *s, struct callgraph *out);
/* The copy's size in bytes (the mode's default when none was given; 0 for fp). */
uint32_t callgraph_stack_bytes(const struct callgraph *cg);
const char *callgraph_name(enum callgraph_mode mode);

/* Fills ce for o; one_process: recording -pid (per-task events).  -1 with pc_err() when a
 * required part is missing (tracefs, sched:sched_switch). */
int collect_events_build(struct collect_events *ce, const struct collect_opts *o, bool one_process);
/* Writes the notes into the log (warnings on stderr too). */
void collect_events_log(const struct collect_events *ce);
void collect_events_release(struct collect_events *ce);

#endif
