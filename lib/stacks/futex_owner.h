/* futex_owner: what a thread blocked in a futex waits for, and who holds it.
 *
 * A thread sleeping in a syscall shows the syscall number and its six arguments in
 * /proc/<pid>/task/<tid>/syscall.  For futex(2) waits (FUTEX_WAIT, FUTEX_WAIT_BITSET,
 * FUTEX_LOCK_PI, FUTEX_LOCK_PI2) and futex_wait(2), argument 0 is the futex word.  When
 * that word is the __lock of a glibc pthread_mutex_t (x86_64 layout: __lock at 0, __owner
 * TID at 8, __kind at 16), the owner's TID is read from the target's memory.  PI mutexes
 * keep the owner's TID in the futex word itself.
 *
 * Only a word that looks like a locked mutex is called one: the lock word is non-zero, the
 * kind has only bits glibc defines, and the owner is one of the target's threads (or, for a
 * process-shared mutex, a live thread anywhere).  Other futex waits (condition variables,
 * pthread_join, semaphores) are reported as plain futex waits with their address.
 */
#ifndef PC_FUTEX_OWNER_H
#define PC_FUTEX_OWNER_H

#include "base/util.h"
#include <sys/types.h>

/* What /proc/<pid>/task/<tid>/syscall says. */
enum syscall_state { SYSCALL_UNKNOWN, SYSCALL_RUNNING, SYSCALL_NONE, SYSCALL_IN };
struct thread_syscall {
	enum syscall_state state;
	long nr;	  /* valid when SYSCALL_IN */
	uint64_t args[6]; /* valid when SYSCALL_IN */
	uint64_t sp;	  /* user stack pointer (SYSCALL_IN, SYSCALL_NONE); 0 when unknown */
};
/* Parses the text of that file ("running", "-1 sp pc", or "nr a0 .. a5 sp pc"). */
int thread_syscall_parse(const char *text, struct thread_syscall *out);
/* Reads and parses it for one thread. */
int thread_syscall_read(pid_t pid, pid_t tid, struct thread_syscall *out);

enum lock_wait_kind {
	LOCK_WAIT_NONE,	   /* not in a futex wait */
	LOCK_WAIT_FUTEX,   /* a futex wait that is not (recognizably) a mutex */
	LOCK_WAIT_MUTEX,   /* a glibc pthread_mutex_t; owner known */
	LOCK_WAIT_MONITOR, /* a .NET Monitor (clr_locks.h); owner known */
};

struct lock_wait {
	enum lock_wait_kind kind;
	uint64_t addr;	   /* the futex word (== the mutex address for LOCK_WAIT_MUTEX); for
			      LOCK_WAIT_MONITOR the runtime's lock (AwareLock) */
	uint64_t object;   /* LOCK_WAIT_MONITOR: the object locked; 0 when not known */
	bool managed_lock; /* LOCK_WAIT_MONITOR: a System.Threading.Lock, not a Monitor */
	pid_t owner;	   /* LOCK_WAIT_MUTEX: the TID holding the mutex, as we see it */
	pid_t owner_ns;	   /* the same TID as the target's PID namespace sees it (in the mutex) */
	bool pi;	   /* priority-inheritance mutex (owner from the futex word) */
	bool shared;	   /* process-shared mutex: the owner may be in another process */
};

/* The futex word a syscall waits on, if it is a futex wait; *pi says whether the op takes
 * a PI lock (the word holds the owner's TID).  false for anything else. */
bool futex_wait_address(const struct thread_syscall *sc, uint64_t *addr, bool *pi);

/* Interprets the bytes of a would-be pthread_mutex_t (at least 20 bytes: __lock, __count,
 * __owner, __nusers, __kind).  Returns the owner TID, or 0 when the bytes do not look like a
 * locked mutex.  Pure: the caller decides whether that TID is plausible. */
pid_t futex_mutex_owner(const unsigned char *bytes, size_t len, bool pi, bool *shared);

/* What thread `sc` (a thread of pid) waits for.  tids are the target's threads as we see
 * them and nstids the same threads as the target's PID namespace sees them (the TIDs glibc
 * stores in a mutex); the owner must be one of them.  Reads the target's memory
 * (process_vm_readv); a failed read gives LOCK_WAIT_FUTEX, never an error. */
void futex_lock_wait(pid_t pid, const struct thread_syscall *sc, const pid_t *tids,
		     const pid_t *nstids, size_t ntids, struct lock_wait *out);

#endif
