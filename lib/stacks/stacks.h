/* stacks: a snapshot of every thread of a live process, user and kernel stack, for hangs.
 *
 * The snapshot reads, for each thread, what /proc says while it still sleeps where it hung
 * (state, wait channel, the syscall it is in, the kernel stack from
 * /proc/<pid>/task/<tid>/stack, which needs root), then stops all threads at once with
 * PTRACE_SEIZE + PTRACE_INTERRUPT (no signal is sent), reads what each futex waiter waits
 * for (futex_owner.h), copies each thread's registers and stack, and detaches; the copies
 * are unwound after (stacks_unwind.h: the unwinder of collect's samples) and the frames
 * named with libdw.  Threads interrupted in a syscall restart it, as under gdb
 * or eu-stack; a pending signal seen while stopped is handed back on detach.
 *
 * A .NET process: before the stop its JIT maps are found, or borrowed from its runtime for
 * the moment (dotnet/dotnet_borrow.h; each IPC step with a short timeout); while stopped, the
 * Monitor each blocked thread waits for and its owner are read (clr_locks.h); managed frames
 * are named from the perf map and jitdump (symbols/symbols_jit.h) and the maps given back.
 *
 * ELF files are opened through /proc/<pid>/map_files (the very file that is mapped, also in
 * another mount namespace or when deleted), else inside /proc/<pid>/root.  Addresses no ELF
 * file names (JIT code) are looked up in the process's jitdump and perf-<nspid>.map inside
 * /proc/<pid>/root, opened with safe_open_in_root().
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
	bool jit;      /* named from a JIT map (module: the .NET assembly, or the map) */
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
	bool have_kernel;	/* kernel stacks were read */
	char *kernel_note;	/* why not, when they were asked for */
	char *jit_files;	/* the JIT maps that named frames, as we reached them; or NULL */
	char *jit_note;		/* why a JIT map there was not used; or NULL */
	bool dotnet;		/* a .NET runtime is loaded */
	char *dotnet_note;	/* why managed frames may be unnamed; or NULL */
	char *dotnet_done;	/* what its runtime was asked for; or NULL */
	size_t unnamed_jit;	/* frames in JIT code or .NET images left unnamed */
	char *managed_ids_note; /* why managed thread ids cannot be mapped to TIDs; or NULL */
	uint64_t stopped_ns;	/* how long the threads were stopped */
	uint64_t total_ns;	/* how long the whole snapshot took */
};

struct stacks_opts {
	bool kernel;	    /* read kernel stacks (default true) */
	bool dotnet;	    /* ask a .NET runtime for its JIT maps when it writes none */
	int ipc_timeout_ms; /* per IPC step; 0: 2000 */
};

/* Takes the snapshot.  NULL with pc_err() when the process cannot be read at all (no such
 * process, no permission to trace it); problems with single threads are noted in them. */
struct stacks_snapshot *stacks_snapshot_take(pid_t pid, const struct stacks_opts *o);
void stacks_snapshot_free(struct stacks_snapshot *s);

/* Parses /proc/<pid>/task/<tid>/stack text (modified in place) into frames, innermost
 * first: text "func+0x1/0x2", module the kernel module's name or NULL.  Returns how many. */
size_t stacks_parse_kernel_stack(char *text, struct stack_frame **frames);
void stacks_free_frames(struct stack_frame *f, size_t n);

/* The thread with this tid, or NULL. */
const struct thread_stack *stacks_find_thread(const struct stacks_snapshot *s, pid_t tid);

#endif
