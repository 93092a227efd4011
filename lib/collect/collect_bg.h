/* collect_bg: a collection in the background, as perfcollect's `start NAME` / `stop NAME`.
 *
 * start forks a collector that leaves the terminal's session, registers it under NAME in
 * this user's registry of background collections (collect_registry.h: where its zip will
 * go, and what it says), and returns once the events record (or with the collector's own
 * error when it could not start).  The zip's directory is made absolute: the collector's
 * messages and stop name it the same from anywhere.
 *
 * stop, from any shell and any directory, finds NAME there, checks that the process it
 * names is still that collector (same boot, same start time: a PID reused since is someone
 * else; and a perfcollect-c), sends it SIGINT (what Ctrl+C does to `collect`), waits until
 * the zip is written where start said and relays what the collector said.  An entry whose
 * collector is gone without finishing (killed, crashed, the machine restarted) is explained
 * and removed: the trace directory it leaves is what `merge` turns into a zip.
 */
#ifndef PC_COLLECT_BG_H
#define PC_COLLECT_BG_H

#include "collect_opts.h"

#include <stdio.h>

/* In the caller: 0 once recording runs in the background, -1 when it could not start (the
 * collector's messages already on stderr, or a pc_err() line).  The forked collector never
 * returns: it exits with collect_run()'s status. */
int collect_bg_start(struct collect_opts *o);

/* Stops name, or with name NULL the only background collection there is (several: lists
 * them and stops none).  outdir, when not NULL, is where the caller expects the zip (stop
 * -o): said when start put it elsewhere.  0 when the collector wrote its zip; 1 when it
 * ended with an error (its messages relayed); -1 with a pc_err() line when there is no such
 * collection, it is stale, or several run and none was named. */
int collect_bg_stop(const char *name, const char *outdir);

/* One line per background collection to f: name, state, pid, since when, the zip.  Stale
 * ones are marked, not removed.  -1 with pc_err() when the registry cannot be read. */
int collect_bg_list(FILE *f);

#endif
