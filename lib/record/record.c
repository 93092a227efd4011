/* record: see record.h. */
#include "record_int.h"
#include "record_filter.h"
#include "record_ring.h"
#include "base/log.h"
#include "base/proc.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Over this the page count no longer fits the kernel's size field; the kernel itself refuses
 * less (1 GiB with 4 KiB pages on x86-64), which record_map_ring() says when it happens. */
#define MAX_RING_BYTES (1ull << 40)
#define POLL_MAX_MS    250 /* drain at least this often, so rounds stay short */
/* With tid_filter events, this often: a new thread's switches count from the drain that
 * reads its FORK record on. */
#define POLL_FILTER_MS 20

int online_cpus(int **cpus, size_t *n)
{
	char *text = read_file("/sys/devices/system/cpu/online", NULL);
	if (!text) /* a root with nothing but /proc (a minimal sidecar) has no /sys */
		return proc_online_cpus(cpus, n);
	int *list = NULL;
	size_t cap = 0, cnt = 0;
	char *p = text;
	while (*p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b;
		if (end == p || a < 0)
			goto bad;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a)
				goto bad;
		}
		for (long c = a; c <= b && c < 65536; c++) {
			grow_array((void **)&list, &cap, cnt + 1, sizeof(*list));
			list[cnt++] = (int)c;
		}
		p = end;
		if (*p == ',')
			p++;
	}
	free(text);
	if (!cnt)
		return pc_err("no online CPUs in /sys/devices/system/cpu/online");
	*cpus = list;
	*n = cnt;
	return 0;
bad:
	free(text);
	free(list);
	return pc_err("cannot parse /sys/devices/system/cpu/online");
}

int recorder_probe_event(const struct perf_event_attr *attr, pid_t pid, int cpu)
{
	struct perf_event_attr a = *attr;
	a.size = sizeof(a);
	a.disabled = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

bool recorder_event_unsupported(int err)
{
	return err == ENOENT || err == EOPNOTSUPP || err == ENODEV;
}

static bool have_tid(const struct recorder *r, pid_t tid)
{
	for (size_t i = 0; i < r->ntids; i++)
		if (r->tids[i] == tid)
			return true;
	return false;
}

static void add_tid(struct recorder *r, pid_t tid)
{
	grow_array((void **)&r->tids, &r->tids_cap, r->ntids + 1, sizeof(*r->tids));
	r->tids[r->ntids++] = tid;
}

/* As perf record: where kernel.perf_event_paranoid keeps an unprivileged user from kernel
 * samples (2, the upstream default), a process of their own is still recorded, user space
 * only.  Turns that on for every event (one file, one kind of stacks) and says so once.
 * Only before the first fd is open; tracepoints are kernel events and stay as they are. */
static bool user_only_fallback(struct recorder *r, struct opened_event *ev, pid_t tid)
{
	if (r->user_only || r->nfds || tid < 0 || ev->ev.attr.exclude_kernel ||
	    ev->ev.attr.type == PERF_TYPE_TRACEPOINT || record_foreign_owner(r->pid) >= 0 ||
	    record_paranoid_level() < 2)
		return false;
	for (size_t e = 0; e < r->nevents; e++) {
		struct perf_event_attr *a = &r->events[e].ev.attr;
		if (a->type == PERF_TYPE_TRACEPOINT)
			return false;
		a->exclude_kernel = 1;
		a->exclude_hv = 1;
		a->exclude_callchain_kernel = 1;
	}
	r->user_only = true;
	log_warn("kernel frames are off: kernel.perf_event_paranoid is %d and you are not "
		 "privileged, so only user-space samples are recorded (for kernel frames too: run "
		 "as root, grant CAP_PERFMON, or 'sysctl kernel.perf_event_paranoid=1')",
		 record_paranoid_level());
	return true;
}

/* Opens event ev for (tid, cpu index ci): maps the CPU's ring on the first fd, redirects
 * later ones into it.  Returns 0, or the errno of a failed perf_event_open (> 0), or -1 on
 * another failure (message set). */
static int open_one(struct recorder *r, struct opened_event *ev, pid_t tid, size_t ci)
{
	struct ring *ring = &r->rings[ci];
	int fd = (int)syscall(SYS_perf_event_open, &ev->ev.attr, tid, ring->cpu, -1,
			      PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM) && user_only_fallback(r, ev, tid))
		fd = (int)syscall(SYS_perf_event_open, &ev->ev.attr, tid, ring->cpu, -1,
				  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	grow_array((void **)&r->fds, &r->fds_cap, r->nfds + 1, sizeof(*r->fds));
	r->fds[r->nfds++] = fd;
	if (ring->fd < 0) {
		if (record_map_ring(ring, fd, r->ring_bytes, r->ncpus) < 0)
			return -1;
	} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring->fd) < 0) {
		return pc_err_errno("cannot redirect event %s into the ring of CPU %d", ev->ev.name,
				    ring->cpu);
	}
	uint64_t id;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
		return pc_err_errno("cannot read the id of event %s", ev->ev.name);

	grow_array((void **)&ev->ids, &ev->cap, ev->nids + 1, sizeof(*ev->ids));
	ev->ids[ev->nids++] = id;
	return 0;
}

/* Every event on every CPU for one thread (tid -1: all CPUs, system-wide).  Events with a
 * tid_filter are not per thread: record_filter_open() opens them. */
static int open_thread(struct recorder *r, pid_t tid)
{
	for (size_t e = 0; e < r->nevents; e++)
		for (size_t ci = 0; ci < r->ncpus && !(tid >= 0 && r->events[e].ev.tid_filter);
		     ci++) {
			int rc = open_one(r, &r->events[e], tid, ci);
			if (rc == 0)
				continue;
			if (rc < 0)
				return -1;
			/* A thread that exited after we listed it is no error; the process
			 * itself missing is. */
			if (rc == ESRCH && tid != r->pid && r->pid > 0)
				return 0;
			return record_open_error(rc, r->events[e].ev.name, r->pid);
		}
	return 0;
}

/* Tids of the PERF_RECORD_FORKs waiting in the rings, read without consuming them:
 * those threads inherited our events, so opening events for them too would count them
 * twice. */
static bool fork_seen(struct recorder *r, pid_t tid)
{
	for (size_t ci = 0; ci < r->ncpus; ci++) {
		struct ring *ring = &r->rings[ci];
		if (!ring->base)
			continue;
		struct perf_event_mmap_page *pg = ring->base;
		uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
		uint64_t pos = pg->data_tail;
		while (pos + sizeof(struct perf_event_header) <= head) {
			struct perf_event_header h;
			memcpy(&h, ring->data + (pos & (ring->size - 1)), sizeof(h));
			if (h.size < sizeof(h) || h.size > head - pos)
				break;
			if (h.type == PERF_RECORD_FORK && h.size >= sizeof(h) + 16) {
				uint32_t child_tid;
				uint64_t off = (pos + sizeof(h) + 8) & (ring->size - 1);
				/* 8-byte aligned records: the 4 bytes at off do not wrap. */
				memcpy(&child_tid, ring->data + off, sizeof(child_tid));
				if ((pid_t)child_tid == tid)
					return true;
			}
			pos += h.size;
		}
	}
	return false;
}

static int open_process(struct recorder *r)
{
	/* Threads may be created while we open events for the ones listed: re-list until
	 * nothing new shows up.  A new thread whose creator already had our event inherited
	 * it (and the kernel wrote a FORK record for it); the others need their own. */
	for (int pass = 0; pass < 32; pass++) {
		pid_t *tids;
		size_t n;
		if (proc_threads(r->pid, &tids, &n) < 0) {
			if (pass == 0)
				return pc_err("no process %d", (int)r->pid);
			return 0; /* the process exited meanwhile: the loop sees that */
		}
		size_t added = 0;
		for (size_t i = 0; i < n; i++) {
			if (have_tid(r, tids[i]))
				continue;
			added++;
			add_tid(r, tids[i]);
			if (pass > 0 && fork_seen(r, tids[i]))
				continue;
			if (open_thread(r, tids[i]) < 0) {
				free(tids);
				return -1;
			}
		}
		free(tids);
		if (!added)
			return 0;
	}
	log_warn("process %d keeps creating threads; new ones are covered by inheritance",
		 (int)r->pid);
	return 0;
}

/* No -buffersize: sized from the events' data rate (record_ring.h), and said. */
static uint64_t default_ring_bytes(const struct record_event *events, size_t nevents, size_t ncpus)
{
	struct ring_limits lim;
	record_ring_limits(ncpus, &lim);
	uint64_t rate = 0;
	for (size_t e = 0; e < nevents; e++)
		rate += record_ring_rate(&events[e].attr);
	uint64_t bytes = record_ring_default(rate, &lim);
	char sz[32], lock[64] = "";
	if (lim.lock_per_cpu != UINT64_MAX)
		snprintf(lock, sizeof(lock), ", kernel.perf_event_mlock_kb %llu KiB per CPU",
			 (unsigned long long)lim.lock_per_cpu >> 10);
	if (rate)
		log_info("ring buffers: %s per CPU by default: %llu ms of samples at %.1f MB/s "
			 "per CPU (at most %llu MiB over all CPUs%s)",
			 record_size_text(bytes, sz, sizeof(sz)),
			 (unsigned long long)(bytes * 1000 / rate), rate / 1e6,
			 RING_BUDGET_BYTES >> 20, lock);
	return bytes;
}

/* The kernel maps a power of two of pages: round up as `perf record -m` does, and say so. */
static int round_ring_bytes(uint64_t want, uint64_t *out)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	if (want > MAX_RING_BYTES) {
		char sz[32];
		return pc_err("-buffersize %s per CPU is more than any kernel maps; use at most 1G",
			      record_size_text(want, sz, sizeof(sz)));
	}
	uint64_t bytes = page;
	while (bytes < want)
		bytes <<= 1;
	if (bytes != want) {
		char a[32], b[32];
		log_say("-buffersize: %s (%llu pages) rounded up to %s (%llu pages) per CPU: the "
			"kernel maps a power of two of pages",
			record_size_text(want, a, sizeof(a)),
			(unsigned long long)((want + page - 1) / page),
			record_size_text(bytes, b, sizeof(b)), (unsigned long long)(bytes / page));
	}
	*out = bytes;
	return 0;
}

struct recorder *recorder_open(const struct recorder_opts *o, const struct record_event *events,
			       size_t nevents)
{
	struct recorder *r = xcalloc(1, sizeof(*r));
	r->pid = o->pid > 0 ? o->pid : -1;
	r->scratch = xmalloc(65536); /* header.size is 16 bits */
	if (online_cpus(&r->cpus, &r->ncpus) < 0)
		goto fail;
	r->rings = xcalloc(r->ncpus, sizeof(*r->rings));
	for (size_t ci = 0; ci < r->ncpus; ci++) {
		r->rings[ci].cpu = r->cpus[ci];
		r->rings[ci].fd = -1;
	}
	if (!o->ring_bytes)
		r->ring_bytes = default_ring_bytes(events, nevents, r->ncpus);
	else if (round_ring_bytes(o->ring_bytes, &r->ring_bytes) < 0)
		goto fail;
	r->events = xcalloc(nevents ? nevents : 1, sizeof(*r->events));
	r->nevents = nevents;
	for (size_t e = 0; e < nevents; e++) {
		r->events[e].ev = events[e];
		struct perf_event_attr *a = &r->events[e].ev.attr;
		a->size = sizeof(*a);
		/* Wake the poll loop when a quarter of the ring is used, not per record. */
		a->watermark = 1;
		a->wakeup_watermark =
		    (uint32_t)(r->ring_bytes / 4 < UINT32_MAX ? r->ring_bytes / 4 : UINT32_MAX);
	}
	if (r->pid < 0) {
		if (open_thread(r, -1) < 0)
			goto fail;
	} else if (open_process(r) < 0 || record_filter_open(r) < 0) {
		goto fail;
	}
	return r;
fail:
	recorder_free(r);
	return NULL;
}

void recorder_free(struct recorder *r)
{
	if (!r)
		return;
	for (size_t ci = 0; ci < r->ncpus; ci++)
		if (r->rings[ci].base)
			munmap(r->rings[ci].base, r->rings[ci].mmap_len);
	for (size_t i = 0; i < r->nfds; i++)
		close(r->fds[i]);
	for (size_t e = 0; e < r->nevents; e++) {
		for (size_t i = 0; i < r->events[e].nfds; i++)
			close(r->events[e].fds[i]);
		free(r->events[e].ids);
		free(r->events[e].fds);
	}
	free(r->events);
	free(r->live);
	free(r->filtered_ids);
	free(r->fds);
	free(r->tids);
	free(r->rings);
	free(r->cpus);
	free(r->scratch);
	free(r);
}

size_t recorder_nr_cpus(const struct recorder *r)
{
	return r->ncpus;
}

size_t recorder_nr_fds(const struct recorder *r)
{
	size_t n = r->nfds;
	for (size_t e = 0; e < r->nevents; e++)
		n += r->events[e].nfds;
	return n;
}

uint64_t recorder_ring_bytes(const struct recorder *r)
{
	return r->ring_bytes;
}

const uint64_t *recorder_event_ids(const struct recorder *r, size_t i, size_t *n)
{
	*n = i < r->nevents ? r->events[i].nids : 0;
	return i < r->nevents ? r->events[i].ids : NULL;
}

size_t recorder_nr_ids(const struct recorder *r)
{
	size_t n = 0;
	for (size_t e = 0; e < r->nevents; e++)
		n += r->events[e].nids;
	return n;
}

size_t recorder_nr_threads(const struct recorder *r)
{
	return r->ntids;
}

const struct perf_event_attr *recorder_event_attr(const struct recorder *r, size_t i)
{
	return i < r->nevents ? &r->events[i].ev.attr : NULL;
}

bool recorder_user_only(const struct recorder *r)
{
	return r->user_only;
}

void recorder_enable(struct recorder *r)
{
	for (size_t i = 0; i < r->nfds; i++)
		ioctl(r->fds[i], PERF_EVENT_IOC_ENABLE, 0);
}

void recorder_disable(struct recorder *r)
{
	for (size_t i = 0; i < r->nfds; i++)
		ioctl(r->fds[i], PERF_EVENT_IOC_DISABLE, 0);
	for (size_t e = 0; e < r->nevents; e++)
		for (size_t i = 0; i < r->events[e].nfds; i++)
			ioctl(r->events[e].fds[i], PERF_EVENT_IOC_DISABLE, 0);
	r->has_tid_filters = false; /* no new fds after this */
}

static int drain_ring(struct recorder *r, struct ring *ring, record_fn fn, void *arg,
		      size_t *nrecords)
{
	struct perf_event_mmap_page *pg = ring->base;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	uint64_t mask = ring->size - 1;
	int rc = 0;
	while (tail < head) {
		struct perf_event_header h;
		uint64_t off = tail & mask;
		/* Records are 8-byte aligned and the ring a multiple of 8: a header never
		 * wraps, a record's body may. */
		memcpy(&h, ring->data + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail || h.size % 8) {
			log_warn("ring of CPU %d holds a bad record (size %u); dropped %llu bytes",
				 ring->cpu, h.size, (unsigned long long)(head - tail));
			tail = head;
			break;
		}
		const struct perf_event_header *rec;
		if (off + h.size <= ring->size) {
			rec = (const void *)(ring->data + off);
		} else {
			size_t first = ring->size - off;
			memcpy(r->scratch, ring->data + off, first);
			memcpy(r->scratch + first, ring->data, h.size - first);
			rec = (const void *)r->scratch;
		}
		if (r->nfiltered_ids && record_filter_drops(r, rec)) {
			tail += h.size;
			continue;
		}
		rc = fn(arg, rec, ring->cpu);
		tail += h.size;
		(*nrecords)++;
		if (rc < 0)
			break;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return rc < 0 ? -1 : 0;
}

int recorder_drain(struct recorder *r, record_fn fn, void *arg, size_t *nrecords)
{
	size_t n = 0;
	for (size_t ci = 0; ci < r->ncpus; ci++) {
		if (!r->rings[ci].base)
			continue;
		if (drain_ring(r, &r->rings[ci], fn, arg, &n) < 0) {
			if (nrecords)
				*nrecords = n;
			return -1;
		}
	}
	if (nrecords)
		*nrecords = n;
	record_filter_update(r);
	return 0;
}

static int drain_pass(struct recorder *r, const struct record_loop *l)
{
	size_t n;
	if (recorder_drain(r, l->on_record, l->arg, &n) < 0)
		return -1;
	if (n && l->on_pass && l->on_pass(l->arg) < 0)
		return -1;
	return 0;
}

int recorder_run(struct recorder *r, const struct record_loop *l, enum record_stop *why, int *signo)
{
	size_t npfd = r->ncpus + 2;
	struct pollfd *pfd = xcalloc(npfd, sizeof(*pfd));
	for (size_t ci = 0; ci < r->ncpus; ci++) {
		pfd[ci].fd = r->rings[ci].base ? r->rings[ci].fd : -1;
		pfd[ci].events = POLLIN;
	}
	size_t sig_i = r->ncpus, pid_i = r->ncpus + 1;
	pfd[sig_i].fd = l->signal_fd;
	pfd[sig_i].events = POLLIN;
	pfd[pid_i].fd = l->pid_fd;
	pfd[pid_i].events = POLLIN;
	*signo = 0;
	int rc = 0;
	for (;;) {
		if (drain_pass(r, l) < 0) {
			*why = RECORD_STOP_ERROR;
			rc = -1;
			break;
		}
		int timeout = r->has_tid_filters ? POLL_FILTER_MS : POLL_MAX_MS;
		if (l->deadline_ns) {
			uint64_t now = monotonic_ns();
			if (now >= l->deadline_ns) {
				*why = RECORD_STOP_TIME;
				break;
			}
			uint64_t left_ms = (l->deadline_ns - now + 999999) / 1000000;
			if (left_ms < (uint64_t)timeout)
				timeout = (int)left_ms;
		}
		int n = poll(pfd, npfd, timeout);
		if (n < 0 && errno != EINTR) {
			pc_err_errno("poll failed");
			*why = RECORD_STOP_ERROR;
			rc = -1;
			break;
		}
		if (n <= 0)
			continue;
		if (pfd[sig_i].revents & POLLIN) {
			struct signalfd_siginfo si;
			if (read(l->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
				*signo = (int)si.ssi_signo;
			*why = RECORD_STOP_SIGNAL;
			break;
		}
		if (pfd[pid_i].revents & (POLLIN | POLLHUP)) {
			*why = RECORD_STOP_TARGET_EXIT;
			break;
		}
		/* A ring whose thread exited reports POLLHUP for ever: stop polling it (it is
		 * still drained every pass). */
		for (size_t ci = 0; ci < r->ncpus; ci++)
			if (pfd[ci].revents & (POLLHUP | POLLERR))
				pfd[ci].fd = -1;
	}
	free(pfd);
	recorder_disable(r);
	if (rc == 0 && drain_pass(r, l) < 0) {
		*why = RECORD_STOP_ERROR;
		rc = -1;
	}
	return rc;
}
