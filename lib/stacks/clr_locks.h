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
 * index is the object.  Two independent facts must agree, so a stale pointer does not make a
 * lock.  No runtime symbols, no DAC, nothing written.
 */
#ifndef PC_CLR_LOCKS_H
#define PC_CLR_LOCKS_H

#include "base/util.h"
#include <sys/types.h>

struct clr_monitor_wait {
	bool found;
	uint64_t lock;	    /* the AwareLock (the start of the SyncBlock) */
	uint64_t object;    /* the object being locked; 0 when not seen on the stack */
	uint32_t index;	    /* its sync block index */
	uint32_t waiters;   /* how many threads the lock counts as waiting */
	uint32_t recursion; /* how many times the owner holds it */
	pid_t owner_ns;	    /* the owner's TID as the target sees it */
};

struct clr_scan;

/* A scan of one process; memory read once is remembered across its threads. */
struct clr_scan *clr_scan_new(pid_t pid, const pid_t *nstids, size_t n);
void clr_scan_free(struct clr_scan *c);

/* What the thread (self_ns as the target sees it, stack pointer sp) waits for; out->found
 * false when its stack holds no such lock. */
void clr_scan_thread(struct clr_scan *c, pid_t self_ns, uint64_t sp, struct clr_monitor_wait *out);

/* Pure checks, for tests: does this look like a locked, contended AwareLock owned by
 * another of the threads (bytes: at least 32 from the candidate address)? */
bool clr_awarelock_parse(const unsigned char *bytes, size_t len, pid_t self_ns, const pid_t *nstids,
			 size_t n, struct clr_monitor_wait *out);
/* Does an object header word name this sync block index? */
bool clr_header_has_index(uint32_t header, uint32_t index);

#endif
