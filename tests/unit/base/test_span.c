/* Unit tests for the bounds-checked reader: every read at every place short of the end fails
 * cleanly (zeros, NULL, bad set, nothing read outside), bad stays bad, and varuints at the
 * edges of their range (what bytebuf writes reads back). */
#include "base/bytebuf.h"
#include "base/span.h"
#include "test.h"

enum op { U8, U16, U32, U64, PTR4, PTR8, TAKE3, VARUINT, CSTR, UTF16Z, NOPS };
static const size_t op_size[NOPS] = {1, 2, 4, 8, 4, 8, 3, 3, 3, 4};

/* One read of each kind from a copy of exactly n bytes (ASan sees a read past them): the
 * bytes below are all readable by each op when n is at least op_size. */
static void test_bounds(void)
{
	/* what each op reads whole when it has op_size bytes (a 3-byte varuint, "ab", UTF-16
	 * "a"), and the rest after them */
	static const uint8_t good[16] = {0x61, 0x62, 0x00, 0x00, 0x61, 0x62, 0x63, 0x64};
	static const uint8_t varuint[16] = {0x81, 0x81, 0x01};
	static const uint8_t utf16z[16] = {0x61, 0x00, 0x00, 0x00};
	for (int op = 0; op < NOPS; op++) {
		const uint8_t *src = op == VARUINT ? varuint : op == UTF16Z ? utf16z : good;
		for (size_t n = 0; n <= op_size[op] && n <= 8; n++) {
			uint8_t *copy = xmalloc(n ? n : 1);
			memcpy(copy, src, n);
			struct span s = span_of(copy, n);
			uint64_t v = 0;
			const void *p = NULL;
			size_t units = 0;
			switch (op) {
			case U8:
				v = span_u8(&s);
				break;
			case U16:
				v = span_u16(&s);
				break;
			case U32:
				v = span_u32(&s);
				break;
			case U64:
				v = span_u64(&s);
				break;
			case PTR4:
				v = span_ptr(&s, 4);
				break;
			case PTR8:
				v = span_ptr(&s, 8);
				break;
			case TAKE3:
				p = span_take(&s, 3);
				break;
			case VARUINT:
				v = span_varuint(&s, UINT64_MAX);
				break;
			case CSTR:
				p = span_cstr(&s);
				break;
			case UTF16Z:
				p = span_utf16z(&s, &units);
				break;
			}
			if (n >= op_size[op]) {
				CHECK(!s.bad);
				CHECK(v || p);
			} else {
				if (s.bad != true || v || p)
					fprintf(stderr, "op %d with %zu bytes\n", op, n);
				CHECK(s.bad);
				CHECK(!v && !p);
				CHECK_EQ_U64(span_left(&s), 0);
				/* bad stays bad, even for a read of nothing */
				CHECK(span_take(&s, 0) == NULL && span_u8(&s) == 0 && s.bad);
			}
			free(copy);
		}
	}
}

static void test_values(void)
{
	static const uint8_t b[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
	CHECK_EQ_U64(load_le16(b), 0x0201);
	CHECK_EQ_U64(load_le32(b + 1), 0x05040302);
	CHECK_EQ_U64(load_le64(b + 3), 0x0b0a090807060504ULL);
	struct span s = span_of(b, sizeof(b));
	CHECK_EQ_U64(span_u8(&s), 1);
	CHECK_EQ_U64(span_u16(&s), 0x0302);
	CHECK_EQ_U64(span_u32(&s), 0x07060504);
	CHECK_EQ_U64(span_left(&s), 8);
	CHECK_EQ_U64(span_u64(&s), 0x0f0e0d0c0b0a0908ULL);
	CHECK(!s.bad && span_left(&s) == 0);
	CHECK(span_take(&s, 0) != NULL); /* nothing is left, and nothing is asked */
	CHECK(span_u8(&s) == 0 && s.bad);
	/* a huge length does not wrap around */
	s = span_of(b, sizeof(b));
	span_u8(&s);
	CHECK(span_take(&s, SIZE_MAX) == NULL && s.bad);
}

/* Every value bytebuf writes reads back; the edges of the encoding are refused. */
static void test_varuint(void)
{
	static const uint64_t values[] = {0,
					  1,
					  127,
					  128,
					  16383,
					  16384,
					  UINT32_MAX,
					  (uint64_t)UINT32_MAX + 1,
					  1ULL << 56,
					  1ULL << 63,
					  UINT64_MAX - 1,
					  UINT64_MAX};
	struct bytebuf b = {0};
	for (size_t i = 0; i < ARRAY_SIZE(values); i++)
		bytebuf_varuint(&b, values[i]);
	struct span s = span_of(b.data, b.len);
	for (size_t i = 0; i < ARRAY_SIZE(values); i++)
		CHECK_EQ_U64(span_varuint(&s, UINT64_MAX), values[i]);
	CHECK(!s.bad && span_left(&s) == 0);
	bytebuf_free(&b);

	/* above max: bad */
	s = span_of((const uint8_t[]){0x80, 0x02}, 2);
	CHECK(span_varuint(&s, 255) == 0 && s.bad);
	s = span_of((const uint8_t[]){0xff, 0x01}, 2);
	CHECK(span_varuint(&s, 255) == 255 && !s.bad);
	/* a 10th byte with more than the 64th bit, and an 11-byte varuint: bad */
	static const uint8_t over[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
	s = span_of(over, sizeof(over));
	CHECK(span_varuint(&s, UINT64_MAX) == 0 && s.bad);
	static const uint8_t eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
					 0x80, 0x80, 0x80, 0x80, 0x00};
	s = span_of(eleven, sizeof(eleven));
	CHECK(span_varuint(&s, UINT64_MAX) == 0 && s.bad);
	/* zero padded to 10 bytes is still zero (the encoding allows it) */
	static const uint8_t padded[] = {0x80, 0x80, 0x80, 0x80, 0x80,
					 0x80, 0x80, 0x80, 0x80, 0x00};
	s = span_of(padded, sizeof(padded));
	CHECK(span_varuint(&s, UINT64_MAX) == 0 && !s.bad);
	/* cut in the middle */
	s = span_of((const uint8_t[]){0x80, 0x80}, 2);
	CHECK(span_varuint(&s, UINT64_MAX) == 0 && s.bad);
}

/* DWARF's signed LEB128: the standard's examples (DWARF 5, 7.6), the ends of int64_t, and
 * what does not fit or is cut short. */
static void test_varint(void)
{
	static const struct {
		uint8_t b[10];
		size_t n;
		int64_t v;
	} cases[] = {
	    {{0x02}, 1, 2},
	    {{0x7e}, 1, -2},
	    {{0xff, 0x00}, 2, 127},
	    {{0x81, 0x7f}, 2, -127},
	    {{0x80, 0x01}, 2, 128},
	    {{0x80, 0x7f}, 2, -128},
	    {{0x81, 0x01}, 2, 129},
	    {{0xff, 0x7e}, 2, -129},
	    {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00}, 10, INT64_MAX},
	    {{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f}, 10, INT64_MIN},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct span s = span_of(cases[i].b, sizeof(cases[i].b));
		CHECK(span_varint(&s) == cases[i].v && !s.bad && s.pos == cases[i].n);
	}
	/* a 10th byte other than the sign's extension: more than 64 bits */
	static const uint8_t over[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	struct span s = span_of(over, sizeof(over));
	CHECK(span_varint(&s) == 0 && s.bad);
	s = span_of((const uint8_t[]){0x80, 0xff}, 2);
	CHECK(span_varint(&s) == 0 && s.bad);
}

static void test_strings(void)
{
	static const uint8_t b[] = {'a', 0, 'b', 'c', 0, 'x', 0, 'y', 0, 0, 0, 'z'};
	struct span s = span_of(b, sizeof(b));
	const char *a = span_cstr(&s), *bc = span_cstr(&s);
	CHECK_STR(a, "a");
	CHECK_STR(bc, "bc");
	size_t units = 99;
	const uint8_t *u = span_utf16z(&s, &units);
	CHECK(u == b + 5 && units == 2);
	CHECK(span_cstr(&s) == NULL && s.bad); /* "z" without its NUL */
}

int main(void)
{
	test_bounds();
	test_values();
	test_varuint();
	test_varint();
	test_strings();
	return TEST_DONE();
}
