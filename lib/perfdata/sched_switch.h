/* sched_switch: the fields of a sched:sched_switch sample's trace text (as perf script and
 * libtraceevent print it) that say which thread left the CPU, in which state, and which one
 * came in; and which of those states are waits.  Used by view's off-CPU time and by the
 * NetTrace's context switches, so both count the same waits.
 *
 * A blocked state waits for something: S sleeping, D uninterruptible, I idle, T/t stopped or
 * traced, P parked, and their combinations.  Not blocked: R/R+ (preempted: runnable, it
 * waits for a CPU) and X/Z (a dying task's last switch).
 */
#ifndef PC_SCHED_SWITCH_H
#define PC_SCHED_SWITCH_H

#include "base/util.h"

/* The tracepoint's event name, as perf.data and perf script name it. */
#define SCHED_SWITCH_EVENT "sched:sched_switch"

struct sched_switch {
	int prev_pid, next_pid;
	bool blocked; /* prev_state is one of the waiting states above */
	char prev_state[8];
};

/* Parses the trace field of a sched_switch sample ("prev_comm=a prev_pid=1 prev_prio=120
 * prev_state=S ==> next_comm=b next_pid=2 next_prio=120"); 0, or -1 when a field is missing
 * or malformed (no pc_err). */
int sched_switch_parse(const char *trace, struct sched_switch *sw);
/* Whether a prev_state value ("S", "D|K", "R+", ...) is a blocked one. */
bool sched_state_blocked(const char *state);

#endif
