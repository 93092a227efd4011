/* nettrace_buf: see nettrace_buf.h. */
#include "nettrace_buf.h"

#include <stdlib.h>
#include <string.h>

void nettrace_buf_reserve(struct nettrace_buf *b, size_t more)
{
	if (b->len + more > b->cap)
		grow_array((void **)&b->data, &b->cap, b->len + more, 1);
}

void nettrace_buf_free(struct nettrace_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

void nettrace_buf_bytes(struct nettrace_buf *b, const void *p, size_t n)
{
	if (!n)
		return;
	nettrace_buf_reserve(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void nettrace_buf_u8(struct nettrace_buf *b, uint8_t v)
{
	nettrace_buf_reserve(b, 1);
	b->data[b->len++] = v;
}

void nettrace_buf_le(struct nettrace_buf *b, uint64_t v, int n)
{
	nettrace_buf_reserve(b, (size_t)n);
	for (int i = 0; i < n; i++)
		b->data[b->len++] = (uint8_t)(v >> (8 * i));
}

void nettrace_buf_u16(struct nettrace_buf *b, uint16_t v)
{
	nettrace_buf_le(b, v, 2);
}

void nettrace_buf_u32(struct nettrace_buf *b, uint32_t v)
{
	nettrace_buf_le(b, v, 4);
}

void nettrace_buf_u64(struct nettrace_buf *b, uint64_t v)
{
	nettrace_buf_le(b, v, 8);
}

size_t nettrace_varuint(uint8_t *out, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

void nettrace_buf_varuint(struct nettrace_buf *b, uint64_t v)
{
	nettrace_buf_reserve(b, 10);
	b->len += nettrace_varuint(b->data + b->len, v);
}

void nettrace_buf_varint(struct nettrace_buf *b, int64_t v)
{
	nettrace_buf_varuint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void nettrace_buf_string(struct nettrace_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	nettrace_buf_varuint(b, n);
	nettrace_buf_bytes(b, s, n);
}

void nettrace_buf_short_string(struct nettrace_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n > 0xffff)
		n = 0xffff;
	nettrace_buf_u16(b, (uint16_t)n);
	nettrace_buf_bytes(b, s, n);
}
