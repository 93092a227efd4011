/* collect_uids: the user each sampled process runs as, noted while it runs, for
 * post-processing's rule on a gone process's JIT files (symbols/proc_uids.h): written to
 * <trace dir>/PROC_UIDS_FILE, which a merge of the directory reads too.
 *
 * A process is noted once, at its first sample (and the -pid target at the start): one read
 * of /proc/<pid>/status and stat then, none for the samples after.  The pid must still name
 * the sampled process: one that started after the sample (its pid reused) is not noted,
 * nor is one already gone.  Its exit lets a new process of that pid be noted again.  Lines
 * go to the file at each drain pass (collect_uids_flush()), so a collector killed later
 * leaves them for merge. */
#ifndef PC_COLLECT_UIDS_H
#define PC_COLLECT_UIDS_H

#include "base/util.h"
#include <sys/types.h>

struct collect_uids;

/* NULL with pc_err() when the file cannot be made. */
struct collect_uids *collect_uids_new(const char *trace_dir);
void collect_uids_free(struct collect_uids *u);
/* pid was sampled at time (CLOCK_MONOTONIC ns; 0: unknown, now). */
void collect_uids_note(struct collect_uids *u, uint32_t pid, uint64_t time);
/* pid is known to run as uid (the -pid target, read at the start). */
void collect_uids_add(struct collect_uids *u, uint32_t pid, uid_t uid);
/* pid exited: a process that takes the pid next is noted anew. */
void collect_uids_forget(struct collect_uids *u, uint32_t pid);
/* Appends what was noted since the last flush. */
int collect_uids_flush(struct collect_uids *u);
/* Processes noted so far. */
size_t collect_uids_count(const struct collect_uids *u);

#endif
