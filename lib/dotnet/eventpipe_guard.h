/* eventpipe_guard: a helper process that stops a collector's EventPipe sessions if the
 * collector dies without stopping them (SIGKILL, an OOM kill, a crash).
 *
 * A runtime ends a streaming session on StopTracing, at its own exit, or when writing to
 * the session's stream fails, and it writes only when it has events: a quiet process would
 * keep the session of a dead collector open.  The guard is forked before the collector
 * starts threads, in its own session (a Ctrl+C or a kill of the collector's process group
 * does not reach it), holding nothing but one end of a socket pair.  The collector tells it
 * each session it opens and each one that ended; when the socket reports the collector
 * gone, the guard sends StopTracing for what is still open, then exits.
 */
#ifndef PC_EVENTPIPE_GUARD_H
#define PC_EVENTPIPE_GUARD_H

#include "base/util.h"
#include <sys/types.h>

struct eventpipe_guard;

/* Forks the guard.  Call while the process has one thread.  NULL with pc_err() when it
 * cannot (the collection goes on unguarded). */
struct eventpipe_guard *eventpipe_guard_start(void);
void eventpipe_guard_add(struct eventpipe_guard *g, pid_t pid, uint64_t session);
void eventpipe_guard_remove(struct eventpipe_guard *g, pid_t pid, uint64_t session);
/* Every session is stopped or removed: the guard exits; waits for it. */
void eventpipe_guard_finish(struct eventpipe_guard *g);
pid_t eventpipe_guard_pid(const struct eventpipe_guard *g);

#endif
