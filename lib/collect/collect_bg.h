/* collect_bg: a collection in the background, as perfcollect's `start NAME` / `stop NAME`.
 *
 * start forks a collector that leaves the terminal's session, writes what it says to
 * <outdir>/<name>.trace.out and its state to <outdir>/<name>.trace.state, and returns once
 * the events record (or with the collector's own error when it could not start).
 *
 * stop, from any shell, reads the state, checks that the process it names is still that
 * collector (same boot, same start time: a PID reused since is someone else), sends it SIGINT
 * (what Ctrl+C does to `collect`), waits until the zip is written and relays what the
 * collector said.  A state whose collector is gone without finishing (killed, crashed, the
 * machine restarted) is explained and removed: the trace directory it leaves is what
 * `merge` turns into a zip.
 */
#ifndef PC_COLLECT_BG_H
#define PC_COLLECT_BG_H

#include "collect_opts.h"

/* In the caller: 0 once recording runs in the background, -1 when it could not start (the
 * collector's messages already on stderr, or a pc_err() line).  The forked collector never
 * returns: it exits with collect_run()'s status. */
int collect_bg_start(struct collect_opts *o);

/* 0 when the collector wrote its zip; 1 when it ended with an error (its messages relayed);
 * -1 with a pc_err() line when there is no such collection or its state is stale. */
int collect_bg_stop(const char *name, const char *outdir);

#endif
