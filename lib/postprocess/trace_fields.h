/* trace_fields: the `trace` field of tracepoint samples (libtraceevent's rendering, as
 * `perf script` prints it) for the merge pass, safe for a perf.data from anywhere.
 *
 * libtraceevent (Debian's 1.7.1) crashes on malformed event formats, and a perf.data
 * carries its own.  The tracing data is first checked (record/tracing_data.h).  When its
 * formats are byte for byte this machine's tracefs files (our own recordings, perf's on
 * this machine), libtraceevent runs in this process as before.  Otherwise a child process
 * does all the libtraceevent work: it reads the same perf.data with its own reader and
 * writes the text of every tracepoint sample, in stream order, into a pipe, which this side
 * reads as its own pass reaches each sample.  The child parses confined (base/sandbox.h):
 * once perf.data is mapped it keeps only its pipe, gives up root, and runs under
 * NO_NEW_PRIVS, a seccomp allow-list and rlimits (CPU, address space, no file size).  If
 * the child dies (a crash in libtraceevent), stops answering for 30 s, or falls out of
 * step, the remaining samples get their raw bytes in hex ("raw=0a1b..."), and the log and
 * stderr say so once.  Tracing data whose layout does not add up gets the same raw
 * fallback.
 */
#ifndef PC_TRACE_FIELDS_H
#define PC_TRACE_FIELDS_H

#include "perfdata/perfdata_read.h"

struct trace_fields;

/* perf_data: the path r was opened from (the child opens it again).  r must outlive t. */
struct trace_fields *trace_fields_new(const struct perfdata_reader *r, const char *perf_data);
/* The field of a sample the pass delivered (call it for every sample, in the reader's order:
 * the child answers in that order), valid until the next call; NULL when there is none (not
 * a tracepoint, an unknown event, no tracing data).  How is decided by _new() when the file
 * has its tracing data in the header (call it before starting threads: it may fork), else
 * at the first tracepoint sample (pipe-mode files bring their tracing data in the stream). */
const char *trace_fields_text(struct trace_fields *t, const struct perfdata_record *rec);
void trace_fields_free(struct trace_fields *t);

#endif
