/* collect_buildids: the build-ids of the files samples hit, read while their processes can
 * still be read (as perf record does at its end, and for each process as it exits), written
 * into perf.data's build-id table; and the list of those files, each with the process in whose
 * root it was found, where post-processing looks for their symbols.
 *
 * A file is read through its process's root while the process runs (its mapped inode where
 * /proc/PID/map_files allows, else its path by base/safe_open's walk), or, once the process is
 * gone, on our side only when the path is the very inode its MMAP2 record named: a
 * container's file of the same name, a FIFO or a device is never opened.  The kernel's from
 * /sys/kernel/notes, a module's from /sys/module.
 */
#ifndef PC_COLLECT_BUILDIDS_H
#define PC_COLLECT_BUILDIDS_H

#include "perfdata/perfdata_async.h"
#include "perfdata/perfdata_write.h"
#include "symbols/machine.h"

struct collect_buildids {
	struct perfdata_writer *w;    /* where they go; NULL: only listed */
	struct perfdata_async *async; /* set: w is its thread's, they go through it */
	char **paths;		      /* the files taken (or tried), perf's names */
	uint32_t *pids;		      /* paths[i] was read in the root of pids[i] (0: ours) */
	size_t n, paths_cap, pids_cap;
};

/* machine_foreach_hit_map()'s callback (arg: a struct collect_buildids, zeroed at first):
 * the build-id of map, hit by samples of pid, added once per file name. */
void collect_buildids_add(void *arg, uint32_t pid, bool kernel, const struct map *map);

/* Frees the list (the writer is not ours) and zeroes b. */
void collect_buildids_free(struct collect_buildids *b);

#endif
