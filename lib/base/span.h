/* span: reading bytes someone else wrote, bounds-checked: a cursor over a byte range with
 * little-endian integers, LEB128 (unsigned, and DWARF's signed) and NUL-terminated UTF-16,
 * and the unaligned little-endian loads it is made of (for fixed layouts whose size the
 * caller checked).
 *
 * A read past the end sets bad and yields zeros (NULL for bytes), and every read after it
 * fails the same way, so a parser checks bad once after a group of reads instead of after
 * each one.
 *
 * Little-endian is also the host's order: perf.data, jitdump and other processes' memory,
 * which are in the host's order, are read with these too.  Every machine this is built for
 * (x86-64, arm64) is little-endian; perf.data from a big-endian one is refused. */
#ifndef PC_SPAN_H
#define PC_SPAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "perfcollect-c reads the host's formats as little-endian (base/span.h)");

static inline uint16_t load_le16(const void *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t load_le32(const void *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t load_le64(const void *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

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
	return p ? load_le16(p) : 0;
}

static inline uint32_t span_u32(struct span *s)
{
	const uint8_t *p = span_take(s, 4);
	return p ? load_le32(p) : 0;
}

static inline uint64_t span_u64(struct span *s)
{
	const uint8_t *p = span_take(s, 8);
	return p ? load_le64(p) : 0;
}

/* A pointer-sized value (4 or 8 bytes). */
static inline uint64_t span_ptr(struct span *s, unsigned size)
{
	return size == 4 ? span_u32(s) : span_u64(s);
}

/* LEB128: 7 bits a byte, least significant first; at most 10 bytes, and a value that does
 * not fit 64 bits or max is bad. */
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

/* Signed LEB128 (DWARF's SLEB128): as span_varuint, the last byte's bit 6 the sign; at most
 * 10 bytes, and a value that does not fit 64 bits is bad. */
static inline int64_t span_varint(struct span *s)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 70; shift += 7) {
		uint8_t b = span_u8(s);
		if (s->bad)
			return 0;
		if (shift == 63 && (b & 0x7f) != 0 && (b & 0x7f) != 0x7f) /* more than 64 bits */
			break;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			if (shift < 57 && (b & 0x40))
				v |= ~(uint64_t)0 << (shift + 7);
			return (int64_t)v;
		}
	}
	s->bad = true;
	return 0;
}

/* A NUL-terminated string (NULL, and bad set, when no NUL is left in the span). */
static inline const char *span_cstr(struct span *s)
{
	const uint8_t *start = s->bad ? NULL : s->p + s->pos;
	const uint8_t *nul = start ? memchr(start, 0, s->len - s->pos) : NULL;
	if (!nul) {
		s->bad = true;
		return NULL;
	}
	s->pos += (size_t)(nul - start) + 1;
	return (const char *)start;
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
