/* view_build: how inputs fill a view (view.h): its trees, filters and warnings, and the
 * frames of EventPipe stacks that can be named only at the end of the input.  Used by
 * view.c (perf script text, and the order of an input's parts) and view_nettrace.c (NetTrace
 * streams); nothing else. */
#ifndef PC_VIEW_BUILD_H
#define PC_VIEW_BUILD_H

#include "view_model.h"

/* The tree named name, made (of kind) the first time. */
struct event_tree *view_event_tree(struct view *v, const char *name, enum view_kind kind);
/* Whether the filters (-pid, -tid, -processfilter) keep an event of this thread. */
bool view_keep(const struct view *v, long pid, long tid, const char *comm);
/* One sample of perf script text, or one the Universal providers carry (a stackfile_cb). */
int view_on_sample(const struct stack_sample *s, void *view);
/* "sched:sched_switch" is a tracepoint; "cpu-clock" and "cpu-clock:u" are not. */
bool view_is_tracepoint(const char *event);
/* One line in v->warnings. */
void view_warn(struct view *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A stack being built: the process frame, then frames root first (view_frame_path). */
uint32_t *view_path(struct view *v, size_t n);
/* Adds weight to the stack path[0..n) of tree e (NULL: the blocked tree; path[0] the
 * process frame), counts one event in e and tells the observer.  Returns the stack's node. */
uint32_t view_add(struct view *v, struct event_tree *e, const uint32_t *path, size_t n,
		  uint64_t weight, long pid, long tid, uint64_t time_ns);

/* The frame of address ip in process pid of NetTrace stream `stream` (v->code[stream]): the
 * method if known now, else a stand-in named at view_name_frames() (its address, when no
 * method holds it then either). */
uint32_t view_clr_frame(struct view *v, size_t stream, uint64_t pid, uint64_t ip);
/* Names the stand-ins by the methods known now (the rundown read) and rebuilds the trees
 * that hold them; once, at the end of the input. */
void view_name_frames(struct view *v);

#endif
