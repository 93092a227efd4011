/* heap: see heap.h. */
#include "heap.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

enum {
	HUGE_PAGE = 2u << 20,
	HEAP_RESERVE = 128u << 20, /* what the heap grows by at once (virtual) */
};

void heap_setup(void)
{
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 512 << 20);
	mallopt(M_TOP_PAD, HEAP_RESERVE);
	/* One allocation grows the heap by the reserve; the huge-page advice then covers
	 * the whole reserve, which the heap's blocks are carved from.  (Later growth, past
	 * the reserve, gets ordinary pages.) */
	uintptr_t lo = (uintptr_t)sbrk(0);
	void *p = malloc(1u << 20);
	if (!p)
		return;
	((volatile char *)p)[0] = 0; /* used, so that the compiler keeps the malloc */
	uintptr_t hi = (uintptr_t)sbrk(0);
	uintptr_t start = (lo + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	if (lo != (uintptr_t)-1 && hi > start)
		madvise((void *)start, hi - start, MADV_HUGEPAGE);
	free(p);
}
