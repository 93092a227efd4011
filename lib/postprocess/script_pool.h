/* script_pool: perf.data.txt's text formatted on worker threads, handed back in order.
 *
 * What runs where: the caller (the pass's thread) copies each sample into the batch being
 * filled: its numbers, process name, tracepoint text and, per frame, the ip and the symbol's
 * and dso's names (pointers: they live as long as the symbolizer, symbols.h).  A full batch
 * (about batch_bytes of copies) is queued; any idle worker takes the oldest queued batch and
 * formats it with its own script_format.h (its own cache of frame lines) into text pieces of
 * about `piece` bytes.  Shared: the queue, under one lock; nothing else is written by two
 * threads.  Order: batches are handed to emit() on the caller's thread in the order they
 * were filled, each batch's pieces in order, so the text is byte for byte the one-thread
 * text whatever the workers' timing.  Memory: a fixed ring of 2 x workers + 2 batches is in
 * flight; when it is full the caller waits for the oldest to be formatted and emits it. */
#ifndef PC_SCRIPT_POOL_H
#define PC_SCRIPT_POOL_H

#include "base/bytebuf.h"
#include "script_format.h"

/* Takes t->data[0..t->len) (writes or keeps it), leaves t->len 0 and t holding a buffer
 * (the same or one of at least the piece's size); -1 when the text could not be written. */
typedef int (*script_emit_fn)(void *arg, struct bytebuf *t);

struct script_pool;

/* workers >= 1 threads; batch_bytes 0 for the default (256 KiB).  NULL when no thread
 * could be started (the caller formats on its own thread). */
struct script_pool *script_pool_new(int workers, int name_width, size_t piece, size_t batch_bytes,
				    script_emit_fn emit, void *arg);
int script_pool_threads(const struct script_pool *p);
/* Queues a copy of the sample; emits whatever batches are done.  -1 once emit() failed. */
int script_pool_add(struct script_pool *p, const struct script_sample *s);
/* Formats and emits everything queued; -1 if emit() ever failed. */
int script_pool_finish(struct script_pool *p);
/* Stops the workers (finish first for the text). */
void script_pool_free(struct script_pool *p);

#endif
