/* stacks: a snapshot of every thread of a live process, user and kernel stack, for hangs.
 *
 * The snapshot reads, for each thread, what /proc says while it still sleeps where it hung
 * (state, wait channel, the syscall it is in, the kernel stack from
 * /proc/<pid>/task/<tid>/stack, which needs root), then stops all threads at once with
 * PTRACE_SEIZE + PTRACE_INTERRUPT (no signal is sent), reads what each futex waiter waits
 * for (futex_owner.h), unwinds every user stack with libdw (DWARF CFI, frame pointers where
 * there is none), and detaches.  Threads interrupted in a syscall restart it, as under gdb
 * or eu-stack; a pending signal seen while stopped is handed back on detach.
 *
 * ELF files are opened through /proc/<pid>/map_files (the very file that is mapped, also in
 * another mount namespace or when deleted), else inside /proc/<pid>/root.  Addresses no ELF
 * file names (JIT code) are looked up in /proc/<pid>/root/tmp/perf-<nspid>.map, opened with
 * safe_open_in_root().
 */
#ifndef PC_STACKS_H
#define PC_STACKS_H

#include "base/util.h"
#include "futex_owner.h"
#include <sys/types.h>

struct stack_frame {
	uint64_t pc;   /* user frames: the return address (or the pc of the first frame) */
	char *text;    /* how the frame prints: "read+0x4d" / "pipe_read+0x366/0x410" / NULL */
	char *module;  /* path as the target sees it, "/tmp/perf-<nspid>.map", or NULL (kernel
			  frames: NULL for the kernel itself, the module name otherwise) */
	char *srcline; /* "file.c:42" when debug info says so, else NULL */
};

struct thread_stack {
	pid_t tid;
	pid_t nstid; /* the TID inside the target's PID namespace */
	char comm[32];
	char state;	/* from /proc/.../stat: 'S', 'D', 'R', ... */
	char wchan[64]; /* "" when none */
	struct thread_syscall syscall;
	struct lock_wait wait;
	struct stack_frame *kframes; /* innermost first */
	size_t nkframes;
	struct stack_frame *uframes; /* innermost first */
	size_t nuframes;
	char *user_error; /* why the user stack is missing or ends early; NULL if fine */
};

struct stacks_snapshot {
	pid_t pid;
	pid_t nspid;
	char comm[32];
	struct thread_stack *threads; /* sorted by tid */
	size_t nthreads;
	bool have_kernel;    /* kernel stacks were read */
	char *kernel_note;   /* why not, when they were asked for */
	char *perfmap_path;  /* the perf map used, as the target names it; NULL if none */
	char *perfmap_note;  /* why a perf map was not used, when one exists; else NULL */
	uint64_t stopped_ns; /* how long the threads were stopped */
};

struct stacks_opts {
	bool kernel; /* read kernel stacks (default true) */
};

/* Takes the snapshot.  NULL with pc_err() when the process cannot be read at all (no such
 * process, no permission to trace it); problems with single threads are noted in them. */
struct stacks_snapshot *stacks_snapshot_take(pid_t pid, const struct stacks_opts *o);
void stacks_snapshot_free(struct stacks_snapshot *s);

/* The thread with this tid, or NULL. */
const struct thread_stack *stacks_find_thread(const struct stacks_snapshot *s, pid_t tid);

#endif
