/* postprocess_unified: <name>.nettrace, the one (unified) file PerfView opens for everything:
 * written by the post-processing pass from the same records and the same symbolizer answers as
 * perf.data.txt, in NetTrace 6 with the "Universal" providers that TraceEvent's TraceLog reads
 * (microsoft/perfview UniversalProviders.md; its reader NettraceUniversalConverter.cs).
 *
 *  - Every sample becomes a Universal.Events event named after its perf event, with its
 *    stack (the frames of perf.data.txt, leaf first): "cpu" for the CPU clock (PerfView's CPU
 *    view; Value 1, one sample), the perf event's own name otherwise (Value: the period).
 *    Tracepoint samples carry perf script's trace text as a second field ("Trace").  Each
 *    event type's metadata says the perf event it came from (key "perf.event").
 *  - Universal.System: ExistingProcess (or ProcessCreate when the recording saw the fork)
 *    when a process is first referenced, ProcessExit at its exit; ProcessMapping for each
 *    mapping a frame lies in, named as perf script names the frames there (the dso), except
 *    /memfd: JIT double mappings, which keep their own name so that TraceLog takes the
 *    module from the JIT'd method's name; ProcessMappingMetadata with the ELF build-id;
 *    ProcessSymbol for each symbol a frame was named by (kernel, native, JIT'd, ReadyToRun),
 *    before the first event that needs it: PerfView needs no symbol files.
 *  - Universal.Events cswitch, when the recording has sched:sched_switch: a thread's
 *    switch-in after a blocked switch-out, Value = the blocked time in ticks, with the
 *    switch-out's stack, by the rules of report/offcpu.h (ended by the switch-in, or where
 *    the recording lacks it by the thread's next sample; a task perf names ":<tid>" starts
 *    none); PERF_RECORD_SWITCH switch-ins count too.  A thread's first switch-in with no
 *    switch-out before it gives a cswitch without a stack whose Value reaches back to the
 *    trace's start (PerfView counts every thread blocked until its first cswitch).
 *  - The .NET runtime's events (nettrace_out_add_runtime()): every event of the runtime's
 *    files, with its metadata, payload, thread and stack, at its time among the samples.
 *    TraceLog then names JIT'd code by the runtime's method events (and their rundown).
 *
 * One thread row per (tid, comm): a thread that changes its name gets a new row.  Times are
 * the perf clock's nanoseconds (1 tick = 1 ns).  Memory grows with threads, processes,
 * mappings and symbols, never with samples (and with the largest region between sequence
 * points of a runtime event file).
 *
 * The file is written to <path>.tmp.<pid> and renamed to path when finished.
 */
#ifndef PC_POSTPROCESS_UNIFIED_H
#define PC_POSTPROCESS_UNIFIED_H

#include "perfdata/perfdata_read.h"
#include "symbols/symbols.h"

struct nettrace_out;

/* Creates the temporary file; NULL with pc_err().  r and sym are borrowed for the pass. */
struct nettrace_out *nettrace_out_new(const char *path, struct perfdata_reader *r,
				      struct symbolizer *sym);
/* Copies the .NET runtime's events of these files of dir (dotnet-<pid>.nettrace) into the
 * file too, each at its time among the samples (postprocess_unified_runtime.c).  A file
 * that cannot be read is said in the log and left out. */
int nettrace_out_add_runtime(struct nettrace_out *o, const char *dir, char *const *names, size_t n);
/* Every byte of the file written to copy as well, as it is written (the archive's entry of
 * it, compressed beside the pass); before the first sample or record. */
void nettrace_out_copy_to(struct nettrace_out *o, FILE *copy);
/* A non-sample record, after symbolizer_process() took it (fork, exit, context switch). */
int nettrace_out_record(struct nettrace_out *o, const struct perfdata_record *rec);
/* A sample as perf.data.txt shows it: its frames, its thread's comm, the tracepoint text
 * (NULL for other events).  -1 with pc_err() when the file cannot be written. */
int nettrace_out_sample(struct nettrace_out *o, const struct perf_sample *s,
			const struct frame *frames, size_t nframes, const char *comm,
			const char *trace);
/* Ends the file and renames it into place; -1 with pc_err(). */
int nettrace_out_finish(struct nettrace_out *o);
/* Frees; an unfinished file is removed. */
void nettrace_out_free(struct nettrace_out *o);

#endif
