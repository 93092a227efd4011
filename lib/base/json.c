/* json: see json.h. */
#include "json.h"

/* The length of the UTF-8 sequence at p, or 0 when it is not one. */
static size_t utf8_len(const unsigned char *p)
{
	unsigned c = *p;
	size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void json_put_string(FILE *out, const char *s, unsigned flags)
{
	bool script = flags & JSON_IN_SCRIPT;
	putc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		unsigned c = *p;
		size_t n = utf8_len(p);
		if (!n) {
			fputs("\\ufffd", out);
			p++;
			continue;
		}
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || (script && c == '<'))
			fprintf(out, "\\u%04x", c);
		else if (script && n == 3 && c == 0xe2 && p[1] == 0x80 &&
			 (p[2] == 0xa8 || p[2] == 0xa9))
			fprintf(out, "\\u%04x", p[2] == 0xa8 ? 0x2028 : 0x2029);
		else
			fwrite(p, 1, n, out);
		p += n;
	}
	putc('"', out);
}

void json_put_base64(FILE *out, const void *data, size_t n)
{
	static const char digits[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = data;
	uint32_t acc = 0; /* bits not yet written, the oldest highest */
	unsigned bits = 0;
	size_t chars = 0;
	putc('"', out);
	for (size_t i = 0; i < n; i++) {
		acc = (acc << 8) | p[i];
		for (bits += 8; bits >= 6; chars++) {
			bits -= 6;
			putc(digits[(acc >> bits) & 63], out);
		}
	}
	if (bits) {
		putc(digits[(acc << (6 - bits)) & 63], out);
		chars++;
	}
	for (; chars % 4; chars++)
		putc('=', out);
	putc('"', out);
}
