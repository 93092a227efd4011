/* heap: the allocator's policy for this program, set once at the start of main().
 *
 * Post-processing allocates and frees tens of megabytes in large blocks (symbol tables,
 * string tables, sort buffers, NetTrace and zip buffers).  With glibc's defaults each such
 * block is a fresh mmap whose every 4 KiB page faults on first touch and is unmapped on
 * free, to fault again in the next one; on a virtual machine a fault costs microseconds,
 * and they were a third of merge's time.  heap_setup() keeps large blocks in the heap (up
 * to 32 MiB, reused after free, not given back below 512 MiB) and asks for transparent huge
 * pages on the first 128 MiB of it, so most of the heap faults once per 2 MiB.  Peak RSS
 * grows by about 15 MiB on a short trace (huge pages partly used); where the kernel gives
 * no huge pages (transparent_hugepage=never) only the reuse remains.  Outputs do not
 * change.
 */
#ifndef PC_HEAP_H
#define PC_HEAP_H

void heap_setup(void);

#endif
