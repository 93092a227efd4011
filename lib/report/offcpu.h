/* offcpu: blocked (off-CPU) time from sched:sched_switch samples, one streaming pass.
 *
 * A thread is blocked from a switch-out whose prev_state says it waits for something (S
 * sleeping, D uninterruptible, I idle, T/t stopped or traced, P parked, and their
 * combinations) to its next switch-in; the time goes to the stack of that switch-out.  Not
 * blocked: R/R+ (preempted: runnable, it waits for a CPU) and X/Z (a dying task's last switch).
 *
 * The switch-in is a later sched_switch whose next_pid is the thread, which a system-wide
 * recording always has, and so has `collect -pid` (it records the switches to the process's
 * threads from other tasks; those tasks, which perf names ":<tid>" for want of a COMM, start
 * no wait here: only part of their switches is there).  A `perf record -p` recording sees
 * only its own threads' switches, so where no such record comes the interval ends at the
 * thread's next sample of any event (it was running then): an upper bound that includes the
 * time it ran between its wake-up and that sample.  The stats say how many intervals ended
 * either way.  Intervals still open when the trace ends are left out of the weights and
 * counted apart.
 *
 * Samples must come in time order, as perf script prints them.  Per-thread state is one small
 * entry per thread that ever blocked: the pending switch-out's time and the calltree node of
 * its stack, never a copy of the frames.
 */
#ifndef PC_OFFCPU_H
#define PC_OFFCPU_H

#include "calltree.h"
#include "perfdata/sched_switch.h"
#include "stackfile.h"

#define OFFCPU_EVENT SCHED_SWITCH_EVENT

struct offcpu_stats {
	uint64_t switches;     /* sched_switch samples seen */
	uint64_t bad_switches; /* without a usable trace field or time: not counted */
	uint64_t intervals;    /* closed intervals, weighted into the tree */
	uint64_t ended_exact;  /* of which ended at the thread's switch-in */
	uint64_t ended_sample; /* of which ended at the thread's next sample (upper bound) */
	uint64_t open_at_end;  /* still blocked when the trace ended: left out */
	uint64_t open_ns;      /* how long those had been blocked by the last sample */
	uint64_t out_of_order; /* an end before its start (input not in time order): left out */
	uint64_t blocked_ns;   /* the weight added to the tree */
	uint64_t threads;      /* threads that blocked at least once */
};

struct offcpu;
/* tree is borrowed: blocked time is added to the nodes given to offcpu_block(). */
struct offcpu *offcpu_new(struct calltree *tree);
/* fn(arg, tid, start_ns, end_ns, node) for each wait when it ends (for timelines). */
void offcpu_on_wait(struct offcpu *oc,
		    void (*fn)(void *arg, int tid, uint64_t start, uint64_t end, uint32_t node),
		    void *arg);
void offcpu_free(struct offcpu *oc);

/* Feeds one sample (of any event, in time order, before any filter: a switch-in recorded in
 * another task's sample must still end an interval).  Ends the pending interval of the
 * sample's thread and, for sched_switch, of next_pid.  Returns true when the sample is a
 * blocked switch-out: the caller then passes the node of its stack to offcpu_block() (or
 * does not, to leave that thread's interval out, as view's filters do). */
bool offcpu_sample(struct offcpu *oc, const struct stack_sample *s);
/* Thread tid blocked at time_ns; its stack is calltree node `node`. */
void offcpu_block(struct offcpu *oc, int tid, uint64_t time_ns, uint32_t node);
/* The trace ended: counts the intervals still open (they are not weighted). */
void offcpu_finish(struct offcpu *oc);
const struct offcpu_stats *offcpu_stats(const struct offcpu *oc);

#endif
