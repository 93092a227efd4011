/* clr_locks: the AwareLock checks on bytes as a .NET 10 runtime had them in a real deadlock
 * (owner TakeAB, 6 waiters), and a scan of this process's own memory laid out as a waiter's
 * stack is. */
#include "stacks/clr_locks.h"
#include "stacks/clr_threads.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* state 0x181 (locked, 6 waiters), recursion 1, holding thread id 4, padding, OS thread id
 * 27382, transient-precious 6, sync index 2 with the "precious" bit: a real sync block. */
static const unsigned char real_lock[32] = {
    0x81, 0x01, 0, 0, 0x01, 0, 0, 0, 0x04, 0, 0, 0, 0xab, 0x16, 0x00, 0x04,
    0xf6, 0x6a, 0, 0, 0,    0, 0, 0, 0x06, 0, 0, 0, 0x02, 0,	0,    0x80,
};

static void test_parse(void)
{
	pid_t tids[] = {27359, 27382, 27385, 27390};
	struct clr_monitor_wait w;
	CHECK(clr_awarelock_parse(real_lock, sizeof(real_lock), 27390, tids, 4, &w));
	CHECK(w.owner_ns == 27382 && w.index == 2 && w.waiters == 6 && w.recursion == 1);
	CHECK(!clr_awarelock_parse(real_lock, 31, 27390, tids, 4, &w)); /* too short */
	/* the owner itself is not waiting for it */
	CHECK(!clr_awarelock_parse(real_lock, sizeof(real_lock), 27382, tids, 4, &w));
	/* an owner that is no thread of the process */
	pid_t others[] = {27359, 27390};
	CHECK(!clr_awarelock_parse(real_lock, sizeof(real_lock), 27390, others, 2, &w));
	unsigned char b[32];
	memcpy(b, real_lock, 32);
	b[0] = 0x80; /* not locked */
	CHECK(!clr_awarelock_parse(b, 32, 27390, tids, 4, &w));
	b[0] = 0x01, b[1] = 0; /* locked, nobody waits */
	CHECK(!clr_awarelock_parse(b, 32, 27390, tids, 4, &w));
	memcpy(b, real_lock, 32);
	b[4] = 0; /* locked with recursion 0: not a lock */
	CHECK(!clr_awarelock_parse(b, 32, 27390, tids, 4, &w));
	memcpy(b, real_lock, 32);
	b[31] = 0x40; /* bits no index has */
	CHECK(!clr_awarelock_parse(b, 32, 27390, tids, 4, &w));
}

/* A .NET 10 System.Threading.Lock held by TID 1309 with 6 waiters (state 0x301: locked, the
 * waiter count from bit 7): method table, wait event, owner, state, recursion. */
static const unsigned char real_managed_lock[32] = {
    0x60, 0xa8, 0x15, 0x02, 0x2b, 0x7f, 0, 0, 0x98, 0x14, 0x81, 0x25, 0x1f, 0x7f, 0,	0,
    0x1d, 0x05, 0,    0,    0x01, 0x03, 0, 0, 0,    0,	  0,	0,    0x80, 0xff, 0xff, 0xff,
};

static void test_managed_lock(void)
{
	pid_t tids[] = {1276, 1309, 1312, 1324};
	struct clr_monitor_wait w;
	CHECK(clr_managed_lock_parse(real_managed_lock, 32, 1324, tids, 4, NULL, 0, &w));
	CHECK(w.managed_lock && w.owner_ns == 1309 && w.recursion == 1);
	CHECK(!clr_managed_lock_parse(real_managed_lock, 32, 1309, tids, 4, NULL, 0, &w));
	/* an AwareLock is no Lock object, and the other way round */
	CHECK(!clr_managed_lock_parse(real_lock, 32, 1324, tids, 4, NULL, 0, &w));
	pid_t ab[] = {27382, 27390};
	CHECK(!clr_awarelock_parse(real_managed_lock, 32, 27390, ab, 2, &w));
	unsigned char b[32];
	memcpy(b, real_managed_lock, 32);
	b[21] = 0; /* locked, nobody waits */
	CHECK(!clr_managed_lock_parse(b, 32, 1324, tids, 4, NULL, 0, &w));
	memcpy(b, real_managed_lock, 32);
	b[16] = 0x63, b[17] = 0; /* an owner no thread has */
	CHECK(!clr_managed_lock_parse(b, 32, 1324, tids, 4, NULL, 0, &w));
	/* ... unless it is a managed thread id the runtime maps to one */
	struct clr_thread_id ids[] = {{1, 1276}, {99, 1312}};
	CHECK(clr_managed_lock_parse(b, 32, 1324, tids, 4, ids, 2, &w) && w.owner_ns == 1312);
}

/* The shapes of .NET 10's contract descriptor text (DotNetRuntimeContractDescriptor). */
static void test_descriptor(void)
{
	const char *json =
	    "{\"version\":0,\"baseline\":\"empty\",\"types\":{\"Thread\":{\"Id\":16,"
	    "\"OSId\":296,\"GCHandle\":[304,\"GCHandle\"],\"LinkNext\":[112,"
	    "\"pointer\"]},\"ThreadStore\":{\"FirstThreadLink\":88,\"ThreadCount\":112}},"
	    "\"globals\":{\"GCInfoVersion\":[\"0x4\",\"uint32\"],\"AppDomain\":[[1],"
	    "\"pointer\"],\"ThreadStore\":[[3],\"pointer\"]}}";
	CHECK(clr_descriptor_field(json, "Thread", "Id") == 16);
	CHECK(clr_descriptor_field(json, "Thread", "OSId") == 296);
	CHECK(clr_descriptor_field(json, "Thread", "LinkNext") == 112);
	CHECK(clr_descriptor_field(json, "ThreadStore", "FirstThreadLink") == 88);
	CHECK(clr_descriptor_field(json, "ThreadStore", "Id") == -1);
	CHECK(clr_descriptor_field(json, "Nothing", "Id") == -1);
	CHECK(clr_descriptor_global(json, "ThreadStore") == 3);
	CHECK(clr_descriptor_global(json, "GCInfoVersion") == -1); /* a value, not a pointer */
	CHECK(clr_descriptor_global(json, "Nothing") == -1);
	/* this test is no .NET process: no threads, and why */
	struct clr_thread_id *ids;
	char *why;
	CHECK(clr_threads_read(getpid(), &ids, &why) == 0 && why && strstr(why, "libcoreclr"));
	free(ids);
	free(why);
}

static void test_header(void)
{
	CHECK(clr_header_has_index(0x08000002u, 2));
	CHECK(clr_header_has_index(0x48000002u, 2));  /* finalizer-run bit as well */
	CHECK(!clr_header_has_index(0x0c000002u, 2)); /* a hash code, not an index */
	CHECK(!clr_header_has_index(0x08000003u, 2));
	CHECK(!clr_header_has_index(0x00000004u, 4)); /* a thin lock held by thread 4 */
}

/* A "stack" in this process: junk, then the lock's address, then the object's. */
static void test_scan(void)
{
	uint64_t *stack = calloc(8192, 8);
	unsigned char *lock = aligned_alloc(64, 64);
	unsigned char *heap = aligned_alloc(64, 64);
	CHECK(stack && lock && heap);
	memcpy(lock, real_lock, 32);
	memset(heap, 0, 64);
	unsigned char *object = heap + 16;
	uint32_t header = 0x08000002u;
	memcpy(object - 4, &header, 4);
	stack[0] = 0x1234;
	stack[3] = (uint64_t)(uintptr_t)heap; /* a pointer to something else */
	stack[40] = (uint64_t)(uintptr_t)lock;
	stack[41] = (uint64_t)(uintptr_t)stack; /* into the stack itself: skipped */
	stack[300] = (uint64_t)(uintptr_t)object;
	pid_t tids[] = {27382, 27390};
	struct clr_scan *c = clr_scan_new(getpid(), tids, 2, NULL, 0);
	struct clr_monitor_wait w;
	clr_scan_thread(c, 27390, (uint64_t)(uintptr_t)stack, &w);
	CHECK(w.found);
	CHECK_EQ_U64(w.lock, (uint64_t)(uintptr_t)lock);
	CHECK_EQ_U64(w.object, (uint64_t)(uintptr_t)object);
	CHECK(w.owner_ns == 27382 && w.waiters == 6);
	/* the owner's own stack with the same pointers: it does not wait for its own lock */
	clr_scan_thread(c, 27382, (uint64_t)(uintptr_t)stack, &w);
	CHECK(!w.found);
	/* no lock on the stack at all */
	stack[40] = 0;
	struct clr_scan *c2 = clr_scan_new(getpid(), tids, 2, NULL, 0);
	clr_scan_thread(c2, 27390, (uint64_t)(uintptr_t)stack, &w);
	CHECK(!w.found);
	clr_scan_free(c);
	clr_scan_free(c2);
	free(stack);
	free(lock);
	free(heap);
}

/* A stack whose mapping is followed at once by another one holding the lock (the runtime's
 * heap after a thread's stack): the scan reads the stack's mapping only, so the lock's
 * address is not taken for an address into the stack itself. */
static void test_scan_adjacent(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char *m =
	    mmap(NULL, 8 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	uint64_t *stack = (uint64_t *)(m + page); /* one page of stack, then the heap */
	unsigned char *heap = m + 2 * page;
	memcpy(heap + 64, real_lock, 32);
	uint32_t header = 0x08000002u;
	memcpy(heap + 252, &header, 4); /* the object at heap + 256 */
	/* read-only: a mapping of its own, right after the stack's */
	CHECK(mprotect(heap, 6 * page, PROT_READ) == 0);
	stack[10] = (uint64_t)(uintptr_t)(heap + 64);
	stack[20] = (uint64_t)(uintptr_t)(heap + 256);
	pid_t tids[] = {27382, 27390};
	struct clr_scan *c = clr_scan_new(getpid(), tids, 2, NULL, 0);
	struct clr_monitor_wait w;
	clr_scan_thread(c, 27390, (uint64_t)(uintptr_t)stack, &w);
	CHECK(w.found);
	CHECK_EQ_U64(w.lock, (uint64_t)(uintptr_t)(heap + 64));
	CHECK_EQ_U64(w.object, (uint64_t)(uintptr_t)(heap + 256));
	clr_scan_free(c);
	munmap(m, 8 * page);
}

int main(void)
{
	test_parse();
	test_managed_lock();
	test_descriptor();
	test_header();
	test_scan();
	test_scan_adjacent();
	return TEST_DONE();
}
