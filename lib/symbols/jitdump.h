/* jitdump: jit-<pid>.dump files as JIT compilers write them for perf
 * (tools/perf/Documentation/jitdump-specification.txt): a file header, then records, of
 * which JIT_CODE_LOAD (code at an address from a time on, with its name) and
 * JIT_CODE_MOVE (the same code, moved) matter for symbols.
 *
 * A file cut mid-record (the process was still writing, or died) keeps every complete
 * record; jitdump_truncated() says so.  A lookup takes the sample's time: the latest load
 * at or before that time which covers the address wins, so code re-JITted at a reused
 * address is named right for samples before and after.
 */
#ifndef PC_JITDUMP_H
#define PC_JITDUMP_H

#include "base/util.h"

struct jitdump_load {
	uint64_t time;
	uint64_t addr, size;
	uint64_t code_index;
	const char *name;
	uint32_t pid, tid;
	bool moved; /* from JIT_CODE_MOVE */
};

struct jitdump;

/* NULL with pc_err() when the file is not a jitdump (bad magic, version, header). */
struct jitdump *jitdump_load_fd(int fd);
struct jitdump *jitdump_load(const char *path);
void jitdump_free(struct jitdump *j);

/* The load covering addr chosen by time (above), or NULL.  When the file's timestamps are
 * not comparable with sample times (arch timestamps flag), the last load in file order
 * covering addr. */
const struct jitdump_load *jitdump_lookup(const struct jitdump *j, uint64_t addr, uint64_t time);
/* Loads in file order. */
size_t jitdump_nr_loads(const struct jitdump *j);
const struct jitdump_load *jitdump_load_at(const struct jitdump *j, size_t i);
uint32_t jitdump_pid(const struct jitdump *j);
bool jitdump_truncated(const struct jitdump *j);
/* true when the header says timestamps are arch cycles, not the perf clock. */
bool jitdump_arch_timestamps(const struct jitdump *j);
/* Records that were skipped as malformed (bad sizes, unterminated names). */
size_t jitdump_bad_records(const struct jitdump *j);

#endif
