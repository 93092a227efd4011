/* perfdata_read: the record stream of a perf.data file (see perfdata_read.h).
 *
 * The file is mapped read-only and every record is checked against the end of the data
 * section before it is touched.  Records are delivered the way perf 6.1's session code
 * delivers them to `perf script`: user records (PERF_RECORD_HEADER_* ...) and kernel records
 * without a usable time at once; timed kernel records through ordered_events, released at
 * FINISHED_ROUND and at the end.  Queued records are kept as (time, offset) and read again
 * from the map when released; records decompressed from PERF_RECORD_COMPRESSED stay where
 * they were decompressed, in a block per COMPRESSED record that lives while a record of it is
 * queued (ordered_events.h), so memory follows what one round holds of compressed data, not
 * the file, and no record is copied (collect's samples with their stack copies are a
 * gigabyte in a 10 s trace).
 */
#include "perfdata_read_int.h"
#include "base/span.h"

#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

/* See drop_behind().  2 MiB: at 16 MiB a 21 MB perf.data stayed resident almost whole (peak
 * RSS 75 -> 88 MiB from a 20 s to a 60 s trace); the madvise calls cost nothing at this rate. */
#define DROP_STEP (2u << 20)

/* A COMPRESSED record may expand to about one ring buffer's worth; more means garbage. */
#define MAX_DECOMPRESSED (256u << 20)

struct perfdata_reader *perfdata_reader_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		pc_err_errno("cannot open %s", path);
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		pc_err_errno("cannot stat %s", path);
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_size == 0) {
		pc_err("%s: %s", path, S_ISREG(st.st_mode) ? "empty file" : "not a regular file");
		close(fd);
		return NULL;
	}
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		pc_err_errno("cannot map %s", path);
		return NULL;
	}
	struct perfdata_reader *r = xcalloc(1, sizeof(*r));
	r->path = xstrdup(path);
	r->map = map;
	r->map_size = (size_t)st.st_size;
	r->nrcpus = -1;
	r->oe = ordered_events_new();
	if (pd_read_file_header(r) < 0) {
		perfdata_reader_free(r);
		return NULL;
	}
	r->pos = r->data_start;
	r->drop_next = r->pos + DROP_STEP;
	return r;
}

void perfdata_reader_free(struct perfdata_reader *r)
{
	if (!r)
		return;
	decomp_ahead_free(r->ahead); /* its thread reads the map */
	if (r->map)
		munmap((void *)r->map, r->map_size);
	ordered_events_free(r->oe);
	ZSTD_freeDCtx(r->zstd);
	oe_block_put(r->decomp);
	oe_block_put(r->delivered);
	free(r->align_buf);
	free(r->error);
	pd_free_header(r);
	free(r->path);
	free(r);
}

/* The record at p, at an 8-byte aligned address (a copy when the file has it misaligned). */
static const struct perf_event_header *aligned(struct perfdata_reader *r, const void *p,
					       uint16_t size)
{
	if (!((uintptr_t)p & 7))
		return p;
	grow_array((void **)&r->align_buf, &r->align_cap, (size + 7u) / 8, sizeof(uint64_t));
	memcpy(r->align_buf, p, size);
	return (const struct perf_event_header *)r->align_buf;
}

/* Records whose payload follows them outside header.size: skip (or take) the payload. */
static int skip_payload(struct perfdata_reader *r, const struct perf_event_header *h)
{
	uint64_t size;
	if (!perf_record_payload(h, &size))
		return 0;
	if (size > r->data_end - r->pos) {
		r->truncated = true;
		r->pos = r->data_end;
		return -1;
	}
	if (h->type == PERF_RECORD_HEADER_TRACING_DATA)
		pd_read_feature(r, HEADER_TRACING_DATA, r->map + r->pos, size, false);
	r->pos += size;
	return 0;
}

/* The next undecoded record: first what decompression left, then the file.
 * 1 = record, 0 = end of data, -1 = structural error (message set). */
static int next_raw(struct perfdata_reader *r, const struct perf_event_header **hp,
		    uint64_t *offset, bool *from_decomp)
{
	size_t avail = r->decomp ? r->decomp->len - r->decomp_head : 0;
	if (avail >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		memcpy(&h, r->decomp->data + r->decomp_head, sizeof(h));
		if (h.size < sizeof(h)) {
			r->decomp_head = r->decomp->len;
			return pc_err("%s: bad record size %u in compressed data (record at offset "
				      "%llu)",
				      r->path, h.size, (unsigned long long)r->decomp_offset);
		}
		if (h.size <= avail) {
			*hp = aligned(r, r->decomp->data + r->decomp_head, h.size);
			*offset = r->decomp_offset;
			*from_decomp = true;
			r->decomp_head += h.size;
			return 1;
		}
		/* else the record continues in the next COMPRESSED record */
	}
	*from_decomp = false;
	if (r->pos >= r->data_end)
		return 0;
	uint64_t left = r->data_end - r->pos;
	struct perf_event_header h = {0};
	if (left >= sizeof(h))
		memcpy(&h, r->map + r->pos, sizeof(h));
	if (left < sizeof(h) || h.size > left) {
		if (!r->truncated)
			return pc_err("%s: the record at offset %llu runs past the end of the data "
				      "section",
				      r->path, (unsigned long long)r->pos);
		/* the last record of a recording that was cut off; pos stays at its start */
		return 0;
	}
	if (h.size < sizeof(h)) {
		if (r->truncated) /* zeroes after what a killed recorder wrote */
			return 0;
		return pc_err("%s: bad record size %u at offset %llu", r->path, h.size,
			      (unsigned long long)r->pos);
	}
	*hp = aligned(r, r->map + r->pos, h.size);
	*offset = r->pos;
	r->pos += h.size;
	if (skip_payload(r, *hp) < 0)
		return 0;
	return 1;
}

/* PERF_RECORD_COMPRESSED: its decompressed bytes in a new block, after what is left of the
 * last one (a record may straddle two COMPRESSED records).  The old block stays while
 * records queued from it do. */
static int decompress(struct perfdata_reader *r, const struct perf_event_header *h, uint64_t offset)
{
	if (r->comp_type > 1) /* 0: the feature is missing (killed recorder); perf only has zstd */
		return pc_err("%s: unsupported compression type %u", r->path, r->comp_type);
	if (!r->zstd)
		r->zstd = ZSTD_createDCtx();
	if (!r->zstd)
		return pc_err("%s: cannot create a zstd decompression context", r->path);
	if (r->decompress_ahead && !r->ahead && !r->decomp) {
		/* from the first COMPRESSED record on (nothing decompressed here yet) */
		r->ahead =
		    decomp_ahead_start(r->map, offset, r->data_end, MAX_DECOMPRESSED, r->path);
		if (!r->ahead)
			log_warn("%s; decompressing on the reader's thread", pc_strerror());
		r->decompress_ahead = r->ahead != NULL;
	}
	if (r->ahead) {
		struct oe_block *b = decomp_ahead_next(r->ahead, offset);
		if (!b)
			return -1;
		/* (the thread carries a cut-off record over itself: nothing is left here but
		 * after a record whose size was bad, and the reading stops at that) */
		oe_block_put(r->decomp);
		r->decomp = b;
		r->decomp_head = 0;
		r->decomp_offset = offset;
		return 0;
	}
	struct oe_block *b = oe_block_new();
	if (r->decomp) {
		size_t left = r->decomp->len - r->decomp_head;
		if (left) {
			grow_array((void **)&b->data, &b->cap, left, 1);
			memcpy(b->data, r->decomp->data + r->decomp_head, left);
			b->len = left;
		}
		oe_block_put(r->decomp);
	}
	r->decomp = b;
	r->decomp_head = 0;
	r->decomp_offset = offset;

	if (decomp_append(r->zstd, b, h + 1, h->size - sizeof(*h), MAX_DECOMPRESSED, r->path,
			  offset) < 0)
		return -1;
	oe_block_fit(b);
	return 0;
}

/* perf's evlist__event2evsel(): one attr is the attr; else the record's id says which,
 * found where the first attr's layout puts it; id 0 (synthesized records) is the first. */
static struct perfdata_evsel *evsel_of(const struct perfdata_reader *r,
				       const struct perf_event_header *h)
{
	if (!r->nr_evsels)
		return NULL;
	struct perfdata_evsel *first = r->evsels[0];
	uint64_t id;
	if (r->nr_evsels == 1 || perfdata_record_id(&first->attr, h, &id) < 0 || !id)
		return first;
	return pd_find_evsel(r, id);
}

/* The time perf orders a kernel record by; UINT64_MAX when it has none. */
static uint64_t record_time(const struct perfdata_reader *r, const struct perf_event_header *h)
{
	const struct perfdata_evsel *e = evsel_of(r, h);
	if (!e || !(e->attr.sample_type & PERF_SAMPLE_TIME))
		return UINT64_MAX;
	uint64_t type = e->attr.sample_type;
	if (h->type == PERF_RECORD_SAMPLE) {
		size_t at =
		    sizeof(*h) + 8 * (!!(type & PERF_SAMPLE_IDENTIFIER) +
				      !!(type & PERF_SAMPLE_IP) + !!(type & PERF_SAMPLE_TID));
		return at + 8 <= h->size ? load_le64((const uint8_t *)h + at) : UINT64_MAX;
	}
	struct perf_sample_id sid;
	if (perfdata_parse_sample_id(&e->attr, h, &sid) < 0 || !sid.has_time)
		return UINT64_MAX;
	return sid.time;
}

/* Decode a record for the caller.  1 = delivered, 0 = skipped, -1 = bad sample. */
static int deliver(struct perfdata_reader *r, const struct perf_event_header *h, uint64_t offset,
		   struct perfdata_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->header = h;
	rec->file_offset = offset;
	rec->id.pid = rec->id.tid = rec->id.cpu = UINT32_MAX;
	if (h->type >= PERF_RECORD_USER_TYPE_START)
		return 1;
	struct perfdata_evsel *e = evsel_of(r, h);
	if (h->type != PERF_RECORD_SAMPLE) {
		if (!e && r->nr_evsels)
			e = r->evsels[0];
		/* a record without a readable trailer still counts; it just has no id */
		if (e && perfdata_parse_sample_id(&e->attr, h, &rec->id) < 0)
			rec->id = (struct perf_sample_id){
			    .pid = UINT32_MAX, .tid = UINT32_MAX, .cpu = UINT32_MAX};
		return 1;
	}
	if (!e) {
		r->nr_unknown_id++;
		return 0;
	}
	if (perfdata_parse_sample(&e->attr, h, &rec->sample) < 0) {
		r->nr_bad_samples++;
		char *why = xstrdup(pc_strerror());
		pc_err("%s: offset %llu: %s", r->path, (unsigned long long)offset, why);
		free(why);
		return -1;
	}
	struct perf_sample *s = &rec->sample;
	s->evsel = e;
	rec->id = (struct perf_sample_id){s->pid, s->tid, s->time, s->cpu, s->has_time, s->has_cpu};
	return 1;
}

/* User records the reader itself needs (pipe-mode attrs, names, features). */
static void take_user_record(struct perfdata_reader *r, const struct perf_event_header *h)
{
	const uint8_t *body = (const uint8_t *)(h + 1);
	size_t len = h->size - sizeof(*h);
	switch (h->type) {
	case PERF_RECORD_HEADER_ATTR: {
		if (!r->pipe) /* a file has its attrs in the header */
			break;
		/* attr (attr.size bytes), then the u64 ids */
		if (len < PERF_ATTR_SIZE_VER0)
			break;
		uint32_t attr_size = load_le32(body + 4);
		if (attr_size == 0)
			attr_size = PERF_ATTR_SIZE_VER0;
		if (attr_size <= len)
			pd_add_evsel(r, body, attr_size, body + attr_size, (len - attr_size) / 8);
		break;
	}
	case PERF_RECORD_EVENT_UPDATE:
		pd_event_update(r, h);
		break;
	case PERF_RECORD_HEADER_FEATURE:
		/* u64 feature id, then the feature's payload as in a file's section; copied: h
		 * may be decompressed or an aligned copy, both reused for the next record */
		if (len >= 8)
			pd_read_feature(r, (unsigned)load_le64(body), body + 8, len - 8, true);
		break;
	default:
		break;
	}
}

static void end_of_data(struct perfdata_reader *r, bool failed)
{
	if (failed)
		r->error = xstrdup(pc_strerror());
	r->at_end = true;
	if (r->decomp && r->decomp->len > r->decomp_head)
		r->truncated = true; /* a record cut off inside the compressed data */
	ordered_events_final(r->oe);
	if (r->nr_unknown_id)
		log_warn("%s: %llu samples of events not in the header were skipped", r->path,
			 (unsigned long long)r->nr_unknown_id);
}

/* Releases the mapped pages behind every record still needed (queued or being read), so
 * that a long perf.data does not stay resident: memory stays flat in the length of the
 * trace.  Anything that touches them again (a kept pointer) reads them back from the page
 * cache.  Called every DROP_STEP bytes of progress. */
static void drop_behind(struct perfdata_reader *r)
{
	uint64_t low = ordered_events_min_offset(r->oe, r->pos) & ~(uint64_t)4095;
	if (low > r->dropped && low <= r->map_size) {
		madvise((void *)(r->map + r->dropped), low - r->dropped, MADV_DONTNEED);
		r->dropped = low;
	}
	r->drop_next = r->pos + DROP_STEP;
}

/* A queued record's bytes: its copy, or where it sits in the map. */
static const uint8_t *entry_record(const struct perfdata_reader *r, const struct oe_entry *e)
{
	return e->copy ? e->copy : r->map + e->file_offset;
}

/* The records delivered after this one, into the cache while the caller works on this one:
 * they were written by another CPU (the decompression thread) or sit in the map, and the
 * first touch of a sample's stack copy was a quarter of the unwinder's time (perf annotate:
 * one load in first_fp_outside) on collect's traces.  The next record whole (its header's
 * line was fetched a record earlier), the one after it its first line. */
static void prefetch_next(const struct perfdata_reader *r)
{
	const struct oe_entry *n = ordered_events_peek(r->oe, 0);
	if (!n)
		return;
	const uint8_t *h = entry_record(r, n);
	uint16_t size = load_le16(h + 6);
	for (unsigned off = 64; off < size; off += 64)
		__builtin_prefetch(h + off);
	const struct oe_entry *n2 = ordered_events_peek(r->oe, 1);
	if (n2)
		__builtin_prefetch(entry_record(r, n2));
}

int perfdata_reader_next(struct perfdata_reader *r, struct perfdata_record *rec)
{
	oe_block_put(r->delivered);
	r->delivered = NULL;
	if (r->pos >= r->drop_next) /* the record delivered last is no longer needed */
		drop_behind(r);
	for (;;) {
		struct oe_entry e;
		if (ordered_events_pop(r->oe, &e)) {
			prefetch_next(r);
			const uint8_t *h = entry_record(r, &e);
			r->delivered = e.block;
			int ret = deliver(r, aligned(r, h, load_le16(h + 6)), e.file_offset, rec);
			if (ret)
				return ret;
			oe_block_put(r->delivered);
			r->delivered = NULL;
			continue;
		}
		if (r->at_end) {
			if (r->error && !r->reported_error) {
				r->reported_error = true;
				return pc_err("%s", r->error);
			}
			return 0;
		}
		const struct perf_event_header *h = NULL;
		uint64_t offset = 0;
		bool from_decomp;
		int ret = next_raw(r, &h, &offset, &from_decomp);
		if (ret <= 0) {
			end_of_data(r, ret < 0);
			continue;
		}
		if (h->type == PERF_RECORD_COMPRESSED) {
			/* perf never nests them; one inside would be decompressed from the
			 * buffer it is being decompressed into */
			if (from_decomp)
				pc_err("%s: a compressed record inside compressed data (record at "
				       "offset %llu)",
				       r->path, (unsigned long long)offset);
			if (from_decomp || decompress(r, h, offset) < 0)
				end_of_data(r, true);
			continue;
		}
		if (h->type == PERF_RECORD_FINISHED_ROUND) {
			if (r->ordered)
				ordered_events_round(r->oe);
			continue;
		}
		uint64_t t = UINT64_MAX;
		if (h->type >= PERF_RECORD_USER_TYPE_START)
			take_user_record(r, h);
		else if (r->ordered)
			t = record_time(r, h);
		if (t == 0 || t == UINT64_MAX) {
			/* perf delivers these at once, ahead of what is queued */
			ret = deliver(r, h, offset, rec);
			if (ret)
				return ret;
			continue;
		}
		/* a decompressed record stays in its block (where it is, not h: h may be an
		 * aligned copy that the next record reuses) */
		const void *in_block =
		    from_decomp ? r->decomp->data + r->decomp_head - h->size : NULL;
		ordered_events_queue(r->oe, t, offset, in_block, r->decomp);
	}
}

void perfdata_reader_decompress_ahead(struct perfdata_reader *r)
{
	if (!r->decomp)
		r->decompress_ahead = true;
}

size_t perfdata_reader_nr_evsels(const struct perfdata_reader *r)
{
	return r->nr_evsels;
}

const struct perfdata_evsel *perfdata_reader_evsel(const struct perfdata_reader *r, size_t i)
{
	return i < r->nr_evsels ? r->evsels[i] : NULL;
}

const char *perfdata_reader_hostname(const struct perfdata_reader *r)
{
	return r->hostname;
}

const char *perfdata_reader_osrelease(const struct perfdata_reader *r)
{
	return r->osrelease;
}

const char *perfdata_reader_version(const struct perfdata_reader *r)
{
	return r->version;
}

const char *perfdata_reader_arch(const struct perfdata_reader *r)
{
	return r->arch;
}

const char *perfdata_reader_cmdline(const struct perfdata_reader *r)
{
	return r->cmdline;
}

int perfdata_reader_nrcpus(const struct perfdata_reader *r)
{
	return r->nrcpus;
}

bool perfdata_reader_clock_data(const struct perfdata_reader *r, int *clockid, uint64_t *wall_ns,
				uint64_t *clock_ns)
{
	if (!r->has_clock_data)
		return false;
	*clockid = r->clockid;
	*wall_ns = r->clock_wall_ns;
	*clock_ns = r->clock_ns;
	return true;
}

const void *perfdata_reader_tracing_data(const struct perfdata_reader *r, size_t *size)
{
	*size = r->tracing_data ? r->tracing_size : 0;
	return r->tracing_data;
}

bool perfdata_reader_truncated(const struct perfdata_reader *r)
{
	return r->truncated;
}

uint64_t perfdata_reader_data_size(const struct perfdata_reader *r)
{
	return r->data_end - r->data_start;
}

uint64_t perfdata_reader_data_pos(const struct perfdata_reader *r)
{
	return r->pos - r->data_start;
}

const void *perfdata_reader_feature_body(const struct perfdata_reader *r, int feature, size_t *size)
{
	*size = 0;
	if (feature < 0 || feature >= HEADER_FEAT_BITS || !r->feature_at[feature].offset)
		return NULL;
	*size = (size_t)r->feature_at[feature].size;
	return r->map + r->feature_at[feature].offset;
}

bool perfdata_reader_has_feature(const struct perfdata_reader *r, int feature)
{
	if (feature < 0 || feature >= HEADER_FEAT_BITS)
		return false;
	return r->features[feature / 64] & (1ULL << (feature % 64));
}

const struct perfdata_build_id *perfdata_reader_build_ids(const struct perfdata_reader *r,
							  size_t *n)
{
	*n = r->nbuild_ids;
	return r->build_ids;
}
