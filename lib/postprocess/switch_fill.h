/* switch_fill: the context switches the kernel's sched:sched_switch tracepoint did not record,
 * recovered from the same recording's PERF_RECORD_SWITCH(_CPU_WIDE) records.
 *
 * On some kernels (this project's 6.18 VMs; `perf record -e sched:sched_switch` shows it
 * too) the tracepoint misses switches, mostly a CPU leaving idle for a woken thread: the
 * thread's switch-in is not there, so PerfView's thread time and view's blocked time keep it
 * blocked until its next switch-out.  The switch records, written by perf's scheduler hooks
 * rather than the tracepoint, have every switch of the recorded tasks (collect asks for them
 * with -threadtime and -offcpu).  Fed both in time order, this says where a record shows a
 * switch the tracepoint left out, and gives the sched_switch sample perf would have printed:
 *
 *   - a switch-in of a thread whose last tracepoint switch was its switch-out;
 *   - a switch-out of a thread whose last one was its switch-in, with prev_state "R+" when
 *     the record says it was preempted, else "S" (it gave up the CPU: a wait, which may have
 *     been a D one: the record does not say).
 *
 * The other task of the switch is the record's (PERF_RECORD_SWITCH_CPU_WIDE names it); a
 * per-thread PERF_RECORD_SWITCH does not name it, and the idle task ("swapper/CPU", pid 0)
 * is written, which is what the missed switches are in practice.  A thread whose state is
 * not known yet (the trace's start) gets no line.  The comm and priority fields are what
 * the recording knows: the comm from its COMM records, priority 120 (nice 0).
 */
#ifndef PC_SWITCH_FILL_H
#define PC_SWITCH_FILL_H

#include "perfdata/perfdata_read.h"
#include "symbols/machine.h"

struct switch_fill;

/* A sched_switch sample to write for a missed switch: the task that was running when the
 * tracepoint would have fired (the one switching out), and the tracepoint's text. */
struct switch_fill_sample {
	int32_t pid, tid;
	const char *comm;
	const char *trace;
};

struct switch_fill_stats {
	uint64_t ins, outs; /* lines given for missed switch-ins and switch-outs */
};

struct switch_fill *switch_fill_new(void);
void switch_fill_free(struct switch_fill *f);

/* A sched:sched_switch sample's trace text ("prev_comm=... ==> next_comm=..."). */
void switch_fill_tracepoint(struct switch_fill *f, const char *trace);

/* A PERF_RECORD_SWITCH or PERF_RECORD_SWITCH_CPU_WIDE record (others are ignored).  True
 * when it shows a switch the tracepoint missed: *out (valid until the next call) is the
 * sample to write, at the record's time and CPU.  m names the tasks. */
bool switch_fill_record(struct switch_fill *f, const struct perfdata_record *rec, struct machine *m,
			struct switch_fill_sample *out);

const struct switch_fill_stats *switch_fill_stats(const struct switch_fill *f);

#endif
