/* ordered_events: see ordered_events.h.  A binary min-heap on (time, seq) gives perf's
 * stable time order; the round rule only decides how far the front may be released. */
#include "ordered_events.h"

#include "base/util.h"

#include <stdlib.h>

struct ordered_events {
	struct oe_entry *heap;
	size_t n, cap;
	uint64_t seq;
	uint64_t tail_time;  /* largest time in the queue (valid when n > 0) */
	uint64_t max_time;   /* perf's max_timestamp */
	uint64_t next_flush; /* limit the next round releases up to; 0 = nothing */
	uint64_t release;    /* entries with time <= release may be popped now */
	bool releasing;
};

struct ordered_events *ordered_events_new(void)
{
	return xcalloc(1, sizeof(struct ordered_events));
}

void ordered_events_free(struct ordered_events *oe)
{
	if (!oe)
		return;
	for (size_t i = 0; i < oe->n; i++)
		free(oe->heap[i].copy);
	free(oe->heap);
	free(oe);
}

static bool before(const struct oe_entry *a, const struct oe_entry *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void swap_entries(struct oe_entry *a, struct oe_entry *b)
{
	struct oe_entry t = *a;
	*a = *b;
	*b = t;
}

void ordered_events_queue(struct ordered_events *oe, uint64_t time, uint64_t file_offset,
			  void *copy)
{
	/* perf sets max_timestamp when the record goes to the tail of its sorted list, which
	 * is when the list is empty or no queued record is later than this one. */
	if (oe->n == 0 || time >= oe->tail_time) {
		oe->tail_time = time;
		oe->max_time = time;
	}
	grow_array((void **)&oe->heap, &oe->cap, oe->n + 1, sizeof(*oe->heap));
	size_t i = oe->n++;
	oe->heap[i] = (struct oe_entry){time, oe->seq++, file_offset, copy};
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!before(&oe->heap[i], &oe->heap[parent]))
			break;
		swap_entries(&oe->heap[i], &oe->heap[parent]);
		i = parent;
	}
}

void ordered_events_round(struct ordered_events *oe)
{
	/* perf returns early on an empty queue: the limit is then not moved either. */
	if (oe->n == 0)
		return;
	oe->release = oe->next_flush;
	oe->releasing = oe->release != 0;
	oe->next_flush = oe->max_time;
}

void ordered_events_final(struct ordered_events *oe)
{
	oe->release = UINT64_MAX;
	oe->releasing = true;
}

bool ordered_events_pop(struct ordered_events *oe, struct oe_entry *out)
{
	if (!oe->releasing || oe->n == 0 || oe->heap[0].time > oe->release) {
		oe->releasing = false;
		return false;
	}
	*out = oe->heap[0];
	oe->heap[0] = oe->heap[--oe->n];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < oe->n && before(&oe->heap[l], &oe->heap[m]))
			m = l;
		if (r < oe->n && before(&oe->heap[r], &oe->heap[m]))
			m = r;
		if (m == i)
			break;
		swap_entries(&oe->heap[i], &oe->heap[m]);
		i = m;
	}
	return true;
}

size_t ordered_events_count(const struct ordered_events *oe)
{
	return oe->n;
}

uint64_t ordered_events_min_offset(const struct ordered_events *oe, uint64_t limit)
{
	uint64_t low = limit;
	for (size_t i = 0; i < oe->n; i++)
		if (!oe->heap[i].copy && oe->heap[i].file_offset < low)
			low = oe->heap[i].file_offset;
	return low;
}
