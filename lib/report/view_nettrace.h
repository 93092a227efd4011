/* view_nettrace: one NetTrace stream into a view (view.h), read once, streaming:
 *
 *   - the Universal providers' samples (our <name>.nettrace, dotnet-trace collect-linux's
 *     files) through universal.h, as the samples of perf script text;
 *   - EventPipe's SampleProfiler ThreadSample events (dotnet-trace collect): a sample of a
 *     thread in managed code weighs 1 in the "ThreadSample" tree, PerfView's CPU_TIME; one
 *     outside managed code (native code, or blocked) weighs the sampling interval in the
 *     blocked tree, PerfView's UNMANAGED_CODE_TIME;
 *   - the runtime's events: into the runtime report (runtime_report.h), and those with
 *     stacks into the "alloc", "exception" and "contention" trees;
 *   - method and module events name the frames of EventPipe stacks (clr_code.h).
 *
 * A damaged stream keeps what came before the damage; what is missing (the end of a cut
 * file, stacks a stack block did not hold, a rundown that never came, event versions newer
 * than the decoders know) is one line each in the view's warnings.
 */
#ifndef PC_VIEW_NETTRACE_H
#define PC_VIEW_NETTRACE_H

#include "view_model.h"

/* Reads f to its end.  name: for messages; host_pid: the process as the CPU samples name it
 * (dotnet-<pid>.nettrace), or -1 for the pid the stream records.  -1 with pc_err() when not
 * even the stream's header could be read. */
int view_nettrace_read(struct view *v, FILE *f, const char *name, long host_pid);

#endif
