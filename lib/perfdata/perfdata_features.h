/* perfdata_features: the feature sections of a perf.data header (HEADER_HOSTNAME,
 * HEADER_EVENT_DESC, HEADER_BUILD_ID ...): what they say (the meta and the build-ids, which
 * the writer takes and the reader gives back), and their encoding, each laid out as
 * tools/perf/Documentation/perf.data-file-format.txt says and as perf 6.1 reads it.  The
 * encoding is the writer's; it places the encoded bodies in the file.
 */
#ifndef PC_PERFDATA_FEATURES_H
#define PC_PERFDATA_FEATURES_H

#include "base/bytebuf.h"
#include "perf_abi.h"

/* What the feature sections say about the machine and the run.  Any NULL field is probed
 * from the running system by _finish() (uname, /proc/cpuinfo, sysconf ...). */
struct perfdata_meta {
	const char *hostname;
	const char *osrelease;
	const char *version; /* "perfcollect-c <ver>" */
	const char *arch;
	int argc; /* HEADER_CMDLINE */
	char *const *argv;
	int clockid;		  /* HEADER_CLOCKID: clock resolution feature; -1 = none */
	const void *tracing_data; /* HEADER_TRACING_DATA blob (tracepoints), may be NULL */
	size_t tracing_data_size;
};

/* A DSO that samples hit, for the HEADER_BUILD_ID feature. */
struct perfdata_build_id {
	int32_t pid; /* ignored: perf keys build-ids by machine, not by process (an entry
			with pid N goes to a guest machine N, where the host's DSOs never
			see it), so every entry is written with the host's -1 */
	bool kernel; /* [kernel.kallsyms] or a module */
	uint8_t id[20];
	uint8_t size; /* bytes of id used */
	const char *filename;
};

/* perf_header_string: u32 length (string + NUL, padded to 64), then the padded string. */
void pd_put_string(struct bytebuf *b, const char *s);

/* One event as the writer keeps it; attr.size is already what goes into the file. */
struct pd_event {
	struct perf_event_attr attr;
	char *name;
	uint64_t *ids;
	size_t nids;
};

struct pd_feature_input {
	const struct perfdata_meta *meta; /* may be NULL: everything probed */
	const struct pd_event *events;
	size_t nevents;
	uint32_t attr_size; /* bytes of each attr in EVENT_DESC */
	const struct perfdata_build_id *build_ids;
	size_t nbuild_ids;
};

/* Appends the body of feature `feat` to out.  Returns 1 when written, 0 when this file has
 * no such feature (no tracing data, no build-ids, a value that cannot be probed here). */
int perfdata_feature_encode(int feat, const struct pd_feature_input *in, struct bytebuf *out);

#endif
