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
#include "runtime_report.h"
#include "stackfile.h"

struct event_tree {
	char *name;
	struct calltree *tree; /* root first, a FRAME_PROCESS level under the root */
	uint64_t samples;
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
	struct runtime_report *rt; /* the .NET runtime events read, or NULL */
	char **rt_warnings;	   /* what could not be read of them, one line each */
	size_t nrt_warnings;
	bool has_perf_text; /* the input had perf script text (a .nettrace has none) */
};

/* pid, tid: -1 for any; processfilter: comma-separated command names, or NULL. */
struct view *view_new(long pid, long tid, const char *processfilter);
void view_free(struct view *v);
/* Reads input ("-" for stdin) to its end; -1 with pc_err() on an unreadable input. */
int view_read(struct view *v, const char *input, struct stackfile_stats *st);
/* The event to show: want; else cpu-clock; else the first event that is not a tracepoint;
 * else, when any_event, the first.  NULL if none. */
struct event_tree *view_choose_event(struct view *v, const char *want, bool any_event);
/* "name (count), ..." of every event but except. */
void view_list_events(FILE *f, const struct view *v, const struct event_tree *except);

#endif
