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
	putc('"', out);
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		char q[4] = {digits[v >> 18], digits[(v >> 12) & 63],
			     i + 1 < n ? digits[(v >> 6) & 63] : '=',
			     i + 2 < n ? digits[v & 63] : '='};
		fwrite(q, 1, 4, out);
	}
	putc('"', out);
}
