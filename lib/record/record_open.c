/* record_open: see record_open.h. */
#include "record_open.h"
#include "base/proc.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

int record_paranoid_level(void)
{
	return (int)sysctl_long("kernel.perf_event_paranoid", 2);
}

long record_foreign_owner(pid_t pid)
{
	struct proc_status st;
	if (pid <= 0 || geteuid() == 0 || proc_status(pid, &st) < 0 || st.uid == geteuid())
		return -1;
	return (long)st.uid;
}

int record_open_error(int err, const char *event, pid_t pid)
{
	long owner;
	switch (err) {
	case EACCES:
	case EPERM:
		if ((owner = record_foreign_owner(pid)) >= 0)
			return pc_err("no permission to record process %d: it belongs to uid %ld "
				      "and you are uid %ld; recording another user's process needs "
				      "root or CAP_SYS_PTRACE",
				      (int)pid, owner, (long)geteuid());
		if (!strncmp(event, "sched:", 6) && record_paranoid_level() > -1)
			return pc_err("no permission to record the scheduler tracepoint %s "
				      "(kernel.perf_event_paranoid is %d): -threadtime and -offcpu "
				      "need root, CAP_PERFMON, or 'sysctl "
				      "kernel.perf_event_paranoid=-1'",
				      event, record_paranoid_level());
		return pc_err(
		    "no permission to record %s (kernel.perf_event_paranoid is %d): run as "
		    "root, grant CAP_PERFMON, or run 'sysctl kernel.perf_event_paranoid=%d'",
		    pid < 0 ? "all CPUs" : "this process", record_paranoid_level(),
		    pid < 0 ? 0 : 1);
	case ESRCH:
		return pc_err("no process %d", (int)pid);
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		return pc_err("event %s not supported here (%s)", event, strerror(err));
	case EMFILE:
	case ENFILE:
		return pc_err("too many open files for the events (one per thread per CPU): raise "
			      "'ulimit -n'");
	default:
		errno = err;
		return pc_err_errno("perf_event_open(%s) failed", event);
	}
}

const char *record_size_text(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
	size_t u = 0;
	while (u + 1 < ARRAY_SIZE(units) && bytes >= 1024 && !(bytes & 1023)) {
		bytes >>= 10;
		u++;
	}
	snprintf(buf, len, "%llu %s", (unsigned long long)bytes, units[u]);
	return buf;
}

/* Why the kernel refused to map a ring, with its numbers and the fixes. */
static int ring_refused(uint64_t ring_bytes, size_t ncpus, int err)
{
	char sz[32];
	record_size_text(ring_bytes, sz, sizeof(sz));
	if (err == EPERM) {
		struct rlimit rl;
		char lim[48] = "unlimited";
		if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
			snprintf(lim, sizeof(lim), "%llu KiB",
				 (unsigned long long)rl.rlim_cur >> 10);
		return pc_err(
		    "-buffersize: %s per CPU on %zu CPUs is more than this user may lock "
		    "(kernel.perf_event_mlock_kb = %ld KiB per CPU, plus 'ulimit -l' %s); "
		    "use a smaller -buffersize, raise kernel.perf_event_mlock_kb, or run "
		    "with CAP_IPC_LOCK (root has it)",
		    sz, ncpus, sysctl_long("kernel.perf_event_mlock_kb", 516), lim);
	}
	if (err == ENOMEM || err == EINVAL)
		return pc_err("-buffersize: the kernel cannot map a %s ring buffer per CPU (%s; "
			      "it maps at most 1 GiB per CPU with 4 KiB pages); use a smaller "
			      "-buffersize",
			      sz, strerror(err));
	errno = err;
	return pc_err_errno("cannot map a %s ring buffer", sz);
}

int record_map_ring(struct ring *ring, int fd, uint64_t ring_bytes, size_t ncpus)
{
	long page = sysconf(_SC_PAGESIZE);
	ring->mmap_len = (size_t)page + ring_bytes;
	void *base = mmap(NULL, ring->mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return ring_refused(ring_bytes, ncpus, errno);
	struct perf_event_mmap_page *pg = base;
	ring->base = base;
	ring->fd = fd;
	/* data_offset/data_size exist since Linux 4.1; before that data follows the page. */
	ring->data = (unsigned char *)base + (pg->data_offset ? pg->data_offset : (uint64_t)page);
	ring->size = pg->data_size ? pg->data_size : ring_bytes;
	return 0;
}
