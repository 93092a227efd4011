/* bytebuf: a growable byte buffer and the encodings our outputs are built of: little-endian
 * integers (NetTrace, the diagnostics IPC, and perf.data and tracing data, whose host order is
 * little-endian: base/span.h), LEB128 varuints and zigzag varints (NetTrace, protobuf),
 * length-prefixed UTF-8 strings, and UTF-16 (base/utf16.h).  base/span.h reads them back.
 *
 * A zeroed struct is an empty buffer; bytebuf_free() empties it again.  Writers cannot fail
 * (allocation aborts, util.h).  The small writers are inline: perf.data.txt and the NetTrace
 * are built a few bytes at a time. */
#ifndef PC_BYTEBUF_H
#define PC_BYTEBUF_H

#include "util.h"

#include <string.h>

struct bytebuf {
	uint8_t *data;
	size_t len, cap;
};

void bytebuf_free(struct bytebuf *b);
/* Room for more bytes after len (the slow path of bytebuf_reserve). */
void bytebuf_grow(struct bytebuf *b, size_t more);

/* Room for `more` bytes after len, for writing into data directly. */
static inline void bytebuf_reserve(struct bytebuf *b, size_t more)
{
	if (more > b->cap - b->len)
		bytebuf_grow(b, more);
}

static inline void bytebuf_bytes(struct bytebuf *b, const void *p, size_t n)
{
	if (!n)
		return;
	bytebuf_reserve(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static inline void bytebuf_u8(struct bytebuf *b, uint8_t v)
{
	bytebuf_reserve(b, 1);
	b->data[b->len++] = v;
}

static inline void bytebuf_fill(struct bytebuf *b, uint8_t byte, size_t n)
{
	bytebuf_reserve(b, n);
	memset(b->data + b->len, byte, n);
	b->len += n;
}

/* The low n bytes of v, little-endian (a pointer of a trace's pointer size). */
static inline void bytebuf_le(struct bytebuf *b, uint64_t v, unsigned n)
{
	bytebuf_reserve(b, n);
	for (unsigned i = 0; i < n; i++)
		b->data[b->len++] = (uint8_t)(v >> (8 * i));
}

static inline void bytebuf_u16(struct bytebuf *b, uint16_t v)
{
	bytebuf_le(b, v, 2);
}

static inline void bytebuf_u32(struct bytebuf *b, uint32_t v)
{
	bytebuf_le(b, v, 4);
}

static inline void bytebuf_u64(struct bytebuf *b, uint64_t v)
{
	bytebuf_le(b, v, 8);
}

/* Overwrites n bytes at off (written before) with v, little-endian: a size known last. */
static inline void bytebuf_patch_le(struct bytebuf *b, size_t off, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		b->data[off + i] = (uint8_t)(v >> (8 * i));
}

/* LEB128 into out[10]: 7 bits a byte, least significant first.  Returns the bytes written
 * (for callers that size things). */
static inline size_t varuint_encode(uint8_t *out, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

static inline void bytebuf_varuint(struct bytebuf *b, uint64_t v)
{
	bytebuf_reserve(b, 10);
	b->len += varuint_encode(b->data + b->len, v);
}

/* Zigzag: small negative numbers are short too. */
static inline void bytebuf_varint(struct bytebuf *b, int64_t v)
{
	bytebuf_varuint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

/* UTF-8 with a varuint length (NetTrace's own strings: metadata, threads, labels). */
void bytebuf_string(struct bytebuf *b, const char *s);
/* UTF-8 with a uint16 length: an Array of UTF8CodeUnit in a NetTrace payload (cut at 65535
 * bytes). */
void bytebuf_short_string(struct bytebuf *b, const char *s);

#endif
