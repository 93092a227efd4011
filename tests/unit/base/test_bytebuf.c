/* Unit tests for the byte buffer: every writer against the bytes the formats define. */
#include "base/bytebuf.h"
#include "test.h"

static bool bytes_are(const struct bytebuf *b, const void *want, size_t n)
{
	return b->len == n && !memcmp(b->data, want, n);
}

static void test_integers(void)
{
	struct bytebuf b = {0};
	bytebuf_u8(&b, 0xab);
	bytebuf_u16(&b, 0x1234);
	bytebuf_u32(&b, 0x89abcdef);
	bytebuf_u64(&b, 0x0102030405060708ULL);
	bytebuf_le(&b, 0xa1a2a3a4a5a6a7a8ULL, 4); /* a 4-byte pointer: the low half */
	static const uint8_t want[] = {0xab, 0x34, 0x12, 0xef, 0xcd, 0xab, 0x89, 0x08, 0x07, 0x06,
				       0x05, 0x04, 0x03, 0x02, 0x01, 0xa8, 0xa7, 0xa6, 0xa5};
	CHECK(bytes_are(&b, want, sizeof(want)));
	bytebuf_patch_le(&b, 3, 0x11223344, 4);
	CHECK(b.data[3] == 0x44 && b.data[6] == 0x11 && b.data[7] == 0x08);
	bytebuf_free(&b);
	CHECK(b.data == NULL && b.len == 0 && b.cap == 0);
}

static void test_varints(void)
{
	static const struct {
		uint64_t v;
		uint8_t n, bytes[10];
	} cases[] = {
	    {0, 1, {0}},
	    {1, 1, {1}},
	    {127, 1, {0x7f}},
	    {128, 2, {0x80, 0x01}},
	    {300, 2, {0xac, 0x02}},
	    {16383, 2, {0xff, 0x7f}},
	    {16384, 3, {0x80, 0x80, 0x01}},
	    {UINT32_MAX, 5, {0xff, 0xff, 0xff, 0xff, 0x0f}},
	    {1ULL << 63, 10, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}},
	    {UINT64_MAX, 10, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		uint8_t out[10];
		CHECK_EQ_U64(varuint_encode(out, cases[i].v), cases[i].n);
		CHECK(!memcmp(out, cases[i].bytes, cases[i].n));
		struct bytebuf b = {0};
		bytebuf_varuint(&b, cases[i].v);
		CHECK(bytes_are(&b, cases[i].bytes, cases[i].n));
		bytebuf_free(&b);
	}
	/* zigzag: 0, -1, 1, -2, 2 ... as 0, 1, 2, 3, 4 ... */
	struct bytebuf b = {0};
	bytebuf_varint(&b, 0);
	bytebuf_varint(&b, -1);
	bytebuf_varint(&b, 1);
	bytebuf_varint(&b, -2);
	bytebuf_varint(&b, -64);
	bytebuf_varint(&b, 64);
	bytebuf_varint(&b, INT64_MIN);
	static const uint8_t want[] = {0,    1,	   2,	 3,    0x7f, 0x80, 0x01, 0xff, 0xff,
				       0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	CHECK(bytes_are(&b, want, sizeof(want)));
	bytebuf_free(&b);
}

static void test_strings(void)
{
	struct bytebuf b = {0};
	bytebuf_string(&b, "abc");
	bytebuf_string(&b, NULL);
	bytebuf_short_string(&b, "ab");
	bytebuf_short_string(&b, "");
	static const uint8_t want[] = {3, 'a', 'b', 'c', 0, 2, 0, 'a', 'b', 0, 0};
	CHECK(bytes_are(&b, want, sizeof(want)));
	/* a short string is cut at 65535 bytes; a long one takes a longer varuint */
	char *big = xmalloc(70001);
	memset(big, 'x', 70000);
	big[70000] = 0;
	b.len = 0;
	bytebuf_short_string(&b, big);
	CHECK(b.len == 2 + 65535 && b.data[0] == 0xff && b.data[1] == 0xff);
	b.len = 0;
	bytebuf_string(&b, big);
	CHECK(b.len == 3 + 70000 && b.data[0] == 0xf0 && b.data[1] == 0xa2 && b.data[2] == 0x04);
	free(big);
	bytebuf_free(&b);
}

/* Growth keeps what was written; bytes and fills of any size; reserve makes room. */
static void test_growth(void)
{
	struct bytebuf b = {0};
	for (unsigned i = 0; i < 100000; i++)
		bytebuf_u8(&b, (uint8_t)i);
	bool ok = b.len == 100000;
	for (unsigned i = 0; ok && i < 100000; i++)
		ok = b.data[i] == (uint8_t)i;
	CHECK(ok);
	bytebuf_fill(&b, ' ', 3);
	bytebuf_bytes(&b, NULL, 0);
	bytebuf_bytes(&b, "xyz", 3);
	CHECK(b.len == 100006 && !memcmp(b.data + 100000, "   xyz", 6));
	bytebuf_reserve(&b, 1 << 20);
	CHECK(b.cap - b.len >= 1 << 20);
	bytebuf_free(&b);
}

int main(void)
{
	test_integers();
	test_varints();
	test_strings();
	test_growth();
	return TEST_DONE();
}
