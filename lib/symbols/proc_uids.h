/* proc_uids: the user each process ran as, noted by the collector while the process ran,
 * for the rule on a gone process's JIT files (symbols_jit.h: its /tmp/perf-<pid>.map on
 * the host is taken only when it is root's or its user's; once it is gone nothing else says
 * who that was).  Kept in the trace directory as PROC_UIDS_FILE, one "<pid> <uid>\n" line
 * a process (a pid reused within the recording by another user's process: a line for each),
 * appended as the collector learns them.  A line that is not two numbers is skipped. */
#ifndef PC_PROC_UIDS_H
#define PC_PROC_UIDS_H

#include "base/util.h"
#include <sys/types.h>

#define PROC_UIDS_FILE "process-uids"
/* A larger file is not read (it holds a line per sampled process: a few bytes each). */
#define PROC_UIDS_FILE_MAX (64u << 20)

struct proc_uids;

struct proc_uids *proc_uids_new(void);
void proc_uids_free(struct proc_uids *u);
void proc_uids_add(struct proc_uids *u, uint32_t pid, uid_t uid);
/* Adds the lines of text (len bytes, not NUL-terminated); returns how many were taken. */
size_t proc_uids_parse(struct proc_uids *u, const char *text, size_t len);
/* Adds <dir>/PROC_UIDS_FILE's lines; 0 when there is none (a bare perf.data, or a trace
 * from before the file existed), -1 with pc_err() when it cannot be read. */
int proc_uids_load(struct proc_uids *u, const char *dir);
/* The users recorded for pid: how many, *uids (valid until the next add) the first. */
size_t proc_uids_of(struct proc_uids *u, uint32_t pid, const uid_t **uids);

#endif
