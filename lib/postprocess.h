/* postprocess: everything after recording, in one streaming pass: read perf.data, symbolize,
 * write perf.data.txt, gather the JIT side files of the sampled processes, write
 * perfcollect.log's summary and pack <name>.trace.zip.  `collect` calls it when recording
 * ends; `merge` calls it alone.
 */
#ifndef PC_POSTPROCESS_H
#define PC_POSTPROCESS_H

#include "util.h"

struct postprocess_opts {
	const char *trace_dir; /* holds perf.data (and side files); perf.data.txt goes here */
	const char *name;      /* archive entries are "<name>.trace/<file>" */
	const char *zip_path;  /* the archive to write */
	bool live;             /* recorded processes may still run: find maps via /proc */
};

struct postprocess_stats {
	uint64_t samples;
	uint64_t records;
	uint64_t lost;
	bool truncated;
};

int postprocess_run(const struct postprocess_opts *o, struct postprocess_stats *st);

#endif
