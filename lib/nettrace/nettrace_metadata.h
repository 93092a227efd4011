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

#include "base/util.h"

/* Payload field types (NetTraceFormat.md's TypeCode; v4/v5 use the same numbers). */
enum nettrace_type {
	NETTRACE_OBJECT = 1,
	NETTRACE_BOOL32 = 3,
	NETTRACE_UTF16_CHAR = 4,
	NETTRACE_INT8 = 5,
	NETTRACE_UINT8 = 6,
	NETTRACE_INT16 = 7,
	NETTRACE_UINT16 = 8,
	NETTRACE_INT32 = 9,
	NETTRACE_UINT32 = 10,
	NETTRACE_INT64 = 11,
	NETTRACE_UINT64 = 12,
	NETTRACE_FLOAT = 13,
	NETTRACE_DOUBLE = 14,
	NETTRACE_DECIMAL = 15,
	NETTRACE_DATETIME = 16,
	NETTRACE_GUID = 17,
	NETTRACE_UTF16_STRING = 18, /* NUL-terminated */
	NETTRACE_ARRAY = 19,	    /* uint16 count, then the elements */
	NETTRACE_VARINT = 20,
	NETTRACE_VARUINT = 21,
	NETTRACE_FIXED_ARRAY = 22,
	NETTRACE_UTF8_CHAR = 23,
	NETTRACE_RELLOC = 24,
	NETTRACE_DATALOC = 25,
	NETTRACE_BOOL8 = 26,
};

struct nettrace_field {
	char *name; /* "" for an array's element */
	enum nettrace_type type;
	struct nettrace_field *element; /* ARRAY, FIXED_ARRAY, RELLOC, DATALOC: the element */
	unsigned count;			/* FIXED_ARRAY */
	struct nettrace_field *fields;	/* OBJECT */
	size_t nfields;
};

/* One kind of event.  The runtime's own providers describe no fields (readers know their
 * layout: runtime_events.h); EventSources describe theirs. */
struct nettrace_metadata {
	uint32_t id;
	char *provider; /* UTF-8 */
	uint32_t event_id;
	char *event_name; /* "" when the writer gave none */
	uint64_t keywords;
	unsigned version, level;
	unsigned opcode; /* 0: none given */
	struct nettrace_field *fields;
	size_t nfields;
	bool fields_known; /* false: the writer's field list was absent or not understood */
	char *perf_event;  /* v6: the "perf.event" key's value (Universal.Events), else NULL */
};

/* 0, or -1 with pc_err() (m is then empty). */
int nettrace_metadata_parse_v4(const uint8_t *p, size_t len, struct nettrace_metadata *m);
int nettrace_metadata_parse_v6(const uint8_t *p, size_t len, struct nettrace_metadata *m);
void nettrace_metadata_release(struct nettrace_metadata *m);

#endif
