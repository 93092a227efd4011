/* The bounds-checked reader (lib/base/span.h) driven by its input: each step reads an
 * operation byte, then that read, from the same bytes.  Whatever the bytes, no read leaves
 * the buffer (ASan), the position never passes the end, what a read returns lies inside the
 * buffer, and once a read failed every later one fails too. */
#include "fuzz.h"
#include "base/span.h"

static uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exact-size copy, so that ASan sees a byte read past the end */
	uint8_t *buf = malloc(size ? size : 1);
	memcpy(buf, data, size);
	struct span s = span_of(buf, size);
	while (!s.bad) {
		uint8_t op = span_u8(&s);
		size_t before = s.pos, units = 0;
		const void *p = NULL;
		uint64_t v = 0;
		switch (op % 11) {
		case 0:
			v = span_u16(&s);
			break;
		case 1:
			v = span_u32(&s);
			break;
		case 2:
			v = span_u64(&s);
			break;
		case 3:
			v = span_ptr(&s, op & 0x80 ? 4 : 8);
			break;
		case 4: /* bit 6: DWARF's signed LEB128 */
			v = op & 0x40 ? (uint64_t)span_varint(&s)
				      : span_varuint(&s, op & 0x80 ? UINT32_MAX : UINT64_MAX);
			break;
		case 5:
			p = span_take(&s, op >> 4);
			break;
		case 6:
			p = span_take(&s, (size_t)span_u8(&s) << (op >> 5));
			break;
		case 7:
			p = span_cstr(&s);
			break;
		case 8:
			p = span_utf16z(&s, &units);
			break;
		case 9:
			v = span_u8(&s);
			break;
		case 10:
			p = span_take(&s, SIZE_MAX - (op >> 4));
			break;
		}
		FUZZ_CHECK(s.pos <= s.len);
		if (s.bad) {
			FUZZ_CHECK(v == 0 && p == NULL && span_left(&s) == 0);
			FUZZ_CHECK(span_take(&s, 0) == NULL && span_u64(&s) == 0 && s.bad);
		} else {
			FUZZ_CHECK(s.pos >= before);
			FUZZ_CHECK(
			    !p || ((const uint8_t *)p >= buf && (const uint8_t *)p <= buf + s.pos));
			FUZZ_CHECK(units * 2 <= s.pos - before);
		}
		sink += v;
	}
	free(buf);
	return 0;
}
