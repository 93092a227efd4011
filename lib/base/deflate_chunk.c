/* deflate_chunk: see deflate_chunk.h. */
#include "deflate_chunk.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#ifdef HAVE_ISAL
#include <isa-l.h>
#endif

/* Stored blocks hold at most this much each. */
#define STORED_MAX 65535

struct deflate_chunker {
#ifdef HAVE_ISAL
	uint8_t *level_buf; /* the hash tables of levels 1-3, sized for the largest */
	size_t level_buf_size;
#endif
	z_stream z[NR_DEFLATE_EFFORTS]; /* per effort, made on first use */
	bool z_ready[NR_DEFLATE_EFFORTS];
};

size_t deflate_chunk_bound(size_t len)
{
	/* Stored blocks cost 5 bytes per 64 KiB; the compressors get a little more room and
	 * fall back to stored blocks when they need more than that. */
	return len + len / 64 + 1024;
}

size_t deflate_chunk_stored(const void *in, size_t len, bool last, void *out)
{
	const uint8_t *p = in;
	uint8_t *o = out;
	/* At a byte boundary, a stored block's 3 header bits pad out to one byte. */
	do {
		size_t n = len < STORED_MAX ? len : STORED_MAX;
		*o++ = last && n == len ? 1 : 0;
		o[0] = (uint8_t)n;
		o[1] = (uint8_t)(n >> 8);
		o[2] = (uint8_t)~n;
		o[3] = (uint8_t)(~n >> 8);
		o += 4;
		memcpy(o, p, n);
		o += n;
		p += n;
		len -= n;
	} while (len);
	return (size_t)(o - (uint8_t *)out);
}

/* zlib's level for each effort (BEST in every build, all three without ISA-L). */
static const int ZLIB_LEVEL[NR_DEFLATE_EFFORTS] = {
    [DEFLATE_FAST] = 1, [DEFLATE_SMALL] = 6, [DEFLATE_BEST] = 6};

/* deflate_chunk() into out[0..cap) by zlib */
static size_t zlib_chunk_into(struct deflate_chunker *c, enum deflate_effort effort,
			      const void *dict, size_t dict_len, const void *in, size_t len,
			      bool last, void *out, size_t cap)
{
	z_stream *z = &c->z[effort];
	if (len > UINT32_MAX / 2 || cap > UINT32_MAX)
		return deflate_chunk_stored(in, len, last, out);
	if (!c->z_ready[effort]) {
		if (deflateInit2(z, ZLIB_LEVEL[effort], Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) !=
		    Z_OK)
			return deflate_chunk_stored(in, len, last, out);
		c->z_ready[effort] = true;
	} else if (deflateReset(z) != Z_OK) {
		return deflate_chunk_stored(in, len, last, out);
	}
	if (dict_len && deflateSetDictionary(z, dict, (uInt)dict_len) != Z_OK)
		return deflate_chunk_stored(in, len, last, out);
	z->next_in = (Bytef *)in;
	z->avail_in = (uInt)len;
	z->next_out = out;
	z->avail_out = (uInt)cap;
	int rc = deflate(z, last ? Z_FINISH : Z_SYNC_FLUSH);
	bool complete = (last ? rc == Z_STREAM_END : rc == Z_OK) && z->avail_in == 0;
	size_t n = cap - z->avail_out;
	if (!complete || n > len + len / 4096 + 5)
		return deflate_chunk_stored(in, len, last, out);
	return n;
}

static void zlib_free(struct deflate_chunker *c)
{
	for (int i = 0; i < NR_DEFLATE_EFFORTS; i++)
		if (c->z_ready[i])
			deflateEnd(&c->z[i]);
}

#ifdef HAVE_ISAL

struct deflate_chunker *deflate_chunker_new(void)
{
	struct deflate_chunker *c = xcalloc(1, sizeof(*c));
	c->level_buf_size = ISAL_DEF_LVL3_DEFAULT > ISAL_DEF_LVL1_DEFAULT ? ISAL_DEF_LVL3_DEFAULT
									  : ISAL_DEF_LVL1_DEFAULT;
	c->level_buf = xmalloc(c->level_buf_size);
	return c;
}

void deflate_chunker_free(struct deflate_chunker *c)
{
	if (!c)
		return;
	zlib_free(c);
	free(c->level_buf);
	free(c);
}

/* deflate_chunk() into out[0..cap) */
static size_t chunk_into(struct deflate_chunker *c, enum deflate_effort effort, const void *dict,
			 size_t dict_len, const void *in, size_t len, bool last, void *out,
			 size_t cap)
{
	if (effort == DEFLATE_BEST)
		return zlib_chunk_into(c, effort, dict, dict_len, in, len, last, out, cap);
	if (len > UINT32_MAX / 2 || cap > UINT32_MAX) /* ISA-L counts in 32 bits */
		return deflate_chunk_stored(in, len, last, out);
	struct isal_zstream s;
	isal_deflate_init(&s);
	s.level = effort == DEFLATE_SMALL ? 3 : 1;
	s.level_buf = c->level_buf;
	s.level_buf_size = (uint32_t)c->level_buf_size;
	if (dict_len && isal_deflate_set_dict(&s, (uint8_t *)dict, (uint32_t)dict_len) != COMP_OK)
		return deflate_chunk_stored(in, len, last, out);
	s.next_in = (uint8_t *)in;
	s.avail_in = (uint32_t)len;
	s.next_out = out;
	s.avail_out = (uint32_t)cap;
	s.end_of_stream = last;
	s.flush = last ? NO_FLUSH : SYNC_FLUSH;
	int rc = isal_deflate(&s);
	bool complete = rc == COMP_OK && s.avail_in == 0 &&
			(last ? s.internal_state.state == ZSTATE_END : s.avail_out > 0);
	if (!complete || s.total_out > len + len / 4096 + 5)
		return deflate_chunk_stored(in, len, last, out);
	return s.total_out;
}

uint32_t crc32_update(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	while (len) { /* ISA-L takes 64-bit lengths; stay in its tested range anyway */
		size_t n = len < (1u << 30) ? len : (1u << 30);
		crc = crc32_gzip_refl(crc, p, n);
		p += n;
		len -= n;
	}
	return crc;
}

const char *deflate_backend(void)
{
	static char name[64];
	snprintf(name, sizeof(name), "ISA-L igzip %d.%d.%d", ISAL_MAJOR_VERSION, ISAL_MINOR_VERSION,
		 ISAL_PATCH_VERSION);
	return name;
}

#else /* zlib */

struct deflate_chunker *deflate_chunker_new(void)
{
	return xcalloc(1, sizeof(struct deflate_chunker));
}

void deflate_chunker_free(struct deflate_chunker *c)
{
	if (!c)
		return;
	zlib_free(c);
	free(c);
}

/* deflate_chunk() into out[0..cap) */
static size_t chunk_into(struct deflate_chunker *c, enum deflate_effort effort, const void *dict,
			 size_t dict_len, const void *in, size_t len, bool last, void *out,
			 size_t cap)
{
	return zlib_chunk_into(c, effort, dict, dict_len, in, len, last, out, cap);
}

uint32_t crc32_update(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	while (len) {
		uInt n = len < (1u << 30) ? (uInt)len : (1u << 30);
		crc = (uint32_t)crc32(crc, p, n);
		p += n;
		len -= n;
	}
	return crc;
}

const char *deflate_backend(void)
{
	static char name[64];
	snprintf(name, sizeof(name), "zlib %s", zlibVersion());
	return name;
}

#endif

size_t deflate_chunk(struct deflate_chunker *c, enum deflate_effort effort, const void *dict,
		     size_t dict_len, const void *in, size_t len, bool last, void *out)
{
	return chunk_into(c, effort, dict, dict_len, in, len, last, out, deflate_chunk_bound(len));
}

/* Already compressed data (zstd, xz) has about 8 bits of entropy a byte; anything that
 * deflate can shrink by a useful amount has clearly less.  Near uniform, the entropy falls
 * short of 8 bits by chi2 / (2 n ln 2), so "more than 7.5 bits" is chi2 < 0.69 n, where
 * chi2 = 256 sum(c^2) / n - n over the counts c of the n bytes looked at.  Every third
 * byte is looked at (3 is prime to the 8-byte fields of perf's records, so each byte of a
 * field counts alike): the test of a whole 64 KiB block cost as much as deflating it the
 * fast way, 3 % of a merge of a perf record trace (bench/README.md, "Every third byte"). */
static bool looks_compressed(const uint8_t *p, size_t len)
{
	enum { STRIDE = 3 };
	/* four tables keep the increments independent (one table's store-to-load chain on
	 * repeated bytes made this a few percent of a merge) */
	uint32_t count[4][256] = {{0}};
	size_t i = 0, n = 0;
	for (; i + 4 * STRIDE <= len; i += 4 * STRIDE, n += 4) {
		count[0][p[i]]++;
		count[1][p[i + STRIDE]]++;
		count[2][p[i + 2 * STRIDE]]++;
		count[3][p[i + 3 * STRIDE]]++;
	}
	for (; i < len; i += STRIDE, n++)
		count[0][p[i]]++;
	uint64_t sum = 0;
	for (int b = 0; b < 256; b++) {
		uint64_t c = (uint64_t)count[0][b] + count[1][b] + count[2][b] + count[3][b];
		sum += c * c;
	}
	return 256 * sum * 16 < (uint64_t)n * n * 27;
}

size_t deflate_chunk_mixed(struct deflate_chunker *c, enum deflate_effort effort, const void *dict,
			   size_t dict_len, const void *in, size_t len, bool last, void *out)
{
	enum { BLOCK = 65536 };
	const uint8_t *p = in;
	uint8_t *o = out;
	size_t done = 0;
	size_t cap = deflate_chunk_bound(len);
	if (!len)
		return deflate_chunk(c, effort, dict, dict_len, in, 0, last, out);
	while (done < len) {
		/* a run of blocks of one kind */
		size_t n = len - done < BLOCK ? len - done : BLOCK;
		bool stored = looks_compressed(p + done, n);
		size_t run = n;
		while (done + run < len) {
			size_t m = len - done - run < BLOCK ? len - done - run : BLOCK;
			if (looks_compressed(p + done + run, m) != stored)
				break;
			run += m;
		}
		bool run_last = last && done + run == len;
		if (stored) {
			o += deflate_chunk_stored(p + done, run, run_last, o);
		} else {
			/* the 32 KiB before the run: the piece's own bytes, else the dictionary */
			size_t dl =
			    done ? (done < DEFLATE_DICT_MAX ? done : DEFLATE_DICT_MAX) : dict_len;
			const uint8_t *d = done ? p + done - dl : dict;
			size_t room = cap - (size_t)(o - (uint8_t *)out);
			/* the stored fallback always fits: every run so far took at most its own
			 * size plus 5 bytes a 64 KiB, far less than the bound's slack */
			o += chunk_into(c, effort, d, dl, p + done, run, run_last, o, room);
		}
		done += run;
	}
	return (size_t)(o - (uint8_t *)out);
}

uint32_t crc32_join(uint32_t crc_a, uint32_t crc_b, uint64_t len_b)
{
	return (uint32_t)crc32_combine64(crc_a, crc_b, (z_off64_t)len_b);
}
