/* collect: one collection from start to zip: check permissions, open the events, record
 * into <name>.trace/perf.data until a stop condition, then postprocess_run() into
 * <name>.trace.zip.  A second Ctrl+C during post-processing does not lose the trace.
 */
#ifndef PC_COLLECT_H
#define PC_COLLECT_H

#include "collect_opts.h"
#include "collect_tracedir.h" /* collect_undo_left_over() */

/* Returns 0 when <outdir>/<name>.trace.zip was written from a clean recording; -1 with a
 * pc_err() line otherwise (no permission, no such process, a write error ...).
 *
 * While it runs, <name>.trace is locked (lock_dir()) and holds TRACEDIR_MARKER
 * (base/tracefile.h); a directory with the marker and no lock was left by a collector that
 * died, and the next collect of that name says how to finish it (`perfcollect-c merge
 * <name>.trace`). */
int collect_run(const struct collect_opts *o);

#endif
