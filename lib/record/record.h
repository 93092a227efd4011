/* record: perf_event_open(2) events, their per-CPU ring buffers and the loop that drains them.
 *
 * System-wide: one fd per event per online CPU (pid -1), each CPU's events sharing one ring.
 * One process (-pid): one fd per event per thread per CPU with inherit=1, all redirected
 * (PERF_EVENT_IOC_SET_OUTPUT) into one ring per CPU, as `perf record -p` does; threads that
 * appear while the events are being opened are found by re-scanning /proc/<pid>/task, and
 * threads created later are covered by inheritance.  An event with a tid_filter is the
 * exception: opened per CPU for every task, filtered in the kernel down to the recorded
 * threads (which the FORK and EXIT records in the rings keep up to date).
 *
 * Records come out of recorder_run() through a callback, whole (a record that wraps the end
 * of its ring is copied into a contiguous buffer first), one drain pass over all rings at a
 * time; after each pass the pass callback runs (collect writes FINISHED_ROUND there).
 */
#ifndef PC_RECORD_H
#define PC_RECORD_H

#include "base/util.h"
#include "perfdata/perf_abi.h"

#include <sys/types.h>

struct recorder;

/* One event to open: the attr as given is used for every CPU/thread. */
struct record_event {
	struct perf_event_attr attr;
	const char *name; /* "cpu-clock", as perf shows it */
	/* NULL for an ordinary event.  Set on a tracepoint, when recording one process: the
	 * event is opened once per CPU for every task (as system-wide) instead of per thread,
	 * and keeps what its filter (PERF_EVENT_IOC_SET_FILTER) lets through; this returns
	 * that filter (malloc'd, at most max_len characters) for the threads recorded now:
	 * those of the process and of what inherited the events from it.  It is set again
	 * after each drain pass in which one of them appeared or exited (the loop drains every
	 * 20 ms then: a new thread's first few ms can go unrecorded).  Its samples taken
	 * in one of those threads are dropped: the same tracepoint per thread records them.
	 * So it adds what happens to the process in other tasks (sched_switch: switch-ins). */
	char *(*tid_filter)(const pid_t *tids, size_t n, size_t max_len);
};

struct recorder_opts {
	pid_t pid; /* -1: every CPU */
	/* data area per CPU, rounded up to a power-of-two number of pages; 0: sized from the
	 * events' data rate (record_ring.h) */
	uint64_t ring_bytes;
};

/* Opens every event and maps the rings; the events count from then on.  On failure
 * returns NULL with one pc_err() line naming the cause and the fix (permissions and
 * kernel.perf_event_paranoid, "no process N", "event X not supported here" ...). */
struct recorder *recorder_open(const struct recorder_opts *o, const struct record_event *events,
			       size_t nevents);
void recorder_free(struct recorder *r);

size_t recorder_nr_cpus(const struct recorder *r);
size_t recorder_nr_fds(const struct recorder *r);
/* Data bytes of each ring (after rounding). */
uint64_t recorder_ring_bytes(const struct recorder *r);
/* The kernel ids (PERF_EVENT_IOC_ID) of event i's fds, for the perf.data attr section.  An
 * event with a tid_filter gains ids while recording (and keeps the old ones). */
const uint64_t *recorder_event_ids(const struct recorder *r, size_t i, size_t *n);
/* All events' ids together: it grows when fds were opened since. */
size_t recorder_nr_ids(const struct recorder *r);
/* The threads events were opened for (-pid), after the re-scan. */
size_t recorder_nr_threads(const struct recorder *r);
/* Event i's attr as opened (what perf.data must say: the fallback below changes it). */
const struct perf_event_attr *recorder_event_attr(const struct recorder *r, size_t i);
/* Kernel samples were refused (kernel.perf_event_paranoid 2, unprivileged, own process):
 * the events were opened user space only, as perf record does, with one warning. */
bool recorder_user_only(const struct recorder *r);

/* Starts the events opened disabled (attr.disabled): PERF_EVENT_IOC_ENABLE on every fd. */
void recorder_enable(struct recorder *r);
/* Stops sampling (PERF_EVENT_IOC_DISABLE); records already in the rings stay there. */
void recorder_disable(struct recorder *r);

/* Called with each record; a negative return stops the loop with an error. */
typedef int (*record_fn)(void *arg, const struct perf_event_header *h, int cpu);
/* Called after each drain pass that produced records. */
typedef int (*record_pass_fn)(void *arg);

enum record_stop {
	RECORD_STOP_SIGNAL,	 /* a signal arrived on signal_fd */
	RECORD_STOP_TIME,	 /* the deadline passed */
	RECORD_STOP_TARGET_EXIT, /* pid_fd became readable: the -pid target exited */
	RECORD_STOP_ERROR,	 /* a callback or poll failed; message in pc_strerror() */
};

struct record_loop {
	int signal_fd;	      /* a signalfd, or -1 */
	int pid_fd;	      /* a pidfd of the target, or -1 */
	uint64_t deadline_ns; /* CLOCK_MONOTONIC; 0 = none */
	record_fn on_record;
	record_pass_fn on_pass; /* may be NULL */
	void *arg;
};

/* Drains the rings until a stop condition, then disables the events and drains what is
 * left.  Returns 0 (or -1 for RECORD_STOP_ERROR); *why and *signo (for a signal) say why. */
int recorder_run(struct recorder *r, const struct record_loop *l, enum record_stop *why,
		 int *signo);
/* One drain pass over every ring (used by recorder_run, and after it for leftovers). */
int recorder_drain(struct recorder *r, record_fn fn, void *arg, size_t *nrecords);

/* Whether this machine and this user can open attr for (pid, cpu) as perf_event_open(2)
 * takes them (0, -1: the calling thread; -1, 0: all of CPU 0): opens it disabled and closes
 * it again.  Returns 0 when it opened, else perf_event_open's errno.  Collect uses it to
 * leave out optional events the hardware lacks before recorder_open(), which fails as a
 * whole when one event does not open; install to say what this user may record. */
int recorder_probe_event(const struct perf_event_attr *attr, pid_t pid, int cpu);
/* Whether that errno means "this machine has no such event" (no PMU, not supported), not a
 * permission or resource problem. */
bool recorder_event_unsupported(int err);

/* Online CPUs from /sys/devices/system/cpu/online. */
int online_cpus(int **cpus, size_t *n);

#endif
