/* perfdata_features: encodes the feature sections of a perf.data header (HEADER_HOSTNAME,
 * HEADER_EVENT_DESC, HEADER_BUILD_ID ...), each laid out as
 * tools/perf/Documentation/perf.data-file-format.txt says and as perf 6.1 reads it.
 * Internal to perfdata_write; the writer places the encoded bodies in the file.
 */
#ifndef PC_PERFDATA_FEATURES_H
#define PC_PERFDATA_FEATURES_H

#include "base/bytebuf.h"
#include "perfdata_write.h"

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
