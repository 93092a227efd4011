/* postprocess: everything after recording, in one streaming pass: read perf.data, symbolize,
 * write perf.data.txt, gather the JIT side files of the sampled processes, write
 * perfcollect.log's summary and pack <name>.trace.zip.  `collect` calls it when recording
 * ends; `merge` calls it alone.
 *
 * With a NetTrace (postprocess_nettrace.h), the same pass writes <name>.nettrace: beside
 * the archive, and inside it as <name>.trace/<name>.nettrace.
 *
 * The log goes to whatever log_open() opened (the caller opens <out_dir>/perfcollect.log
 * before calling, so the archive carries it).  Damaged input (a truncated perf.data, a bad
 * record, a missing map) is said in the log and on stderr and the archive is still written
 * from what could be read; only when perf.data cannot be read at all does this return -1,
 * and even then the zip holds perf.data and the log.
 */
#ifndef PC_POSTPROCESS_H
#define PC_POSTPROCESS_H

#include "base/util.h"
#include "symbols/symbols.h"

/* What to write: perfcollect's archive, the NetTrace, or both (the default). */
enum output_format { FORMAT_BOTH, FORMAT_PERFCOLLECT, FORMAT_NETTRACE };
/* "perfcollect", "nettrace" or "both" (any case); -1 with pc_err() naming them otherwise. */
int output_format_parse(const char *s, enum output_format *f);

struct postprocess_opts {
	const char *trace_dir; /* holds perf.data (and side files); perf.data.txt goes here */
	const char *name;      /* archive entries are "<name>.trace/<file>" */
	const char *zip_path;  /* the archive to write */
	bool live;	       /* recorded processes may still run: find maps via /proc */
	enum output_format format;
	const char *nettrace_path; /* <name>.nettrace; NULL: the archive alone */
	/* For merge (all optional): */
	const char *perf_data; /* NULL: <trace_dir>/perf.data */
	const char *out_dir;   /* perf.data.txt and copied side files go here, trace_dir is
				  then only read; NULL: trace_dir */
	bool loose;	       /* trace_dir is only where a bare perf.data lies (e.g. /tmp):
				  pack the JIT files of sampled processes, not every map in it */
	const char *symfs;     /* ELF files under this directory (symbols.h); NULL: / */
	bool all_or_nothing;   /* no archive at all when perf.data cannot be read or
				  perf.data.txt cannot be written (merge); else the archive
				  keeps what there is (collect: never lose a recording) */
	/* Symbols from symbol servers for the files perf.data's build-id table lists
	 * (symbols.h: symbolizer_prepare()), before the pass: */
	const struct symsrv_opts *symsrv;    /* NULL: nothing fetched (caches still read) */
	double symsrv_timeout_s;	     /* the deadline when symsrv gives none */
	const struct symbolizer_file *roots; /* live: a process whose root holds each file
						(path, pid); others are looked for on the host */
	size_t nroots;
};

struct postprocess_stats {
	bool nettrace; /* nettrace_path was written */
	uint64_t samples;
	uint64_t records;
	uint64_t lost;
	bool truncated;
};

int postprocess_run(const struct postprocess_opts *o, struct postprocess_stats *st);

#endif
