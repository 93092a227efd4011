/* symbols_jit: the JIT side files of one process (perf-<pid>.map, jit-<pid>.dump,
 * perfinfo-<pid>.map), found once per process and kept for lookups.  Internal to the
 * symbols module (symbols.c is its only user).
 *
 * Where they are looked for: the side directory first (<side_dir>/perf-<pid>.map ...);
 * then, for a live process, inside its root: /tmp/perf-<nspid>.map and the jitdump path
 * the process mmapped (perf's jitdump marker) or /tmp/jit-<nspid>.dump, opened with
 * safe_open_in_root(); otherwise the same paths on the host, never through a symlink.
 */
#ifndef PC_SYMBOLS_JIT_H
#define PC_SYMBOLS_JIT_H

#include "jitdump.h"
#include "perfinfo.h"
#include "perfmap.h"
#include "symbols.h"

struct jit_proc {
	uint32_t pid;
	bool loaded;
	char *dso_name;	    /* "/tmp/perf-<pid>.map", as perf names JIT code */
	char *jitdump_hint; /* jit-*.dump path the process mmapped, as it sees it */
	struct perfmap *perfmap;
	struct jitdump *jitdump;
	struct perfinfo *perfinfo;
	char *found[3]; /* by enum jit_file_kind */
	char *why[3];
	bool looked[3];
};

struct jit_procs;

struct jit_procs *jit_procs_new(const char *side_dir, bool live);
void jit_procs_free(struct jit_procs *j);
/* The process's entry (created empty when new). */
struct jit_proc *jit_procs_get(struct jit_procs *j, uint32_t pid);
/* Loads the files on first use. */
void jit_proc_load(struct jit_procs *j, struct jit_proc *p);
/* Name of the JIT code at addr at time, or NULL. */
const char *jit_proc_lookup(struct jit_proc *p, uint64_t addr, uint64_t time);
void jit_procs_foreach(struct jit_procs *j,
		       void (*fn)(void *arg, uint32_t pid, enum jit_file_kind kind,
				  const char *found_path, const char *why),
		       void *arg);

#endif
