/* record_int: the recorder's state, which record.c opens the events into and drains, and
 * record_filter.c (record_filter.h) keeps the tid_filter events of current in.  Not for use
 * outside lib/record/record*.c. */
#ifndef PC_RECORD_INT_H
#define PC_RECORD_INT_H

#include "record.h"
#include "record_open.h" /* struct ring */

struct opened_event {
	struct record_event ev;
	uint64_t *ids;
	size_t nids, cap;
	int *fds; /* with a tid_filter: its per-CPU fds (not in recorder.fds) */
	size_t nfds;
	bool filter_failed; /* said once */
};

struct recorder {
	pid_t pid;
	int *cpus;
	size_t ncpus;
	struct ring *rings; /* one per entry of cpus[] */
	uint64_t ring_bytes;
	struct opened_event *events;
	size_t nevents;
	int *fds;
	size_t nfds, fds_cap;
	pid_t *tids; /* threads opened (or found covered by inheritance) */
	size_t ntids, tids_cap;
	/* Threads recorded now (-pid with tid_filter events): tids, then FORK/EXIT records. */
	pid_t *live;
	size_t nlive, live_cap;
	bool live_changed, has_tid_filters;
	uint64_t *filtered_ids; /* every id of the tid_filter events, sorted */
	size_t nfiltered_ids;
	unsigned char *scratch; /* a record that wraps the ring end is copied here */
	bool user_only;		/* kernel samples were refused: user space only */
};

#endif
