/* perfmap: see perfmap.h.
 *
 * The file is read once into one buffer; names point into it.  Entries may overlap (code
 * re-JITted at a reused address): the loader turns them into disjoint segments, each owned
 * by the last entry in file order that covers it, so a lookup is one binary search.
 */
#include "perfmap.h"
#include "base/search.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A piece of the address space owned by one entry. */
struct segment {
	uint64_t start, end;
	uint32_t entry;
};

struct perfmap {
	char *text;
	struct perfmap_entry *entries; /* file order */
	size_t nentries, bad_lines;
	struct segment *segs; /* sorted, disjoint */
	size_t nsegs;
};

static bool parse_hex(const char **p, uint64_t *out)
{
	if ((*p)[0] == '0' && ((*p)[1] == 'x' || (*p)[1] == 'X'))
		*p += 2;
	return parse_hex_digits(p, out);
}

/* "START SIZE name": START and SIZE hex (with or without 0x), name to the end of line. */
static bool parse_line(char *line, struct perfmap_entry *e)
{
	const char *p = line;
	if (!parse_hex(&p, &e->start) || *p != ' ')
		return false;
	p++;
	if (!parse_hex(&p, &e->size) || *p != ' ' || e->size == 0)
		return false;
	p++;
	if (!*p || e->start + e->size < e->start)
		return false;
	e->name = p;
	return true;
}

/* Heap of active entries ordered by file position (highest on top). */
struct heap {
	uint32_t *v;
	size_t n, cap;
};

static void heap_push(struct heap *h, uint32_t x)
{
	grow_array((void **)&h->v, &h->cap, h->n + 1, sizeof(*h->v));
	size_t i = h->n++;
	while (i && h->v[(i - 1) / 2] < x) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = x;
}

static void heap_pop(struct heap *h)
{
	uint32_t x = h->v[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->v[c + 1] > h->v[c])
			c++;
		if (h->v[c] <= x)
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = x;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_entry_start(const void *a, const void *b, void *arg)
{
	const struct perfmap_entry *base = arg;
	const struct perfmap_entry *x = &base[*(const uint32_t *)a];
	const struct perfmap_entry *y = &base[*(const uint32_t *)b];
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* Sweep over all entry boundaries; between two boundaries the owner is the newest entry
 * that is active (started and not yet ended), found with a lazily pruned heap. */
static void build_segments(struct perfmap *m)
{
	size_t n = m->nentries;
	if (!n)
		return;
	uint64_t *cuts = xmalloc(2 * n * sizeof(*cuts));
	uint32_t *by_start = xmalloc(n * sizeof(*by_start));
	for (size_t i = 0; i < n; i++) {
		cuts[2 * i] = m->entries[i].start;
		cuts[2 * i + 1] = m->entries[i].start + m->entries[i].size;
		by_start[i] = i;
	}
	qsort(cuts, 2 * n, sizeof(*cuts), cmp_u64);
	qsort_r(by_start, n, sizeof(*by_start), cmp_entry_start, m->entries);

	struct heap h = {0};
	size_t cap = 0, next = 0;
	for (size_t c = 0; c + 1 < 2 * n; c++) {
		uint64_t lo = cuts[c], hi = cuts[c + 1];
		if (lo == hi)
			continue;
		while (next < n && m->entries[by_start[next]].start <= lo)
			heap_push(&h, by_start[next++]);
		while (h.n && m->entries[h.v[0]].start + m->entries[h.v[0]].size <= lo)
			heap_pop(&h);
		if (!h.n)
			continue;
		uint32_t owner = h.v[0];
		if (m->nsegs && m->segs[m->nsegs - 1].entry == owner &&
		    m->segs[m->nsegs - 1].end == lo) {
			m->segs[m->nsegs - 1].end = hi;
			continue;
		}
		grow_array((void **)&m->segs, &cap, m->nsegs + 1, sizeof(*m->segs));
		m->segs[m->nsegs++] = (struct segment){lo, hi, owner};
	}
	free(h.v);
	free(cuts);
	free(by_start);
}

struct perfmap *perfmap_load_fd(int fd)
{
	size_t len;
	char *text = read_fd_seen(fd, &len);
	if (!text)
		return NULL;
	struct perfmap *m = xcalloc(1, sizeof(*m));
	m->text = text;
	size_t cap = 0;
	char *line = text, *end = text + len;
	while (line < end) {
		char *nl = memchr(line, '\n', end - line);
		char *next = nl ? nl + 1 : end;
		if (nl)
			*nl = 0;
		size_t l = strlen(line); /* a NUL inside the line ends it */
		if (l && line[l - 1] == '\r')
			line[--l] = 0;
		if (l) {
			struct perfmap_entry e;
			if (parse_line(line, &e) && m->nentries < UINT32_MAX) {
				grow_array((void **)&m->entries, &cap, m->nentries + 1,
					   sizeof(*m->entries));
				m->entries[m->nentries++] = e;
			} else {
				m->bad_lines++;
			}
		}
		line = next;
	}
	build_segments(m);
	return m;
}

struct perfmap *perfmap_load(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		pc_err_errno("cannot open %s", path);
		return NULL;
	}
	struct perfmap *m = perfmap_load_fd(fd);
	close(fd);
	return m;
}

void perfmap_free(struct perfmap *m)
{
	if (!m)
		return;
	free(m->text);
	free(m->entries);
	free(m->segs);
	free(m);
}

const struct perfmap_entry *perfmap_lookup(const struct perfmap *m, uint64_t addr)
{
	uint64_t range[2];
	return perfmap_lookup_range(m, addr, range);
}

const struct perfmap_entry *perfmap_lookup_range(const struct perfmap *m, uint64_t addr,
						 uint64_t range[2])
{
	size_t lo = LOWER_BOUND(m->nsegs, i, m->segs[i].end <= addr);
	if (lo >= m->nsegs || m->segs[lo].start > addr)
		return NULL;
	/* Segments of one entry are merged where they touch: this one is all of it here. */
	range[0] = m->segs[lo].start;
	range[1] = m->segs[lo].end;
	return &m->entries[m->segs[lo].entry];
}

size_t perfmap_count(const struct perfmap *m)
{
	return m->nentries;
}

size_t perfmap_bad_lines(const struct perfmap *m)
{
	return m->bad_lines;
}
