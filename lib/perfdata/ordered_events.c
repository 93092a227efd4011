/* ordered_events: see ordered_events.h.  Queued entries wait in arrival order; a round moves
 * those at or below its limit to the released list, sorted on (time, seq) by a merge of
 * their ascending runs (a round's records come as a few per-CPU runs already in time order,
 * so the sort is close to one pass), and pops walk that list.  The round rule only decides
 * how far the front may be released. */
#include "ordered_events.h"

#include "base/util.h"

#include <stdlib.h>
#include <string.h>

struct entries {
	struct oe_entry *e;
	size_t n, cap;
};

struct ordered_events {
	struct entries queued;	 /* not released, in arrival order */
	struct entries released; /* sorted; from `next` on still to pop */
	size_t next;
	struct entries tmp; /* the merge's scratch */
	uint64_t seq;
	uint64_t tail_time;  /* largest time in the queue (valid when it is not empty) */
	uint64_t max_time;   /* perf's max_timestamp */
	uint64_t next_flush; /* limit the next round releases up to; 0 = nothing */
	uint64_t release;    /* entries with time <= release may be popped now */
	bool releasing;
};

struct ordered_events *ordered_events_new(void)
{
	return xcalloc(1, sizeof(struct ordered_events));
}

struct oe_block *oe_block_new(void)
{
	struct oe_block *b = xcalloc(1, sizeof(*b));
	b->refs = 1;
	return b;
}

void oe_block_put(struct oe_block *b)
{
	if (b && --b->refs == 0) {
		free(b->data);
		free(b);
	}
}

void oe_block_fit(struct oe_block *b)
{
	if (b->len && b->cap - b->len >= 4096) {
		b->data = xrealloc(b->data, b->len);
		b->cap = b->len;
	}
}

void ordered_events_free(struct ordered_events *oe)
{
	if (!oe)
		return;
	for (size_t i = 0; i < oe->queued.n; i++)
		oe_block_put(oe->queued.e[i].block);
	for (size_t i = oe->next; i < oe->released.n; i++)
		oe_block_put(oe->released.e[i].block);
	free(oe->queued.e);
	free(oe->released.e);
	free(oe->tmp.e);
	free(oe);
}

static void push(struct entries *l, const struct oe_entry *e)
{
	grow_array((void **)&l->e, &l->cap, l->n + 1, sizeof(*l->e));
	l->e[l->n++] = *e;
}

static bool before(const struct oe_entry *a, const struct oe_entry *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

size_t ordered_events_count(const struct ordered_events *oe)
{
	return oe->queued.n + oe->released.n - oe->next;
}

void ordered_events_queue(struct ordered_events *oe, uint64_t time, uint64_t file_offset,
			  const void *copy, struct oe_block *block)
{
	if (copy)
		block->refs++;
	else
		block = NULL;
	/* perf sets max_timestamp when the record goes to the tail of its sorted list, which
	 * is when the list is empty or no queued record is later than this one. */
	if (ordered_events_count(oe) == 0 || time >= oe->tail_time) {
		oe->tail_time = time;
		oe->max_time = time;
	}
	push(&oe->queued, &(struct oe_entry){time, oe->seq++, file_offset, copy, block});
}

/* Merges the sorted runs a[0..n) (each ascending) into one, through tmp. */
static void merge_runs(struct ordered_events *oe, struct oe_entry *a, size_t n)
{
	size_t sorted = 1;
	while (sorted < n && !before(&a[sorted], &a[sorted - 1]))
		sorted++;
	if (sorted == n)
		return;
	grow_array((void **)&oe->tmp.e, &oe->tmp.cap, n, sizeof(*oe->tmp.e));
	struct oe_entry *src = a, *dst = oe->tmp.e;
	for (;;) {
		size_t runs = 0, out = 0;
		for (size_t i = 0; i < n;) {
			size_t mid = i + 1;
			while (mid < n && !before(&src[mid], &src[mid - 1]))
				mid++;
			size_t end = mid;
			if (end < n) {
				end++;
				while (end < n && !before(&src[end], &src[end - 1]))
					end++;
			}
			size_t x = i, y = mid;
			while (x < mid && y < end)
				dst[out++] = before(&src[y], &src[x]) ? src[y++] : src[x++];
			while (x < mid)
				dst[out++] = src[x++];
			while (y < end)
				dst[out++] = src[y++];
			runs++;
			i = end;
		}
		struct oe_entry *t = src;
		src = dst;
		dst = t;
		if (runs <= 1)
			break;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

/* Moves the queued entries at or below the limit to the released list, sorted. */
static void release_up_to(struct ordered_events *oe, uint64_t limit)
{
	struct entries *r = &oe->released;
	if (oe->next) { /* what is left of the last release first */
		memmove(r->e, r->e + oe->next, (r->n - oe->next) * sizeof(*r->e));
		r->n -= oe->next;
		oe->next = 0;
	}
	size_t keep = 0;
	for (size_t i = 0; i < oe->queued.n; i++) {
		struct oe_entry *e = &oe->queued.e[i];
		if (e->time <= limit)
			push(r, e);
		else
			oe->queued.e[keep++] = *e;
	}
	oe->queued.n = keep;
	if (r->n > 1)
		merge_runs(oe, r->e, r->n);
}

void ordered_events_round(struct ordered_events *oe)
{
	/* perf returns early on an empty queue: the limit is then not moved either. */
	if (ordered_events_count(oe) == 0)
		return;
	oe->release = oe->next_flush;
	oe->releasing = oe->release != 0;
	oe->next_flush = oe->max_time;
	if (oe->releasing)
		release_up_to(oe, oe->release);
}

void ordered_events_final(struct ordered_events *oe)
{
	oe->release = UINT64_MAX;
	oe->releasing = true;
	release_up_to(oe, UINT64_MAX);
}

bool ordered_events_pop(struct ordered_events *oe, struct oe_entry *out)
{
	if (!oe->releasing || oe->next == oe->released.n) {
		oe->releasing = false;
		return false;
	}
	*out = oe->released.e[oe->next++];
	if (oe->next == oe->released.n)
		oe->next = oe->released.n = 0;
	return true;
}

const struct oe_entry *ordered_events_peek(const struct ordered_events *oe, size_t k)
{
	if (!oe->releasing || oe->released.n - oe->next <= k)
		return NULL;
	return &oe->released.e[oe->next + k];
}

uint64_t ordered_events_min_offset(const struct ordered_events *oe, uint64_t limit)
{
	uint64_t low = limit;
	for (size_t i = 0; i < oe->queued.n; i++)
		if (!oe->queued.e[i].copy && oe->queued.e[i].file_offset < low)
			low = oe->queued.e[i].file_offset;
	for (size_t i = oe->next; i < oe->released.n; i++)
		if (!oe->released.e[i].copy && oe->released.e[i].file_offset < low)
			low = oe->released.e[i].file_offset;
	return low;
}
