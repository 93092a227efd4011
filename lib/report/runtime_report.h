/* runtime_report: what the .NET runtime's own events say, per process, from the NetTrace
 * files collect writes (dotnet-<pid>.nettrace) or any *.nettrace:
 *
 *   GCs by generation, reason and type: count, pause time (from the suspension of the
 *   runtime to its restart: total, longest, % of the trace's wall time), heap size after;
 *   the longest pauses with their time and the CPU samples that fell inside them;
 *   exceptions by type, with the method that threw them (from the events' managed stacks);
 *   lock contention: waits and time waited, by the method that waited;
 *   JIT-compiled methods and JIT time, the slowest first;
 *   allocation ticks (one per ~100 KB allocated) by type.
 *
 * Times are the runtime's clock, CLOCK_MONOTONIC on Linux: the clock of the CPU samples,
 * so runtime_report_sample() can place samples of the same process (by pid as the
 * collector saw it) inside GC pauses.  Read every NetTrace first, then the samples.
 * Memory follows the number of GCs, exceptions, contentions and methods, not of events.
 */
#ifndef PC_RUNTIME_REPORT_H
#define PC_RUNTIME_REPORT_H

#include "base/util.h"

struct runtime_report;

struct runtime_report *runtime_report_new(void);
void runtime_report_free(struct runtime_report *rr);

/* Reads one NetTrace stream to its end.  host_pid: the process as the CPU samples name it
 * (from dotnet-<pid>.nettrace), or -1 for the pid the trace itself records.  A damaged or
 * cut stream keeps what came before it (a warning line in *warning, malloc'd, else NULL);
 * -1 with pc_err() only when nothing could be read. */
int runtime_report_add(struct runtime_report *rr, FILE *f, const char *name, long host_pid,
		       char **warning);
/* One CPU sample of process pid at CLOCK_MONOTONIC time_ns. */
void runtime_report_sample(struct runtime_report *rr, int pid, uint64_t time_ns);

size_t runtime_report_processes(const struct runtime_report *rr);

struct runtime_report_opts {
	long pid;   /* only this process (-1: all) */
	size_t top; /* rows per table */
};
/* The report of every process read; -1 with pc_err() when writing fails. */
int runtime_report_print(const struct runtime_report *rr, FILE *out,
			 const struct runtime_report_opts *o);

/* "dotnet-1234.nettrace" or ".../dotnet-1234-2.nettrace" -> 1234; -1 otherwise. */
long runtime_report_pid_of_name(const char *name);

#endif
