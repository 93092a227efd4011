/* perfdata_write: see perfdata_write.h.
 *
 * File layout, as `perf record` lays it out:
 *
 *   header | ids of each event | attr table | data ... | feature index | feature bodies
 *
 * The data section must start after the attrs and the features must follow the data
 * directly (perf looks for them at data.offset + data.size), so the head is laid out at the
 * first flush, when the events are normally known.  Events added after that go into a second
 * attr table behind the features at _finish().  Every flush rewrites the header's data.size,
 * so after a crash the file holds whole records up to the last flush and perf reads them.
 *
 * With the meta given up front (_set_meta()), every flush also writes the features behind
 * the new data, so a killed writer's file is complete but for the build-ids.  The features
 * sit where the next data goes, so a flush is ordered to be safe at every step: header
 * without features (old size) -> data over the old features -> new features -> header with
 * the new size and the feature bits.
 */
#include "perfdata_write.h"

#include "perfdata_features.h"
#include "base/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

/* Big enough that a busy recorder makes few syscalls, small enough that what a crash loses
 * stays a few MB (the flush interval bounds it in time). */
#define WRITE_BUF_SIZE (2u << 20)

/* Raw bytes per PERF_RECORD_COMPRESSED: its zstd output (at most ZSTD_compressBound of
 * this) fits the 16-bit record size, and perf decompresses each record into a buffer of
 * the HEADER_COMPRESSED mmap_len, which we announce as this. */
#define COMP_CHUNK (32u << 10)

/* perf 6.1 refuses attrs larger than its own struct (PERF_ATTR_SIZE_VER7); newer fields
 * are only written when set. */
#define ATTR_SIZE_MIN_WRITTEN PERF_ATTR_SIZE_VER7

struct perfdata_writer {
	int fd;
	char *path;
	uint8_t *buf;
	size_t buf_len;
	bool failed; /* a write failed: the file is left as it was at the last good flush */
	bool finished;

	bool laid_out;	       /* header, ids and attr table are on disk */
	uint64_t data_offset;  /* valid once laid_out */
	uint64_t data_on_disk; /* bytes of data section on disk */

	struct pd_event *events;
	size_t nevents, events_cap;
	size_t nevents_laid_out;  /* events in the attr table written at lay-out time */
	bool ids_changed;	  /* perfdata_writer_set_ids() since */
	uint32_t attr_size;	  /* bytes of perf_event_attr each event needs */
	uint32_t table_attr_size; /* ... and as the attr table on disk has them */
	struct perf_file_section attrs;

	struct perfdata_build_id *build_ids;
	size_t nbuild_ids, build_ids_cap;

	uint64_t flush_interval_ns; /* 0: flush only when the buffer is full */
	uint64_t last_flush_ns;
	bool wrote_records; /* a record came through _write(): no more header records */

	const struct perfdata_meta *meta; /* _set_meta(): features at every flush */
	struct bytebuf *feat_cache;	  /* their bodies, encoded once */
	bool *feat_present;
	bool features_on_disk;	/* the header's feature bits are set */
	struct bytebuf *copied; /* _copy_feature(): bodies written as given, by feature bit */

	ZSTD_CCtx *zc; /* compressing: records go to stage, then as COMPRESSED into buf */
	int zlevel;
	bool zpaused; /* _pause_compression(): records go into buf as they are */
	uint8_t *stage;
	size_t stage_len;
	uint64_t raw_bytes; /* records given to _write(), before compression */
};

static int pwrite_all(struct perfdata_writer *w, const void *p, size_t len, uint64_t off)
{
	const uint8_t *b = p;
	while (len) {
		ssize_t r = pwrite(w->fd, b, len, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			w->failed = true;
			return pc_err_errno("%s: write failed", w->path);
		}
		b += r;
		len -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

static int write_header(struct perfdata_writer *w, const uint64_t features[HEADER_FEAT_BITS / 64])
{
	struct perf_file_header h;
	memset(&h, 0, sizeof(h));
	h.magic = PERF_MAGIC2;
	h.size = sizeof(h);
	h.attr_size = w->table_attr_size + sizeof(struct perf_file_section);
	h.attrs = w->attrs;
	h.data.offset = w->laid_out ? w->data_offset : sizeof(h);
	h.data.size = w->data_on_disk;
	if (features)
		memcpy(h.adds_features, features, sizeof(h.adds_features));
	return pwrite_all(w, &h, sizeof(h), 0);
}

/* The bytes of one attr table entry: the attr, then where its ids are. */
static void put_attr_entry(struct bytebuf *b, const struct perfdata_writer *w,
			   const struct pd_event *e, uint64_t ids_offset)
{
	struct perf_event_attr a = e->attr;
	a.size = w->attr_size;
	size_t have = sizeof(a) < w->attr_size ? sizeof(a) : w->attr_size;
	bytebuf_bytes(b, &a, have);
	for (size_t i = have; i < w->attr_size; i++)
		bytebuf_bytes(b, "", 1);
	struct perf_file_section ids = {ids_offset, e->nids * sizeof(uint64_t)};
	bytebuf_bytes(b, &ids, sizeof(ids));
}

/* Writes the ids of every event, then the attr table, at `off`; returns the end offset. */
static int write_attr_table(struct perfdata_writer *w, uint64_t off, uint64_t *end)
{
	struct bytebuf b = {0};
	uint64_t ids_at = off;
	for (size_t i = 0; i < w->nevents; i++)
		bytebuf_bytes(&b, w->events[i].ids, w->events[i].nids * sizeof(uint64_t));
	w->attrs.offset = off + b.len;
	for (size_t i = 0; i < w->nevents; i++) {
		put_attr_entry(&b, w, &w->events[i], ids_at);
		ids_at += w->events[i].nids * sizeof(uint64_t);
	}
	w->attrs.size = b.len - (w->attrs.offset - off);
	w->table_attr_size = w->attr_size;
	w->ids_changed = false;
	int r = pwrite_all(w, b.data, b.len, off);
	*end = off + b.len;
	bytebuf_free(&b);
	return r;
}

static int lay_out(struct perfdata_writer *w)
{
	uint64_t end;
	if (write_attr_table(w, sizeof(struct perf_file_header), &end))
		return -1;
	w->data_offset = (end + 7) & ~(uint64_t)7;
	w->nevents_laid_out = w->nevents;
	w->laid_out = true;
	return write_header(w, NULL);
}

struct perfdata_writer *perfdata_writer_new(const char *path)
{
	int fd = outfile_create(path, OUTFILE_REPLACE);
	if (fd < 0)
		return NULL;
	struct perfdata_writer *w = xcalloc(1, sizeof(*w));
	w->fd = fd;
	w->path = xstrdup(path);
	w->buf = xmalloc(WRITE_BUF_SIZE);
	w->attr_size = w->table_attr_size = ATTR_SIZE_MIN_WRITTEN;
	/* Provisional header: a valid, empty perf.data until the first flush. */
	if (write_header(w, NULL)) {
		perfdata_writer_free(w);
		return NULL;
	}
	return w;
}

/* Bytes of attr that must be written: newer fields only when not zero. */
static uint32_t attr_needed_size(const struct perf_event_attr *a)
{
	const uint8_t *p = (const uint8_t *)a;
	size_t n = sizeof(*a);
	while (n > ATTR_SIZE_MIN_WRITTEN && !p[n - 1])
		n--;
	n = (n + 7) & ~(size_t)7;
	return (uint32_t)(n > ATTR_SIZE_MIN_WRITTEN ? n : ATTR_SIZE_MIN_WRITTEN);
}

int perfdata_writer_add_attr(struct perfdata_writer *w, const struct perf_event_attr *attr,
			     const char *name, const uint64_t *ids, size_t nids)
{
	if (w->finished)
		return pc_err("%s: attr added after finish", w->path);
	grow_array((void **)&w->events, &w->events_cap, w->nevents + 1, sizeof(*w->events));
	struct pd_event *e = &w->events[w->nevents++];
	memset(e, 0, sizeof(*e));
	/* A caller's attr.size may be smaller than ours (older ABI): copy only that much. */
	size_t have = attr->size && attr->size < sizeof(*attr) ? attr->size : sizeof(*attr);
	memcpy(&e->attr, attr, have);
	e->name = xstrdup(name ? name : "");
	e->nids = nids;
	e->ids = xmalloc(nids * sizeof(uint64_t));
	if (nids)
		memcpy(e->ids, ids, nids * sizeof(uint64_t));
	uint32_t need = attr_needed_size(&e->attr);
	if (need > w->attr_size)
		w->attr_size = need;
	return 0;
}

int perfdata_writer_set_ids(struct perfdata_writer *w, size_t i, const uint64_t *ids, size_t nids)
{
	if (w->finished || i >= w->nevents)
		return pc_err("%s: ids of event %zu set after finish or for no event", w->path, i);
	struct pd_event *e = &w->events[i];
	if (e->nids == nids && (!nids || !memcmp(e->ids, ids, nids * sizeof(*ids))))
		return 0;
	free(e->ids);
	e->nids = nids;
	e->ids = xmalloc((nids ? nids : 1) * sizeof(uint64_t));
	if (nids)
		memcpy(e->ids, ids, nids * sizeof(uint64_t));
	w->ids_changed = true;
	return 0;
}

static int compress_stage(struct perfdata_writer *w);
static int write_features(struct perfdata_writer *w, const struct perfdata_meta *meta, uint64_t off,
			  bool cached, uint64_t bits[HEADER_FEAT_BITS / 64], uint64_t *end);

/* The header without feature bits, before anything overwrites the features it names. */
static int drop_features(struct perfdata_writer *w)
{
	if (!w->features_on_disk)
		return 0;
	w->features_on_disk = false;
	return write_header(w, NULL);
}

/* Appends len bytes to the data section on disk, keeping the file readable at every step. */
static int append_data(struct perfdata_writer *w, const void *p, size_t len)
{
	bool had_features = w->features_on_disk;
	if (drop_features(w))
		return -1;
	if (pwrite_all(w, p, len, w->data_offset + w->data_on_disk)) {
		/* A full disk: put the features back where they were (those blocks are
		 * allocated already), so the file stays complete up to the last flush. */
		if (had_features) {
			char *why = xstrdup(pc_strerror());
			uint64_t bits[HEADER_FEAT_BITS / 64] = {0}, end;
			w->failed = false;
			if (write_features(w, w->meta, w->data_offset + w->data_on_disk, true, bits,
					   &end) == 0 &&
			    write_header(w, bits) == 0)
				w->features_on_disk = true;
			w->failed = true;
			pc_err("%s", why);
			free(why);
		}
		return -1;
	}
	w->data_on_disk += len;
	/* Only now claim the new records, so a crash never leaves a size past whole records. */
	if (!w->meta || w->nevents != w->nevents_laid_out)
		return write_header(w, NULL);
	uint64_t bits[HEADER_FEAT_BITS / 64] = {0}, end;
	if (write_features(w, w->meta, w->data_offset + w->data_on_disk, true, bits, &end) ||
	    write_header(w, bits))
		return -1;
	w->features_on_disk = true;
	return 0;
}

static int flush(struct perfdata_writer *w)
{
	if (w->failed)
		return pc_err("%s: an earlier write failed", w->path);
	if (compress_stage(w) < 0)
		return -1;
	w->last_flush_ns = monotonic_ns();
	if (!w->laid_out && lay_out(w))
		return -1;
	if (!w->buf_len)
		return 0;
	if (append_data(w, w->buf, w->buf_len))
		return -1;
	w->buf_len = 0;
	return 0;
}

int perfdata_writer_flush(struct perfdata_writer *w)
{
	if (w->finished)
		return 0;
	return flush(w);
}

/* Appends bytes bound for the file to buf, flushing first when they do not fit. */
static int put_file_bytes(struct perfdata_writer *w, const void *p, size_t len)
{
	if (__builtin_expect(len <= WRITE_BUF_SIZE - w->buf_len, 1)) {
		memcpy(w->buf + w->buf_len, p, len);
		w->buf_len += len;
		return 0;
	}
	if (flush(w))
		return -1;
	if (len <= WRITE_BUF_SIZE) {
		memcpy(w->buf, p, len);
		w->buf_len = len;
		return 0;
	}
	return append_data(w, p, len); /* larger than the whole buffer */
}

/* The staged bytes as one PERF_RECORD_COMPRESSED in buf.  Each record is flushed to a zstd
 * block boundary (the frame is never ended, as perf does), so the data decodes up to any
 * record: a file cut after one reads to there.  A record may straddle two COMPRESSED
 * records; perf and our reader carry the rest over. */
static int compress_stage(struct perfdata_writer *w)
{
	if (!w->zc || !w->stage_len)
		return 0;
	uint8_t out[sizeof(struct perf_event_header) + ZSTD_COMPRESSBOUND(COMP_CHUNK)];
	ZSTD_outBuffer ob = {out + sizeof(struct perf_event_header),
			     sizeof(out) - sizeof(struct perf_event_header), 0};
	ZSTD_inBuffer ib = {w->stage, w->stage_len, 0};
	size_t left;
	do {
		left = ZSTD_compressStream2(w->zc, &ob, &ib, ZSTD_e_flush);
		if (ZSTD_isError(left)) {
			w->failed = true;
			return pc_err("%s: zstd compression failed: %s", w->path,
				      ZSTD_getErrorName(left));
		}
	} while (left && ob.pos < ob.size);
	if (left) {
		w->failed = true;
		return pc_err("%s: zstd output larger than its bound", w->path);
	}
	struct perf_event_header h = {.type = PERF_RECORD_COMPRESSED,
				      .size = (uint16_t)(sizeof(h) + ob.pos)};
	memcpy(out, &h, sizeof(h));
	w->stage_len = 0;
	return put_file_bytes(w, out, h.size);
}

int perfdata_writer_write(struct perfdata_writer *w, const void *record, size_t len)
{
	if (w->finished)
		return pc_err("%s: record written after finish", w->path);
	w->wrote_records = true;
	w->raw_bytes += len;
	if (w->zpaused && compress_stage(w) < 0)
		return -1;
	if (!w->zc || w->zpaused)
		return put_file_bytes(w, record, len);
	const uint8_t *p = record;
	while (len) {
		size_t n = COMP_CHUNK - w->stage_len;
		if (n > len)
			n = len;
		memcpy(w->stage + w->stage_len, p, n);
		w->stage_len += n;
		p += n;
		len -= n;
		if (w->stage_len == COMP_CHUNK && compress_stage(w) < 0)
			return -1;
	}
	return 0;
}

int perfdata_writer_finished_round(struct perfdata_writer *w)
{
	struct perf_event_header h = {
	    .type = PERF_RECORD_FINISHED_ROUND, .misc = 0, .size = sizeof(h)};
	if (perfdata_writer_write(w, &h, sizeof(h)) < 0)
		return -1;
	return perfdata_writer_flush_due(w);
}

int perfdata_writer_flush_due(struct perfdata_writer *w)
{
	if (w->flush_interval_ns && monotonic_ns() - w->last_flush_ns >= w->flush_interval_ns)
		return flush(w);
	return 0;
}

void perfdata_writer_set_flush_interval(struct perfdata_writer *w, uint64_t ns)
{
	w->flush_interval_ns = ns;
	w->last_flush_ns = monotonic_ns();
}

/* A user record at the start of the data, before any kernel record. */
static int header_record_allowed(struct perfdata_writer *w, const char *what)
{
	if (w->wrote_records || w->finished)
		return pc_err("%s: %s must come before the first record", w->path, what);
	return 0;
}

static void put_feature_record(struct perfdata_writer *w, int feat, const struct bytebuf *body)
{
	struct perf_event_header h = {.type = PERF_RECORD_HEADER_FEATURE,
				      .size = (uint16_t)(sizeof(h) + 8 + body->len)};
	uint64_t id = (uint64_t)feat;
	put_file_bytes(w, &h, sizeof(h));
	put_file_bytes(w, &id, sizeof(id));
	put_file_bytes(w, body->data, body->len);
}

/* HEADER_COMPRESSED: u32 version, type (1: zstd), level, ratio, mmap_len. */
static void encode_compressed(const struct perfdata_writer *w, struct bytebuf *b)
{
	uint64_t file = w->data_on_disk + w->buf_len;
	uint32_t ratio = file ? (uint32_t)((w->raw_bytes + file / 2) / file) : 0;
	bytebuf_u32(b, 0);
	bytebuf_u32(b, 1);
	bytebuf_u32(b, (uint32_t)w->zlevel);
	bytebuf_u32(b, ratio);
	bytebuf_u32(b, COMP_CHUNK);
}

int perfdata_writer_compress(struct perfdata_writer *w, int level)
{
	if (header_record_allowed(w, "compression") < 0)
		return -1;
	if (w->zc)
		return 0;
	w->zc = ZSTD_createCCtx();
	if (!w->zc || ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, level)))
		return pc_err("%s: cannot set up zstd compression (level %d)", w->path, level);
	w->zlevel = level;
	w->stage = xmalloc(COMP_CHUNK);
	/* perf learns how to decompress from this feature; in the data too, because a file
	 * whose writer was killed has no feature sections. */
	struct bytebuf b = {0};
	encode_compressed(w, &b);
	put_feature_record(w, HEADER_COMPRESSED, &b);
	bytebuf_free(&b);
	return w->failed ? -1 : 0;
}

void perfdata_writer_pause_compression(struct perfdata_writer *w, bool paused)
{
	w->zpaused = paused;
}

void perfdata_writer_stats(const struct perfdata_writer *w, uint64_t *records_bytes,
			   uint64_t *file_bytes)
{
	*records_bytes = w->raw_bytes;
	*file_bytes = w->data_on_disk + w->buf_len;
}

void perfdata_writer_add_build_id(struct perfdata_writer *w, const struct perfdata_build_id *b)
{
	if (!b->filename || b->size > 20)
		return;
	for (size_t i = 0; i < w->nbuild_ids; i++)
		if (w->build_ids[i].kernel == b->kernel &&
		    !strcmp(w->build_ids[i].filename, b->filename))
			return;
	grow_array((void **)&w->build_ids, &w->build_ids_cap, w->nbuild_ids + 1,
		   sizeof(*w->build_ids));
	struct perfdata_build_id *c = &w->build_ids[w->nbuild_ids++];
	*c = *b;
	c->pid = -1; /* perf's HOST_KERNEL_ID: see perfdata_write.h */
	c->filename = xstrdup(b->filename);
}

uint64_t perfdata_writer_data_size(const struct perfdata_writer *w)
{
	return w->data_on_disk + w->buf_len + w->stage_len;
}

/* Features we write, in bit order (perf reads the index in that order). */
static const int written_features[] = {
    HEADER_TRACING_DATA, HEADER_BUILD_ID,   HEADER_HOSTNAME, HEADER_OSRELEASE,	HEADER_VERSION,
    HEADER_ARCH,	 HEADER_NRCPUS,	    HEADER_CPUDESC,  HEADER_CPUID,	HEADER_TOTAL_MEM,
    HEADER_CMDLINE,	 HEADER_EVENT_DESC, HEADER_CLOCKID,  HEADER_COMPRESSED, HEADER_CLOCK_DATA,
};

static bool is_written(int feat)
{
	for (size_t i = 0; i < ARRAY_SIZE(written_features); i++)
		if (written_features[i] == feat)
			return true;
	return false;
}

/* One feature's body; false when the file has none. */
static bool encode_feature(const struct perfdata_writer *w, const struct pd_feature_input *in,
			   int feat, struct bytebuf *body)
{
	if (feat == HEADER_COMPRESSED) {
		if (w->zc)
			encode_compressed(w, body);
		return w->zc != NULL;
	}
	if (w->copied && w->copied[feat].data) {
		bytebuf_bytes(body, w->copied[feat].data, w->copied[feat].len);
		return true;
	}
	/* a copy of another file: nothing probed here, only the events are ours */
	if (w->copied ? feat != HEADER_EVENT_DESC : !is_written(feat))
		return false;
	return perfdata_feature_encode(feat, in, body) > 0;
}

/* Writes the feature index and bodies at `off`; sets the feature bits; returns the end.
 * cached: the bodies encoded at the first call are reused (all but the compression ratio,
 * which changes), so a flush does not probe the machine again. */
static int write_features(struct perfdata_writer *w, const struct perfdata_meta *meta, uint64_t off,
			  bool cached, uint64_t bits[HEADER_FEAT_BITS / 64], uint64_t *end)
{
	struct pd_feature_input in = {
	    .meta = meta,
	    .events = w->events,
	    .nevents = w->nevents,
	    .attr_size = w->attr_size,
	    .build_ids = w->build_ids,
	    .nbuild_ids = w->nbuild_ids,
	};
	enum { N = HEADER_FEAT_BITS };
	struct bytebuf *body = xcalloc(N, sizeof(*body));
	bool *present = xcalloc(N, sizeof(*present));
	if (cached && !w->feat_cache) {
		w->feat_cache = xcalloc(N, sizeof(*w->feat_cache));
		w->feat_present = xcalloc(N, sizeof(*w->feat_present));
		for (int f = 0; f < N; f++)
			w->feat_present[f] = encode_feature(w, &in, f, &w->feat_cache[f]);
	}
	size_t nfeat = 0;
	for (int f = 0; f < N; f++) {
		if (cached && f != HEADER_COMPRESSED) {
			present[f] = w->feat_present[f];
			if (present[f])
				bytebuf_bytes(&body[f], w->feat_cache[f].data,
					      w->feat_cache[f].len);
		} else {
			present[f] = encode_feature(w, &in, f, &body[f]);
		}
		nfeat += present[f];
	}
	struct bytebuf out = {0};
	uint64_t at = off + nfeat * sizeof(struct perf_file_section);
	for (int f = 0; f < N; f++) {
		if (!present[f])
			continue;
		struct perf_file_section s = {at, body[f].len};
		bytebuf_bytes(&out, &s, sizeof(s));
		at += body[f].len;
		bits[f / 64] |= 1ULL << (f % 64);
	}
	for (int f = 0; f < N; f++)
		if (present[f])
			bytebuf_bytes(&out, body[f].data, body[f].len);
	for (int f = 0; f < N; f++)
		bytebuf_free(&body[f]);
	free(body);
	free(present);
	int r = pwrite_all(w, out.data, out.len, off);
	*end = off + out.len;
	bytebuf_free(&out);
	return r;
}

void perfdata_writer_copy_feature(struct perfdata_writer *w, int feat, const void *body, size_t len)
{
	if (feat < 0 || feat >= HEADER_FEAT_BITS || feat == HEADER_COMPRESSED)
		return;
	if (!w->copied)
		w->copied = xcalloc(HEADER_FEAT_BITS, sizeof(*w->copied));
	w->copied[feat].len = 0;
	bytebuf_bytes(&w->copied[feat], body, len);
}

void perfdata_writer_set_meta(struct perfdata_writer *w, const struct perfdata_meta *meta)
{
	w->meta = meta;
}

int perfdata_writer_finish(struct perfdata_writer *w, const struct perfdata_meta *meta)
{
	if (w->finished)
		return 0;
	if (!meta)
		meta = w->meta;
	if (flush(w))
		return -1;
	uint64_t bits[HEADER_FEAT_BITS / 64] = {0};
	uint64_t end;
	/* The final features (with build-ids) go where a flush wrote its own. */
	if (drop_features(w) ||
	    write_features(w, meta, w->data_offset + w->data_on_disk, false, bits, &end))
		return -1;
	/* Events added after the lay-out (or needing a larger attr): a full new table. */
	if (w->nevents != w->nevents_laid_out || w->table_attr_size != w->attr_size ||
	    (w->laid_out && w->ids_changed)) {
		if (write_attr_table(w, (end + 7) & ~(uint64_t)7, &end))
			return -1;
	}
	if (write_header(w, bits))
		return -1;
	/* Earlier flushes' features may reach past `end`. */
	if (ftruncate(w->fd, (off_t)end) < 0)
		return pc_err_errno("%s: cannot truncate", w->path);
	w->finished = true;
	return 0;
}

void perfdata_writer_free(struct perfdata_writer *w)
{
	if (!w)
		return;
	/* Not finished: keep what was written, readable as an unfinished file.  The caller's
	 * error message (likely why it gives up) is what stays recorded. */
	if (!w->finished && !w->failed && w->fd >= 0 &&
	    (w->buf_len || w->stage_len || !w->laid_out)) {
		char saved[512];
		snprintf(saved, sizeof(saved), "%s", pc_strerror());
		flush(w);
		pc_err("%s", saved);
	}
	if (w->fd >= 0)
		close(w->fd);
	for (size_t i = 0; i < w->nevents; i++) {
		free(w->events[i].name);
		free(w->events[i].ids);
	}
	free(w->events);
	for (size_t i = 0; i < w->nbuild_ids; i++)
		free((char *)w->build_ids[i].filename);
	free(w->build_ids);
	for (int f = 0; f < HEADER_FEAT_BITS; f++) {
		if (w->feat_cache)
			bytebuf_free(&w->feat_cache[f]);
		if (w->copied)
			bytebuf_free(&w->copied[f]);
	}
	free(w->feat_cache);
	free(w->copied);
	free(w->feat_present);
	ZSTD_freeCCtx(w->zc);
	free(w->stage);
	free(w->buf);
	free(w->path);
	free(w);
}
