/* record_filter: with -pid, a tracepoint with a tid_filter (the scheduler's switches of the
 * recorded threads, whichever task's context they come from) is opened per CPU for every
 * task and filtered in the kernel to the recorded threads; the FORK and EXIT records in the
 * rings keep that list current.  Internal to lib/record/: record.c calls it. */
#ifndef PC_RECORD_FILTER_H
#define PC_RECORD_FILTER_H

#include "record_int.h"

/* -pid: opens the events with a tid_filter, filtered to the threads found so far (r->tids).
 * 0, or -1 with the message set. */
int record_filter_open(struct recorder *r);
/* Called for every record drained while tid_filter events are open: follows the FORK and
 * EXIT records of the recorded threads, and says whether h is a tid_filter sample taken in
 * one of them (the per-thread event recorded it already: drop it). */
bool record_filter_drops(struct recorder *r, const struct perf_event_header *h);
/* After a drain pass: refilters the tid_filter events when a recorded thread appeared or
 * went.  On failure the old filter goes on, said once per event. */
void record_filter_update(struct recorder *r);

#endif
