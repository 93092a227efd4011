/* stacks_unwind: the user stacks of a stopped process's threads, with the unwinder samples
 * use (unwind/unwind.h): while a thread is stopped its registers and the used part of its
 * stack are copied (stacks_copy_thread); once the threads run again the copy is unwound,
 * each frame by its code's rules: the mapped file's CFI or a .NET image's unwind info, read
 * once per file, frame pointers for code with neither (JIT code).
 *
 * Files are opened as the target maps them: /proc/<pid>/map_files (the very file, in
 * another mount namespace or deleted too) when we may, else inside /proc/<pid>/root without
 * following a symlink out of it.  A stack is read from the thread's stack pointer to the end
 * of the mapping it is in, at most STACKS_COPY_MAX bytes.
 */
#ifndef PC_STACKS_UNWIND_H
#define PC_STACKS_UNWIND_H

#include "base/util.h"
#include "unwind/unwind.h"

#include <sys/types.h>

#define STACKS_COPY_MAX (1u << 20)

struct stacks_unwinder;

/* The process's mappings, read now; NULL with pc_err() when /proc/<pid>/maps cannot be. */
struct stacks_unwinder *stacks_unwinder_new(pid_t pid, uid_t uid);
void stacks_unwinder_free(struct stacks_unwinder *u);

/* Opens the file mapped at low under name (as in /proc/<pid>/maps), as said above; -1 when
 * it cannot be. */
int stacks_open_mapped(const struct stacks_unwinder *u, const char *name, uint64_t low);

/* A stopped thread's registers and stack. */
struct thread_copy {
	struct unwind_regs regs;
	struct unwind_stack stack; /* data malloc'd */
};

/* Copies stopped thread tid's state; -1 with *why (malloc'd) when it cannot. */
int stacks_copy_thread(struct stacks_unwinder *u, pid_t tid, struct thread_copy *out, char **why);
void stacks_copy_free(struct thread_copy *c);
/* The frames of a copy, innermost first, at most max. */
size_t stacks_unwind(struct stacks_unwinder *u, const struct thread_copy *c,
		     struct unwind_frame *out, size_t max);

#endif
