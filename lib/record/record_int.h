/* record_int: what the recorder's two halves share.  record.c opens the events, maps and
 * drains the rings; record_filter.c keeps the tid_filter events of a -pid recording
 * filtered to the threads recorded now.  Not for use outside lib/record/record*.c. */
#ifndef PC_RECORD_INT_H
#define PC_RECORD_INT_H

#include "record.h"

struct ring {
	int cpu;
	int fd; /* the fd the ring is mapped on; the others are redirected to it */
	void *base;
	size_t mmap_len;
	unsigned char *data;
	uint64_t size; /* power of two */
};

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

/* One line naming the cause and the fix, from perf_event_open's errno; returns -1. */
int record_open_error(int err, const char *event, pid_t pid);
/* Maps ring on fd, the first fd of its CPU (0, or -1 with the reason set). */
int record_map_ring(struct recorder *r, struct ring *ring, int fd);

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
