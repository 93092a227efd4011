/* record_filter: see record_filter.h. */
#include "record_filter.h"
#include "base/log.h"
#include "perfdata/perfdata_read.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The longest tracepoint filter the kernel takes (it copies at most a page, NUL included). */
static size_t max_filter_len(void)
{
	long page = sysconf(_SC_PAGESIZE);
	return (page > 0 ? (size_t)page : 4096) - 1;
}

/* ev on the CPU of ring ci for every task, filtered by filter, into that ring.  Returns the
 * enabled fd, or -1 (message set). */
static int open_filtered_one(struct recorder *r, struct opened_event *ev, size_t ci,
			     const char *filter)
{
	struct ring *ring = &r->rings[ci];
	struct perf_event_attr a = ev->ev.attr;
	a.disabled = 1; /* until filtered: unfiltered it records every task */
	int fd = (int)syscall(SYS_perf_event_open, &a, -1, ring->cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return record_open_error(errno, ev->ev.name, -1);
	uint64_t id;
	const char *what = NULL;
	if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) < 0)
		what = "set the filter of";
	else if (ring->fd >= 0 ? ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring->fd) < 0
			       : record_map_ring(ring, fd, r->ring_bytes, r->ncpus) < 0)
		what = "redirect into its CPU's ring";
	else if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
		what = "read the id of";
	else if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
		what = "enable";
	if (what) {
		pc_err_errno("cannot %s %s (filter %s)", what, ev->ev.name, filter);
		close(fd);
		return -1;
	}
	grow_array((void **)&ev->ids, &ev->cap, ev->nids + 1, sizeof(*ev->ids));
	ev->ids[ev->nids++] = id;
	return fd;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void index_filtered_ids(struct recorder *r)
{
	free(r->filtered_ids);
	r->filtered_ids = NULL;
	r->nfiltered_ids = 0;
	size_t n = 0;
	for (size_t e = 0; e < r->nevents; e++)
		if (r->events[e].ev.tid_filter)
			n += r->events[e].nids;
	r->filtered_ids = xmalloc((n ? n : 1) * sizeof(uint64_t));
	for (size_t e = 0; e < r->nevents; e++)
		for (size_t i = 0; r->events[e].ev.tid_filter && i < r->events[e].nids; i++)
			r->filtered_ids[r->nfiltered_ids++] = r->events[e].ids[i];
	qsort(r->filtered_ids, r->nfiltered_ids, sizeof(uint64_t), cmp_u64);
}

/* A sample of a tid_filter event taken in a thread the per-thread events follow: theirs. */
static bool taken_in_recorded_thread(struct recorder *r, const struct perf_event_header *h)
{
	const struct perf_event_attr *a = &r->events[0].ev.attr; /* one id layout for all */
	uint64_t id;
	if (h->type != PERF_RECORD_SAMPLE || perfdata_record_id(a, h, &id) < 0 ||
	    !bsearch(&id, r->filtered_ids, r->nfiltered_ids, sizeof(id), cmp_u64))
		return false;
	struct opened_event *ev = NULL;
	for (size_t e = 0; e < r->nevents && !ev; e++)
		if (r->events[e].ev.tid_filter)
			ev = &r->events[e];
	struct perf_sample s;
	if (!ev || perfdata_parse_sample(&ev->ev.attr, h, &s) < 0)
		return false;
	if ((pid_t)s.pid == r->pid)
		return true;
	for (size_t i = 0; i < r->nlive; i++)
		if (r->live[i] == (pid_t)s.tid)
			return true;
	return false;
}

/* (Re)opens every tid_filter event for the threads recorded now.  The kernel sets a
 * tracepoint filter once per event, so a new thread means new fds: they count before the
 * old ones stop, so a switch at that moment is recorded twice rather than lost.  Their ids
 * join the event's ids. */
static int filter_events(struct recorder *r)
{
	r->live_changed = false;
	for (size_t e = 0; e < r->nevents; e++) {
		struct opened_event *ev = &r->events[e];
		if (!ev->ev.tid_filter)
			continue;
		char *filter = ev->ev.tid_filter(r->live, r->nlive, max_filter_len());
		int *fds = xcalloc(r->ncpus, sizeof(*fds));
		size_t n = 0;
		for (; n < r->ncpus; n++)
			if ((fds[n] = open_filtered_one(r, ev, n, filter)) < 0)
				break;
		free(filter);
		if (n < r->ncpus) {
			while (n--)
				close(fds[n]);
			free(fds);
			return -1;
		}
		for (size_t i = 0; i < ev->nfds; i++) {
			ioctl(ev->fds[i], PERF_EVENT_IOC_DISABLE, 0);
			close(ev->fds[i]);
		}
		free(ev->fds);
		ev->fds = fds;
		ev->nfds = r->ncpus;
	}
	index_filtered_ids(r);
	return 0;
}

int record_filter_open(struct recorder *r)
{
	for (size_t e = 0; e < r->nevents; e++)
		r->has_tid_filters |= r->events[e].ev.tid_filter != NULL;
	if (!r->has_tid_filters)
		return 0;
	for (size_t i = 0; i < r->ntids; i++) {
		grow_array((void **)&r->live, &r->live_cap, r->nlive + 1, sizeof(*r->live));
		r->live[r->nlive++] = r->tids[i];
	}
	return filter_events(r);
}

/* A FORK or EXIT record: a thread the events follow appeared or went (-pid only). */
static void track_task(struct recorder *r, const struct perf_event_header *h)
{
	if ((h->type != PERF_RECORD_FORK && h->type != PERF_RECORD_EXIT) || h->size < 8 + 16)
		return;
	uint32_t tid;
	memcpy(&tid, (const unsigned char *)h + 8 + 8, sizeof(tid)); /* pid, ppid, tid, ptid */
	size_t i = 0;
	while (i < r->nlive && r->live[i] != (pid_t)tid)
		i++;
	if (h->type == PERF_RECORD_FORK && i == r->nlive) {
		grow_array((void **)&r->live, &r->live_cap, r->nlive + 1, sizeof(*r->live));
		r->live[r->nlive++] = (pid_t)tid;
		r->live_changed = true;
	} else if (h->type == PERF_RECORD_EXIT && i < r->nlive) {
		r->live[i] = r->live[--r->nlive];
		r->live_changed = true;
	}
}

bool record_filter_drops(struct recorder *r, const struct perf_event_header *h)
{
	track_task(r, h);
	return taken_in_recorded_thread(r, h);
}

void record_filter_update(struct recorder *r)
{
	/* New fds for a new thread's switches (or without an exited one's).  When that
	 * fails the old ones go on: said once, and the collection goes on. */
	if (!r->live_changed || !r->has_tid_filters || filter_events(r) == 0)
		return;
	for (size_t e = 0; e < r->nevents; e++)
		if (r->events[e].ev.tid_filter && !r->events[e].filter_failed) {
			r->events[e].filter_failed = true;
			log_warn("%s: new threads' switches are not recorded: %s",
				 r->events[e].ev.name, pc_strerror());
		}
}
