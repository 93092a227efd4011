/* perfdata_features: encodes the feature sections of a perf.data header (HEADER_HOSTNAME,
 * HEADER_EVENT_DESC, HEADER_BUILD_ID ...), each laid out as
 * tools/perf/Documentation/perf.data-file-format.txt says and as perf 6.1 reads it.
 * Internal to perfdata_write; the writer places the encoded bodies in the file.
 */
#ifndef PC_PERFDATA_FEATURES_H
#define PC_PERFDATA_FEATURES_H

#include "perfdata_write.h"

/* A growable byte buffer. */
struct pd_buf {
	uint8_t *data;
	size_t len, cap;
};

void pd_buf_put(struct pd_buf *b, const void *p, size_t n);
void pd_buf_put_u32(struct pd_buf *b, uint32_t v);
void pd_buf_put_u64(struct pd_buf *b, uint64_t v);
/* perf_header_string: u32 length (string + NUL, padded to 64), then the padded string. */
void pd_buf_put_string(struct pd_buf *b, const char *s);
void pd_buf_free(struct pd_buf *b);

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
int perfdata_feature_encode(int feat, const struct pd_feature_input *in, struct pd_buf *out);

#endif
