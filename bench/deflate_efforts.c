/* deflate_efforts: what each deflate effort of the zip (base/deflate_chunk.h) makes of files,
 * and what zlib's levels 4, 5 and 9 would (BEST is zlib's 6).
 *
 *   deflate_efforts FILE...
 *
 * Each file is compressed as the archive compresses an entry (1 MiB pieces, each with the
 * 32 KiB before it as its dictionary) at each effort, and by zlib 6 the same way, on one
 * thread: the bytes and the CPU seconds of each.  bench/README.md ("Each zip entry's cost
 * per sample") has figures. */
#include "base/bytebuf.h"
#include "base/deflate_chunk.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zlib.h>

#define PIECE (1024 * 1024)

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define ZLIB(level) (-(level)) /* an "effort": zlib's level */

/* One piece by zlib at level, as deflate_chunk() frames it (a sync flush, or the stream's
 * end). */
static size_t zlib_piece(int level, const uint8_t *dict, size_t dict_len, const uint8_t *in,
			 size_t len, bool last, uint8_t *out)
{
	z_stream z = {0};
	if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	if (dict_len)
		deflateSetDictionary(&z, dict, (uInt)dict_len);
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)deflate_chunk_bound(len);
	deflate(&z, last ? Z_FINISH : Z_SYNC_FLUSH);
	size_t n = z.total_out;
	deflateEnd(&z);
	return n;
}

static size_t compress_pieces(struct deflate_chunker *c, int effort, const struct bytebuf *b,
			      uint8_t *out)
{
	size_t total = 0;
	for (size_t off = 0; off < b->len || !off; off += PIECE) {
		size_t n = b->len - off < PIECE ? b->len - off : PIECE;
		size_t dict = off < DEFLATE_DICT_MAX ? off : DEFLATE_DICT_MAX;
		const uint8_t *d = b->data + off - dict, *in = b->data + off;
		bool last = off + n == b->len;
		total += effort < 0 ? zlib_piece(-effort, d, dict, in, n, last, out)
				    : deflate_chunk(c, (enum deflate_effort)effort, d, dict, in, n,
						    last, out);
		if (!b->len)
			break;
	}
	return total;
}

int main(int argc, char **argv)
{
	static const int efforts[] = {DEFLATE_FAST, DEFLATE_SMALL, DEFLATE_BEST,
				      ZLIB(4),	    ZLIB(5),	   ZLIB(9)};
	static const char *const names[] = {"fast", "small", "best", "zlib 4", "zlib 5", "zlib 9"};
	if (argc < 2) {
		fprintf(stderr, "usage: deflate_efforts FILE...\n");
		return 2;
	}
	struct deflate_chunker *c = deflate_chunker_new();
	uint8_t *out = xmalloc(deflate_chunk_bound(PIECE));
	printf("%s\n", deflate_backend());
	for (int i = 1; i < argc; i++) {
		struct bytebuf b = {0};
		b.data = (uint8_t *)read_file(argv[i], &b.len);
		if (!b.data) {
			fprintf(stderr, "%s: %s\n", argv[i], pc_strerror());
			return 1;
		}
		printf("%s: %zu bytes\n", argv[i], b.len);
		for (size_t e = 0; e < ARRAY_SIZE(efforts); e++) {
			double t0 = cpu_seconds();
			size_t n = compress_pieces(c, efforts[e], &b, out);
			printf("  %-6s %10zu bytes  %.3f s\n", names[e], n, cpu_seconds() - t0);
		}
		free(b.data);
	}
	free(out);
	deflate_chunker_free(c);
	return 0;
}
