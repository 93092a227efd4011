/* view_model: the data of a view (view.h), the structs its readers fill (view_build.h,
 * view_nettrace.h) and its formats read.  Types only: view.h is what makes and reads one. */
#ifndef PC_VIEW_MODEL_H
#define PC_VIEW_MODEL_H

#include "calltree.h"
#include "offcpu.h"
#include "pprof.h"
#include "runtime_report.h"
#include "stackfile.h"
#include "unnamed.h"
#include "view_kind.h"

struct event_tree {
	char *name;
	enum view_kind kind;
	struct calltree *tree; /* root first, a FRAME_PROCESS level under the root */
	uint64_t samples;      /* events added */
	uint64_t period;       /* the samples' periods added up (cpu-clock: nanoseconds) */
	uint32_t *node_map;    /* once frames were named: node as built -> node now (NULL:
				  the same; see view_node()) */
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

/* One weighted event, for timelines: handed to the observer as it is read. */
struct view_event {
	const struct event_tree *tree; /* NULL: blocked time */
	uint32_t node;		       /* its stack: a node of the tree as built (view_node()) */
	long pid, tid;	  /* pid -1: not known (a sched_switch wait: the thread only) */
	uint64_t time_ns; /* the trace's clock (CLOCK_MONOTONIC on Linux); 0 when unknown;
			     a wait's start */
	uint64_t weight;
};
typedef void (*view_observer)(void *arg, const struct view_event *e);

struct view_pending; /* frames named at the end (view_build.h) */
struct view_frame_cache;
struct clr_code;

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
	char **warnings;	   /* what could not be read, one line each */
	size_t nwarnings;
	bool has_perf_text; /* the input had perf script text (a .nettrace has none) */
	/* NetTrace inputs */
	struct clr_code **code; /* each stream's managed code */
	size_t ncode;
	struct view_pending *pending; /* frames to name at the end */
	struct view_frame_cache *frame_cache;
	size_t npending, pending_cap;
	uint64_t external_samples; /* SampleProfiler samples outside managed code */
	uint64_t external_ns;	   /* ... their weight in the blocked tree */
	uint32_t *offcpu_node_map; /* as event_tree's node_map, for the blocked tree */
	view_observer observer;
	void *observer_arg;
	struct unnamed *unnamed; /* frames left unnamed in stripped files (samples kept) */
};

#endif
