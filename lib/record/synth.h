/* synth: the records `perf record` synthesizes from /proc for what already runs when
 * recording starts, in the same shape, so frames of old threads and mappings resolve:
 *
 *   MMAP  pid -1 "[kernel.kallsyms]_text" [_text, _etext) pgoff _text, misc KERNEL
 *   MMAP  pid -1 per module (/proc/modules; path from modules.dep, else "[name]")
 *   FORK  (pid:tid):(ppid:ppid) for a process, (pid:tid):(pid:pid) for its other threads,
 *         misc PERF_RECORD_MISC_FORK_EXEC (do not copy the parent's maps)
 *   COMM  per thread
 *   MMAP2 per executable mapping of /proc/<pid>/maps (prot, flags, maj:min, inode;
 *         "//anon" for anonymous executable memory)
 *
 * Each record ends with the sample_id_all trailer the attr asks for, holding zeros (as perf
 * writes them: time 0 sorts them before everything recorded) and the event's id.
 */
#ifndef PC_SYNTH_H
#define PC_SYNTH_H

#include "base/util.h"
#include "perfdata/perf_abi.h"

#include <sys/types.h>

struct synth {
	const struct perf_event_attr *attr; /* decides the trailer */
	uint64_t id;			    /* for PERF_SAMPLE_ID / IDENTIFIER in the trailer */
	int (*emit)(void *arg, const struct perf_event_header *rec);
	void *arg;
	/* Where to look up _text/_etext: a copy of /proc/kallsyms is much faster to read than
	 * the kernel's own file; NULL = /proc/kallsyms. */
	const char *kallsyms_path;
	/* Also the readable mappings without code (PERF_RECORD_MISC_MMAP_DATA), as perf record
	 * --call-graph dwarf synthesizes them: its unwinder reads .eh_frame_hdr through them. */
	bool data_maps;
	/* counts, for the log */
	uint64_t nthreads, nmaps;
};

/* The kernel map and the modules' maps. */
int synth_kernel(struct synth *s);
/* One process: FORK + COMM per thread, MMAP2 per executable mapping (and data_maps).  A process
 * that exits meanwhile is no error (returns 0). */
int synth_process(struct synth *s, pid_t pid);
/* Every process in /proc. */
int synth_all_processes(struct synth *s);

/* Copies /proc/kallsyms to path (the symbolizer reads it from the trace). */
int synth_copy_kallsyms(const char *path);

#endif
