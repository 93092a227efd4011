/* view: the model behind the `view` command.  One streaming pass over perf script text
 * (perf.data.txt from a trace.zip, a .trace directory, a bare file, or stdin) builds a
 * calltree per event and, from sched_switch samples, a calltree of blocked (off-CPU) time
 * (offcpu.h).  Memory follows the number of unique stacks and threads, not of samples.
 * The .NET runtime's events of the trace (dotnet-<pid>.nettrace in the zip or directory,
 * or a *.nettrace given alone) are read first into a runtime_report, so the pass can place
 * each CPU sample on their timeline.
 */
#ifndef PC_VIEW_H
#define PC_VIEW_H

#include "calltree.h"
#include "offcpu.h"
#include "pprof.h"
#include "runtime_report.h"
#include "stackfile.h"
#include "unnamed.h"

struct event_tree {
	char *name;
	struct calltree *tree; /* root first, a FRAME_PROCESS level under the root */
	uint64_t samples;
	uint64_t period; /* the samples' periods added up (cpu-clock: nanoseconds) */
};

/* What the recording was, for the head of a report: from the samples themselves and, where
 * the input has one (a trace.zip or .trace directory), from perfcollect.log. */
struct view_recording {
	uint64_t samples;	    /* every sample read, filtered or not */
	uint64_t first_ns, last_ns; /* sample times; 0 when the input has none */
	size_t cpus_sampled;	    /* distinct [cpu] values; 0 when the input has none */
	double logged_seconds;	    /* "recorded for N s"; 0 when unknown */
	long logged_cpus;	    /* CPUs of the machine; -1 when unknown */
	long logged_hz;		    /* the sampling frequency asked; -1 when unknown */
	long long lost;		    /* lost samples; -1 when unknown (no perfcollect.log) */
	int64_t wall_start;	    /* the log's first time stamp, s since the epoch; 0 if none */
	bool has_log;
};

struct view {
	struct functable *ft;
	struct calltree *offcpu_tree; /* nanoseconds blocked, by the stack of the switch-out */
	struct offcpu *oc;
	struct event_tree *events;
	size_t nevents, events_cap, last_event;
	char **comms; /* -processfilter, split at commas */
	size_t ncomms, comms_cap;
	long pid, tid;	  /* -1: any */
	uint64_t skipped; /* samples the filters left out */
	uint32_t *path;
	size_t path_cap;
	struct view_recording rec;
	uint64_t *cpu_bits; /* CPUs seen, a bit each */
	size_t cpu_words;
	struct runtime_report *rt; /* the .NET runtime events read, or NULL */
	char **rt_warnings;	   /* what could not be read of them, one line each */
	size_t nrt_warnings;
	bool has_perf_text;	 /* the input had perf script text (a .nettrace has none) */
	struct unnamed *unnamed; /* frames left unnamed in stripped files (samples kept) */
};

/* pid, tid: -1 for any; processfilter: comma-separated command names, or NULL. */
struct view *view_new(long pid, long tid, const char *processfilter);
void view_free(struct view *v);
/* Reads input ("-" for stdin) to its end; -1 with pc_err() on an unreadable input. */
int view_read(struct view *v, const char *input, struct stackfile_stats *st);
/* The event to show: want; else cpu-clock; else the first event that is not a tracepoint;
 * else, when any_event, the first.  NULL if none. */
struct event_tree *view_choose_event(struct view *v, const char *want, bool any_event);
/* The build-ids perf.data holds (HEADER_BUILD_ID) for the input's shared objects, read from
 * the perf.data beside perf.data.txt (in the zip, or the .trace directory); NULL with *n = 0
 * when there is none.  Free with view_free_build_ids(). */
struct pprof_build_id *view_read_build_ids(const char *input, size_t *n);
void view_free_build_ids(struct pprof_build_id *ids, size_t n);
/* One line on f for the frames left unnamed in files without symbols, with their build-ids
 * (unnamed.h); nothing when there are none. */
void view_print_unnamed(const struct view *v, const char *input, FILE *f);
/* "name (count), ..." of every event but except. */
void view_list_events(FILE *f, const struct view *v, const struct event_tree *except);

#endif
