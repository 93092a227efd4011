/* clr_locks: see clr_locks.h. */
#include "clr_locks.h"
#include "clr_threads.h"
#include "base/span.h"
#include "base/hash.h"
#include "base/search.h"

#include "base/proc_maps.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#define STACK_SCAN_BYTES (32 * 1024)
#define LOCK_BYTES	 32
/* ObjHeader bits (the runtime's syncblk.h): the header holds a sync block index when
 * IS_HASH_OR_SYNCBLKINDEX is set and IS_HASHCODE is not. */
#define SBLK_IS_HASH_OR_INDEX 0x08000000u
#define SBLK_IS_HASHCODE      0x04000000u
#define SBLK_INDEX_MASK	      0x03ffffffu
#define SYNC_INDEX_PRECIOUS   0x80000000u
#define LOCK_WAITER_SHIFT     6
/* System.Threading.Lock's _state: bit 0 locked, flags, then the waiter count from bit 2, 3,
 * 6 or 7 as versions of Lock.cs moved it; the sign bit a flag in some. */
#define MLOCK_WAITER_BITS 0x7ffffffcu

struct cached {
	uint64_t addr;
	bool used, readable;
	unsigned char bytes[LOCK_BYTES];
};
#define HTAB_NAME	    cache_table
#define HTAB_ENTRY	    struct cached
#define HTAB_KEY	    uint64_t
#define HTAB_EMPTY(e)	    (!(e)->used)
#define HTAB_HASH(t, e)	    hash_mix((e)->addr)
#define HTAB_MATCH(t, e, k) ((e)->addr == (k))
#define HTAB_MIN	    4096
#include "base/htab.h"

struct clr_scan {
	pid_t pid;
	pid_t *nstids;
	size_t n;
	struct cache_table cache; /* by address */
	struct clr_thread_id *ids;
	size_t nids;
	uint64_t (*vmas)[2]; /* the process's mappings, [start, end), in address order */
	size_t nvmas;
};

/* The end of the mapping holding addr; 0 when none does. */
static uint64_t mapping_end(const struct clr_scan *c, uint64_t addr)
{
	size_t lo = LOWER_BOUND(c->nvmas, i, c->vmas[i][1] <= addr);
	return lo < c->nvmas && c->vmas[lo][0] <= addr ? c->vmas[lo][1] : 0;
}

static void read_vmas(struct clr_scan *c)
{
	struct proc_maps *m = proc_maps_open(c->pid);
	size_t cap = 0;
	for (struct proc_map map; m && proc_maps_next(m, &map);) {
		grow_array((void **)&c->vmas, &cap, c->nvmas + 1, sizeof(*c->vmas));
		c->vmas[c->nvmas][0] = map.start;
		c->vmas[c->nvmas][1] = map.end;
		c->nvmas++;
	}
	proc_maps_close(m);
}

struct clr_scan *clr_scan_new(pid_t pid, const pid_t *nstids, size_t n,
			      const struct clr_thread_id *ids, size_t nids)
{
	struct clr_scan *c = xcalloc(1, sizeof(*c));
	c->ids = xcalloc(nids + 1, sizeof(*ids));
	if (nids)
		memcpy(c->ids, ids, nids * sizeof(*ids));
	c->nids = nids;
	c->pid = pid;
	c->nstids = xcalloc(n + 1, sizeof(*c->nstids));
	memcpy(c->nstids, nstids, n * sizeof(*nstids));
	c->n = n;
	read_vmas(c);
	return c;
}

void clr_scan_free(struct clr_scan *c)
{
	if (!c)
		return;
	free(c->nstids);
	free(c->ids);
	cache_table_free(&c->cache);
	free(c->vmas);
	free(c);
}

static bool is_thread(const pid_t *nstids, size_t n, pid_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (nstids[i] == tid)
			return true;
	return false;
}

bool clr_awarelock_parse(const unsigned char *bytes, size_t len, pid_t self_ns, const pid_t *nstids,
			 size_t n, struct clr_monitor_wait *out)
{
	if (len < LOCK_BYTES)
		return false;
	uint32_t state = load_le32(bytes), recursion = load_le32(bytes + 4);
	uint64_t owner = load_le64(bytes + 16);
	uint32_t index = load_le32(bytes + 28);
	if (!(state & 1) || state >> LOCK_WAITER_SHIFT == 0)
		return false; /* not locked, or nobody waits */
	if (recursion == 0 || recursion > 0xffff)
		return false;
	if (owner == 0 || owner > 0x7fffffff || (pid_t)owner == self_ns ||
	    !is_thread(nstids, n, (pid_t)owner))
		return false;
	if ((index & ~(SYNC_INDEX_PRECIOUS | SBLK_INDEX_MASK)) || !(index & SBLK_INDEX_MASK))
		return false;
	memset(out, 0, sizeof(*out));
	out->index = index & SBLK_INDEX_MASK;
	out->waiters = state >> LOCK_WAITER_SHIFT;
	out->recursion = recursion;
	out->owner_ns = (pid_t)owner;
	return true;
}

bool clr_managed_lock_parse(const unsigned char *bytes, size_t len, pid_t self_ns,
			    const pid_t *nstids, size_t n, const struct clr_thread_id *ids,
			    size_t nids, struct clr_monitor_wait *out)
{
	if (len < LOCK_BYTES)
		return false;
	uint64_t mt = load_le64(bytes), event = load_le64(bytes + 8);
	uint32_t owner = load_le32(bytes + 16), state = load_le32(bytes + 20);
	uint32_t recursion = load_le32(bytes + 24);
	/* a method table and a wait event are pointers; nobody waits without the event */
	if (mt < 0x10000 || (mt & 7) || event < 0x10000 || (event & 7))
		return false;
	/* locked, and some waiter: the count starts at bit 2 to 7 depending on the version */
	if (!(state & 1) || !(state & MLOCK_WAITER_BITS) || recursion > 0xffff || owner == 0)
		return false;
	/* .NET 10 keeps the owner's OS thread id; a managed thread id is mapped */
	pid_t owner_os = 0;
	for (size_t i = 0; i < n && !owner_os; i++)
		if ((uint32_t)nstids[i] == owner)
			owner_os = nstids[i];
	for (size_t i = 0; i < nids && !owner_os; i++)
		if (ids[i].managed == owner)
			owner_os = ids[i].os;
	if (!owner_os || owner_os == self_ns)
		return false;
	memset(out, 0, sizeof(*out));
	out->managed_lock = true;
	out->recursion = recursion + 1;
	out->owner_ns = owner_os;
	return true;
}

bool clr_header_has_index(uint32_t header, uint32_t index)
{
	return (header & (SBLK_IS_HASH_OR_INDEX | SBLK_IS_HASHCODE)) == SBLK_IS_HASH_OR_INDEX &&
	       (header & SBLK_INDEX_MASK) == index;
}

/* LOCK_BYTES at addr, read once per scan; NULL when unreadable. */
static const unsigned char *read_cached(struct clr_scan *c, uint64_t addr)
{
	bool found;
	struct cached *e = cache_table_insert(&c->cache, addr, hash_mix(addr), &found);
	if (!found) {
		e->used = true;
		e->addr = addr;
		struct iovec local = {e->bytes, LOCK_BYTES};
		struct iovec remote = {(void *)(uintptr_t)addr, LOCK_BYTES};
		e->readable = process_vm_readv(c->pid, &local, 1, &remote, 1, 0) == LOCK_BYTES;
	}
	return e->readable ? e->bytes : NULL;
}

/* Addresses worth a look: user-space, pointer-aligned, not into the stack itself. */
static bool plausible(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v >= 0x10000 && v < 0x800000000000ull && !(v & 7) && (v < lo || v >= hi);
}

void clr_scan_thread(struct clr_scan *c, pid_t self_ns, uint64_t sp, struct clr_monitor_wait *out)
{
	memset(out, 0, sizeof(*out));
	if (!sp || (sp & 7))
		return;
	/* The stack's own mapping only: the next one may be mapped right after it (a runtime
	 * heap holding the very locks looked for), and what is read counts as stack below. */
	size_t want = STACK_SCAN_BYTES;
	uint64_t end = mapping_end(c, sp);
	if (end > sp && end - sp < want)
		want = (size_t)(end - sp);
	unsigned char *stack = xmalloc(STACK_SCAN_BYTES);
	struct iovec local = {stack, want};
	struct iovec remote = {(void *)(uintptr_t)sp, want};
	ssize_t got = process_vm_readv(c->pid, &local, 1, &remote, 1, 0);
	if (got < 8) {
		free(stack);
		return;
	}
	uint64_t hi = sp + (uint64_t)got;
	size_t nwords = (size_t)got / 8, found_at = 0;
	for (size_t i = 0; i < nwords && !out->found; i++) {
		uint64_t v = load_le64(stack + i * 8);
		if (!plausible(v, sp, hi))
			continue;
		const unsigned char *b = read_cached(c, v);
		if (b && (clr_awarelock_parse(b, LOCK_BYTES, self_ns, c->nstids, c->n, out) ||
			  clr_managed_lock_parse(b, LOCK_BYTES, self_ns, c->nstids, c->n, c->ids,
						 c->nids, out))) {
			out->found = true;
			out->lock = v;
			found_at = i;
		}
	}
	if (out->managed_lock) {
		out->object = out->lock; /* the Lock is the object */
		free(stack);
		return;
	}
	/* The object: its header (4 bytes before it) names the lock's index. */
	for (size_t i = found_at; out->found && i < nwords; i++) {
		uint64_t v = load_le64(stack + i * 8);
		if (!plausible(v, sp, hi) || v == out->lock)
			continue;
		const unsigned char *b = read_cached(c, v - 8);
		if (b && clr_header_has_index(load_le32(b + 4), out->index)) {
			out->object = v;
			break;
		}
	}
	free(stack);
}
