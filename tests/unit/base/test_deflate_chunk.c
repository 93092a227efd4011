/* Unit tests for deflate_chunk: at every effort (BEST by zlib in every build), pieces
 * compressed on their own (each with the 32 KiB before it as its dictionary) and
 * concatenated are one deflate stream that zlib inflates back to the input, text and
 * incompressible bytes alike (these stored), and an empty last piece ends a stream.  (Which
 * effort is smaller depends on the text: bench/deflate_efforts measures real files.) */
#include "base/deflate_chunk.h"
#include "test.h"

#include <zlib.h>

#define PIECE 100000

/* The input cut into PIECE-byte pieces, each compressed at effort with its dictionary. */
static uint8_t *compress_pieces(struct deflate_chunker *c, enum deflate_effort effort,
				const uint8_t *in, size_t len, size_t *out_len)
{
	uint8_t *out = xmalloc(deflate_chunk_bound(len) + (len / PIECE + 1) * 1024);
	size_t n = 0, off = 0;
	do {
		size_t piece = len - off < PIECE ? len - off : PIECE;
		size_t dict = off < DEFLATE_DICT_MAX ? off : DEFLATE_DICT_MAX;
		n += deflate_chunk(c, effort, in + off - dict, dict, in + off, piece,
				   off + piece == len, out + n);
		off += piece;
	} while (off < len);
	*out_len = n;
	return out;
}

static bool inflates_to(const uint8_t *z, size_t zlen, const uint8_t *want, size_t len)
{
	uint8_t *back = xmalloc(len + 1);
	z_stream s = {0};
	if (inflateInit2(&s, -15) != Z_OK)
		return false;
	s.next_in = (Bytef *)z;
	s.avail_in = (uInt)zlen;
	s.next_out = back;
	s.avail_out = (uInt)len + 1;
	int rc = inflate(&s, Z_FINISH);
	bool ok =
	    rc == Z_STREAM_END && s.total_out == len && s.avail_in == 0 && !memcmp(back, want, len);
	inflateEnd(&s);
	free(back);
	return ok;
}

int main(void)
{
	/* perf script-like text, then bytes no compressor shrinks */
	size_t text_len = 600000, len = text_len + 200000;
	uint8_t *in = xmalloc(len);
	size_t n = 0;
	for (unsigned i = 0; n < text_len; i++) {
		char line[128];
		int k = snprintf(line, sizeof(line),
				 "hot %u/%u [%03u] %u.%06u: 1000000 cpu-clock:\n\tffffffff8%07x "
				 "func_%u+0x%x (/usr/lib/x86_64-linux-gnu/libc.so.6)\n",
				 1000 + i % 7, 1000 + i % 13, i % 2, i / 1000, i % 1000000,
				 i * 2654435761u % 0xfffffff, i % 97, i % 301);
		size_t take = text_len - n < (size_t)k ? text_len - n : (size_t)k;
		memcpy(in + n, line, take);
		n += take;
	}
	uint64_t x = 88172645463325252ull;
	for (; n < len; n++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		in[n] = (uint8_t)x;
	}
	struct deflate_chunker *c = deflate_chunker_new();
	size_t text_size[NR_DEFLATE_EFFORTS] = {0};
	for (int e = DEFLATE_FAST; e < NR_DEFLATE_EFFORTS; e++) {
		size_t zlen;
		uint8_t *z = compress_pieces(c, (enum deflate_effort)e, in, len, &zlen);
		CHECK(inflates_to(z, zlen, in, len));
		CHECK(zlen <= deflate_chunk_bound(len) + (len / PIECE + 1) * 1024);
		free(z);
		z = compress_pieces(c, (enum deflate_effort)e, in, text_len, &text_size[e]);
		CHECK(inflates_to(z, text_size[e], in, text_len));
		CHECK(text_size[e] < text_len / 3);
		free(z);
		/* an empty last piece ends the stream too */
		z = xmalloc(deflate_chunk_bound(0));
		zlen = deflate_chunk(c, (enum deflate_effort)e, NULL, 0, in, 0, true, z);
		CHECK(inflates_to(z, zlen, in, 0));
		free(z);
	}
	deflate_chunker_free(c);
	free(in);
	return test_failures ? 1 : 0;
}
