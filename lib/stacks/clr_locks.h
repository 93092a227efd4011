/* clr_locks: which .NET Monitor (C# `lock`, Monitor.Enter) a blocked thread waits for, and
 * which thread holds it, read from the stopped target's memory without a dump.
 *
 * What dotnet-dump's `syncblk` shows comes from the runtime's sync blocks: an object that a
 * thread waits to lock has its header (the 32 bits before its method table pointer) point to
 * a SyncBlock, whose first member is the lock (CoreCLR's AwareLock):
 *
 *     +0  u32 state: bit 0 locked, bits 6.. the number of waiting threads
 *     +4  u32 recursion level
 *     +16 u64 the owner's OS thread id (gettid() as the target sees it)
 *     +28 u32 the sync block's index (the top bit marks it "precious")
 *
 * That layout is the same in .NET 8, 9 and 10.  A waiter blocks deep in the runtime with the
 * lock's address in its innermost frames, and the object's address further up, so each
 * waiter's stack is scanned from its stack pointer: the innermost value that is the address
 * of a locked AwareLock with waiters, owned by another thread of the process, with a sane
 * index, is the lock it waits for; a value on the same stack whose header holds that very
 * index is the object.  A stale pointer rarely passes all of that: locked, contended, owned
 * by another live thread of the process, a sane index.  No runtime symbols, no DAC, nothing
 * written.
 *
 * A System.Threading.Lock (.NET 9+) is a managed object: after its method table pointer come
 * its wait event (+8), the owner's thread id (+16: the OS thread id in .NET 10; a managed
 * id is mapped with clr_threads.h), its state (+20: bit 0 locked, waiters above the flags)
 * and recursion count (+24).  A value on the stack that is such an object, locked with
 * waiters and owned by another thread, is the Lock the thread waits for; stacks.c keeps it
 * only where the thread's frames are in Lock's code.
 */
#ifndef PC_CLR_LOCKS_H
#define PC_CLR_LOCKS_H

#include "base/util.h"
#include <sys/types.h>

struct clr_thread_id;

struct clr_monitor_wait {
	bool found;
	bool managed_lock;  /* a System.Threading.Lock (object == lock), not a Monitor */
	uint64_t lock;	    /* the AwareLock (the start of the SyncBlock) */
	uint64_t object;    /* the object being locked; 0 when not seen on the stack */
	uint32_t index;	    /* its sync block index */
	uint32_t waiters;   /* how many threads the lock counts as waiting */
	uint32_t recursion; /* how many times the owner holds it */
	pid_t owner_ns;	    /* the owner's TID as the target sees it */
};

struct clr_scan;

/* A scan of one process; memory read once is remembered across its threads.  ids (may be
 * NULL): its managed threads, for System.Threading.Lock owners. */
struct clr_scan *clr_scan_new(pid_t pid, const pid_t *nstids, size_t n,
			      const struct clr_thread_id *ids, size_t nids);
void clr_scan_free(struct clr_scan *c);

/* What the thread (self_ns as the target sees it, stack pointer sp) waits for; out->found
 * false when its stack holds no such lock. */
void clr_scan_thread(struct clr_scan *c, pid_t self_ns, uint64_t sp, struct clr_monitor_wait *out);

/* Pure checks, for tests: does this look like a locked, contended AwareLock owned by
 * another of the threads (bytes: at least 32 from the candidate address)? */
bool clr_awarelock_parse(const unsigned char *bytes, size_t len, pid_t self_ns, const pid_t *nstids,
			 size_t n, struct clr_monitor_wait *out);
/* Does this look like a locked System.Threading.Lock with waiters, owned by another thread
 * (its owner field an OS thread id of nstids, or a managed id of ids; bytes: at least 32
 * from the object's address)? */
bool clr_managed_lock_parse(const unsigned char *bytes, size_t len, pid_t self_ns,
			    const pid_t *nstids, size_t n, const struct clr_thread_id *ids,
			    size_t nids, struct clr_monitor_wait *out);
/* Does an object header word name this sync block index? */
bool clr_header_has_index(uint32_t header, uint32_t index);

#endif
