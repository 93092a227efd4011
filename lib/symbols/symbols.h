/* symbols: turns sample addresses into "symbol (dso)" the way `perf script` prints them,
 * in the order DESIGN.md gives: kallsyms for kernel addresses; ELF .symtab/.dynsym with
 * separate debuginfo (build-id, debuglink) and MiniDebugInfo for file mappings; jitdump
 * code loads chosen by time, then perf-<pid>.map for anonymous executable memory and .NET
 * images; otherwise "[unknown]".  Every DSO is opened once and its lookups are cached.
 *
 * Files are found in this order: a side directory (a .trace directory being merged,
 * holding perf-<pid>.map, perfinfo-<pid>.map, jit-<pid>.dump, kallsyms), then, while the
 * process is alive, through /proc/<pid>/root (the target's own mount namespace), then
 * the plain path.  JIT map files are opened safely (proc.h: safe_open_in_root()).
 */
#ifndef PC_SYMBOLS_H
#define PC_SYMBOLS_H

#include "machine.h"
#include "symbols_jit.h" /* enum jit_file_kind */
#include "symsrv.h"

struct symbolizer;
struct proc_uids;

struct symbolizer_opts {
	const char *side_dir;	   /* NULL: none */
	bool side_dir_foreign;	   /* side_dir is where a bare perf.data lies, not a trace
				      directory of ours: its JIT files are taken as host files
				      of others (symbols_jit.h) */
	struct proc_uids *uids;	   /* the users processes ran as, recorded by the collector
				      (proc_uids.h; not taken over); NULL: none */
	const char *kallsyms_path; /* NULL: side_dir/kallsyms if present, else /proc/kallsyms */
	bool live;		   /* processes may still run: look through /proc/<pid>/root */
	const char *symfs;	   /* not live: ELF files are looked up under this directory
				      instead of / (perf's --symfs); NULL: at their paths */
	const char *symbol_cache;  /* symcache.h's directory; NULL: its default */
	bool unwind; /* samples carry user registers and stack copies: read every file's unwind
			tables with its symbols, and mend call stacks with them (unwind.h) */
};

/* What unwinding did (opts.unwind), for the log. */
struct symbolizer_unwind_stats {
	uint64_t samples;    /* samples with registers and a stack copy */
	uint64_t mended;     /* of those, the ones with callers the kernel's chain lacked */
	uint64_t frames_in;  /* user frames: the kernel's chain */
	uint64_t frames_out; /* user frames: after unwinding */
	uint64_t copy_short; /* the copy ended before the walk did (the chain took over) */
	uint64_t tables;     /* files whose unwind tables were read */
	uint64_t tables_ns;  /* time reading them */
};

enum frame_kind { FRAME_UNKNOWN, FRAME_KERNEL, FRAME_NATIVE, FRAME_JIT };

struct frame {
	uint64_t ip;	 /* as perf script prints it (dso-relative for file-backed DSOs
			    with symbols, absolute otherwise: perf's al.addr rule) */
	const char *sym; /* "[unknown]" when unresolved; valid until symbolizer_free() */
	const char *dso; /* "[unknown]", "[kernel.kallsyms]", a path, "//anon", or
			    "/tmp/perf-<pid>.map" for .NET methods wherever their code sits,
			    ReadyToRun code included (has_module_token() in symbols.c) */
	enum frame_kind kind;
	bool kernel; /* resolved as kernel code (a kernel-mode address) */
	/* Where things are in the process's address space (for the NetTrace's mappings and
	 * symbols): */
	uint64_t addr;		     /* the address itself */
	uint64_t sym_start, sym_end; /* [start, end) of the named symbol's code; 0, 0 unnamed */
	const struct map *map;	     /* the mapping of addr (a kernel map for kernel frames), or
					NULL; valid until the next record changes any map */
	const char
	    *jit_map; /* a JIT frame in anonymous memory: the perf map or jitdump that
			 named it, as perf names its dso ("/tmp/perf-<pid>.map"); else NULL */
};

struct symbolizer *symbolizer_new(const struct symbolizer_opts *o);
void symbolizer_free(struct symbolizer *s);
/* Starts loading the kernel's symbols on a thread now, for a caller about to resolve kernel
 * frames after other set-up work; the first kernel frame waits for them.  Nothing else
 * changes: without this call they are loaded at that frame. */
void symbolizer_prefetch_kernel(struct symbolizer *s);
struct machine *symbolizer_machine(struct symbolizer *s);

/* The ELF files the recording's build-id table lists (the files samples hit), given before
 * the pass.  A file found elsewhere than in its process's own root (merge on another
 * machine, a process gone) is used only when its build-id is the recorded one; else the
 * binary with that build-id from the symbol cache, if any.  With o (NULL: nothing fetched),
 * what has no symbols here and is not cached yet is fetched from symbol servers
 * (symsrv.h), by default_timeout_s unless o says otherwise. */
struct symbolizer_file {
	const char *path;
	const uint8_t *build_id;
	size_t build_id_size;
	uint32_t pid; /* live: a process whose root holds it; 0: none known (the host's) */
};
void symbolizer_prepare(struct symbolizer *s, const struct symbolizer_file *files, size_t n,
			const struct symsrv_opts *o, double default_timeout_s);

/* Feed every non-sample record in stream order (delegates to machine_process). */
void symbolizer_process(struct symbolizer *s, const struct perfdata_record *rec);
/* Frames of a sample as perf script lists them (callchain without context markers, or
 * just the ip when there is no callchain).  Returns the number written (<= max). */
size_t symbolizer_frames(struct symbolizer *s, const struct perf_sample *sample, struct frame *out,
			 size_t max);

const struct symbolizer_unwind_stats *symbolizer_unwind_stats(const struct symbolizer *s);

/* The ELF file behind a user mapping that a frame was resolved in. */
struct map_elf {
	uint8_t build_id[64]; /* from the recording (MMAP2) when it had one, else the file's */
	size_t build_id_size; /* 0: none */
	bool has_exec_load;   /* p_vaddr, p_offset of its first executable PT_LOAD */
	uint64_t p_vaddr, p_offset;
};
/* false when the mapping is not an ELF file that was read. */
bool symbolizer_map_elf(struct symbolizer *s, const struct map *map, struct map_elf *out);

/* JIT side files that were used or looked for, for the archive and the log. */
void symbolizer_foreach_jit_file(struct symbolizer *s,
				 void (*fn)(void *arg, uint32_t pid, enum jit_file_kind kind,
					    const char *found_path /* NULL = missing */,
					    const char *why /* when missing, or "refused: ..." */),
				 void *arg);
/* Copies a JIT file that symbolizer_foreach_jit_file() reported found to dest_path (our own
 * output directory): the file is opened again the same safe way (inside the target's root,
 * no symlink, the target's user, one hard link) and copied only if it is still the file
 * that was read (same device and inode), so nothing swapped in meanwhile reaches the
 * archive.  When dest_path already is that file, nothing is copied.  *size (may be NULL):
 * bytes copied.  Returns 0, or -1 with pc_err() saying why. */
int symbolizer_copy_jit_file(struct symbolizer *s, uint32_t pid, enum jit_file_kind kind,
			     const char *dest_path, uint64_t *size);

#endif
