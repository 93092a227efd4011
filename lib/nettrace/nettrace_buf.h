/* nettrace_buf: a growable byte buffer with NetTrace's encodings (little-endian integers,
 * LEB128 varuints, zigzag varints, length-prefixed UTF-8), to build blocks and event
 * payloads in.  A zeroed struct is an empty buffer; nettrace_buf_free() empties it again. */
#ifndef PC_NETTRACE_BUF_H
#define PC_NETTRACE_BUF_H

#include "base/util.h"

struct nettrace_buf {
	uint8_t *data;
	size_t len, cap;
};
void nettrace_buf_free(struct nettrace_buf *b);
/* Room for `more` bytes after len, for writing into data directly. */
void nettrace_buf_reserve(struct nettrace_buf *b, size_t more);
void nettrace_buf_bytes(struct nettrace_buf *b, const void *p, size_t n);
void nettrace_buf_u8(struct nettrace_buf *b, uint8_t v);
void nettrace_buf_u16(struct nettrace_buf *b, uint16_t v);
void nettrace_buf_u32(struct nettrace_buf *b, uint32_t v);
void nettrace_buf_u64(struct nettrace_buf *b, uint64_t v);
/* The low n bytes of v, little-endian (a pointer of the trace's pointer size). */
void nettrace_buf_le(struct nettrace_buf *b, uint64_t v, int n);
void nettrace_buf_varuint(struct nettrace_buf *b, uint64_t v);
void nettrace_buf_varint(struct nettrace_buf *b, int64_t v); /* zigzag */
/* UTF-8 with a varuint length (the format's own strings: metadata, threads, labels). */
void nettrace_buf_string(struct nettrace_buf *b, const char *s);
/* UTF-8 with a uint16 length: an Array of UTF8CodeUnit in a payload (cut at 65535 bytes). */
void nettrace_buf_short_string(struct nettrace_buf *b, const char *s);

/* The varuint encoding, for callers that size things (returns bytes written to out[10]). */
size_t nettrace_varuint(uint8_t *out, uint64_t v);

#endif
