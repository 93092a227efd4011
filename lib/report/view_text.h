/* view_text: a view (view.h) as text: the report of one tree (its head, its processes, its
 * top functions, its call graph, as perf report prints them), the blocked-time report, and
 * the findings: one sentence each for what a person checks first against PerfView (the GC
 * pause's share of the wall time and its main generation and reason, the hottest method, the
 * top allocating type and where it is allocated, the top throwing method, the most contended
 * lock).  All return 0, or -1 with pc_err() when writing fails. */
#ifndef PC_VIEW_TEXT_H
#define PC_VIEW_TEXT_H

#include "report.h"
#include "view.h"

/* The report of tree e: the head (summary.h), then the processes, the top functions and the
 * call graph (caller: top-down; else each function's callers). */
int view_text_tree(FILE *out, const char *input, const struct view *v, const struct event_tree *e,
		   const struct report_opts *ro, bool caller);
/* The blocked time; after_cpu: as the second part of a report (no head). */
int view_text_offcpu(FILE *out, const char *input, const struct view *v,
		     const struct report_opts *ro, bool caller, bool after_cpu);
/* The findings, "# - sentence" lines under "# Findings:"; nothing when there are none. */
int view_text_findings(FILE *out, const struct view *v, long pid);

#endif
