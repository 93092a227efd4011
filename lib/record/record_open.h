/* record_open: what opening perf events takes besides the syscall: perf_event_open's and
 * mmap's refusals as one line naming the cause and the fix, what decides them
 * (kernel.perf_event_paranoid, the target's owner, the locked-memory limits), and a CPU's ring
 * mapped on an event's fd.  Internal to lib/record/. */
#ifndef PC_RECORD_OPEN_H
#define PC_RECORD_OPEN_H

#include "base/util.h"

#include <sys/types.h>

/* A CPU's ring buffer, mapped on the first fd of the CPU; the others are redirected to it. */
struct ring {
	int cpu;
	int fd; /* the fd the ring is mapped on; the others are redirected to it */
	void *base;
	size_t mmap_len;
	unsigned char *data;
	uint64_t size; /* power of two */
};

/* kernel.perf_event_paranoid (2 when it cannot be read). */
int record_paranoid_level(void);
/* The owner of another user's process we may not record (perf_event_open's ptrace check:
 * root or CAP_SYS_PTRACE whatever kernel.perf_event_paranoid says); -1 when that is not it. */
long record_foreign_owner(pid_t pid);
/* One line naming the cause and the fix, from perf_event_open's errno; returns -1. */
int record_open_error(int err, const char *event, pid_t pid);
/* "4 MiB", "516 KiB": sizes as the user gave them, in the largest whole unit. */
const char *record_size_text(uint64_t bytes, char *buf, size_t len);
/* Maps ring (ring_bytes of data, one of ncpus rings: for the message) on fd (0, or -1 with
 * the reason and its fixes set). */
int record_map_ring(struct ring *ring, int fd, uint64_t ring_bytes, size_t ncpus);

#endif
