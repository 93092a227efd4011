/* decomp_ahead: the PERF_RECORD_COMPRESSED records of a perf.data decompressed on a thread
 * of their own, ahead of the reader that orders and delivers them (perfdata_read.c), so
 * that zstd and its copies (a fifth of the post-processing pass on collect's traces, whose
 * samples carry stack copies) run beside the pass instead of on its thread.
 *
 * The thread walks the data section's records from the first COMPRESSED one as the reader
 * does (sizes, and the payloads AUXTRACE and TRACING_DATA records carry after them),
 * decompresses each COMPRESSED record of the one zstd stream into a block of its own
 * (ordered_events.h) and queues the blocks in file order, at most DECOMP_AHEAD_BYTES of
 * them.  Each block holds whole records: the start of a record that continues in the next
 * COMPRESSED record is carried over to the next block (perf cuts its stream anywhere).  So
 * the records come out as the reader's own decompression gives them; only a cut-off record
 * at the very end stays in the last block, as it would.
 *
 * The thread reads the map and its own state only; a block belongs to the reader once
 * handed over. */
#ifndef PC_DECOMP_AHEAD_H
#define PC_DECOMP_AHEAD_H

#include "ordered_events.h"

#include <stdint.h>

#define DECOMP_AHEAD_BYTES (2u << 20)

struct decomp_ahead;

/* One COMPRESSED record's payload src[0, len), decompressed with the stream's zstd state
 * (a ZSTD_DCtx) onto the end of b, which grows; b holding more than max bytes is an error.
 * 0, or -1 with pc_err() naming path and the record's file offset.  The reader's own
 * decompression and the thread's both. */
int decomp_append(void *zstd, struct oe_block *b, const void *src, size_t len, size_t max,
		  const char *path, uint64_t offset);
/* Starts the thread on map[from, end) (from: a COMPRESSED record); max_block bounds what
 * one block may expand to.  NULL with pc_err() when no thread starts. */
struct decomp_ahead *decomp_ahead_start(const uint8_t *map, uint64_t from, uint64_t end,
					size_t max_block, const char *path);
/* The block of the COMPRESSED record at file offset `offset` (the next one in file order),
 * waiting for it: one reference, the caller's.  NULL with pc_err() when it could not be
 * decompressed (the message the reader's own decompression would give). */
struct oe_block *decomp_ahead_next(struct decomp_ahead *d, uint64_t offset);
/* Stops the thread, frees what it queued. */
void decomp_ahead_free(struct decomp_ahead *d);

#endif
