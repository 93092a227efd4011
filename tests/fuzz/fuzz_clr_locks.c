/* The readers of a stopped .NET target's memory that `stacks` relies on (outside input: what
 * the target's memory holds): lib/stacks/clr_locks.c (AwareLock and System.Threading.Lock
 * records, object headers, and the scan of a thread's stack for them) and the contract
 * descriptor's JSON of lib/stacks/clr_threads.c.
 *
 * The input is used three ways.  As text: the descriptor JSON (a real one is a seed).  As a
 * lock record: both parsers on its bytes.  As memory: the scan reads this very process (as
 * the unit test does), from a "stack" of the input's 8-byte words in which a word with its
 * top bit set stands for a pointer into a "heap" holding the input itself (its low 16 bits
 * the offset), so that the fuzzer can point the stack at lock records and object headers of
 * its own making.  Guard pages end both regions, so every read stays inside them.
 */
#include "fuzz.h"
#include "stacks/clr_locks.h"
#include "stacks/clr_threads.h"

#define STACK_BYTES (32 * 1024) /* what clr_scan_thread() reads from the stack pointer */
#define HEAP_BYTES  (64 * 1024)
#define PAGE	    4096

static const pid_t tids[] = {27382, 27390, 1309, 1324};
static const struct clr_thread_id ids[] = {{7, 1309}, {9, 27382}};

static bool is_tid(pid_t t)
{
	for (size_t i = 0; i < sizeof(tids) / sizeof(tids[0]); i++)
		if (tids[i] == t)
			return true;
	return false;
}

static void check_wait(const struct clr_monitor_wait *w, pid_t self)
{
	if (!w->found)
		return;
	FUZZ_CHECK(is_tid(w->owner_ns) && w->owner_ns != self);
	FUZZ_CHECK(w->lock != 0);
	FUZZ_CHECK(!w->managed_lock || w->object == w->lock);
}

static void parse_records(const uint8_t *data, size_t size)
{
	struct clr_monitor_wait w;
	if (clr_awarelock_parse(data, size, 27390, tids, 4, &w))
		FUZZ_CHECK(is_tid(w.owner_ns) && w.owner_ns != 27390 && w.waiters && w.index);
	if (clr_managed_lock_parse(data, size, 1324, tids, 4, ids, 2, &w))
		FUZZ_CHECK(w.managed_lock && is_tid(w.owner_ns) && w.owner_ns != 1324);
	if (size >= 8) {
		uint32_t header, index;
		memcpy(&header, data, 4);
		memcpy(&index, data + 4, 4);
		clr_header_has_index(header, index);
	}
}

static void parse_descriptor(const uint8_t *data, size_t size)
{
	char *json = strndup((const char *)data, size);
	FUZZ_CHECK(json != NULL);
	clr_descriptor_field(json, "Thread", "Id");
	clr_descriptor_field(json, "Thread", "OSId");
	clr_descriptor_field(json, "Thread", "LinkNext");
	clr_descriptor_field(json, "ThreadStore", "FirstThreadLink");
	clr_descriptor_global(json, "ThreadStore");
	free(json);
}

static void scan(const uint8_t *data, size_t size)
{
	/* stack | guard | heap | guard */
	size_t total = STACK_BYTES + PAGE + HEAP_BYTES + PAGE;
	uint8_t *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	FUZZ_CHECK(m != MAP_FAILED);
	uint8_t *stack = m, *heap = m + STACK_BYTES + PAGE;
	mprotect(m + STACK_BYTES, PAGE, PROT_NONE);
	mprotect(heap + HEAP_BYTES, PAGE, PROT_NONE);
	size_t n = size < HEAP_BYTES ? size : HEAP_BYTES;
	memcpy(heap, data, n);
	for (size_t i = 0; i + 8 <= n && i < STACK_BYTES; i += 8) {
		uint64_t w;
		memcpy(&w, data + i, 8);
		if (w >> 63)
			w = (uint64_t)(uintptr_t)heap + (w & 0xffff);
		memcpy(stack + i, &w, 8);
	}
	struct clr_scan *c = clr_scan_new(getpid(), tids, 4, ids, 2);
	struct clr_monitor_wait w;
	clr_scan_thread(c, 27390, (uint64_t)(uintptr_t)stack, &w);
	check_wait(&w, 27390);
	clr_scan_thread(c, 1324, (uint64_t)(uintptr_t)stack, &w);
	check_wait(&w, 1324);
	clr_scan_free(c);
	munmap(m, total);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_quiet(true);
	parse_records(data, size);
	parse_descriptor(data, size);
	scan(data, size);
	return 0;
}
