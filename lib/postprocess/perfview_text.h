/* perfview_text: where perf script's text would mislead PerfView's reader of it (TraceEvent's
 * LinuxPerfScriptEventParser), and how perf.data.txt writes those few things instead.
 *
 *   - A process name is found by scanning the header line for whitespace, digits and '/'
 *     followed by a digit (or a non-digit and '['): a name holding " 1/2" or " 5 [" is cut
 *     there, the pid, cpu and time are read from the wrong place, and the reader throws
 *     (FormatException: PerfView opens nothing).  Such names are written with '_' for their
 *     whitespace (and, if that is not enough, for '/' and '[').
 *   - A frame's dso starts at the last '(' of its line: "/memfd:doublemapper (deleted)"
 *     would become module "deleted)".  The " (deleted)" perf appends to the name of a file
 *     replaced or removed since it was mapped is left out.
 *
 * Everything else is perf script's text as it is.
 */
#ifndef PC_PERFVIEW_TEXT_H
#define PC_PERFVIEW_TEXT_H

#include "base/util.h"

/* Whether PerfView reads comm back whole from a header line "comm PID/TID ..." (leading and
 * trailing whitespace aside, which it trims). */
bool perfview_comm_ok(const char *comm, int pid, int tid);
/* comm as perf.data.txt writes it: comm itself when perfview_comm_ok(), else a malloc'd
 * copy with the characters that mislead the reader replaced by '_' (*renamed set). */
char *perfview_comm(const char *comm, int pid, int tid, bool *renamed);
/* The length of dso to write: without a trailing " (deleted)". */
size_t perfview_dso_len(const char *dso);

#endif
