/* nettrace_metadata: one metadata row of a NetTrace file (an event's provider, id, name,
 * keywords, level, version, opcode and payload fields), as v4/v5 encode it (the payload of
 * an event in a MetadataBlock: UTF-16 names, a V1 field list, optional tags) and as v6 does
 * (a row of a MetadataBlock: UTF-8 names, typed field descriptions, optional metadata).
 * A field list that cannot be understood is dropped (fields_known false), as TraceEvent
 * does, so an unusual EventSource does not make the trace unreadable; a header that cannot be
 * read is an error.
 */
#ifndef PC_NETTRACE_METADATA_H
#define PC_NETTRACE_METADATA_H

#include "nettrace_read.h"

/* 0, or -1 with pc_err() (m is then empty). */
int nettrace_metadata_parse_v4(const uint8_t *p, size_t len, struct nettrace_metadata *m);
int nettrace_metadata_parse_v6(const uint8_t *p, size_t len, struct nettrace_metadata *m);
void nettrace_metadata_release(struct nettrace_metadata *m);

#endif
