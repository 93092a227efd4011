/* view_kind: what a view's weights are, PerfView's views side by side, and how each output
 * format shows them.  Every view is the same model, a calltree of weighted stacks (root
 * first, a process level under the root); only the meaning of a weight differs:
 *
 *   kind             view option          weight                    PerfView's view
 *   VIEW_SAMPLES     -event cpu-clock     samples                   CPU Stacks
 *   VIEW_BLOCKED     -offcpu              ns blocked                Thread Time
 *   VIEW_ALLOC       -event alloc         bytes allocated           GC Heap Alloc Ignore Free
 *   VIEW_EXCEPTIONS  -event exception     exceptions thrown         Exceptions
 *   VIEW_CONTENTION  -event contention    ns waited for a lock      (contention stacks)
 */
#ifndef PC_VIEW_KIND_H
#define PC_VIEW_KIND_H

#include "base/util.h"

enum view_kind { VIEW_SAMPLES, VIEW_BLOCKED, VIEW_ALLOC, VIEW_EXCEPTIONS, VIEW_CONTENTION };

struct view_unit {
	const char *event;	/* the name -event takes ("alloc"); NULL: the sampled event's */
	const char *perfview;	/* PerfView's name of the view */
	const char *what;	/* a weight, in words: "samples", "ns blocked", "bytes" ... */
	const char *text_unit;	/* in the text report: "samples", "blocked ms" ... */
	uint64_t text_div;	/* the report divides weights by it (1: as they are) */
	uint64_t folded_div;	/* folded stacks: ns as us; 1 for counts and bytes */
	const char *pprof_type; /* profile.proto's sample type and unit */
	const char *pprof_unit;
	const char *speedscope_unit; /* "none", "nanoseconds", "bytes" */
	const char *svg_title;	     /* NULL: "Flame Graph" */
	bool cool;		     /* the SVG's blue palette (time spent waiting) */
};

const struct view_unit *view_unit(enum view_kind k);
/* The kind -event NAME asks for among the .NET views ("alloc", "exception", "contention");
 * -1 for any other name (a sampled event). */
int view_kind_of_event(const char *name);

#endif
