/* futex_owner: see futex_owner.h. */
#include "futex_owner.h"
#include "base/span.h"

#include "base/proc.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

/* futex_wait(2), Linux 6.7; older headers do not name it. */
#if defined(__x86_64__) || defined(__aarch64__)
#define SYSCALL_FUTEX_WAIT 454
#endif

/* glibc's pthread_mutex_t (sysdeps/nptl/bits/struct_mutex.h, 64-bit): the fields we read. */
#define MUTEX_LOCK_OFF	0
#define MUTEX_OWNER_OFF 8
#define MUTEX_KIND_OFF	16
#define MUTEX_MIN_BYTES 20
/* Every bit glibc may set in __kind: type (0..3), robust 16, PI 32, PP 64, pshared 128,
 * elision 256, no-elision 512. */
#define MUTEX_KIND_BITS	   0x3f3u
#define MUTEX_KIND_PSHARED 128u
#define FUTEX_TID_BITS	   0x3fffffffu

int thread_syscall_parse(const char *text, struct thread_syscall *out)
{
	memset(out, 0, sizeof(*out));
	out->state = SYSCALL_UNKNOWN;
	if (!strncmp(text, "running", 7)) {
		out->state = SYSCALL_RUNNING;
		return 0;
	}
	char *end;
	long nr = strtol(text, &end, 10);
	if (end == text)
		return pc_err("unexpected syscall line '%.40s'", text);
	const char *p = end;
	/* "-1 sp pc" outside a syscall, "nr a0 .. a5 sp pc" in one */
	uint64_t v[8];
	int want = nr < 0 ? 2 : 8;
	for (int i = 0; i < want; i++) {
		while (*p == ' ')
			p++;
		errno = 0;
		v[i] = strtoull(p, &end, 16);
		if (end == p || errno)
			return pc_err("unexpected syscall line '%.40s'", text);
		p = end;
	}
	if (nr < 0) {
		out->state = SYSCALL_NONE;
		out->sp = v[0];
		return 0;
	}
	memcpy(out->args, v, sizeof(out->args));
	out->sp = v[6];
	out->nr = nr;
	out->state = SYSCALL_IN;
	return 0;
}

int thread_syscall_read(pid_t pid, pid_t tid, struct thread_syscall *out)
{
	char *text = proc_task_read(pid, tid, TASK_SYSCALL, NULL);
	if (!text) {
		memset(out, 0, sizeof(*out));
		return -1;
	}
	int ret = thread_syscall_parse(text, out);
	free(text);
	return ret;
}

bool futex_wait_address(const struct thread_syscall *sc, uint64_t *addr, bool *pi)
{
	if (sc->state != SYSCALL_IN)
		return false;
	*pi = false;
	if (sc->nr == SYS_futex) {
		switch (sc->args[1] & FUTEX_CMD_MASK) {
		case FUTEX_LOCK_PI:
#ifdef FUTEX_LOCK_PI2
		case FUTEX_LOCK_PI2:
#else
		case 13:
#endif
			*pi = true;
			/* fall through */
		case FUTEX_WAIT:
		case FUTEX_WAIT_BITSET:
			*addr = sc->args[0];
			return true;
		}
		return false;
	}
#ifdef SYSCALL_FUTEX_WAIT
	if (sc->nr == SYSCALL_FUTEX_WAIT) {
		*addr = sc->args[0];
		return true;
	}
#endif
	return false;
}

pid_t futex_mutex_owner(const unsigned char *bytes, size_t len, bool pi, bool *shared)
{
	*shared = false;
	if (len < MUTEX_MIN_BYTES)
		return 0;
	uint32_t lock = load_le32(bytes + MUTEX_LOCK_OFF);
	uint32_t owner = load_le32(bytes + MUTEX_OWNER_OFF);
	uint32_t kind = load_le32(bytes + MUTEX_KIND_OFF);
	if (lock == 0 || (kind & ~MUTEX_KIND_BITS))
		return 0;
	*shared = kind & MUTEX_KIND_PSHARED;
	/* PI (and robust) mutexes keep the owner's TID in the lock word; __owner says the
	 * same once the lock call returned, but the word is what the kernel trusts. */
	if (pi)
		owner = lock & FUTEX_TID_BITS;
	if (owner == 0 || owner > INT32_MAX)
		return 0;
	return (pid_t)owner;
}

void futex_lock_wait(pid_t pid, const struct thread_syscall *sc, const pid_t *tids,
		     const pid_t *nstids, size_t ntids, struct lock_wait *out)
{
	memset(out, 0, sizeof(*out));
	uint64_t addr;
	bool pi;
	if (!futex_wait_address(sc, &addr, &pi))
		return;
	out->kind = LOCK_WAIT_FUTEX;
	out->addr = addr;
	/* glibc aligns the mutex; an unaligned word cannot be its __lock. */
	if (addr & 3)
		return;
	unsigned char buf[MUTEX_MIN_BYTES];
	struct iovec local = {buf, sizeof(buf)};
	struct iovec remote = {(void *)(uintptr_t)addr, sizeof(buf)};
	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof(buf))
		return;
	bool shared;
	pid_t owner = futex_mutex_owner(buf, sizeof(buf), pi, &shared);
	if (!owner)
		return;
	pid_t host_owner = 0;
	for (size_t i = 0; i < ntids && !host_owner; i++)
		if (nstids[i] == owner)
			host_owner = tids[i];
	/* Only a process-shared mutex may be held outside the process; then the TID is only
	 * meaningful when the target shares our PID namespace, and it must be alive. */
	if (!host_owner) {
		bool same_ns = true;
		for (size_t i = 0; i < ntids; i++)
			same_ns &= tids[i] == nstids[i];
		if (!shared || !same_ns || kill(owner, 0) < 0)
			return;
		host_owner = owner;
	}
	out->kind = LOCK_WAIT_MUTEX;
	out->owner = host_owner;
	out->owner_ns = owner;
	out->pi = pi;
	out->shared = shared;
}
