/* script: writes perf.data.txt, one sample at a time, byte for byte as perf 6.1's
 * `perf script --fields comm,pid,tid,cpu,time,period,event,ip,sym,dso,trace` prints it:
 *
 *   comm  PID/TID   [CPU]  SECS.USECS:     PERIOD      EVENT: TRACE
 *   \t        IP SYM (DSO)          one line per frame, then a blank line
 *
 * comm is "%s " when the event records callchains, else "%16s "; the event name is
 * right-aligned to the longest event name of the file; [CPU] is left out when the
 * samples carry no CPU.  Without a callchain the single frame follows the header on the
 * same line, with the sample's absolute ip (as perf prints it).  The tracepoint text
 * (libtraceevent's rendering) comes in preformatted.  Two things differ from perf, for
 * PerfView's reader (perfview_text.h): a process name it would misread is written with '_'
 * for the characters that mislead it (logged once per name), and a dso's " (deleted)"
 * suffix is left out.
 *
 * The text (script_format.h) is collected in the writer's own 256 KiB buffer and handed to
 * the FILE in pieces of that size (which glibc writes straight through: the FILE needs no
 * large buffer of its own), or handed over whole where script_writer_give_to() says;
 * script_writer_flush() writes the rest.  Nothing is kept per sample.  Where
 * script_writer_parallel() says, the text is formatted on worker threads instead
 * (script_pool.h) and handed over in the samples' order: the same bytes.
 */
#ifndef PC_SCRIPT_H
#define PC_SCRIPT_H

#include "script_format.h"

struct script_writer;

/* name_width: the longest event name among the file's events (perf's evlist rule). */
struct script_writer *script_writer_new(FILE *out, int name_width);
/* Where the text can be handed over whole instead of written to the FILE (the archive's
 * archive_writer_give()): give() returns 0 when it took buf[0..len) and left in *buf, *cap
 * an empty buffer, 1 when the text is to be fwrite()n as usual.  The text is then collected
 * in buffers of `piece` bytes (the writer holds one). */
typedef int (*script_give_fn)(void *arg, uint8_t **buf, size_t *cap, size_t len);
void script_writer_give_to(struct script_writer *w, script_give_fn give, void *arg, size_t piece);
/* Formats the samples on `workers` threads from now on (0: on the caller's, the default);
 * a sample's text then waits in a batch of about batch_bytes of samples (0: the default), of
 * which a bounded number are in flight.  Only the text's timing changes: the same bytes reach
 * the FILE or give() on the caller's thread, in order.  The frames' sym and dso must stay
 * valid until script_writer_flush() (they do: symbols.h).  Returns the threads started. */
int script_writer_parallel(struct script_writer *w, int workers, size_t batch_bytes);
/* Formats one sample; -1 once the FILE has reported a write error. */
int script_writer_sample(struct script_writer *w, const struct script_sample *s);
/* Flushes (after the workers are done); -1 (with the reason) if any write failed. */
int script_writer_flush(struct script_writer *w);
uint64_t script_writer_bytes(const struct script_writer *w);
void script_writer_free(struct script_writer *w);

#endif
