/* symbols_jit: the JIT side files of one process (perf-<pid>.map, jit-<pid>.dump,
 * perfinfo-<pid>.map), found once per process and kept for lookups.  symbols.c uses it
 * for traces; stacks for the live processes it snapshots.
 *
 * Where they are looked for: the side directory first (<side_dir>/perf-<pid>.map ...);
 * then, for a live process, inside its root: /tmp/perf-<nspid>.map (or map_dir, where the
 * caller knows the runtime writes its maps elsewhere) and the jitdump path
 * the process mmapped (perf's jitdump marker) or /tmp/jit-<nspid>.dump, opened with
 * safe_open_in_root() (base/safe_open.h: no symlink, the target's own regular file, one link);
 * otherwise the same paths on the host (a dead process's jitdump only when its name carries the
 * pid), where any local user may have planted them for a pid that is gone: a regular file of
 * one link, reached without a symlink and owned by root or by a user the process ran as (the
 * one it runs as now, one the collector recorded while it ran: proc_uids.h, or ours when we
 * are not root).  A gone process with no user recorded (a bare perf.data) gets root's files
 * only.  The side directory of a bare perf.data (where it lies: /tmp perhaps) goes by the
 * same rule; a trace directory's is ours and read as it is.  A file larger than jit_file_max() is
 * refused, and one is read no further than the size it had when opened (a target appending to it is
 * not followed).  A file that is there but refused is said with log_warn().
 */
#ifndef PC_SYMBOLS_JIT_H
#define PC_SYMBOLS_JIT_H

#include "jitdump.h"
#include "perfinfo.h"
#include "perfmap.h"

#include <sys/types.h>

/* The largest JIT file taken from a process: 1 GiB (a perf map or jitdump is a few MB; a
 * long-lived server's jitdump some hundreds), or PERFCOLLECT_C_JIT_FILE_MAX (a size: 4G),
 * for one that really is larger.  A file is read into memory whole. */
#define JIT_FILE_MAX_DEFAULT (1ull << 30)
uint64_t jit_file_max(void);

/* The JIT side files of a process. */
enum jit_file_kind { JIT_PERF_MAP, JIT_PERFINFO_MAP, JIT_DUMP };

/* Where a JIT file was read from, to open the very same file again for the archive. */
struct jit_src {
	char *path;	   /* as the target sees it (root_pid set), or a host path */
	uint32_t root_pid; /* 0: a host (or side directory) path */
	uid_t uid;	   /* the target's user, whom the file must belong to */
	bool host;	   /* a host path read by the rule on another's files (see above) */
	dev_t dev;
	ino_t ino;
};

struct jit_proc {
	uint32_t pid;
	bool loaded;
	char *dso_name;	    /* "/tmp/perf-<pid>.map", as perf names JIT code */
	char *jitdump_hint; /* jit-*.dump path the process mmapped, as it sees it */
	char *map_dir;	    /* where a live process writes its maps, as it sees it; NULL: /tmp */
	struct perfmap *perfmap;
	struct jitdump *jitdump;
	struct perfinfo *perfinfo;
	char *found[3]; /* by enum jit_file_kind */
	char *why[3];	/* "refused: <why>" when there but not trusted */
	bool looked[3];
	bool no_access_said;
	struct jit_src src[3];
};

struct jit_procs;

struct jit_procs *jit_procs_new(const char *side_dir, bool live);
void jit_procs_free(struct jit_procs *j);
/* The users recorded for processes while they ran (uids, not taken over; NULL: none), for
 * the rule on host files; side_dir_ours false: the side directory is not a trace directory
 * of ours but where a bare perf.data lies (perhaps /tmp), and its files go by that rule. */
struct proc_uids;
void jit_procs_trust(struct jit_procs *j, struct proc_uids *uids, bool side_dir_ours);
/* The process's entry (created empty when new). */
struct jit_proc *jit_procs_get(struct jit_procs *j, uint32_t pid);
/* Loads the files on first use. */
void jit_proc_load(struct jit_procs *j, struct jit_proc *p);
/* Name of the JIT code at addr at time, or NULL; range (may be NULL) gets the addresses
 * [start, end) that code spans. */
const char *jit_proc_lookup(struct jit_proc *p, uint64_t addr, uint64_t time, uint64_t range[2]);
/* The same, with where that code starts (*start may be NULL). */
const char *jit_proc_lookup_start(struct jit_proc *p, uint64_t addr, uint64_t time,
				  uint64_t *start);
/* Copies a file that was read to dest, reopened the same safe way and only when it is
 * still the same file (device and inode). */
int jit_procs_copy(struct jit_procs *j, uint32_t pid, enum jit_file_kind kind, const char *dest,
		   uint64_t *size);
void jit_procs_foreach(struct jit_procs *j,
		       void (*fn)(void *arg, uint32_t pid, enum jit_file_kind kind,
				  const char *found_path, const char *why),
		       void *arg);

#endif
