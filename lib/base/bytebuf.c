/* bytebuf: see bytebuf.h. */
#include "bytebuf.h"

#include <stdlib.h>

void bytebuf_grow(struct bytebuf *b, size_t more)
{
	grow_array((void **)&b->data, &b->cap, b->len + more, 1);
}

void bytebuf_free(struct bytebuf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

void bytebuf_string(struct bytebuf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	bytebuf_varuint(b, n);
	bytebuf_bytes(b, s, n);
}

void bytebuf_short_string(struct bytebuf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n > 0xffff)
		n = 0xffff;
	bytebuf_u16(b, (uint16_t)n);
	bytebuf_bytes(b, s, n);
}
