/* collect_tracedir: <name>.trace while a collection writes it.  Created fresh (never an
 * existing one), locked for as long as the collector lives (lock_dir()), and marked as a
 * collector's with TRACEDIR_MARKER (base/tracefile.h), where the collector also notes what it
 * changed in a target, for a merge to undo if the collector dies (collect_undo_left_over()).  An
 * existing one gets a message saying whose it is and the command that finishes it. */
#ifndef PC_COLLECT_TRACEDIR_H
#define PC_COLLECT_TRACEDIR_H

#include "base/util.h"

struct tracedir {
	const char *name;     /* the trace's name */
	const char *outdir;   /* where it goes, "." by default */
	const char *path;     /* <outdir>/<name>.trace */
	const char *zip_path; /* <outdir>/<name>.trace.zip */
};

/* Creates, locks and marks it.  Returns the lock's fd; -1 with pc_err() (it exists: see
 * tracedir_refuse()). */
int tracedir_create(const struct tracedir *td);
/* It exists: sets pc_err() to one line naming the running collection (its pid) that has
 * it, or the merge command that finishes one a dead collector left. */
void tracedir_refuse(const struct tracedir *td);
/* "perfcollect-c merge <name>.trace" (with -o when outdir is not "."), malloc'd. */
char *tracedir_merge_command(const struct tracedir *td);
/* Appends a line to the marker. */
void tracedir_note(const struct tracedir *td, const char *fmt, ...) PC_PRINTF(2, 3);

/* What a collector that died left switched on in a target, from its marker: a .NET runtime
 * asked to write perf maps (line "dotnet-perfmap <pid> <starttime>").  Switches it off again
 * when that very process still runs (same pid and start time); one line per process says
 * what was done.  For merge, which finishes the left-over directory. */
void collect_undo_left_over(const char *trace_dir);

#endif
