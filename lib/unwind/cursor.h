/* cursor: DWARF's operands (CFI instructions, expressions) read from a base/span.h span, each
 * read returning whether it was in bounds: the instruction loops test operand by operand.
 * cfi.c and unwind.c read the same encodings; the decoding itself is span.h's. */
#ifndef PC_UNWIND_CURSOR_H
#define PC_UNWIND_CURSOR_H

#include "base/span.h"

static inline bool c_u8(struct span *c, uint8_t *v)
{
	*v = span_u8(c);
	return !c->bad;
}

static inline bool c_u16(struct span *c, uint16_t *v)
{
	*v = span_u16(c);
	return !c->bad;
}

static inline bool c_u32(struct span *c, uint32_t *v)
{
	*v = span_u32(c);
	return !c->bad;
}

static inline bool c_u64(struct span *c, uint64_t *v)
{
	*v = span_u64(c);
	return !c->bad;
}

static inline bool c_uleb(struct span *c, uint64_t *v)
{
	*v = span_varuint(c, UINT64_MAX);
	return !c->bad;
}

static inline bool c_sleb(struct span *c, int64_t *v)
{
	*v = span_varint(c);
	return !c->bad;
}

#endif
