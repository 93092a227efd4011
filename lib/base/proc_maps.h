/* proc_maps: a process's mappings, /proc/<pid>/maps read once, each line parsed once.
 *
 *	struct proc_maps *m = proc_maps_open(pid);
 *	struct proc_map map;
 *	while (proc_maps_next(m, &map))
 *		if (map.perms[2] == 'x') ... (callers filter)
 *	proc_maps_close(m);
 *
 * Every field of a line is given (start, end, perms, offset, device, inode, path); a line
 * that does not parse is skipped, never half-used.  The path is what the kernel prints: ""
 * for anonymous memory, "[heap]", "[vdso]", "/usr/lib/x.so", "/memfd:x (deleted)" (spaces
 * kept: it runs to the end of the line).  proc_map_open() opens the very file a mapping
 * maps, as stacks reads a target's libraries.  Every reader of a maps file uses this
 * (tests/integration/layering.sh refuses another).
 */
#ifndef PC_PROC_MAPS_H
#define PC_PROC_MAPS_H

#include "util.h"
#include <sys/types.h>

struct proc_map {
	uint64_t start, end; /* [start, end), end > start */
	uint64_t offset;     /* in the file */
	char perms[5];	     /* "r-xp": read, write, execute, shared ('s') or private ('p') */
	unsigned dev_major, dev_minor;
	uint64_t inode;
	const char *path; /* "" when anonymous; valid until the next proc_maps_next() */
};

struct proc_maps;

/* pid's maps (pid 0: our own, /proc/self/maps).  NULL with pc_err() and errno (ENOENT
 * when the process is gone, EACCES when we may not read them). */
struct proc_maps *proc_maps_open(pid_t pid);
/* The next mapping, in address order; false at the end (or on a read error, which ends
 * the list where it happened: a process that exits meanwhile has no more mappings). */
bool proc_maps_next(struct proc_maps *m, struct proc_map *map);
void proc_maps_close(struct proc_maps *m);

/* One line (without or with its newline, which is removed) into *map; map->path points
 * into line.  -1 when the line is not a mapping (the fuzzer feeds it anything). */
int proc_maps_parse_line(char *line, struct proc_map *map);

/* Opens the file a mapping of pid maps, for reading: /proc/<pid>/map_files/<start>-<end>
 * first (exactly the mapped inode, in any mount namespace, deleted or replaced since; needs
 * CAP_SYS_ADMIN and only ever opens a regular file), else its path inside the target's root
 * through safe_open_binary_in_root() (owner uid, at most max_size bytes): for files read for
 * their build-id and symbols.  -1 with pc_err(). */
int proc_map_open(pid_t pid, const struct proc_map *map, uid_t owner_uid, uint64_t max_size);

/* Our own vdso's image (the running kernel's, which every process maps): false when there
 * is none.  The bytes stay mapped for as long as we run. */
bool proc_self_vdso(const void **image, size_t *size);

#endif
