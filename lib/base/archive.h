/* archive: the <name>.trace.zip (libzip, deflate), written and read without unzip.
 *
 * Entry names are checked on both sides: no absolute paths, no "..", no backslashes,
 * so nothing read from an archive can name a file outside where it belongs.
 */
#ifndef PC_ARCHIVE_H
#define PC_ARCHIVE_H

#include "util.h"

struct archive_writer;
/* Creates (truncates) zip_path; written to a temporary name and renamed by _finish(). */
struct archive_writer *archive_writer_new(const char *zip_path);
/* Adds the file at src_path as entry `name` (e.g. "sample.trace/perf.data"). */
int archive_writer_add_file(struct archive_writer *w, const char *name, const char *src_path);
int archive_writer_add_buffer(struct archive_writer *w, const char *name, const void *data,
			      size_t len);
int archive_writer_finish(struct archive_writer *w); /* shows progress on a terminal */
void archive_writer_free(struct archive_writer *w);  /* discards if not finished */

/* Streaming: compress an entry while its bytes are being produced, on a second thread.
 *
 *	archive_writer_add_file(w, "x/perf.data", path);  (entries known before)
 *	FILE *f = archive_writer_add_stream(w, "x/perf.data.txt");
 *	archive_writer_start(w);   (a thread starts writing the zip)
 *	... fwrite(f) ...; fclose(f);   (the entry ends)
 *	archive_writer_add_file(w, "x/perfcollect.log", log);   (entries known only now)
 *	archive_writer_finish(w);   (joins the thread, appends the late entries)
 *
 * The stream is a bounded buffer: the writer blocks while the compressor is behind, so
 * memory does not grow with the entry.  If writing the archive fails, the stream swallows
 * what is written (the producer finishes its work) and _finish() returns the error.
 * The FILE must be fclose()d before _finish() or _free(). */
FILE *archive_writer_add_stream(struct archive_writer *w, const char *name);
int archive_writer_start(struct archive_writer *w);

struct archive_reader;
struct archive_reader *archive_reader_open(const char *zip_path);
void archive_reader_free(struct archive_reader *r);
size_t archive_reader_count(const struct archive_reader *r);
const char *archive_reader_name(const struct archive_reader *r, size_t i);
uint64_t archive_reader_size(const struct archive_reader *r, size_t i);
/* Index of the entry whose name is `name`, or whose name ends in "/" + name; -1 if none. */
long archive_reader_find(const struct archive_reader *r, const char *name);
/* Streams entry i: returns a FILE* reading its uncompressed bytes (fopencookie). */
FILE *archive_reader_open_entry(struct archive_reader *r, size_t i);
/* Extracts every entry under dest_dir (used by merge on a .trace.zip). */
int archive_reader_extract_all(struct archive_reader *r, const char *dest_dir);

/* true if name is safe to extract or write: relative, no "..", no "\\". */
bool archive_name_is_safe(const char *name);

#endif
