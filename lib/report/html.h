/* html: the view as one self-contained HTML page (view -format html, view --report): its
 * script, styles and data inline, nothing fetched, so it opens offline and can be attached
 * to a ticket.
 *
 * The page shows every view the trace has (CPU samples, blocked time, allocations,
 * exceptions, contention) as a flame graph and a call tree with search, zoom, a
 * caller/callee view and the top functions; per-thread timelines with the GC pauses and
 * exceptions on the same axis, whose selected range filters the flame graph; the runtime's
 * tables (per GC, per JIT-compiled method), the findings and the recording's facts.  Or,
 * for -diff, one differential flame graph (red: more, blue: less).
 *
 * The data is written once as JSON inside a <script type="application/json"> element:
 * frames interned (name, module, kind), each tree as parent/function/self arrays in
 * preorder, each event's time per thread delta-coded in microseconds with its node.  Names
 * from the trace are data: escaped for JSON inside <script> (base/json.h), and the page's
 * script shows them only as text.  The script and styles are lib/report/html/, embedded at
 * build time (html_assets.h).
 */
#ifndef PC_HTML_H
#define PC_HTML_H

#include "html_times.h"
#include "view.h"

struct html_job {
	const char *path; /* "-" for stdout */
	const struct view *v;
	const char *input;		/* the trace, for the title */
	const char *title;		/* NULL: "perfcollect-c: <input>" */
	long pid;			/* the findings and tables of this process only (-1: all) */
	const struct html_times *times; /* NULL: no timelines */
	/* -diff: this one tree (derived with CALLTREE_MERGE_NAMES), against base_totals */
	const struct calltree *diff_tree;
	enum view_kind diff_kind;
	const char *diff_event;
	const uint64_t *base_totals; /* per node of diff_tree (diff_base_totals()) */
	uint64_t base_total;
	const char *base_name;
};

/* 0, or -1 (pc_err) with nothing left at path. */
int html_write(const struct html_job *j);

#endif
