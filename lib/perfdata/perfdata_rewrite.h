/* perfdata_rewrite: a copy of a perf.data whose samples carry their whole call chain in place
 * of the user registers and stack copy they were recorded with (as `perf inject` rewrites a
 * --call-graph dwarf file): once the stacks are unwound, the copies have done their job and
 * are most of the file's bytes.  perf script and perf report read the copy and print the
 * chains given here; our reader reads it as any file with frame-pointer chains.
 *
 * Records go in as perfdata_read delivers them (perf's processing order), with a
 * FINISHED_ROUND every few thousand; the attrs are the reader's without PERF_SAMPLE_REGS_USER
 * and PERF_SAMPLE_STACK_USER; the feature sections are the original's as they are (build-ids,
 * clock, tracing data, command line ...) but for the event descriptions, written for the new
 * attrs; the records are zstd-compressed (PERF_RECORD_COMPRESSED, as `perf record -z`), on a
 * thread of their own (perfdata_async.h) that the caller waits for only when it is a queue of
 * 4 MiB behind.
 */
#ifndef PC_PERFDATA_REWRITE_H
#define PC_PERFDATA_REWRITE_H

#include "perfdata_read.h"

struct perfdata_rewrite;

/* NULL (with the reason) when path cannot be written or r cannot be rewritten this way (a
 * pipe file without feature sections, an event with a stack copy but no callchain). */
struct perfdata_rewrite *perfdata_rewrite_new(const char *path, const struct perfdata_reader *r,
					      int zstd_level);
/* A record the reader delivered: copied (a sample without its registers and stack copy). */
int perfdata_rewrite_record(struct perfdata_rewrite *w, const struct perfdata_record *rec);
/* A sample with this call chain (PERF_CONTEXT_* markers as the kernel writes them). */
int perfdata_rewrite_sample(struct perfdata_rewrite *w, const struct perfdata_record *rec,
			    const uint64_t *chain, size_t nchain);
/* Bytes of records written, and their compressed size (after _finish()). */
void perfdata_rewrite_stats(const struct perfdata_rewrite *w, uint64_t *records_bytes,
			    uint64_t *file_bytes);
int perfdata_rewrite_finish(struct perfdata_rewrite *w);
void perfdata_rewrite_free(struct perfdata_rewrite *w); /* an unfinished file is removed */

#endif
