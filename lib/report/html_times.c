/* html_times: see html_times.h. */
#include "html_times.h"

#include <stdlib.h>

struct html_times *html_times_new(void)
{
	return xcalloc(1, sizeof(struct html_times));
}

void html_times_free(struct html_times *t)
{
	if (!t)
		return;
	free(t->ev);
	free(t);
}

void html_times_observe(void *arg, const struct view_event *e)
{
	struct html_times *t = arg;
	if (!e->time_ns)
		return; /* a time the input does not have: in the trees, not on the timeline */
	grow_array((void **)&t->ev, &t->cap, t->n + 1, sizeof(*t->ev));
	/* The events array may move as the view grows it: keep the index, not the pointer. */
	uint32_t view = HTML_TIMES_BLOCKED;
	if (e->tree)
		view = (uint32_t)(e->tree - t->v->events);
	t->ev[t->n++] = (struct html_time){.time_ns = e->time_ns,
					   .weight = e->weight,
					   .view = view,
					   .node = e->node,
					   .pid = (int32_t)e->pid,
					   .tid = (int32_t)e->tid};
}
