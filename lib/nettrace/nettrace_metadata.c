/* nettrace_metadata: see nettrace_metadata.h.  Layouts: NetTraceFormat_v5.md ("Metadata event
 * encoding") and NetTraceFormat.md ("MetadataBlock"). */
#include "nettrace_metadata.h"
#include "base/span.h"
#include "base/utf16.h"

#include <stdlib.h>

#define MAX_DEPTH 16 /* nested objects and arrays; deeper field lists are not understood */

/* v5 tags after the V1 field list, and v6 optional metadata kinds. */
enum { TAG_OPCODE = 1, TAG_V2_PARAMS = 2 };
enum {
	OPT_OPCODE = 1,
	OPT_KEYWORD = 3,
	OPT_MESSAGE_TEMPLATE = 4,
	OPT_DESCRIPTION = 5,
	OPT_KEY_VALUE = 6,
	OPT_PROVIDER_GUID = 7,
	OPT_LEVEL = 8,
	OPT_VERSION = 9,
};

/* v6 string: varuint32 byte count, then UTF-8. */
static char *take_utf8(struct span *s)
{
	size_t n = span_varuint(s, UINT32_MAX);
	const uint8_t *p = span_take(s, n);
	return p ? xstrndup((const char *)p, n) : NULL;
}

static void release_fields(struct nettrace_field *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].name);
		if (f[i].element) {
			release_fields(f[i].element, 1);
			free(f[i].element);
		}
		release_fields(f[i].fields, f[i].nfields);
		free(f[i].fields);
	}
}

void nettrace_metadata_release(struct nettrace_metadata *m)
{
	free(m->provider);
	free(m->event_name);
	free(m->perf_event);
	release_fields(m->fields, m->nfields);
	free(m->fields);
	memset(m, 0, sizeof(*m));
}

enum layout { V4_PARAMS, V5_PARAMS, V6_PARAMS };

static int parse_fields(struct span *s, enum layout l, int depth, struct nettrace_field **out,
			size_t *nout);

/* One type: the type code, then what the code needs (element type, count, fields). */
static int parse_type(struct span *s, enum layout l, int depth, struct nettrace_field *f)
{
	if (depth > MAX_DEPTH)
		return -1;
	uint32_t code = l == V6_PARAMS ? span_u8(s) : span_u32(s);
	if (s->bad)
		return -1;
	f->type = (enum nettrace_type)code;
	switch (code) {
	case NETTRACE_OBJECT:
		return parse_fields(s, l, depth + 1, &f->fields, &f->nfields);
	case NETTRACE_ARRAY:
	case NETTRACE_FIXED_ARRAY:
	case NETTRACE_RELLOC:
	case NETTRACE_DATALOC:
		if (l == V4_PARAMS || (code != NETTRACE_ARRAY && l != V6_PARAMS))
			return -1;
		f->element = xcalloc(1, sizeof(*f->element));
		f->element->name = xstrdup(""); /* elements have no name of their own */
		if (parse_type(s, l, depth + 1, f->element) < 0)
			return -1;
		if (code == NETTRACE_FIXED_ARRAY)
			f->count = span_u16(s);
		return s->bad ? -1 : 0;
	case NETTRACE_BOOL32:
	case NETTRACE_UTF16_CHAR:
	case NETTRACE_INT8:
	case NETTRACE_UINT8:
	case NETTRACE_INT16:
	case NETTRACE_UINT16:
	case NETTRACE_INT32:
	case NETTRACE_UINT32:
	case NETTRACE_INT64:
	case NETTRACE_UINT64:
	case NETTRACE_FLOAT:
	case NETTRACE_DOUBLE:
	case NETTRACE_DECIMAL:
	case NETTRACE_DATETIME:
	case NETTRACE_GUID:
	case NETTRACE_UTF16_STRING:
		return 0;
	case NETTRACE_VARINT:
	case NETTRACE_VARUINT:
	case NETTRACE_UTF8_CHAR:
	case NETTRACE_BOOL8:
		return l == V6_PARAMS ? 0 : -1;
	default:
		return -1;
	}
}

/* A field list: count, then per field (v4) type + UTF-16 name, (v5 V2Params) int size,
 * name, type, (v6) uint16 size, UTF-8 name, type; sized fields may carry extra bytes. */
static int parse_fields(struct span *s, enum layout l, int depth, struct nettrace_field **out,
			size_t *nout)
{
	uint32_t n = l == V6_PARAMS ? span_u16(s) : span_u32(s);
	/* Every field takes at least 2 bytes: a count the span cannot hold is bad. */
	if (s->bad || n > span_left(s) / 2 || depth > MAX_DEPTH)
		return -1;
	struct nettrace_field *f = xcalloc(n ? n : 1, sizeof(*f));
	*out = f;
	*nout = n;
	for (uint32_t i = 0; i < n; i++) {
		if (l == V4_PARAMS) {
			if (parse_type(s, l, depth, &f[i]) < 0 || !(f[i].name = utf16z_take(s)))
				return -1;
			continue;
		}
		size_t size = l == V6_PARAMS ? span_u16(s) : span_u32(s);
		if (l == V5_PARAMS) {
			if (size < 4)
				return -1;
			size -= 4; /* v5's size counts itself */
		}
		const uint8_t *body = span_take(s, size);
		if (!body)
			return -1;
		struct span fs = span_of(body, size);
		f[i].name = l == V6_PARAMS ? take_utf8(&fs) : utf16z_take(&fs);
		if (!f[i].name || parse_type(&fs, l, depth, &f[i]) < 0)
			return -1;
	}
	return 0;
}

/* Parses a field list into m, or leaves it unknown (and empty) when it cannot. */
static void parse_params(struct span *s, enum layout l, struct nettrace_metadata *m)
{
	struct nettrace_field *f = NULL;
	size_t n = 0;
	int rc = parse_fields(s, l, 0, &f, &n);
	release_fields(m->fields, m->nfields);
	free(m->fields);
	m->fields = NULL;
	m->nfields = 0;
	m->fields_known = false;
	if (rc < 0) {
		release_fields(f, n);
		free(f);
		return;
	}
	m->fields = f;
	m->nfields = n;
	m->fields_known = true;
}

int nettrace_metadata_parse_v4(const uint8_t *p, size_t len, struct nettrace_metadata *m)
{
	memset(m, 0, sizeof(*m));
	struct span s = span_of(p, len);
	m->id = span_u32(&s);
	m->provider = utf16z_take(&s);
	m->event_id = span_u32(&s);
	m->event_name = utf16z_take(&s);
	m->keywords = span_u64(&s);
	m->version = span_u32(&s);
	m->level = span_u32(&s);
	if (s.bad || !m->provider || !m->event_name) {
		nettrace_metadata_release(m);
		return pc_err("metadata row cut short");
	}
	if (!span_left(&s)) {
		m->fields_known = true; /* no fields (the runtime's own events) */
		return 0;
	}
	parse_params(&s, V4_PARAMS, m);
	if (!m->fields_known)
		return 0; /* TraceEvent ignores the rest too */
	while (span_left(&s) >= 5) {
		uint32_t size = span_u32(&s);
		uint8_t tag = span_u8(&s);
		const uint8_t *body = span_take(&s, size);
		if (!body)
			break;
		struct span ts = span_of(body, size);
		if (tag == TAG_OPCODE && size >= 1)
			m->opcode = body[0];
		else if (tag == TAG_V2_PARAMS)
			parse_params(&ts, V5_PARAMS, m);
	}
	return 0;
}

static void skip_optional_v6(struct span *s, struct nettrace_metadata *m)
{
	size_t size = span_u16(s);
	const uint8_t *body = span_take(s, size);
	if (!body)
		return;
	struct span o = span_of(body, size);
	while (span_left(&o)) {
		uint8_t kind = span_u8(&o);
		char *a = NULL, *b = NULL;
		switch (kind) {
		case OPT_OPCODE:
			m->opcode = span_u8(&o);
			break;
		case OPT_KEYWORD:
			m->keywords = span_u64(&o);
			break;
		case OPT_MESSAGE_TEMPLATE:
		case OPT_DESCRIPTION:
			free(take_utf8(&o));
			break;
		case OPT_KEY_VALUE:
			a = take_utf8(&o);
			b = take_utf8(&o);
			if (a && b && !strcmp(a, "perf.event") && !m->perf_event) {
				m->perf_event = b;
				b = NULL;
			}
			break;
		case OPT_PROVIDER_GUID:
			span_take(&o, 16);
			break;
		case OPT_LEVEL:
			m->level = span_u8(&o);
			break;
		case OPT_VERSION:
			m->version = span_u8(&o);
			break;
		default:
			o.bad = true; /* an unknown kind: its size is unknown, stop here */
			break;
		}
		free(a);
		free(b);
	}
}

int nettrace_metadata_parse_v6(const uint8_t *p, size_t len, struct nettrace_metadata *m)
{
	memset(m, 0, sizeof(*m));
	struct span s = span_of(p, len);
	m->id = (uint32_t)span_varuint(&s, UINT32_MAX);
	m->provider = take_utf8(&s);
	m->event_id = (uint32_t)span_varuint(&s, UINT32_MAX);
	m->event_name = take_utf8(&s);
	if (s.bad || !m->provider || !m->event_name) {
		nettrace_metadata_release(m);
		return pc_err("metadata row cut short");
	}
	parse_params(&s, V6_PARAMS, m);
	if (m->fields_known)
		skip_optional_v6(&s, m);
	return 0;
}
