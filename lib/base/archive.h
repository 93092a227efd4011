/* archive: the <name>.trace.zip, written and read without unzip.
 *
 * Written by our own zip writer (archive.c): each entry is deflated in 1 MiB pieces by one
 * thread per CPU (ISA-L's igzip where the build has it, else zlib; the .nettrace files
 * by zlib 6, deflate_chunk.h's BEST) while the caller goes on producing the
 * next, a step lighter for a while whenever the caller had to wait for them; data that
 * does not shrink (zstd-compressed perf.data) is stored as it is.  Every zip
 * reader reads the result: PerfView (.NET's ZipArchive), unzip, Python's zipfile, libzip.
 * Read through libzip (archive_read.c), which reads any zip.
 *
 * Entry names are checked on both sides: no absolute paths, no "..", no backslashes,
 * so nothing read from an archive can name a file outside where it belongs.
 */
#ifndef PC_ARCHIVE_H
#define PC_ARCHIVE_H

#include "tracefile.h"
#include "util.h"

/* The pieces entries are cut into (and compressed one by one). */
#define ARCHIVE_PIECE (1024 * 1024)

struct archive_writer;
/* Creates a temporary file beside zip_path (NULL if it cannot); _finish() renames it to
 * zip_path, _free() without _finish() removes it. */
struct archive_writer *archive_writer_new(const char *zip_path);
/* Adds the file at src_path as entry `name` (e.g. "sample.trace/perf.data").  Entries are
 * written in the order they are added; each call returns once its data is queued (the
 * compressors work behind it, in bounded memory). */
int archive_writer_add_file(struct archive_writer *w, const char *name, const char *src_path);
int archive_writer_add_buffer(struct archive_writer *w, const char *name, const void *data,
			      size_t len);
/* An entry whose bytes are written to the returned FILE (unbuffered: write large pieces)
 * while they are produced: nothing goes to disk but the compressed archive.  No other
 * entry can be added until it is fclose()d, which ends the entry.  A failed archive write
 * does not stop the producer: the bytes are dropped and _finish() returns the error. */
FILE *archive_writer_add_stream(struct archive_writer *w, const char *name);
/* A second stream, open at the same time as the entries above (from the same thread): its
 * pieces are compressed by the same threads, its compressed bytes kept in a file of ours
 * under no name beside the archive until _finish() places it after every other entry (a
 * copy, no compression at the end).  One side stream at a time; fclose() ends it, and
 * _abandon_side_stream() closes it leaving it out of the archive. */
FILE *archive_writer_add_side_stream(struct archive_writer *w, const char *name);
void archive_writer_abandon_side_stream(struct archive_writer *w, FILE *f);
/* fwrite() without the copy, on a stream of _add_stream() or _add_side_stream(): buf[0..len)
 * (0 < len <= ARCHIVE_PIECE; *buf from malloc, *cap >= ARCHIVE_PIECE) becomes the entry's
 * next piece as it is (after the bytes fwrite() put there before), and *buf, *cap are
 * given an empty buffer of ARCHIVE_PIECE bytes in its place: 0.  1 when it is not taken
 * (another FILE, other sizes): then fwrite() it. */
int archive_writer_give(struct archive_writer *w, FILE *stream, uint8_t **buf, size_t *cap,
			size_t len);
/* How the compressors kept up so far: the producer waited for them `waits` times (wait_s
 * seconds in all); of the pieces deflated (taken by a worker), `lighter` were compressed a
 * step lighter than their entry's effort because of such waits (archive_pieces.c). */
struct archive_stats {
	uint64_t waits, deflated, lighter;
	double wait_s;
};
void archive_writer_stats(struct archive_writer *w, struct archive_stats *st);
/* Waits for the compressors (progress on a terminal), writes the central directory,
 * renames the archive into place.  -1 with the reason when anything failed. */
int archive_writer_finish(struct archive_writer *w);
void archive_writer_free(struct archive_writer *w); /* discards if not finished */

struct archive_reader;
struct archive_reader *archive_reader_open(const char *zip_path);
void archive_reader_free(struct archive_reader *r);
size_t archive_reader_count(const struct archive_reader *r);
const char *archive_reader_name(const struct archive_reader *r, size_t i);
uint64_t archive_reader_size(const struct archive_reader *r, size_t i);
/* Index of the entry whose name is `name`, or whose name ends in "/" + name; -1 if none. */
long archive_reader_find(const struct archive_reader *r, const char *name);
/* What the zip is by its entries: TRACEFILE_NETTRACE_ZIP when it holds NetTrace files and no
 * perf.data(.txt), else TRACEFILE_ZIP. */
enum tracefile_kind archive_reader_kind(const struct archive_reader *r);
/* Streams entry i: returns a FILE* reading its uncompressed bytes (fopencookie). */
FILE *archive_reader_open_entry(struct archive_reader *r, size_t i);
/* Extracts every entry under dest_dir (used by merge on a .trace.zip) but those named in
 * skip (a NULL-terminated list of entry names; NULL: none). */
int archive_reader_extract_all(struct archive_reader *r, const char *dest_dir,
			       const char *const *skip);

/* true if name is safe to extract or write: relative, no "..", no "\\". */
bool archive_name_is_safe(const char *name);

#endif
