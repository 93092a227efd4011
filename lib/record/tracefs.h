/* tracefs: where the kernel's tracing file system is, for tracepoint ids and formats
 * (tracepoints.h, tracing_data.h) and for install's check.  Looked for at
 * /sys/kernel/tracing, then inside debugfs (/sys/kernel/debug/tracing). */
#ifndef PC_TRACEFS_H
#define PC_TRACEFS_H

#include "base/util.h"

/* Where it is mounted now, without mounting it: NULL when nowhere; *readable says whether
 * this user may read its events (tracefs is root's, mode 0700, by default). */
const char *tracefs_find(bool *readable);
/* A readable tracefs, mounted at /sys/kernel/tracing first when nothing is (as root).  NULL
 * with pc_err() naming the fix. */
const char *tracefs_path(void);

#endif
