/* log: perfcollect.log, the record of one collection or merge that goes into the archive.
 *
 * One process-wide log (a collection is one job).  log_info() only writes to the file;
 * log_warn() also prints "perfcollect-c: warning: ..." on stderr so the user sees it at
 * once.  Before log_open() (or after log_close()) lines go to stderr only (warnings) or
 * nowhere (info), so library code can log unconditionally.
 */
#ifndef PC_LOG_H
#define PC_LOG_H

#include "util.h"

int log_open(const char *path);
void log_close(void);
void log_info(const char *fmt, ...) PC_PRINTF(1, 2);
void log_warn(const char *fmt, ...) PC_PRINTF(1, 2);
/* A line for the user on stderr (not a warning) that also goes into the log. */
void log_say(const char *fmt, ...) PC_PRINTF(1, 2);
/* In a forked child: the log file stays the parent's (not closed, no line of the child's
 * reaches it). */
void log_forget(void);
/* Suppress log_say/log_warn on stderr (tests, --quiet). */
void log_set_quiet(bool quiet);

#endif
