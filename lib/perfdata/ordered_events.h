/* ordered_events: the time-ordering queue of the perf.data reader, with the flush rule of
 * perf's tools/perf/util/ordered-events.c (perf 6.1), so records come out in the order
 * `perf script` prints them:
 *
 *  - records are queued by time; equal times keep their arrival order (stable);
 *  - at PERF_RECORD_FINISHED_ROUND, if anything is queued, the records with a time at or
 *    below the limit set by the previous round are released, and the limit becomes the
 *    largest time queued so far ("max_timestamp": the time of the last record that went to
 *    the tail of the queue, or of the first record queued into an empty queue);
 *  - at the end of the data everything is released.
 *
 * An entry is compact: the record stays in the mapped file (copy == NULL) and is found again
 * by its offset; records that exist nowhere else (decompressed from PERF_RECORD_COMPRESSED)
 * stay in the block they were decompressed into, which every entry queued from it holds a
 * reference to until popped: no record is copied.
 */
#ifndef PC_ORDERED_EVENTS_H
#define PC_ORDERED_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decompressed bytes: what was left of the block before (a record split between two
 * COMPRESSED records), then one COMPRESSED record's.  Freed at the last reference. */
struct oe_block {
	uint8_t *data;
	size_t len, cap;
	uint32_t refs;
};

struct oe_block *oe_block_new(void);   /* one reference, the caller's */
void oe_block_put(struct oe_block *b); /* NULL: nothing */
/* The room past len back to the heap, in place, where it is a page or more (zstd's room for
 * output): a block lives while its records wait to be ordered. */
void oe_block_fit(struct oe_block *b);

struct oe_entry {
	uint64_t time;
	uint64_t seq;		/* arrival number: ties keep file order */
	uint64_t file_offset;	/* of the record, or of its COMPRESSED container */
	const void *copy;	/* the record bytes when not in the file: in block */
	struct oe_block *block; /* with a reference the caller puts after pop */
};

struct ordered_events;

struct ordered_events *ordered_events_new(void);
/* Frees the queue, putting the blocks of the records still in it. */
void ordered_events_free(struct ordered_events *oe);
/* Queue a record; time must not be 0 or ~0 (those are delivered at once, as perf does).  A
 * record in a block (copy != NULL) takes a reference to it. */
void ordered_events_queue(struct ordered_events *oe, uint64_t time, uint64_t file_offset,
			  const void *copy, struct oe_block *block);
/* PERF_RECORD_FINISHED_ROUND: release per perf's round rule (see above). */
void ordered_events_round(struct ordered_events *oe);
/* End of data: release everything. */
void ordered_events_final(struct ordered_events *oe);
/* The next released entry in time order; false when none is released (more input needed).
 * Nothing may be queued while released entries remain (the reader drains them first). */
bool ordered_events_pop(struct ordered_events *oe, struct oe_entry *out);
/* The entry k places after the next one pop() gives (k = 0: that next one) when it is
 * already released, else NULL: the reader prefetches the records it delivers next. */
const struct oe_entry *ordered_events_peek(const struct ordered_events *oe, size_t k);
size_t ordered_events_count(const struct ordered_events *oe);
/* The lowest file offset a queued record is read from again (records held as a copy do
 * not count), or limit if it is lower.  A scan of the queue: call it now and then. */
uint64_t ordered_events_min_offset(const struct ordered_events *oe, uint64_t limit);

#endif
