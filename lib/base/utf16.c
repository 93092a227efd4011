/* utf16: see utf16.h. */
#include "utf16.h"

/* The code point of the UTF-8 sequence at s (its length in *len), -1 when it is not valid
 * UTF-8 (RFC 3629: shortest form, no surrogates, at most U+10FFFF). */
static int32_t utf8_decode(const unsigned char *s, size_t *len)
{
	static const uint32_t min[4] = {0, 0x80, 0x800, 0x10000};
	uint32_t c = s[0];
	size_t n = c < 0x80		   ? 1
		   : c >= 0xc2 && c < 0xe0 ? 2
		   : c >= 0xe0 && c < 0xf0 ? 3
		   : c >= 0xf0 && c < 0xf5 ? 4
					   : 0;
	if (!n)
		return -1; /* a continuation byte, 0xc0/0xc1 (always overlong) or above 0xf4 */
	c &= n == 1 ? 0x7f : n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1; /* cut short (a NUL ends it too) */
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min[n - 1] || c > 0x10ffff || (c >= 0xd800 && c < 0xe000))
		return -1;
	*len = n;
	return (int32_t)c;
}

int utf16_from_utf8(struct bytebuf *b, const char *s, size_t *units)
{
	size_t start = b->len, n = 0;
	for (const unsigned char *u = (const unsigned char *)s; *u;) {
		size_t len;
		int32_t c = utf8_decode(u, &len);
		if (c < 0) {
			b->len = start;
			return pc_err("'%s' is not valid UTF-8 (at byte %zu)", s,
				      (size_t)(u - (const unsigned char *)s));
		}
		u += len;
		if (c >= 0x10000) {
			c -= 0x10000;
			bytebuf_u16(b, (uint16_t)(0xd800 + (c >> 10)));
			bytebuf_u16(b, (uint16_t)(0xdc00 + (c & 0x3ff)));
			n += 2;
		} else {
			bytebuf_u16(b, (uint16_t)c);
			n++;
		}
	}
	*units = n;
	return 0;
}

static char *put_utf8(char *o, uint32_t c)
{
	if (c < 0x80) {
		*o++ = (char)c;
	} else if (c < 0x800) {
		*o++ = (char)(0xc0 | c >> 6);
		*o++ = (char)(0x80 | (c & 0x3f));
	} else if (c < 0x10000) {
		*o++ = (char)(0xe0 | c >> 12);
		*o++ = (char)(0x80 | ((c >> 6) & 0x3f));
		*o++ = (char)(0x80 | (c & 0x3f));
	} else {
		*o++ = (char)(0xf0 | c >> 18);
		*o++ = (char)(0x80 | ((c >> 12) & 0x3f));
		*o++ = (char)(0x80 | ((c >> 6) & 0x3f));
		*o++ = (char)(0x80 | (c & 0x3f));
	}
	return o;
}

char *utf16_to_utf8(const uint8_t *p, size_t units)
{
	/* 3 bytes a unit at most: a pair (2 units) takes 4, U+FFFD for a lone surrogate 3 */
	char *s = xmalloc(units * 3 + 1), *o = s;
	for (size_t i = 0; i < units; i++) {
		uint32_t c = load_le16(p + 2 * i);
		if (!c)
			break;
		if (c >= 0xd800 && c < 0xdc00 && i + 1 < units) {
			uint32_t lo = load_le16(p + 2 * i + 2);
			if (lo >= 0xdc00 && lo < 0xe000) {
				o = put_utf8(o, 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00));
				i++;
				continue;
			}
		}
		o = put_utf8(o, c >= 0xd800 && c < 0xe000 ? 0xfffd : c);
	}
	*o = 0;
	return s;
}

char *utf16z_take(struct span *s)
{
	size_t units;
	const uint8_t *p = span_utf16z(s, &units);
	return p ? utf16_to_utf8(p, units) : NULL;
}
