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
 * so after a crash the file holds whole records up to the last flush and perf reads them;
 * the feature bits stay zero until _finish(), which is how a reader sees the file was not
 * finished.
 */
#include "perfdata_write.h"

#include "perfdata_features.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Big enough that a busy recorder makes few syscalls (perf's own mmap chunk is similar). */
#define WRITE_BUF_SIZE (8u << 20)

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
static void put_attr_entry(struct pd_buf *b, const struct perfdata_writer *w,
			   const struct pd_event *e, uint64_t ids_offset)
{
	struct perf_event_attr a = e->attr;
	a.size = w->attr_size;
	size_t have = sizeof(a) < w->attr_size ? sizeof(a) : w->attr_size;
	pd_buf_put(b, &a, have);
	for (size_t i = have; i < w->attr_size; i++)
		pd_buf_put(b, "", 1);
	struct perf_file_section ids = {ids_offset, e->nids * sizeof(uint64_t)};
	pd_buf_put(b, &ids, sizeof(ids));
}

/* Writes the ids of every event, then the attr table, at `off`; returns the end offset. */
static int write_attr_table(struct perfdata_writer *w, uint64_t off, uint64_t *end)
{
	struct pd_buf b = {0};
	uint64_t ids_at = off;
	for (size_t i = 0; i < w->nevents; i++)
		pd_buf_put(&b, w->events[i].ids, w->events[i].nids * sizeof(uint64_t));
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
	pd_buf_free(&b);
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
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		pc_err_errno("cannot create %s", path);
		return NULL;
	}
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

static int flush(struct perfdata_writer *w)
{
	if (w->failed)
		return pc_err("%s: an earlier write failed", w->path);
	if (!w->laid_out && lay_out(w))
		return -1;
	if (!w->buf_len)
		return 0;
	if (pwrite_all(w, w->buf, w->buf_len, w->data_offset + w->data_on_disk))
		return -1;
	w->data_on_disk += w->buf_len;
	w->buf_len = 0;
	/* Only now claim the new records, so a crash never leaves a size past whole records. */
	return write_header(w, NULL);
}

int perfdata_writer_flush(struct perfdata_writer *w)
{
	if (w->finished)
		return 0;
	return flush(w);
}

int perfdata_writer_write(struct perfdata_writer *w, const void *record, size_t len)
{
	if (__builtin_expect(len <= WRITE_BUF_SIZE - w->buf_len && !w->finished, 1)) {
		memcpy(w->buf + w->buf_len, record, len);
		w->buf_len += len;
		return 0;
	}
	if (w->finished)
		return pc_err("%s: record written after finish", w->path);
	if (flush(w))
		return -1;
	if (len <= WRITE_BUF_SIZE) {
		memcpy(w->buf, record, len);
		w->buf_len = len;
		return 0;
	}
	/* Larger than the whole buffer: straight to the file. */
	if (pwrite_all(w, record, len, w->data_offset + w->data_on_disk))
		return -1;
	w->data_on_disk += len;
	return write_header(w, NULL);
}

int perfdata_writer_finished_round(struct perfdata_writer *w)
{
	struct perf_event_header h = {
	    .type = PERF_RECORD_FINISHED_ROUND, .misc = 0, .size = sizeof(h)};
	return perfdata_writer_write(w, &h, sizeof(h));
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
	return w->data_on_disk + w->buf_len;
}

/* Features we write, in bit order (perf reads the index in that order). */
static const int written_features[] = {
    HEADER_TRACING_DATA, HEADER_BUILD_ID,   HEADER_HOSTNAME, HEADER_OSRELEASE,	HEADER_VERSION,
    HEADER_ARCH,	 HEADER_NRCPUS,	    HEADER_CPUDESC,  HEADER_CPUID,	HEADER_TOTAL_MEM,
    HEADER_CMDLINE,	 HEADER_EVENT_DESC, HEADER_CLOCKID,  HEADER_CLOCK_DATA,
};

/* Writes the feature index and bodies at `off`; sets the feature bits; returns the end. */
static int write_features(struct perfdata_writer *w, const struct perfdata_meta *meta, uint64_t off,
			  uint64_t bits[HEADER_FEAT_BITS / 64], uint64_t *end)
{
	struct pd_feature_input in = {
	    .meta = meta,
	    .events = w->events,
	    .nevents = w->nevents,
	    .attr_size = w->attr_size,
	    .build_ids = w->build_ids,
	    .nbuild_ids = w->nbuild_ids,
	};
	struct pd_buf body[ARRAY_SIZE(written_features)];
	bool present[ARRAY_SIZE(written_features)];
	size_t nfeat = 0;
	for (size_t i = 0; i < ARRAY_SIZE(written_features); i++) {
		memset(&body[i], 0, sizeof(body[i]));
		present[i] = perfdata_feature_encode(written_features[i], &in, &body[i]) > 0;
		nfeat += present[i];
	}
	struct pd_buf out = {0};
	uint64_t at = off + nfeat * sizeof(struct perf_file_section);
	for (size_t i = 0; i < ARRAY_SIZE(written_features); i++) {
		if (!present[i])
			continue;
		struct perf_file_section s = {at, body[i].len};
		pd_buf_put(&out, &s, sizeof(s));
		at += body[i].len;
		bits[written_features[i] / 64] |= 1ULL << (written_features[i] % 64);
	}
	for (size_t i = 0; i < ARRAY_SIZE(written_features); i++) {
		if (present[i])
			pd_buf_put(&out, body[i].data, body[i].len);
		pd_buf_free(&body[i]);
	}
	int r = pwrite_all(w, out.data, out.len, off);
	*end = off + out.len;
	pd_buf_free(&out);
	return r;
}

int perfdata_writer_finish(struct perfdata_writer *w, const struct perfdata_meta *meta)
{
	if (w->finished)
		return 0;
	if (flush(w))
		return -1;
	uint64_t bits[HEADER_FEAT_BITS / 64] = {0};
	uint64_t end;
	if (write_features(w, meta, w->data_offset + w->data_on_disk, bits, &end))
		return -1;
	/* Events added after the lay-out (or needing a larger attr): a full new table. */
	if (w->nevents != w->nevents_laid_out || w->table_attr_size != w->attr_size ||
	    (w->laid_out && w->ids_changed)) {
		if (write_attr_table(w, (end + 7) & ~(uint64_t)7, &end))
			return -1;
	}
	/* O_TRUNC at open: nothing stale lies beyond `end`. */
	if (write_header(w, bits))
		return -1;
	w->finished = true;
	return 0;
}

void perfdata_writer_free(struct perfdata_writer *w)
{
	if (!w)
		return;
	/* Not finished: keep what was written, readable as an unfinished file.  The caller's
	 * error message (likely why it gives up) is what stays recorded. */
	if (!w->finished && !w->failed && w->fd >= 0 && (w->buf_len || !w->laid_out)) {
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
	free(w->buf);
	free(w->path);
	free(w);
}
