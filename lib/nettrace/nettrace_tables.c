/* nettrace_tables: see nettrace_tables.h.  Thread and label blocks: NetTraceFormat.md
 * ("ThreadBlock", "RemoveThreadBlock", "LabelListBlock"). */
#include "nettrace_tables.h"
#include "nettrace_metadata.h"
#include "base/span.h"

#include <stdlib.h>

/* ---- uint64 -> uint64 map ------------------------------------------------------------------ */

static bool map_get(const struct u64map *m, uint64_t key, uint64_t *val)
{
	const struct u64pair *e = u64map_find(m, key, hash_mix(key));
	if (e)
		*val = e->val;
	return e != NULL;
}

/* Inserts or replaces. */
static void map_put(struct u64map *m, uint64_t key, uint64_t val)
{
	bool found;
	*u64map_insert(m, key, hash_mix(key), &found) = (struct u64pair){key, val, true};
}

static void map_del(struct u64map *m, uint64_t key)
{
	struct u64pair *e = u64map_find(m, key, hash_mix(key));
	if (e)
		u64map_remove(m, e);
}

/* ---- tables ------------------------------------------------------------------------------- */

void nettrace_tables_init(struct nettrace_tables *t)
{
	memset(t, 0, sizeof(*t));
	t->stacks_sorted = true;
}

void nettrace_tables_release(struct nettrace_tables *t)
{
	for (size_t i = 0; i < t->nmetas; i++) {
		nettrace_metadata_release(t->metas[i]);
		free(t->metas[i]);
	}
	free(t->metas);
	u64map_free(&t->meta_ids);
	free(t->stacks);
	free(t->ips);
	u64map_free(&t->threads);
	free(t->thread_info);
	u64map_free(&t->labels);
	free(t->label_info);
	u64map_free(&t->seqs);
	memset(t, 0, sizeof(*t));
}

struct nettrace_metadata *nettrace_tables_add_metadata(struct nettrace_tables *t,
						       struct nettrace_metadata *m)
{
	/* Rows stay allocated until the reader is freed: items handed out keep pointing at
	 * them, even after a v6 flush or a redefinition unmaps their id. */
	struct nettrace_metadata *row = xmalloc(sizeof(*row));
	*row = *m;
	memset(m, 0, sizeof(*m));
	grow_array((void **)&t->metas, &t->metas_cap, t->nmetas + 1, sizeof(*t->metas));
	t->metas[t->nmetas] = row;
	map_put(&t->meta_ids, row->id, t->nmetas++);
	return row;
}

const struct nettrace_metadata *nettrace_tables_metadata(const struct nettrace_tables *t,
							 uint32_t id)
{
	uint64_t i;
	return map_get(&t->meta_ids, id, &i) ? t->metas[i] : NULL;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct nettrace_stack_entry *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

void nettrace_tables_add_stack(struct nettrace_tables *t, uint32_t id, const uint8_t *bytes,
			       size_t size, unsigned pointer_size)
{
	size_t n = size / pointer_size;
	grow_array((void **)&t->ips, &t->ips_cap, t->nips + n, sizeof(*t->ips));
	struct span s = span_of(bytes, size);
	for (size_t i = 0; i < n; i++)
		t->ips[t->nips + i] = span_ptr(&s, pointer_size);
	grow_array((void **)&t->stacks, &t->stacks_cap, t->nstacks + 1, sizeof(*t->stacks));
	if (t->nstacks && t->stacks[t->nstacks - 1].id >= id)
		t->stacks_sorted = false;
	t->stacks[t->nstacks++] = (struct nettrace_stack_entry){id, t->nips, n};
	t->nips += n;
}

/* The entry of stack id, or NULL. */
static const struct nettrace_stack_entry *find_stack(const struct nettrace_tables *t, uint32_t id)
{
	if (!id || !t->nstacks)
		return NULL;
	if (!t->stacks_sorted) { /* never with real writers; keep lookups right anyway */
		struct nettrace_tables *mt = (struct nettrace_tables *)t;
		qsort(mt->stacks, mt->nstacks, sizeof(*mt->stacks), cmp_stack);
		mt->stacks_sorted = true;
	}
	struct nettrace_stack_entry key = {.id = id};
	return bsearch(&key, t->stacks, t->nstacks, sizeof(*t->stacks), cmp_stack);
}

size_t nettrace_tables_stack(const struct nettrace_tables *t, uint32_t id, const uint64_t **ips)
{
	*ips = NULL;
	const struct nettrace_stack_entry *e = find_stack(t, id);
	if (!e || !e->n)
		return 0;
	*ips = t->ips + e->off;
	return e->n;
}

bool nettrace_tables_has_stack(const struct nettrace_tables *t, uint32_t id)
{
	return find_stack(t, id) != NULL;
}

int nettrace_tables_add_threads(struct nettrace_tables *t, const uint8_t *p, size_t len)
{
	struct span s = span_of(p, len);
	while (span_left(&s)) {
		size_t size = span_u16(&s);
		const uint8_t *row = span_take(&s, size);
		if (!row)
			return -1;
		struct span r = span_of(row, size);
		uint64_t index = span_varuint(&r, UINT64_MAX);
		struct nettrace_thread th = {0, 0};
		while (span_left(&r)) {
			uint8_t kind = span_u8(&r);
			size_t n;
			switch (kind) {
			case 1: /* Name */
			case 4: /* KeyValue: two strings */
				for (int k = 0; k < (kind == 4 ? 2 : 1); k++) {
					n = span_varuint(&r, UINT32_MAX);
					span_take(&r, n);
				}
				break;
			case 2:
				th.pid = span_varuint(&r, UINT64_MAX);
				break;
			case 3:
				th.tid = span_varuint(&r, UINT64_MAX);
				break;
			default:
				return -1;
			}
		}
		if (r.bad)
			return -1;
		grow_array((void **)&t->thread_info, &t->threads_cap, t->nthreads + 1,
			   sizeof(*t->thread_info));
		t->thread_info[t->nthreads] = th;
		map_put(&t->threads, index, t->nthreads++);
	}
	return 0;
}

int nettrace_tables_remove_threads(struct nettrace_tables *t, const uint8_t *p, size_t len)
{
	struct span s = span_of(p, len);
	while (span_left(&s)) {
		uint64_t index = span_varuint(&s, UINT64_MAX);
		uint32_t seq = (uint32_t)span_varuint(&s, UINT32_MAX);
		if (s.bad)
			return -1;
		nettrace_tables_checkpoint(t, index, seq);
		map_del(&t->threads, index);
	}
	return 0;
}

void nettrace_tables_thread(const struct nettrace_tables *t, uint64_t index, uint64_t *tid,
			    uint64_t *pid)
{
	uint64_t i;
	*tid = *pid = 0;
	if (map_get(&t->threads, index, &i)) {
		*tid = t->thread_info[i].tid;
		*pid = t->thread_info[i].pid;
	}
}

int nettrace_tables_add_labels(struct nettrace_tables *t, const uint8_t *p, size_t len)
{
	struct span s = span_of(p, len);
	uint32_t first = span_u32(&s), count = span_u32(&s);
	if (s.bad || !first)
		return -1;
	for (uint32_t i = 0; i < count; i++) {
		struct nettrace_label l;
		memset(&l, 0, sizeof(l));
		for (bool last = false; !last;) {
			uint8_t kind = span_u8(&s);
			last = kind & 0x80;
			const uint8_t *g;
			size_t n;
			switch (kind & 0x7f) {
			case 1:
			case 2:
				if ((g = span_take(&s, 16))) {
					memcpy((kind & 0x7f) == 1 ? l.activity : l.related, g, 16);
					*((kind & 0x7f) == 1 ? &l.has_activity : &l.has_related) =
					    true;
				}
				break;
			case 3:
				span_take(&s, 16);
				break;
			case 4:
				span_u64(&s);
				break;
			case 5:
			case 6:
				n = span_varuint(&s, UINT32_MAX);
				span_take(&s, n);
				if ((kind & 0x7f) == 5) {
					n = span_varuint(&s, UINT32_MAX);
					span_take(&s, n);
				} else {
					span_varuint(&s, UINT64_MAX);
				}
				break;
			case 7:
			case 9:
			case 10:
				span_u8(&s);
				break;
			case 8:
				span_u64(&s);
				break;
			default:
				return -1;
			}
			if (s.bad)
				return -1;
		}
		grow_array((void **)&t->label_info, &t->labels_cap, t->nlabels + 1,
			   sizeof(*t->label_info));
		t->label_info[t->nlabels] = l;
		map_put(&t->labels, (uint64_t)first + i, t->nlabels++);
	}
	return 0;
}

void nettrace_tables_activity_ids(const struct nettrace_tables *t, uint32_t id,
				  uint8_t activity[16], uint8_t related[16])
{
	uint64_t i;
	memset(activity, 0, 16);
	memset(related, 0, 16);
	if (!id || !map_get(&t->labels, id, &i))
		return;
	if (t->label_info[i].has_activity)
		memcpy(activity, t->label_info[i].activity, 16);
	if (t->label_info[i].has_related)
		memcpy(related, t->label_info[i].related, 16);
}

uint64_t nettrace_tables_sequence(struct nettrace_tables *t, uint64_t thread, uint32_t seq)
{
	uint64_t last;
	uint64_t lost = 0;
	if (map_get(&t->seqs, thread, &last)) {
		uint32_t gap = seq - 1 - (uint32_t)last;
		if (gap < 0x80000000u) /* else out of order or a new thread reusing the id */
			lost = gap;
	}
	map_put(&t->seqs, thread, seq);
	return lost;
}

uint64_t nettrace_tables_checkpoint(struct nettrace_tables *t, uint64_t thread, uint32_t seq)
{
	uint64_t last;
	uint64_t lost = 0;
	if (map_get(&t->seqs, thread, &last)) {
		uint32_t gap = seq - (uint32_t)last;
		if (gap && gap < 0x80000000u)
			lost = gap;
		else
			return 0; /* behind what the events showed: keep the events' count */
	}
	map_put(&t->seqs, thread, seq);
	return lost;
}

void nettrace_tables_sequence_point(struct nettrace_tables *t, uint32_t flags)
{
	t->nstacks = 0;
	t->nips = 0;
	t->stacks_sorted = true;
	u64map_free(&t->labels);
	t->nlabels = 0;
	if (flags & 1) {
		u64map_free(&t->threads);
		t->nthreads = 0;
	}
	if (flags & 2)
		u64map_free(&t->meta_ids);
}
