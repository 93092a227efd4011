/* cursor: a bounded cursor over DWARF bytes (CFI instructions, expressions): bytes, ULEB128
 * and SLEB128, each read failing at the end instead of going past it.  The unwind stage's
 * own: cfi.c and unwind.c read the same encodings. */
#ifndef PC_UNWIND_CURSOR_H
#define PC_UNWIND_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A bounded cursor. */
struct cur {
	const uint8_t *start, *p, *end;
};

static inline bool c_bytes(struct cur *c, void *out, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return false;
	memcpy(out, c->p, n);
	c->p += n;
	return true;
}

static inline bool c_u8(struct cur *c, uint8_t *v)
{
	return c_bytes(c, v, 1);
}

static inline bool c_uleb(struct cur *c, uint64_t *v)
{
	uint64_t r = 0;
	for (unsigned shift = 0; c->p < c->end; shift += 7) {
		uint8_t b = *c->p++;
		if (shift < 64)
			r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			return true;
		}
	}
	return false;
}

static inline bool c_sleb(struct cur *c, int64_t *v)
{
	uint64_t r = 0;
	unsigned shift = 0;
	while (c->p < c->end) {
		uint8_t b = *c->p++;
		if (shift < 64)
			r |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				r |= ~(uint64_t)0 << shift;
			*v = (int64_t)r;
			return true;
		}
	}
	return false;
}

#endif
