/* Unit tests for the UTF-16 codec: the two directions against known units and bytes,
 * surrogate pairs, surrogates without their pair (U+FFFD, in every place), and UTF-8 that
 * is refused (every kind of invalid sequence), with the buffer left as it was. */
#include "base/utf16.h"
#include "test.h"

/* s encoded: the units written, as uint16 values */
static size_t encode(const char *s, uint16_t *out, size_t max, int *rc)
{
	struct bytebuf b = {0};
	bytebuf_u8(&b, 0xee); /* something before: kept */
	size_t units = 12345;
	*rc = utf16_from_utf8(&b, s, &units);
	CHECK(b.data[0] == 0xee);
	if (*rc < 0) {
		CHECK_EQ_U64(b.len, 1);
		units = 0;
	} else {
		CHECK_EQ_U64(b.len, 1 + 2 * units);
		for (size_t i = 0; i < units && i < max; i++)
			out[i] = load_le16(b.data + 1 + 2 * i);
	}
	bytebuf_free(&b);
	return units;
}

static void test_encode(void)
{
	uint16_t u[16];
	int rc;
	CHECK(encode("", u, 16, &rc) == 0 && rc == 0);
	CHECK(encode("Az", u, 16, &rc) == 2 && rc == 0 && u[0] == 'A' && u[1] == 'z');
	/* U+00E9 (2 bytes), U+20AC (3 bytes), U+1F600 (4 bytes: a pair), U+10FFFF, U+FFFF */
	CHECK(encode("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\xef\xbf\xbf", u, 16,
		     &rc) == 7);
	CHECK(rc == 0);
	static const uint16_t want[] = {0xe9, 0x20ac, 0xd83d, 0xde00, 0xdbff, 0xdfff, 0xffff};
	CHECK(!memcmp(u, want, sizeof(want)));

	static const char *const bad[] = {
	    "\x80",		/* a continuation byte where a character starts */
	    "a\xbf",		/* the same after one */
	    "\xc3",		/* cut short at the end */
	    "\xc3(",		/* cut short by another character */
	    "\xe2\x82",		/* a 3-byte sequence cut short */
	    "\xf0\x9f\x98",	/* a 4-byte one */
	    "\xc0\xaf",		/* overlong '/' */
	    "\xc1\xbf",		/* overlong, the other lead byte */
	    "\xe0\x80\xaf",	/* overlong in 3 bytes */
	    "\xf0\x80\x80\xaf", /* and in 4 */
	    "\xed\xa0\x80",	/* U+D800: a surrogate encoded in UTF-8 */
	    "\xed\xbf\xbf",	/* U+DFFF */
	    "\xf4\x90\x80\x80", /* U+110000, above Unicode */
	    "\xf5\x80\x80\x80", /* a lead byte that can only be above it */
	    "\xff",		/* never in UTF-8 */
	    "ok\xfe",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		pc_err("none");
		CHECK(encode(bad[i], u, 16, &rc) == 0 && rc == -1);
		CHECK(strstr(pc_strerror(), "not valid UTF-8") != NULL);
	}
	pc_err("none");
	encode("ab\xff", u, 16, &rc);
	CHECK(strstr(pc_strerror(), "at byte 2") != NULL);
}

static char *decode(const uint16_t *units, size_t n)
{
	uint8_t *b = xmalloc(2 * n + 1);
	for (size_t i = 0; i < n; i++)
		b[2 * i] = units[i] & 0xff, b[2 * i + 1] = units[i] >> 8;
	char *s = utf16_to_utf8(b, n);
	free(b);
	return s;
}

static void test_decode(void)
{
	char *s;
	s = decode((const uint16_t[]){'a', 0xe9, 0x20ac, 0xd83d, 0xde00, 0xffff}, 6);
	CHECK_STR(s, "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbf");
	free(s);
	/* a lone surrogate, in every place: U+FFFD, and what follows is kept */
	s = decode((const uint16_t[]){0xd83d}, 1); /* high, at the end */
	CHECK_STR(s, "\xef\xbf\xbd");
	free(s);
	s = decode((const uint16_t[]){0xd83d, 'x'}, 2); /* high, before a non-surrogate */
	CHECK_STR(s, "\xef\xbf\xbdx");
	free(s);
	s = decode((const uint16_t[]){0xde00, 'x'}, 2); /* low, alone */
	CHECK_STR(s, "\xef\xbf\xbdx");
	free(s);
	s = decode((const uint16_t[]){0xd83d, 0xd83d, 0xde00}, 3); /* high, then a whole pair */
	CHECK_STR(s, "\xef\xbf\xbd\xf0\x9f\x98\x80");
	free(s);
	s = decode((const uint16_t[]){0xde00, 0xd83d}, 2); /* a pair in the wrong order */
	CHECK_STR(s, "\xef\xbf\xbd\xef\xbf\xbd");
	free(s);
	/* a NUL unit ends the string; none at all is "" */
	s = decode((const uint16_t[]){'a', 0, 'b'}, 3);
	CHECK_STR(s, "a");
	free(s);
	s = decode(NULL, 0);
	CHECK_STR(s, "");
	free(s);
	/* the worst case for the output's size: every unit 3 bytes */
	uint16_t many[1000];
	for (size_t i = 0; i < 1000; i++)
		many[i] = i % 2 ? 0xdc00 : 0x800;
	s = decode(many, 1000);
	CHECK_EQ_U64(strlen(s), 3000);
	free(s);
}

/* Valid text goes there and back unchanged; utf16z_take reads a terminated string from a
 * span. */
static void test_round_trip(void)
{
	const char *text = "h\xc3\xa9llo \xe4\xb8\x96\xe7\x95\x8c \xf0\x9f\x98\x80!";
	struct bytebuf b = {0};
	size_t units;
	CHECK(utf16_from_utf8(&b, text, &units) == 0);
	bytebuf_u16(&b, 0);
	bytebuf_u8(&b, 0x42);
	struct span s = span_of(b.data, b.len);
	char *back = utf16z_take(&s);
	CHECK_STR(back, text);
	free(back);
	CHECK(span_u8(&s) == 0x42 && !s.bad);
	s = span_of(b.data, b.len - 3); /* without the terminator */
	CHECK(utf16z_take(&s) == NULL && s.bad);
	bytebuf_free(&b);
}

int main(void)
{
	test_encode();
	test_decode();
	test_round_trip();
	return TEST_DONE();
}
