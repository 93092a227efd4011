/* stacks_report: a stacks snapshot as text, threads with identical stacks grouped.
 *
 *   Process 4321 (server): 12 threads, stopped for 3.1 ms
 *
 *   Locks:
 *     10 threads wait for mutex 0x55d0c0a0c040 held by TID 4323 (server)
 *
 *   Owner of mutex 0x55d0c0a0c040: TID 4323 (server), state S, wchan anon_pipe_read
 *     kernel:
 *       anon_pipe_read+0x366/0x410
 *       ...
 *     user:
 *       #0  0x00007f1f2a8e719d read+0x4d (/usr/lib/x86_64-linux-gnu/libc.so.6)
 *       ...
 *
 *   10 threads: 4324 4325 ... (server), state S, wchan futex_do_wait,
 *     wait for mutex 0x55d0c0a0c040 held by TID 4323
 *     kernel: ...
 *     user: ...
 *
 * Lock owners come first, then the groups, biggest first.  A group is the threads whose
 * kernel frames, user frames and awaited lock are all the same.  With a module filter only
 * threads with that module on their stack are shown (lock owners always are).
 */
#ifndef PC_STACKS_REPORT_H
#define PC_STACKS_REPORT_H

#include "stacks.h"

struct stacks_report_opts {
	const char *module; /* NULL: all threads */
	const char *states; /* keep threads whose state letter is in it; NULL: all */
};

/* true if any frame of the thread is in module `name`: its path, its file name, or its file
 * name cut before a '.' ("libc" and "libc.so" match libc.so.6, "lib" does not); "kernel"
 * matches frames in the kernel proper, a kernel module's name its frames, a kernel function's
 * name the frames in it. */
bool stacks_thread_has_module(const struct thread_stack *t, const char *name);
/* true if a kernel frame is in module `name` ("kernel" for the kernel proper) or in a
 * function of that name (kstacks' -module filter too). */
bool stacks_kframes_have(const struct stack_frame *f, size_t n, const char *name);

/* Items (threads, tasks) with equal keys, by index. */
struct stack_group {
	size_t *members; /* ascending */
	size_t n;
};
/* Sorts idx (indices of n items) by keys[idx[i]] and cuts it into groups of equal keys,
 * biggest first (then by first member); *groups is malloc'd, its members point into idx. */
size_t stacks_group(char **keys, size_t *idx, size_t n, struct stack_group **groups);

int stacks_report_write(FILE *f, const struct stacks_snapshot *s,
			const struct stacks_report_opts *o);

#endif
