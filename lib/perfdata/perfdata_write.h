/* perfdata_write: writes perf.data in perf's own file format (PERFILE2), the file `perf script`
 * and `perf report` read.
 *
 * Usage: _new() opens the file and reserves room for the header; _add_attr() once per event
 * (before or after records, ids are what sample_id_all/PERF_SAMPLE_IDENTIFIER carry);
 * _write() appends raw records (as the kernel or a synthesizer produced them) to the data
 * section, buffered; _finish() writes the feature sections and finally the header.
 *
 * A file whose writer died before _finish() stays readable: every flush (buffer full, a
 * round ending after the flush interval, or _flush()) writes whole records and then updates
 * the header's data size, and the attrs
 * known at the first flush are already in place (add the attrs before writing megabytes of
 * records, or a crash leaves samples perf cannot attribute); such a file has no feature bits set,
 * which is how a reader tells it was not finished.  (perf 6.1 itself reads such a file; a data size
 * of 0, perf's own "not finished" mark, makes it print a warning and read nothing.)
 * Given the meta up front (_set_meta()), every flush also writes the feature sections (all
 * but the build-ids, known only at the end), ordered so that a crash at any moment leaves
 * either the previous flush's complete file or this one's: perf then reads a killed writer's
 * file as a finished one, tracepoint formats included.
 *
 * Compressed (_compress()): records go into PERF_RECORD_COMPRESSED records (zstd, one
 * stream, flushed to a block boundary per record) as `perf record -z` writes them.
 */
#ifndef PC_PERFDATA_WRITE_H
#define PC_PERFDATA_WRITE_H

#include "base/util.h"
#include "perf_abi.h"
#include "perfdata_features.h" /* struct perfdata_meta, perfdata_build_id */

struct perfdata_writer;

struct perfdata_writer *perfdata_writer_new(const char *path);
/* name: the event's name as perf shows it ("cpu-clock", "sched:sched_switch"). */
int perfdata_writer_add_attr(struct perfdata_writer *w, const struct perf_event_attr *attr,
			     const char *name, const uint64_t *ids, size_t nids);
/* The ids of event i (in add order) become ids: for an event that gained fds while
 * recording.  The attr table is written anew by perfdata_writer_finish(); an unfinished file
 * keeps the ids it was laid out with. */
int perfdata_writer_set_ids(struct perfdata_writer *w, size_t i, const uint64_t *ids, size_t nids);
/* record: one or more whole records (header.size each); copied into the write buffer. */
int perfdata_writer_write(struct perfdata_writer *w, const void *record, size_t len);
/* Writes the buffered records out now, so the file is readable up to here if we die. */
int perfdata_writer_flush(struct perfdata_writer *w);
/* Appends a PERF_RECORD_FINISHED_ROUND: every record before it may be sorted by time.
 * Flushes when the flush interval has passed since the last flush. */
int perfdata_writer_finished_round(struct perfdata_writer *w);
/* Flushes when the flush interval has passed since the last flush (whole records given
 * so far, a round ended or not). */
int perfdata_writer_flush_due(struct perfdata_writer *w);
/* A round that ends `ns` or more after the last flush flushes (0: only a full buffer
 * does), so a killed writer loses at most about that much. */
void perfdata_writer_set_flush_interval(struct perfdata_writer *w, uint64_t ns);
/* Before the first _write(): records go into zstd PERF_RECORD_COMPRESSED records; how to
 * decompress is also said in a record at the start of the data (perf reads it there when a
 * crash left no feature sections). */
int perfdata_writer_compress(struct perfdata_writer *w, int level);
/* Paused, records are written as they are, between the COMPRESSED ones (perf reads such a
 * mix: what was staged is compressed first, so the compressed data ends where a record
 * does); for a writer that falls behind, since zstd costs far more than a copy. */
void perfdata_writer_pause_compression(struct perfdata_writer *w, bool paused);
/* The meta for the feature sections written at every flush (and by _finish() when it is
 * given NULL); it and what it points to must stay valid until _finish() or _free(). */
void perfdata_writer_set_meta(struct perfdata_writer *w, const struct perfdata_meta *meta);
/* Feature `feat` (a HEADER_* bit) written with this body, as it is (features the writer
 * knows nothing of included): a copy of another file's sections.  Once one is given, the
 * file has only the copied features, HEADER_EVENT_DESC (of this writer's events) and
 * HEADER_COMPRESSED: nothing is probed from this machine. */
void perfdata_writer_copy_feature(struct perfdata_writer *w, int feat, const void *body,
				  size_t len);
/* Bytes of records written, and bytes they took in the file (compressed). */
void perfdata_writer_stats(const struct perfdata_writer *w, uint64_t *records_bytes,
			   uint64_t *file_bytes);
void perfdata_writer_add_build_id(struct perfdata_writer *w, const struct perfdata_build_id *b);
uint64_t perfdata_writer_data_size(const struct perfdata_writer *w);
/* meta NULL: the one given to _set_meta(). */
int perfdata_writer_finish(struct perfdata_writer *w, const struct perfdata_meta *meta);
void perfdata_writer_free(struct perfdata_writer *w);

#endif
