/* view: the model behind the `view` command, what every output format draws from.
 *
 * One streaming pass over a trace fills it: a trace.zip, a .trace directory, perf script text
 * (perf.data.txt, a file, stdin), or a NetTrace file of any writer (our unified <name>.nettrace
 * and dotnet-<pid>.nettrace, `dotnet-trace collect` and `collect-linux` files, .netperf files;
 * also inside a zip, as PerfView's own test inputs come).  The kind of input is told by its
 * content, not its name.
 *
 * What it holds (view_kind.h says what each weight is):
 *   - a weighted call tree per view (struct event_tree): one per sampled event (cpu-clock ...;
 *     "ThreadSample" for EventPipe's SampleProfiler samples of managed code), and for .NET
 *     "alloc" (AllocationTick bytes, or .NET 10's AllocationSampled; the allocated type as
 *     the leaf frame), "exception" (ExceptionThrown; the exception's type as the leaf) and
 *     "contention" (ContentionStart to Stop, ns waited; the lock as the leaf).  Trees are
 *     root first with a process level under the root; each frame has a kind (kernel, native,
 *     .NET runtime, JIT, ReadyToRun: calltree.h);
 *   - the blocked (off-CPU) time tree, from sched_switch samples (offcpu.h), or from the
 *     SampleProfiler's samples outside managed code (each weighs the sampling interval);
 *   - the .NET runtime's tables (runtime_report.h): per GC, per JIT-compiled method, and the
 *     findings sentences;
 *   - what the recording was (struct view_recording), for the heads of reports;
 *   - and, for timelines, each weighted event's time as it is read (view_observe()).
 *
 * Frames of EventPipe stacks are named as TraceLog names them (clr_code.h), from the method
 * and module events of the same file; an address named only by the rundown at the file's end
 * is named when the whole input is read.  Memory follows the number of unique stacks,
 * threads, methods and GCs, not of events.
 */
#ifndef PC_VIEW_H
#define PC_VIEW_H

#include "view_model.h"

/* pid, tid: -1 for any; processfilter: comma-separated command names, or NULL. */
struct view *view_new(long pid, long tid, const char *processfilter);
void view_free(struct view *v);
/* Each weighted event read from now on goes to fn (for timelines). */
void view_observe(struct view *v, view_observer fn, void *arg);
/* Reads input ("-" for stdin) to its end; -1 with pc_err() on an unreadable input.  What
 * could not be read of a damaged input is in v->warnings, one line each. */
int view_read(struct view *v, const char *input, struct stackfile_stats *st);
/* Reads one stream, a NetTrace one or perf script text (told by its first bytes), to its
 * end and finishes the view, as view_read() does with a file; name is for messages. */
int view_read_stream(struct view *v, FILE *f, const char *name);
/* A node an observer was given, in the tree as it is after view_read(). */
uint32_t view_node(const struct view *v, const struct event_tree *tree, uint32_t node);
/* The event to show: want ("cpu-clock" also finds EventPipe's "ThreadSample"; "alloc",
 * "exception", "contention" the .NET views); else cpu-clock or ThreadSample; else the first
 * sampled event that is not a tracepoint; else, when any_event, the first.  NULL if none. */
struct event_tree *view_choose_event(struct view *v, const char *want, bool any_event);
/* The tree of a .NET view (VIEW_ALLOC ...), NULL when the input has none of its events. */
struct event_tree *view_tree_of(struct view *v, enum view_kind kind);
/* The build-ids perf.data holds (HEADER_BUILD_ID) for the input's shared objects, read from
 * the perf.data beside perf.data.txt (in the zip, or the .trace directory); NULL with *n = 0
 * when there is none.  Free with view_free_build_ids(). */
struct pprof_build_id *view_read_build_ids(const char *input, size_t *n);
void view_free_build_ids(struct pprof_build_id *ids, size_t n);
/* One line on f for the frames left unnamed in files without symbols, with their build-ids
 * (unnamed.h); nothing when there are none. */
void view_print_unnamed(const struct view *v, const char *input, FILE *f);
/* "name (count), ..." of every event but except. */
void view_list_events(FILE *f, const struct view *v, const struct event_tree *except);

#endif
