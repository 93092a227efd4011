/* postprocess_unified_runtime: the .NET runtime's own events (dotnet-<pid>.nettrace, written
 * by collect over EventPipe) in the unified NetTrace, each at its time among the samples:
 * unified_runtime_until() writes those up to a time before the pass writes anything later.
 * Writes through postprocess_unified_file.h; internal to the unified pass. */
#ifndef PC_POSTPROCESS_UNIFIED_RUNTIME_H
#define PC_POSTPROCESS_UNIFIED_RUNTIME_H

#include "postprocess_unified_file.h"

struct unified_runtime;

/* Adds files (names in dir) to *rt (made on first use) for file f; a file that cannot be read
 * is said in the log and left out.  0. */
int unified_runtime_add(struct unified_runtime **rt, struct unified_file *f, const char *dir,
			char *const *names, size_t n);
/* The time of the earliest event not written yet; false when none is left (or rt is NULL). */
bool unified_runtime_first(struct unified_runtime *rt, uint64_t *t);
/* Writes the events up to time t (once the file started); -1 with pc_err(). */
int unified_runtime_until(struct unified_runtime *rt, uint64_t t);
/* One log line per file: how many of its events went in. */
void unified_runtime_log(const struct unified_runtime *rt);
void unified_runtime_free(struct unified_runtime *rt);

#endif
