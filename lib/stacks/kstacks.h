/* kstacks: what the kernel is doing, for every task on the machine, kernel threads included
 * (what Windows' `!stacks 2 FooDRV` shows).
 *
 * Each task's state, wait channel and kernel stack (/proc/<pid>/task/<tid>/{stat,wchan,
 * stack}; the stack needs root) is read without stopping anything: a task sleeping in the
 * kernel stays where it sleeps.  A kworker's comm names the workqueue it serves or last
 * served ("kworker/0:1-events"); that name is kept apart.  Tasks group when their state,
 * wait channel and kernel functions match.
 *
 * Seen from a PID namespace other than the host's, only that namespace's tasks exist in
 * /proc and no kernel thread at all: the snapshot says so (a sidecar sees everything when it
 * shares the host's PID namespace).
 */
#ifndef PC_KSTACKS_H
#define PC_KSTACKS_H

#include "stacks.h"

struct task_stack {
	pid_t pid, tid;
	char comm[64];
	char state;
	char wchan[64];
	bool kthread;
	char workqueue[64]; /* a kworker's workqueue, "" otherwise */
	struct stack_frame *kframes;
	size_t nkframes;
};

struct kernel_snapshot {
	struct task_stack *tasks; /* by pid, then tid */
	size_t ntasks;
	size_t seen;	      /* tasks looked at before filters */
	size_t kthreads_seen; /* of those, kernel threads */
	size_t no_stack;      /* of those kept, how many had no readable kernel stack */
	char *stack_note;     /* why kernel stacks are missing; or NULL */
	char *hidden_note;    /* what this PID namespace hides; or NULL */
	uint64_t total_ns;
};

struct kernel_opts {
	const char *states; /* keep tasks whose state letter is in this string; NULL: all */
	const char *module; /* keep tasks with this kernel module or function on the stack */
};

struct kernel_snapshot *kernel_snapshot_take(const struct kernel_opts *o);
void kernel_snapshot_free(struct kernel_snapshot *k);

/* The snapshot as text: tasks grouped, biggest group first. */
int kernel_report_write(FILE *f, const struct kernel_snapshot *k, const struct kernel_opts *o);

#endif
