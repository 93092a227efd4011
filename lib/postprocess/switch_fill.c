/* switch_fill: see switch_fill.h.  One byte of state per thread id, indexed directly (thread
 * ids are below the kernel's pid_max, at most 2^22): a lookup per switch, nothing else. */
#include "switch_fill.h"
#include "base/util.h"
#include "perfdata/sched_switch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TID (1u << 22) /* PID_MAX_LIMIT on 64-bit */

enum { UNKNOWN, RUNNING, OFF_CPU };

struct switch_fill {
	uint8_t *state; /* by tid */
	size_t cap;
	struct switch_fill_stats st;
	char comm[256], prev_comm[16], next_comm[16];
	char trace[160];
};

struct switch_fill *switch_fill_new(void)
{
	return xcalloc(1, sizeof(struct switch_fill));
}

void switch_fill_free(struct switch_fill *f)
{
	if (!f)
		return;
	free(f->state);
	free(f);
}

const struct switch_fill_stats *switch_fill_stats(const struct switch_fill *f)
{
	return &f->st;
}

static uint8_t get_state(const struct switch_fill *f, int tid)
{
	return tid > 0 && (size_t)tid < f->cap ? f->state[tid] : UNKNOWN;
}

static void set_state(struct switch_fill *f, int tid, uint8_t s)
{
	if (tid <= 0 || (uint32_t)tid >= MAX_TID)
		return; /* the idle task (0) has no state to follow */
	if ((size_t)tid >= f->cap) {
		size_t cap = f->cap ? f->cap : 4096;
		while (cap <= (size_t)tid)
			cap *= 2;
		f->state = xrealloc(f->state, cap);
		memset(f->state + f->cap, UNKNOWN, cap - f->cap);
		f->cap = cap;
	}
	f->state[tid] = s;
}

void switch_fill_tracepoint(struct switch_fill *f, const char *trace)
{
	struct sched_switch sw;
	if (!trace || sched_switch_parse(trace, &sw) < 0)
		return;
	set_state(f, sw.prev_pid, OFF_CPU);
	set_state(f, sw.next_pid, RUNNING);
}

/* A task's name as the tracepoint prints it: the comm truncated to 15 characters, the idle
 * task as the kernel names it. */
static void task_comm(char *dst, struct machine *m, uint32_t pid, uint32_t tid, uint32_t cpu)
{
	if (!tid)
		snprintf(dst, 16, "swapper/%u", cpu);
	else
		snprintf(dst, 16, "%s", machine_comm(m, pid, tid));
}

bool switch_fill_record(struct switch_fill *f, const struct perfdata_record *rec, struct machine *m,
			struct switch_fill_sample *out)
{
	const struct perf_event_header *h = rec->header;
	if (h->type != PERF_RECORD_SWITCH && h->type != PERF_RECORD_SWITCH_CPU_WIDE)
		return false;
	uint32_t self_pid = rec->id.pid, self_tid = rec->id.tid, cpu = rec->id.cpu;
	if (!self_tid || self_tid >= MAX_TID)
		return false;
	/* the other task: named by a CPU-wide record, else taken for the idle task */
	uint32_t other_pid = 0, other_tid = 0;
	if (h->type == PERF_RECORD_SWITCH_CPU_WIDE && h->size >= sizeof(*h) + 8) {
		const uint32_t *body = (const uint32_t *)(h + 1);
		other_pid = body[0];
		other_tid = body[1];
		if (other_tid >= MAX_TID)
			other_pid = other_tid = 0;
	}
	bool switch_out = h->misc & PERF_RECORD_MISC_SWITCH_OUT;
	uint8_t now = get_state(f, (int)self_tid);
	if (switch_out ? now != RUNNING : now != OFF_CPU) {
		/* the tracepoint had it (or the thread is new here): follow the record */
		set_state(f, (int)self_tid, switch_out ? OFF_CPU : RUNNING);
		return false;
	}
	uint32_t prev_pid = switch_out ? self_pid : other_pid;
	uint32_t prev_tid = switch_out ? self_tid : other_tid;
	uint32_t next_pid = switch_out ? other_pid : self_pid;
	uint32_t next_tid = switch_out ? other_tid : self_tid;
	const char *state = "R"; /* the idle task, or a task the record does not name */
	if (switch_out)
		state = h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT ? "R+" : "S";
	task_comm(f->prev_comm, m, prev_pid, prev_tid, cpu);
	task_comm(f->next_comm, m, next_pid, next_tid, cpu);
	snprintf(f->trace, sizeof(f->trace),
		 "prev_comm=%s prev_pid=%u prev_prio=120 prev_state=%s ==> next_comm=%s "
		 "next_pid=%u next_prio=120",
		 f->prev_comm, prev_tid, state, f->next_comm, next_tid);
	if (prev_tid)
		snprintf(f->comm, sizeof(f->comm), "%s", machine_comm(m, prev_pid, prev_tid));
	else
		snprintf(f->comm, sizeof(f->comm), "swapper");
	*out = (struct switch_fill_sample){
	    .pid = (int32_t)prev_pid, .tid = (int32_t)prev_tid, .comm = f->comm, .trace = f->trace};
	set_state(f, (int)prev_tid, OFF_CPU);
	set_state(f, (int)next_tid, RUNNING);
	if (switch_out)
		f->st.outs++;
	else
		f->st.ins++;
	return true;
}
