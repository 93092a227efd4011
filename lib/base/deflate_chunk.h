/* deflate_chunk: one piece of a deflate stream, compressed on its own so that the pieces of
 * one zip entry can be compressed on different threads and simply concatenated (as pigz
 * does).  Every piece but the last ends on a byte boundary without the final-block bit (a
 * sync flush); the last one ends the stream.  A piece may be given the 32 KiB of text before
 * it as a dictionary, so the pieces together compress almost as well as one stream.
 *
 * FAST and SMALL are done by ISA-L's igzip where the build has it (several times zlib's
 * speed at a similar size), else by zlib; BEST always by zlib.  A piece that would not
 * shrink is written as stored blocks, so the output never exceeds deflate_chunk_bound().
 */
#ifndef PC_DEFLATE_CHUNK_H
#define PC_DEFLATE_CHUNK_H

#include "util.h"

#define DEFLATE_DICT_MAX 32768

/* How hard to try: FAST for binary data and when the compressor is the bottleneck,
 * SMALL for text (about a seventh smaller, at a third of FAST's speed), BEST where the
 * compression runs beside the work that produces the data (zlib's level 6 in every build:
 * 10-23 % smaller than SMALL on our text and NetTrace files, at 3-5 times its CPU; bench/
 * README.md, "Each zip entry's cost per sample"). */
enum deflate_effort { DEFLATE_FAST, DEFLATE_SMALL, DEFLATE_BEST, NR_DEFLATE_EFFORTS };

/* Per-thread state (the compressor's hash tables), reused from piece to piece. */
struct deflate_chunker;
struct deflate_chunker *deflate_chunker_new(void);
void deflate_chunker_free(struct deflate_chunker *c);

/* The most a piece of len bytes can take. */
size_t deflate_chunk_bound(size_t len);

/* Compresses in[0..len) (preceded in the stream by dict[0..dict_len), dict_len <=
 * DEFLATE_DICT_MAX) into out, which holds deflate_chunk_bound(len) bytes.  last: this piece
 * ends the stream.  Returns the bytes written. */
size_t deflate_chunk(struct deflate_chunker *c, enum deflate_effort effort, const void *dict,
		     size_t dict_len, const void *in, size_t len, bool last, void *out);

/* The same for data that may hold already compressed parts (perf.data with zstd-compressed
 * records between uncompressed ones): each 64 KiB whose bytes look compressed (their entropy
 * is near 8 bits) is stored as it is, the rest is compressed.  The output framing is
 * deflate_chunk()'s and so is the bound. */
size_t deflate_chunk_mixed(struct deflate_chunker *c, enum deflate_effort effort, const void *dict,
			   size_t dict_len, const void *in, size_t len, bool last, void *out);

/* Stored blocks only (no compression), with the same framing as deflate_chunk(). */
size_t deflate_chunk_stored(const void *in, size_t len, bool last, void *out);

/* CRC-32 as zip and zlib compute it; _combine joins the CRC of a and of b (b is len_b bytes)
 * into the CRC of a followed by b. */
uint32_t crc32_update(uint32_t crc, const void *buf, size_t len);
uint32_t crc32_join(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);

/* "ISA-L igzip" or "zlib 1.2.13", for the log. */
const char *deflate_backend(void);

#endif
