/* runtime_report: what the .NET runtime's own events say, per process, from any NetTrace
 * stream (collect's dotnet-<pid>.nettrace, our unified <name>.nettrace, dotnet-trace's
 * files), read event by event as view reads the stream:
 *
 *   GCs, one row each (runtime_report_gcs()), as TraceEvent's analysis
 *   (TraceLoadedDotNetRuntime, what PerfView's GCStats shows) computes them: a GC's pause
 *   runs from the suspension of the runtime for it (GCSuspendEEBegin, reason GC or GC-prep)
 *   to the restart that ends it (GCRestartEEEnd on the same thread); a background GC's pause
 *   is its initial suspension plus each later one for it; the ephemeral GC at a background
 *   GC's start pauses from its own GCStart; only GCs complete by that analysis's rules (a
 *   restart after GCEnd and GCHeapStats; for a background GC, its GCHeapStats) count.
 *   Heap size after and promoted bytes from GCHeapStats; size before, gen0 allocated and
 *   fragmentation from the heaps' histories (GCPerHeapHistory) where the trace has them,
 *   else as TraceEvent estimates them (the previous GC's sizes, gen0 at least what the
 *   allocation ticks counted since); % Pause Time against the time since the last GC;
 *   JIT: one row per method compiled (MethodJittingStarted to its MethodLoadVerbose on the
 *   same thread: time, IL size, tier);
 *   exceptions thrown per type, allocation bytes per type, lock contention (waits, time).
 *
 * Times are the runtime's clock, CLOCK_MONOTONIC on Linux: the clock of the CPU samples,
 * so runtime_report_sample() can place samples of the same process (by pid as the
 * collector saw it) inside GC pauses.  Events must be given in the order of the stream (GC
 * events are put in time order at the stream's end).  Memory follows the number of GCs and
 * JIT-compiled methods, not of events.
 */
#ifndef PC_RUNTIME_REPORT_H
#define PC_RUNTIME_REPORT_H

#include "base/util.h"
#include "nettrace/runtime_events.h"

struct runtime_report;
struct calltree;

/* The process frame under the root of the trees of NetTrace stacks (view.h), by host pid. */
#define RT_PROCESS_FRAME "pid %ld"

struct runtime_report *runtime_report_new(void);
void runtime_report_free(struct runtime_report *rr);

/* One stream: begin, its events, end.  host_pid: the process as the CPU samples name it
 * (from dotnet-<pid>.nettrace), or -1 for the pid each event names. */
struct rt_stream *runtime_report_begin(struct runtime_report *rr, const char *name, long host_pid);
/* An event of the runtime's providers (kind = runtime_event_kind(e->meta)), of process pid
 * as the file names it. */
void runtime_report_event(struct rt_stream *s, const struct nettrace_trace *t, uint64_t pid,
			  enum runtime_event_kind kind, const struct nettrace_event *e);
/* The stream's end (t NULL when not even its header was read). */
void runtime_report_end(struct rt_stream *s, const struct nettrace_trace *t,
			const struct nettrace_stats *st);

/* One CPU sample of process pid at CLOCK_MONOTONIC time_ns (after every stream's end). */
void runtime_report_sample(struct runtime_report *rr, int pid, uint64_t time_ns);

size_t runtime_report_processes(const struct runtime_report *rr);

/* One GC, as TraceEvent's analysis has it. */
struct rt_gc {
	uint32_t number, gen, reason, type;
	uint64_t start_ns;	 /* GCStart, the trace's clock */
	uint64_t pause_start_ns; /* see above */
	double pause_ns, suspend_ns, duration_ns;
	uint64_t heap_before, heap_after, promoted; /* bytes */
	uint64_t gen_after[5];			    /* gen0, 1, 2, large, pinned objects */
	bool has_heap, complete;
	uint64_t samples; /* CPU samples of the process inside the pause */
	/* PerfView's GCStats columns, by TraceEvent's rules (TraceGC): */
	double alloc[3];	    /* bytes the allocation ticks counted since the previous GC's
				       heap stats: small (gen0), large, pinned object heap */
	double since_last_ns;	    /* DurationSinceLastRestartMSec: from the previous GC's heap
				       stats to this pause (a background GC: to its heap stats) */
	double pause_pct;	    /* % Pause Time: the pause against the time since the last GC */
	uint64_t heap_peak;	    /* Peak MB: the size before, for a background GC the largest
				       before any GC within it */
	uint64_t finalize_promoted; /* Finalizable Surv MB (bytes) */
	uint32_t pinned_objects;
	double gen0_alloc; /* Gen0 Alloc MB (bytes): from the heaps' histories where this GC
			      and the one before have them, else alloc[0] */
	/* from GCPerHeapHistory, where the trace has it (nheaps 0: not) */
	uint32_t nheaps, ngens;
	uint64_t gen_before[5]; /* the heaps' sizes before */
	uint64_t gen_frag[5];	/* their fragmentation after */
	uint64_t *heap_gen0;	/* per heap: gen0's objects before, after (2 x nheaps) */
};

/* Gen<n> Frag % (n 0-3) as GCStats shows it: the heaps' fragmentation over the generation's
 * size after; NaN without the heaps' histories. */
double rt_gc_frag_pct(const struct rt_gc *g, int gen);

/* Gen0 Alloc Rate MB/sec as GCStats shows it: the gen0 allocations over the time since the
 * last GC (0 when that time is not positive). */
double rt_gc_alloc_rate(const struct rt_gc *g);

/* One JIT-compiled method. */
struct rt_jit {
	uint64_t method_id, tid, start_ns, end_ns; /* end_ns 0: still compiling at the end */
	uint32_t il_size;
	uint32_t flags; /* of the MethodLoadVerbose that ended it */
	char *name;
};
/* Its JIT time in ns (JITStats' JIT MSec): from MethodJittingStarted to the load that
 * ended it; 0 while still compiling. */
uint64_t rt_jit_ns(const struct rt_jit *j);
/* The methods of jits whose JIT ended within the trace, in the order they started: *n
 * pointers into jits, the array to free(); *total_ns their JIT time. */
const struct rt_jit **rt_jits_ended(const struct rt_jit *jits, size_t njits, size_t *n,
				    uint64_t *total_ns);
/* ms from the trace's time zero (sync_ns) to ns: TraceEvent's "relative ms". */
double rt_relative_ms(uint64_t sync_ns, uint64_t ns);

/* A process's rows (every stream of it in the report order); NULL past the last. */
struct rt_process_info {
	const char *name; /* the file */
	long host_pid;
	uint32_t pid;		   /* as the runtime saw itself */
	uint64_t start_ns, end_ns; /* the session */
	uint64_t sync_ns;	   /* the trace's time zero (its "relative ms" count from it) */
	const struct rt_gc *gcs;   /* every GC started, complete or not */
	size_t ngcs;
	const struct rt_jit *jits;
	size_t njits;
};
bool runtime_report_process(const struct runtime_report *rr, size_t i, struct rt_process_info *out);

struct runtime_report_opts {
	long pid;   /* only this process (-1: all) */
	size_t top; /* rows per table */
	/* The view's trees of the same events, for "thrown by" and "waited in" (NULL: none). */
	const struct calltree *exceptions, *contention;
};
/* The report of every process read; -1 with pc_err() when writing fails. */
int runtime_report_print(const struct runtime_report *rr, FILE *out,
			 const struct runtime_report_opts *o);
/* CSV, a header line then one row per complete GC (gcs) or per JIT-compiled method (jit). */
int runtime_report_csv_gcs(const struct runtime_report *rr, FILE *out,
			   const struct runtime_report_opts *o);
int runtime_report_csv_jit(const struct runtime_report *rr, FILE *out,
			   const struct runtime_report_opts *o);
/* The JIT table, every method (text). */
int runtime_report_print_jit(const struct runtime_report *rr, FILE *out,
			     const struct runtime_report_opts *o);

/* The method a stack of the view's exception (lock: contention) tree was thrown in (waited
 * in): the first managed frame above the leaf node that is not the runtime's own machinery
 * of throwing (System.Runtime.EH, ThrowHelper) or of locking (System.Threading).  NULL when
 * no frame is named so. */
const char *rt_site(const struct calltree *t, uint32_t leaf, bool lock);

/* "dotnet-1234.nettrace" or ".../dotnet-1234-2.nettrace" -> 1234; -1 otherwise. */
long runtime_report_pid_of_name(const char *name);

#endif
