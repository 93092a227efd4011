/* perfdata_header: the reader's file header, attrs and feature sections (see
 * perfdata_read_int.h).  Everything is read with memcpy from the mapped file after checking
 * that offset and size lie inside it: a header may point anywhere. */
#include "perfdata_read_int.h"
#include "base/span.h"

#include "base/log.h"

#include <stdlib.h>
#include <string.h>

static bool in_file(const struct perfdata_reader *r, uint64_t off, uint64_t size)
{
	return off <= r->map_size && size <= r->map_size - off;
}

/* perf's string in feature sections: u32 len, then len bytes holding a NUL-padded string. */
static char *take_string(const uint8_t **p, const uint8_t *end)
{
	if (end - *p < 4)
		return NULL;
	uint32_t len = load_le32(*p);
	if (len > (size_t)(end - *p) - 4)
		return NULL;
	const char *s = (const char *)*p + 4;
	*p += 4 + (size_t)len;
	return xstrndup(s, strnlen(s, len));
}

static const char *const hw_names[] = {
    "cycles",
    "instructions",
    "cache-references",
    "cache-misses",
    "branches",
    "branch-misses",
    "bus-cycles",
    "stalled-cycles-frontend",
    "stalled-cycles-backend",
    "ref-cycles",
};
static const char *const sw_names[] = {
    "cpu-clock",	"task-clock",	"page-faults",	"context-switches",
    "cpu-migrations",	"minor-faults", "major-faults", "alignment-faults",
    "emulation-faults", "dummy",	"bpf-output",	"cgroup-switches",
};

/* A name for an attr the file does not name (no HEADER_EVENT_DESC). */
static char *derived_name(const struct perf_event_attr *a)
{
	if (a->type == PERF_TYPE_HARDWARE && a->config < ARRAY_SIZE(hw_names))
		return xstrdup(hw_names[a->config]);
	if (a->type == PERF_TYPE_SOFTWARE && a->config < ARRAY_SIZE(sw_names))
		return xstrdup(sw_names[a->config]);
	if (a->type == PERF_TYPE_TRACEPOINT)
		return xasprintf("tracepoint:%llu", (unsigned long long)a->config);
	return xasprintf("raw:%u:%#llx", a->type, (unsigned long long)a->config);
}

static int cmp_id(const void *a, const void *b)
{
	const struct pd_id *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

int pd_add_evsel(struct perfdata_reader *r, const uint8_t *attr, size_t attr_len,
		 const uint8_t *ids, size_t nids)
{
	if (attr_len < PERF_ATTR_SIZE_VER0)
		return pc_err("%s: event attr of %zu bytes is too short", r->path, attr_len);
	struct perfdata_evsel *e = xcalloc(1, sizeof(*e));
	memcpy(&e->attr, attr, attr_len < sizeof(e->attr) ? attr_len : sizeof(e->attr));
	/* Bytes past the attr's own size are not part of it. */
	if (e->attr.size >= PERF_ATTR_SIZE_VER0 && e->attr.size < sizeof(e->attr))
		memset((uint8_t *)&e->attr + e->attr.size, 0, sizeof(e->attr) - e->attr.size);
	e->name = derived_name(&e->attr);
	e->nids = nids;
	e->ids = xcalloc(nids ? nids : 1, sizeof(uint64_t));
	if (nids)
		memcpy(e->ids, ids, nids * sizeof(uint64_t));
	grow_array((void **)&r->evsels, &r->evsels_cap, r->nr_evsels + 1, sizeof(*r->evsels));
	r->evsels[r->nr_evsels++] = e;
	grow_array((void **)&r->ids, &r->ids_cap, r->nr_ids + nids, sizeof(*r->ids));
	for (size_t i = 0; i < nids; i++)
		r->ids[r->nr_ids++] = (struct pd_id){e->ids[i], e};
	if (r->nr_ids > 1)
		qsort(r->ids, r->nr_ids, sizeof(*r->ids), cmp_id);
	return 0;
}

struct perfdata_evsel *pd_find_evsel(const struct perfdata_reader *r, uint64_t id)
{
	if (!r->nr_ids)
		return NULL;
	struct pd_id key = {.id = id};
	struct pd_id *hit = bsearch(&key, r->ids, r->nr_ids, sizeof(*r->ids), cmp_id);
	return hit ? hit->evsel : NULL;
}

static void set_name(struct perfdata_evsel *e, const char *name)
{
	free(e->name);
	e->name = xstrdup(name);
}

/* HEADER_EVENT_DESC: u32 nr, u32 attr_size, then per event: attr, u32 nr_ids, string name,
 * u64 ids[nr_ids].  An entry is matched to an attr by its first id, else by position. */
static void read_event_desc(struct perfdata_reader *r, const uint8_t *p, const uint8_t *end)
{
	if (end - p < 8)
		return;
	uint32_t nr = load_le32(p), attr_size = load_le32(p + 4);
	p += 8;
	for (uint32_t i = 0; i < nr; i++) {
		if ((size_t)(end - p) < (uint64_t)attr_size + 4)
			return;
		p += attr_size;
		uint32_t nr_ids = load_le32(p);
		p += 4;
		char *name = take_string(&p, end);
		if (!name)
			return;
		if (nr_ids > (size_t)(end - p) / 8) {
			free(name);
			return;
		}
		struct perfdata_evsel *e = nr_ids ? pd_find_evsel(r, load_le64(p)) : NULL;
		if (!e && i < r->nr_evsels)
			e = r->evsels[i];
		if (e && *name)
			set_name(e, name);
		free(name);
		p += (size_t)nr_ids * 8;
	}
}

static char *read_cmdline(const uint8_t *p, const uint8_t *end)
{
	if (end - p < 4)
		return NULL;
	uint32_t nr = load_le32(p);
	p += 4;
	char *line = xstrdup("");
	for (uint32_t i = 0; i < nr; i++) {
		char *arg = take_string(&p, end);
		if (!arg)
			break;
		char *joined = *line ? xasprintf("%s %s", line, arg) : xstrdup(arg);
		free(line);
		free(arg);
		line = joined;
	}
	return line;
}

static void replace_string(char **field, char *value)
{
	if (!value)
		return;
	free(*field);
	*field = value;
}

/* HEADER_BUILD_ID: perf_build_id_entry records, each followed by its file name. */
static void read_build_ids(struct perfdata_reader *r, const uint8_t *p, const uint8_t *end)
{
	size_t cap = r->nbuild_ids;
	while ((size_t)(end - p) >= sizeof(struct perf_build_id_entry)) {
		struct perf_build_id_entry e;
		memcpy(&e, p, sizeof(e));
		if (e.header.size < sizeof(e) || e.header.size > (size_t)(end - p))
			break;
		const char *name = (const char *)p + sizeof(e);
		size_t max = e.header.size - sizeof(e);
		grow_array((void **)&r->build_ids, &cap, r->nbuild_ids + 1, sizeof(*r->build_ids));
		struct perfdata_build_id *b = &r->build_ids[r->nbuild_ids++];
		b->pid = e.pid;
		b->kernel =
		    (e.header.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
		/* Newer perf says how long the id is; older ones always wrote 20 bytes. */
		b->size = (e.header.misc & PERF_RECORD_MISC_BUILD_ID_SIZE) && e.build_id[20] <= 20
			      ? e.build_id[20]
			      : 20;
		memcpy(b->id, e.build_id, 20);
		b->filename = xstrndup(name, strnlen(name, max));
		p += e.header.size;
	}
}

void pd_read_feature(struct perfdata_reader *r, unsigned feat, const uint8_t *p, size_t size,
		     bool copy)
{
	const uint8_t *end = p + size;
	const uint8_t *q = p;
	switch (feat) {
	case HEADER_HOSTNAME:
		replace_string(&r->hostname, take_string(&q, end));
		break;
	case HEADER_OSRELEASE:
		replace_string(&r->osrelease, take_string(&q, end));
		break;
	case HEADER_VERSION:
		replace_string(&r->version, take_string(&q, end));
		break;
	case HEADER_ARCH:
		replace_string(&r->arch, take_string(&q, end));
		break;
	case HEADER_CMDLINE:
		replace_string(&r->cmdline, read_cmdline(p, end));
		break;
	case HEADER_NRCPUS:
		/* u32 nr_cpus_available, u32 nr_cpus_online */
		if (size >= 8)
			r->nrcpus = (int)load_le32(p);
		break;
	case HEADER_EVENT_DESC:
		read_event_desc(r, p, end);
		break;
	case HEADER_CLOCK_DATA:
		/* u32 version, u32 clockid, u64 wall clock ns, u64 clockid ns */
		if (size >= 24 && load_le32(p) >= 1) {
			r->has_clock_data = true;
			r->clockid = (int)load_le32(p + 4);
			r->clock_wall_ns = load_le64(p + 8);
			r->clock_ns = load_le64(p + 16);
		}
		break;
	case HEADER_COMPRESSED:
		/* u32 version, type, level, ratio, mmap_len */
		if (size >= 8)
			r->comp_type = load_le32(p + 4);
		break;
	case HEADER_BUILD_ID:
		read_build_ids(r, p, end);
		break;
	case HEADER_TRACING_DATA:
		free(r->tracing_copy);
		r->tracing_copy = NULL;
		if (copy) {
			r->tracing_copy = xmalloc(size);
			memcpy(r->tracing_copy, p, size);
		}
		r->tracing_data = copy ? r->tracing_copy : p;
		r->tracing_size = size;
		break;
	default:
		break;
	}
	if (feat < HEADER_FEAT_BITS)
		r->features[feat / 64] |= 1ULL << (feat % 64);
}

void pd_event_update(struct perfdata_reader *r, const struct perf_event_header *h)
{
	/* u64 type, u64 id, then the payload; type 2 (PERF_EVENT_UPDATE__NAME) is a string. */
	const uint8_t *p = (const uint8_t *)(h + 1);
	if (h->size < sizeof(*h) + 16 || load_le64(p) != 2)
		return;
	struct perfdata_evsel *e = pd_find_evsel(r, load_le64(p + 8));
	const char *name = (const char *)p + 16;
	size_t max = h->size - sizeof(*h) - 16;
	if (e && max && strnlen(name, max) > 0) {
		char *s = xstrndup(name, strnlen(name, max));
		free(e->name);
		e->name = s;
	}
}

/* The feature sections: a table of perf_file_section, one per set bit in increasing bit
 * order, right after the data section. */
static void read_features(struct perfdata_reader *r, const uint64_t *bits, uint64_t table)
{
	size_t nr = 0;
	for (unsigned i = 0; i < HEADER_FEAT_BITS / 64; i++)
		nr += (size_t)__builtin_popcountll(bits[i]);
	if (!in_file(r, table, (uint64_t)nr * sizeof(struct perf_file_section))) {
		log_warn("%s: feature sections are missing (file cut short?)", r->path);
		return;
	}
	size_t k = 0;
	for (unsigned feat = 0; feat < HEADER_FEAT_BITS; feat++) {
		if (!(bits[feat / 64] & (1ULL << (feat % 64))))
			continue;
		const uint8_t *entry = r->map + table + k++ * sizeof(struct perf_file_section);
		uint64_t off = load_le64(entry), size = load_le64(entry + 8);
		if (!in_file(r, off, size))
			continue;
		r->features[feat / 64] |= 1ULL << (feat % 64);
		r->feature_at[feat] = (struct perf_file_section){off, size};
		pd_read_feature(r, feat, r->map + off, size, false);
	}
}

/* Does a record header start at off?  Tells the data of a killed recording (records) from
 * the feature table of a finished one with no data. */
static bool looks_like_record(const struct perfdata_reader *r, uint64_t off)
{
	if (!in_file(r, off, sizeof(struct perf_event_header)))
		return false;
	struct perf_event_header h;
	memcpy(&h, r->map + off, sizeof(h));
	return h.size >= sizeof(h) && h.type != 0 && h.type < 128;
}

int pd_read_file_header(struct perfdata_reader *r)
{
	uint64_t magic, hsize;
	if (r->map_size < 16)
		return pc_err("%s: too small to be a perf.data file", r->path);
	magic = load_le64(r->map);
	hsize = load_le64(r->map + 8);
	if (magic != PERF_MAGIC2) {
		if (magic == __builtin_bswap64(PERF_MAGIC2))
			return pc_err("%s: perf.data from a big-endian machine is not supported",
				      r->path);
		if (magic == 0)
			return pc_err("%s: no perf.data header (the recorder died before writing "
				      "it?)",
				      r->path);
		return pc_err("%s: not a perf.data file (bad magic)", r->path);
	}
	if (hsize == 16) {
		/* `perf record -o -`: attrs, features and tracing data come as records. */
		r->pipe = true;
		r->ordered = true;
		r->data_start = 16;
		r->data_end = r->map_size;
		return 0;
	}
	struct perf_file_header fh;
	if (hsize != sizeof(fh) || r->map_size < sizeof(fh))
		return pc_err("%s: unsupported perf.data header size %llu", r->path,
			      (unsigned long long)hsize);
	memcpy(&fh, r->map, sizeof(fh));

	const size_t ids_sect = sizeof(struct perf_file_section);
	if (fh.attr_size < PERF_ATTR_SIZE_VER0 + ids_sect || fh.attr_size > 65536)
		return pc_err("%s: bad attr size %llu in the header", r->path,
			      (unsigned long long)fh.attr_size);
	if (!in_file(r, fh.attrs.offset, fh.attrs.size))
		return pc_err("%s: the attrs section lies outside the file", r->path);
	size_t nr_attrs = fh.attrs.size / fh.attr_size;
	for (size_t i = 0; i < nr_attrs; i++) {
		const uint8_t *a = r->map + fh.attrs.offset + i * fh.attr_size;
		const uint8_t *sect = a + fh.attr_size - ids_sect;
		uint64_t ids_off = load_le64(sect), ids_size = load_le64(sect + 8);
		if (!in_file(r, ids_off, ids_size))
			return pc_err("%s: the ids of event %zu lie outside the file", r->path, i);
		if (pd_add_evsel(r, a, fh.attr_size - ids_sect, r->map + ids_off, ids_size / 8))
			return -1;
	}
	if (!r->nr_evsels)
		return pc_err("%s: no events in the header (the recording ended before it wrote "
			      "any?)",
			      r->path);
	r->ordered = r->evsels[0]->attr.sample_id_all;

	if (fh.data.offset > r->map_size)
		return pc_err("%s: the data section starts past the end of the file", r->path);
	r->data_start = fh.data.offset;
	if (fh.data.size == 0 && looks_like_record(r, fh.data.offset)) {
		/* The recorder died before it wrote the data size: take what is there.  The
		 * feature bits are set, but their sections were never written. */
		r->truncated = true;
		r->data_end = r->map_size;
		return 0;
	}
	if (fh.data.size > r->map_size - fh.data.offset) {
		log_warn("%s: the data section runs past the end of the file (%llu of %llu bytes "
			 "there)",
			 r->path, (unsigned long long)(r->map_size - fh.data.offset),
			 (unsigned long long)fh.data.size);
		r->truncated = true;
		r->data_end = r->map_size;
		return 0;
	}
	r->data_end = fh.data.offset + fh.data.size;
	bool any_feature = false;
	for (unsigned i = 0; i < HEADER_FEAT_BITS / 64; i++)
		any_feature |= fh.adds_features[i] != 0;
	if (!any_feature) {
		/* Our writer keeps the data size current while recording but sets feature bits
		 * only when it finishes: without them the recorder died, and records written
		 * after the last size update may follow. */
		r->truncated = true;
		r->data_end = r->map_size;
		return 0;
	}
	read_features(r, fh.adds_features, r->data_end);
	return 0;
}

void pd_free_header(struct perfdata_reader *r)
{
	for (size_t i = 0; i < r->nr_evsels; i++) {
		free(r->evsels[i]->name);
		free(r->evsels[i]->ids);
		free(r->evsels[i]);
	}
	free(r->evsels);
	free(r->ids);
	free(r->hostname);
	free(r->osrelease);
	free(r->version);
	free(r->arch);
	free(r->cmdline);
	free(r->tracing_copy);
	for (size_t i = 0; i < r->nbuild_ids; i++)
		free((char *)r->build_ids[i].filename);
	free(r->build_ids);
}
