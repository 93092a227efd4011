/* perfdata_async: a perfdata_writer driven from a thread of its own, so that whoever
 * produces the records (the recorder's drain) only copies them into memory and never waits
 * on zstd or on write(2).
 *
 * Records are copied into buffers of PERFDATA_ASYNC_BUF bytes; a full buffer, or one that
 * ends a round and is half full or was started over PERFDATA_ASYNC_HANDOFF_MS ago, goes on a
 * queue that the writer thread empties in order through perfdata_writer_write() (and
 * perfdata_writer_finished_round() at a round's end, which flushes on the writer's flush
 * interval).  The file is the one perfdata_writer would have written from the calling thread,
 * byte for byte, unless the writer falls behind:
 *
 *   - more than half the buffers queued (and the caller allows it: may_pause): it pauses
 *     compression
 *     (perfdata_writer_pause_compression) and writes the records as they are, which costs a
 *     copy where zstd costs far more, until the queue is down to a quarter;
 *   - every buffer queued: the producer waits for one (back-pressure: counted in the stats).
 *     Only a disk slower than the raw records gets there.
 *
 * Memory: at most nbufs buffers (allocated as needed, kept until _stop()).  From _start() to
 * _stop() the writer belongs to the thread: call nothing on it in between.  Build-ids given
 * meanwhile are kept and added at _stop().  The thread starts with the caller's signal mask.
 */
#ifndef PC_PERFDATA_ASYNC_H
#define PC_PERFDATA_ASYNC_H

#include "perfdata_write.h"

#define PERFDATA_ASYNC_BUF	  (256u << 10) /* bytes per buffer: a record is at most 64 KiB */
#define PERFDATA_ASYNC_HANDOFF_MS 100

struct perfdata_async;

struct perfdata_async_stats {
	size_t nbufs;		 /* the bound */
	size_t peak_queued;	 /* most buffers queued at once */
	uint64_t handed_off;	 /* buffers written */
	uint64_t uncompressed;	 /* ... of them with compression paused */
	uint64_t waits, wait_ns; /* times the producer waited for a buffer, and how long */
};

/* Starts the thread; queue_bytes bounds the buffers (at least 4 of them); may_pause: the
 * writer may write uncompressed to catch up (a recording, which must not lose records), else
 * the producer waits for it (post-processing, which has time).  NULL with a message when the
 * thread cannot start. */
struct perfdata_async *perfdata_async_start(struct perfdata_writer *w, size_t queue_bytes,
					    bool may_pause);
/* One or more whole records: copied.  -1 (with the writer's message) once a write failed. */
int perfdata_async_write(struct perfdata_async *a, const void *records, size_t len);
/* Room for one record of at most max bytes (max <= PERFDATA_ASYNC_BUF) where the next write
 * goes, so that a record built there costs no second copy: build it, then _commit() it with
 * nothing else called on a in between.  NULL (with a message) once a write failed. */
void *perfdata_async_reserve(struct perfdata_async *a, size_t max);
/* The record built in _reserve()'s room: len bytes, its header's size, at most max. */
int perfdata_async_commit(struct perfdata_async *a, size_t len);
/* Ends a round (perfdata_writer_finished_round in order). */
int perfdata_async_finished_round(struct perfdata_async *a);
void perfdata_async_add_build_id(struct perfdata_async *a, const struct perfdata_build_id *b);
/* Writes everything queued, joins the thread, adds the build-ids and frees a: the writer is
 * the caller's again.  0, or -1 with the first write error.  stats may be NULL. */
int perfdata_async_stop(struct perfdata_async *a, struct perfdata_async_stats *stats);

#endif
