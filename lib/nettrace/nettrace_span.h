/* nettrace_span: bounds-checked little-endian reading of a byte range, for the NetTrace
 * reader and the payload decoders.  A read past the end sets bad and yields zeros, so a
 * parser checks bad once after a group of reads instead of after each one. */
#ifndef PC_NETTRACE_SPAN_H
#define PC_NETTRACE_SPAN_H

#include "base/util.h"

#include <string.h>

struct span {
	const uint8_t *p;
	size_t len, pos;
	bool bad;
};

static inline struct span span_of(const void *p, size_t len)
{
	return (struct span){.p = p, .len = len};
}

static inline size_t span_left(const struct span *s)
{
	return s->bad ? 0 : s->len - s->pos;
}

/* n bytes from the current position (NULL, and bad set, when fewer are left). */
static inline const uint8_t *span_take(struct span *s, size_t n)
{
	if (s->bad || n > s->len - s->pos) {
		s->bad = true;
		return NULL;
	}
	const uint8_t *p = s->p + s->pos;
	s->pos += n;
	return p;
}

static inline uint8_t span_u8(struct span *s)
{
	const uint8_t *p = span_take(s, 1);
	return p ? p[0] : 0;
}

static inline uint16_t span_u16(struct span *s)
{
	const uint8_t *p = span_take(s, 2);
	return p ? (uint16_t)(p[0] | p[1] << 8) : 0;
}

static inline uint32_t span_u32(struct span *s)
{
	const uint8_t *p = span_take(s, 4);
	return p ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		       (uint32_t)p[3] << 24
		 : 0;
}

static inline uint64_t span_u64(struct span *s)
{
	uint64_t lo = span_u32(s);
	return lo | (uint64_t)span_u32(s) << 32;
}

/* A pointer-sized value (4 or 8 bytes). */
static inline uint64_t span_ptr(struct span *s, unsigned size)
{
	return size == 4 ? span_u32(s) : span_u64(s);
}

/* NetTrace's varuint: 7 bits a byte, least significant first; at most 10 bytes, and a value
 * that does not fit max is bad. */
static inline uint64_t span_varuint(struct span *s, uint64_t max)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 70; shift += 7) {
		uint8_t b = span_u8(s);
		if (s->bad)
			return 0;
		if (shift == 63 && (b & 0x7e)) /* more than 64 bits */
			break;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			if (v > max)
				break;
			return v;
		}
	}
	s->bad = true;
	return 0;
}

/* Skips a NUL-terminated UTF-16 string; returns its start and its length in units (without
 * the NUL).  bad when no terminator is left in the span. */
static inline const uint8_t *span_utf16z(struct span *s, size_t *units)
{
	const uint8_t *start = s->bad ? NULL : s->p + s->pos;
	for (size_t n = 0;; n++) {
		const uint8_t *u = span_take(s, 2);
		if (!u)
			return NULL;
		if (!u[0] && !u[1]) {
			*units = n;
			return start;
		}
	}
}

#endif
