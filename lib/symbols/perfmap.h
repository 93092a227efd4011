/* perfmap: /tmp/perf-<pid>.map files ("START SIZE name" per line, hex, as V8, .NET and
 * others write them).  Garbage lines are skipped and counted, never fatal.  A lookup
 * returns the last entry (in file order) covering the address, as perf does when code
 * is re-JITted at a reused address.
 */
#ifndef PC_PERFMAP_H
#define PC_PERFMAP_H

#include "base/util.h"

struct perfmap_entry {
	uint64_t start, size;
	const char *name;
};

struct perfmap;
/* Parses an open file (the fd is not closed). */
struct perfmap *perfmap_load_fd(int fd);
struct perfmap *perfmap_load(const char *path);
void perfmap_free(struct perfmap *m);
const struct perfmap_entry *perfmap_lookup(const struct perfmap *m, uint64_t addr);
/* The same; range gets the addresses [start, end) around addr where that entry is the answer
 * (a later entry overlapping it takes its part away). */
const struct perfmap_entry *perfmap_lookup_range(const struct perfmap *m, uint64_t addr,
						 uint64_t range[2]);
size_t perfmap_count(const struct perfmap *m);
size_t perfmap_bad_lines(const struct perfmap *m);

#endif
