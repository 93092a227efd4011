/* summary: the head of a view report, what a reader must know before trusting the numbers
 * below it: how long the recording ran, on how many CPUs, at what rate, and how many samples
 * were lost (as `perf report` warns), each from the samples or from perfcollect.log.
 */
#ifndef PC_SUMMARY_H
#define PC_SUMMARY_H

#include "view.h"

/* "# Recorded ..." lines, and a "# WARNING" line when samples were lost; e is the event the
 * report shows (NULL for blocked time only).  0, or -1 (pc_err) when writing failed. */
int summary_write(FILE *out, const struct view *v, const struct event_tree *e);

#endif
