/* eventpipe_collect: the .NET runtime events of a collection.  One EventPipe session per
 * .NET process (the -pid target, or every .NET process on the machine, containers included,
 * and those that start during the collection: /proc is scanned every second), each
 * streamed as it arrives to <trace_dir>/dotnet-<pid>.nettrace (<pid> as the collector sees
 * it).  A thread of its own moves the bytes, so the perf recording loop is not held up.
 *
 * eventpipe_collector_stop() sends StopTracing to every session, waits for the runtimes'
 * rundown (method and module names, at most EVENTPIPE_RUNDOWN_WAIT_S seconds), and closes
 * the files.  A target that exits ends its session and file on its own.  If the collector
 * dies, the files hold everything that arrived, and the guard (dotnet_guard.h) ends the sessions.
 * What a target cannot do (no runtime, too old, diagnostics off, socket unreachable) is one
 * line on screen and in the log; the collection goes on.
 *
 * A runtime decides how much it sends: a file is written no further than
 * eventpipe_stream_max() bytes (a target cannot fill the host's disk); at the cap the file
 * keeps what came before it, a warning says so, the session is stopped and the rest read
 * and dropped (the runtime must never block on us).
 */
#ifndef PC_EVENTPIPE_COLLECT_H
#define PC_EVENTPIPE_COLLECT_H

#include "dotnet_guard.h"
#include "eventpipe_session.h"

#define EVENTPIPE_RUNDOWN_WAIT_S 30

/* The most written from one runtime's stream: 4 GiB (a busy service's CPU trace with its
 * runtime events is some hundred MB), or PERFCOLLECT_C_NETTRACE_MAX (a size: 8G). */
#define EVENTPIPE_STREAM_MAX_DEFAULT (4ull << 30)
uint64_t eventpipe_stream_max(void);

struct eventpipe_collect_opts {
	const char *trace_dir;
	pid_t pid;			       /* -1: every .NET process */
	const struct eventpipe_config *config; /* kept by the caller until _stop() */
	struct dotnet_guard *guard;	       /* told of every session; NULL: none */
};

struct eventpipe_collector;

/* Starts the thread (and, for -pid, the target's session, so the user sees it before the
 * recording starts; system-wide, the thread finds the .NET processes, the recording does
 * not wait for them).  NULL
 * with pc_err() only when nothing could be set up at all. */
struct eventpipe_collector *eventpipe_collector_start(const struct eventpipe_collect_opts *o);
/* Stops and frees; NULL is fine. */
void eventpipe_collector_stop(struct eventpipe_collector *c);

#endif
