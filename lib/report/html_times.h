/* html_times: each weighted event's time and thread, kept while view reads a trace
 * (view_observe()), for the HTML report's timelines and time-range selection.
 *
 * One small record per event (its view, its stack's node, thread, time, weight): the
 * report needs every sample's time to filter its flame graphs to a range, as PerfView's
 * time range does.  The view's trees keep memory bounded by unique stacks; this does not, so
 * only the HTML report asks for it.  Nodes are kept as the view gives them and mapped to
 * the final trees (view_node()) when the report is written.
 */
#ifndef PC_HTML_TIMES_H
#define PC_HTML_TIMES_H

#include "view.h"

#define HTML_TIMES_BLOCKED UINT32_MAX /* the view index of blocked time */

struct html_time {
	uint64_t time_ns; /* the trace's clock */
	uint64_t weight;
	uint32_t view; /* index into v->events, or HTML_TIMES_BLOCKED */
	uint32_t node; /* as built: view_node() maps it */
	int32_t pid, tid;
};

struct html_times {
	struct html_time *ev;
	size_t n, cap;
	const struct view *v;
};

struct html_times *html_times_new(void);
void html_times_free(struct html_times *t);
/* The observer to hand view_observe() with t as its argument. */
void html_times_observe(void *t, const struct view_event *e);

#endif
