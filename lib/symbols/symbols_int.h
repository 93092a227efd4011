/* symbols_int: the symbolizer's insides, shared by symbols.c (names) and symbols_unwind.c
 * (call stacks unwound from a sample's registers and stack copy).  Not for other modules. */
#ifndef PC_SYMBOLS_INT_H
#define PC_SYMBOLS_INT_H

#include "base/hash.h"
#include "perfdata/buildid.h"
#include "symbols.h"
#include "unwind/unwind.h"

#include <string.h>
#include <sys/types.h>

#define KERNEL_START 0xffff800000000000ULL /* x86-64: everything above is the kernel's */
#define MAX_STACK    127		   /* perf script's default --max-stack */

struct unwind_tables;
struct unwind_memo;

enum map_class {
	SF_FILE,     /* ELF file: symbols from its dso */
	SF_ANON,     /* anonymous (or perf's no-dso) memory: JIT when executable */
	SF_JIT_FILE, /* .NET images and W^X double mappings: JIT first, name of the file */
};

/* What a mapping resolves through; map->dso points at one of these. */
struct symfile {
	enum map_class cls;
	struct dso *dso;	     /* SF_FILE; NULL when the file could not be read */
	struct unwind_tables *ut;    /* opts.unwind: its CFI, or a .NET image's unwind info, */
	bool ut_tried;		     /* read on first need (symbols_unwind_tables) */
	char *open_root, *open_path; /* where it was opened (root NULL: the host) */
	dev_t dev;
	ino_t ino;
};

struct cached_frame {
	uint64_t key_ip;
	uint32_t key_pid;
	uint32_t gen; /* 0 = empty */
	struct frame f;
};

struct path_entry {
	char *path; /* NULL: empty */
	struct symfile *sf;
};
#define HTAB_NAME	    path_table
#define HTAB_ENTRY	    struct path_entry
#define HTAB_KEY	    const char *
#define HTAB_EMPTY(e)	    (!(e)->path)
#define HTAB_HASH(t, e)	    hash_str((e)->path)
#define HTAB_MATCH(t, e, k) (!strcmp((e)->path, (k)))
#define HTAB_MIN	    256
#include "base/htab.h"

/* A file of the recording's build-id table (symbolizer_prepare()). */
struct recorded_file {
	char *path;
	uint8_t id[BUILDID_MAX];
	uint8_t size;
};

struct symbolizer {
	struct symbolizer_opts opts;
	char *side_dir, *kallsyms_path, *symfs;
	struct machine *m;
	struct kallsyms *kallsyms;
	bool kallsyms_tried;
	struct kernel_load *kernel_load; /* symbolizer_prefetch_kernel()'s, not yet taken */
	struct symfile anon, jit_file, missing;
	struct symfile **files; /* every ELF symfile, to free and to match by inode */
	size_t nfiles, files_cap;
	struct path_table paths; /* by path */
	struct dso *vdso;
	struct unwind_tables *vdso_ut;
	bool vdso_tried;
	struct unwind_memo *memo;	   /* opts.unwind: rules looked up */
	struct symbolizer_unwind_stats us; /* what unwinding did */
	struct jit_procs *jit;
	struct symcache *symcache;
	struct recorded_file *recorded; /* sorted by path */
	size_t nrecorded;
	struct cached_frame *cache;
	/* A cached frame is good while its process's maps are unchanged: each MMAP, FORK or
	 * COMM of a process bumps its generation here (pids share a slot modulo the table,
	 * which only invalidates more than needed; kernel frames use the slot of pid -1).
	 * One counter for everything would empty the cache at every mmap of any process of a
	 * system-wide trace, several times a millisecond. */
	uint32_t *pid_gen;
};

/* The symfile of a process's mapping (kept in map->dso); NULL for the vdso. */
struct symfile *symbols_classify(struct symbolizer *s, uint32_t pid, struct map *map);
/* The unwind tables of a file symfile (NULL when it has none or is no file). */
const struct unwind_tables *symbols_unwind_tables(struct symbolizer *s, struct symfile *sf);
/* The kernel's symbols, loaded at the first call (or taken from the prefetch), the load
 * logged then; NULL when there are none (symbols_kernel.c). */
struct kallsyms *symbols_kallsyms(struct symbolizer *s);
/* Frees the kernel's symbols, and waits for a prefetch never taken. */
void symbols_kernel_free(struct symbolizer *s);
/* The running kernel's vdso (its symbols, and its unwind tables when unwinding). */
struct dso *symbols_vdso(struct symbolizer *s);

/* One frame of a process (or the kernel's, pid ignored), named, through the frame cache. */
void symbols_resolve(struct symbolizer *s, uint32_t pid, bool kernel, uint64_t ip, uint64_t time,
		     struct frame *f);

#endif
