/* archive: the writing half of archive.h (archive_read.c reads), its producer side.  The
 * zip container is written by our own code, because each entry's deflate stream is made of
 * pieces compressed in parallel (deflate_chunk.h), which no zip library on Debian takes as
 * entry data: the caller's thread fills each entry a piece at a time and queues the pieces
 * (archive_pieces.c compresses and writes them, archive_zip.c lays out the zip around
 * them; archive_int.h is what the three share).
 *
 * A side stream (archive_writer_add_side_stream()) is filled beside the entry being written
 * (the unified NetTrace beside perf.data.txt): the caller fills a piece of each at once (a
 * filler each, whose buffer is swapped with a free slot's when queued), its pieces share the
 * queue and the workers, and whichever worker writes them appends them to an unnamed file of
 * ours; _finish() copies that file in after every other entry, no compression left to do. */
#include "archive_int.h"
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool archive_name_is_safe(const char *name)
{
	if (!name || !*name || name[0] == '/' || strchr(name, '\\'))
		return false;
	/* Reject any ".." path component. */
	for (const char *p = name; *p;) {
		size_t len = strcspn(p, "/");
		if (len == 2 && p[0] == '.' && p[1] == '.')
			return false;
		p += len;
		while (*p == '/')
			p++;
	}
	return true;
}

struct archive_writer *archive_writer_new(const char *zip_path)
{
	struct outfile *out = outfile_open(zip_path);
	if (!out)
		return NULL;
	struct archive_writer *w = xcalloc(1, sizeof(*w));
	w->path = xstrdup(zip_path);
	w->out = out;
	w->fd = outfile_fd(out);
	w->main.w = w->side.w = w;
	w->main.in = xmalloc(PIECE);
	int rc = pieces_start(w);
	if (rc) {
		pc_err("cannot start compressing %s: %s", zip_path, strerror(rc));
		archive_writer_free(w);
		return NULL;
	}
	return w;
}

static void entry_put(struct archive_writer *w, struct filler *f, const void *data, size_t len)
{
	const uint8_t *d = data;
	while (len) {
		size_t n = PIECE - f->len < len ? PIECE - f->len : len;
		memcpy(f->in + f->len, d, n);
		f->len += n;
		d += n;
		len -= n;
		if (f->len == PIECE)
			pieces_queue(w, f, false);
	}
}

/* Whether an entry of this name is in the archive or on its way. */
static bool has_entry(const struct archive_writer *w, const char *name)
{
	for (size_t i = 0; i < w->nentries; i++)
		if (!strcmp(w->entries[i]->name, name))
			return true;
	for (size_t i = 0; i < w->nspilled; i++)
		if (!w->spilled[i]->abandoned && !strcmp(w->spilled[i]->name, name))
			return true;
	return w->side.e && !strcmp(w->side.e->name, name);
}

/* Opens entry name in f (&w->main, or &w->side with spill_fd, which it then owns). */
static int begin_entry(struct archive_writer *w, struct filler *f, const char *name,
		       uint16_t method, enum deflate_effort effort, time_t mtime, bool zip64_local,
		       int spill_fd)
{
	if (w->finished)
		return pc_err("cannot add %s: %s is already finished", name, w->path);
	if (f->e)
		return pc_err("cannot add %s to %s while %s is being written", name, w->path,
			      f->e->name);
	if (!archive_name_is_safe(name))
		return pc_err("refusing archive entry name '%s'", name);
	if (strlen(name) > 0xfff0)
		return pc_err("refusing archive entry name '%.40s...': too long", name);
	if (has_entry(w, name))
		return pc_err("cannot add %s to %s twice", name, w->path);
	struct zentry *e = xcalloc(1, sizeof(*e));
	e->name = xstrdup(name);
	e->method = method;
	e->effort = effort;
	e->zip64_local = zip64_local;
	e->spill_fd = spill_fd;
	zip_dos_time(mtime, &e->dos_time, &e->dos_date);
	if (spill_fd < 0) {
		pthread_mutex_lock(&w->lock); /* the writing worker reads the array */
		grow_array((void **)&w->entries, &w->entries_cap, w->nentries + 1,
			   sizeof(*w->entries));
		w->entries[w->nentries++] = e;
		pthread_mutex_unlock(&w->lock);
	}
	f->e = e;
	f->len = 0;
	f->dict_len = 0;
	return 0;
}

static void end_entry(struct archive_writer *w, struct filler *f)
{
	pieces_queue(w, f, true);
	if (f->e->spill_fd >= 0) { /* placed at _finish(), once all of it is spilled */
		grow_array((void **)&w->spilled, &w->spilled_cap, w->nspilled + 1,
			   sizeof(*w->spilled));
		w->spilled[w->nspilled++] = f->e;
	}
	f->e = NULL;
}

/* Does this data shrink?  Already compressed data (zstd in perf.data, say) is stored: a
 * sample from the middle of the file is compressed the fast way to see. */
static bool worth_deflating(int fd, uint64_t size)
{
	enum { SAMPLE = 256 * 1024 };
	if (size < 4096)
		return true;
	size_t n = size < SAMPLE ? (size_t)size : SAMPLE;
	uint8_t *in = xmalloc(n), *out = xmalloc(deflate_chunk_bound(n));
	ssize_t got = pread(fd, in, n, (off_t)((size - n) / 2));
	bool worth = true;
	if (got > 0) {
		struct deflate_chunker *c = deflate_chunker_new();
		size_t z = deflate_chunk(c, DEFLATE_FAST, NULL, 0, in, (size_t)got, true, out);
		worth = z < (size_t)got - (size_t)got / 10; /* saves at least a tenth */
		deflate_chunker_free(c);
	}
	free(in);
	free(out);
	return worth;
}

static enum deflate_effort effort_for(const char *name)
{
	/* text compresses much better with more effort; binary data hardly does */
	/* the NetTrace files are compressed beside the pass that writes them (or, the runtime's,
	 * before it): zlib 6 is 10-19 % smaller than ISA-L's best at 3-5 times its CPU.  Not
	 * perf.data.txt, the largest: on 2 CPUs its zlib 6 took merge from 0.20 to 0.32 s wall
	 * (0.27 to 0.50 s of CPU) for a 12 % smaller zip (bench/README.md, "Each zip entry's cost
	 * per sample") */
	if (str_endswith(name, ".nettrace"))
		return DEFLATE_BEST;
	return str_endswith(name, ".txt") || str_endswith(name, ".map") ||
		       str_endswith(name, ".log")
		   ? DEFLATE_SMALL
		   : DEFLATE_FAST;
}

int archive_writer_add_file(struct archive_writer *w, const char *name, const char *src_path)
{
	int fd = open(src_path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		int r = pc_err_errno("cannot add %s to the archive", src_path);
		if (fd >= 0)
			close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return pc_err("cannot add %s to the archive: not a regular file", src_path);
	}
	/* Already compressed data is stored: all of the file when a sample of it does not
	 * shrink, else the parts that look compressed (64 KiB at a time). */
	uint16_t method = worth_deflating(fd, (uint64_t)st.st_size) ? 8 : 0;
	/* the file may grow while it is read: a zip64 header leaves room for any size */
	bool big = (uint64_t)st.st_size >= U32_MAX / 2;
	struct filler *f = &w->main;
	if (begin_entry(w, f, name, method, effort_for(name), st.st_mtime, big, -1) < 0) {
		close(fd);
		return -1;
	}
	f->e->mixed = true;
	int ret = 0;
	for (;;) {
		ssize_t n = read(fd, f->in + f->len, PIECE - f->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			/* the entry ends with what was read; the archive is failed */
			ret = pc_err_errno("cannot read %s", src_path);
			pthread_mutex_lock(&w->lock);
			if (!w->write_errno)
				w->write_errno = errno ? errno : EIO;
			pthread_mutex_unlock(&w->lock);
			break;
		}
		if (n == 0)
			break;
		f->len += (size_t)n;
		if (f->len == PIECE)
			pieces_queue(w, f, false);
	}
	close(fd);
	end_entry(w, f);
	return ret;
}

int archive_writer_add_buffer(struct archive_writer *w, const char *name, const void *data,
			      size_t len)
{
	if (begin_entry(w, &w->main, name, 8, effort_for(name), time(NULL), len >= U32_MAX / 2,
			-1) < 0)
		return -1;
	entry_put(w, &w->main, data, len);
	end_entry(w, &w->main);
	return 0;
}

static ssize_t stream_write(void *cookie, const char *buf, size_t size)
{
	struct filler *f = cookie;
	if (f->e)
		entry_put(f->w, f, buf, size);
	return (ssize_t)size;
}

int archive_writer_give(struct archive_writer *w, FILE *stream, uint8_t **buf, size_t *cap,
			size_t len)
{
	struct filler *f = stream == w->main.stream   ? &w->main
			   : stream == w->side.stream ? &w->side
						      : NULL;
	if (!f || !f->e || !len || len > PIECE || *cap < PIECE)
		return 1;
	if (f->len) /* what fwrite() left: a piece of its own */
		pieces_queue(w, f, false);
	uint8_t *empty = f->in; /* PIECE bytes; the slot's buffer takes its place */
	f->in = *buf;
	f->len = len;
	pieces_queue(w, f, false);
	*buf = empty;
	*cap = PIECE;
	return 0;
}

static int stream_close(void *cookie)
{
	struct filler *f = cookie;
	if (f->e)
		end_entry(f->w, f);
	f->stream = NULL;
	return 0;
}

static FILE *open_stream(struct archive_writer *w, struct filler *f, const char *name, int spill_fd,
			 int spill_rd)
{
	if (begin_entry(w, f, name, 8, effort_for(name), time(NULL), true, spill_fd) < 0) {
		if (spill_fd >= 0) {
			close(spill_fd);
			close(spill_rd);
		}
		return NULL;
	}
	f->e->spill_rd = spill_rd;
	cookie_io_functions_t io = {.write = stream_write, .close = stream_close};
	FILE *s = fopencookie(f, "w", io);
	if (!s) {
		pc_err_errno("cannot stream %s", name);
		f->e->abandoned = true;
		end_entry(w, f); /* an empty entry (a side stream's is left out) */
		return NULL;
	}
	/* The producer writes large pieces itself: no FILE buffer to copy through. */
	setvbuf(s, NULL, _IONBF, 0);
	f->stream = s;
	return s;
}

FILE *archive_writer_add_stream(struct archive_writer *w, const char *name)
{
	return open_stream(w, &w->main, name, -1, -1);
}

/* A file of our own for a side stream's compressed bytes, under no name: made beside the
 * archive (outfile's rules) and unlinked at once, so that nothing is left if we are
 * killed.  *rd: the same file opened for reading (the file is checked to be the one made). */
static int spill_file(struct archive_writer *w, int *rd)
{
	char *path = xasprintf("%s.side", w->path);
	struct outfile *o = outfile_open(path);
	free(path);
	if (!o)
		return -1;
	struct stat a, b;
	int fd = fcntl(outfile_fd(o), F_DUPFD_CLOEXEC, 0);
	*rd = open(outfile_temp_path(o), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || *rd < 0 || fstat(fd, &a) < 0 || fstat(*rd, &b) < 0 || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino) {
		pc_err_errno("cannot keep %s", outfile_temp_path(o));
		if (fd >= 0)
			close(fd);
		if (*rd >= 0)
			close(*rd);
		fd = -1;
	}
	outfile_abort(o); /* removes the name; the fds keep the file */
	return fd;
}

static void close_spill(struct zentry *e)
{
	if (e->spill_fd >= 0) {
		close(e->spill_fd);
		close(e->spill_rd);
	}
	e->spill_fd = -1;
}

FILE *archive_writer_add_side_stream(struct archive_writer *w, const char *name)
{
	if (w->side.e) {
		pc_err("cannot add %s to %s while %s is being written", name, w->path,
		       w->side.e->name);
		return NULL;
	}
	int rd = -1, fd = spill_file(w, &rd);
	if (fd < 0)
		return NULL;
	if (!w->side.in)
		w->side.in = xmalloc(PIECE);
	return open_stream(w, &w->side, name, fd, rd);
}

void archive_writer_abandon_side_stream(struct archive_writer *w, FILE *f)
{
	if (!f)
		return;
	if (f == w->side.stream && w->side.e) {
		pthread_mutex_lock(&w->lock); /* the writing worker reads it */
		w->side.e->abandoned = true;
		pthread_mutex_unlock(&w->lock);
	}
	fclose(f);
}

/* Copies a side stream's spilled bytes into the archive as the next entry. */
static void place_spilled(struct archive_writer *w, struct zentry *e, uint8_t *buf)
{
	e->zip64_local = e->usize >= U32_MAX / 2 || e->csize >= U32_MAX / 2;
	zip_local_header(w, e);
	for (uint64_t off = 0; off < e->csize && !w->write_errno;) {
		size_t n = e->csize - off < PIECE ? (size_t)(e->csize - off) : PIECE;
		ssize_t got = pread(e->spill_rd, buf, n, (off_t)off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			w->write_errno = got < 0 ? errno : EIO;
			break;
		}
		zip_write(w, buf, (size_t)got);
		off += (uint64_t)got;
	}
	zip_local_header_end(w, e);
	close_spill(e);
	grow_array((void **)&w->entries, &w->entries_cap, w->nentries + 1, sizeof(*w->entries));
	w->entries[w->nentries++] = e;
}

/* The side streams ended: placed after every other entry, in the order they ended (the
 * abandoned ones dropped). */
static void place_side_streams(struct archive_writer *w)
{
	uint8_t *buf = w->main.in; /* nothing is filled any more */
	for (size_t i = 0; i < w->nspilled; i++) {
		struct zentry *e = w->spilled[i];
		if (e->abandoned) {
			close_spill(e);
			free(e->name);
			free(e);
		} else {
			place_spilled(w, e, buf);
		}
	}
	w->nspilled = 0;
}

void archive_writer_stats(struct archive_writer *w, struct archive_stats *st)
{
	pthread_mutex_lock(&w->lock);
	*st = (struct archive_stats){.waits = w->waits,
				     .wait_s = (double)w->wait_ns / 1e9,
				     .deflated = w->deflated,
				     .lighter = w->lighter};
	pthread_mutex_unlock(&w->lock);
}

int archive_writer_finish(struct archive_writer *w)
{
	if (w->finished)
		return pc_err("%s: already finished", w->path);
	if (w->main.stream || w->side.stream)
		return pc_err("%s: %s is still open", w->path,
			      (w->main.stream ? w->main.e : w->side.e)->name);
	w->finished = true;
	pieces_wait(w);
	pieces_stop(w);
	place_side_streams(w);
	zip_directory(w);
	struct outfile *out = w->out;
	w->out = NULL; /* nothing to remove any more */
	w->fd = -1;
	if (w->write_errno) {
		outfile_abort(out);
		errno = w->write_errno;
		return pc_err_errno("cannot write %s", w->path);
	}
	return outfile_commit(out);
}

void archive_writer_free(struct archive_writer *w)
{
	if (!w)
		return;
	/* the caller must fclose() its streams first; do not leave them pointing here */
	struct zentry *open_side = w->side.e;
	w->main.e = w->side.e = NULL;
	pieces_stop(w);
	if (open_side) {
		close_spill(open_side);
		free(open_side->name);
		free(open_side);
	}
	for (size_t i = 0; i < w->nspilled; i++) {
		close_spill(w->spilled[i]);
		free(w->spilled[i]->name);
		free(w->spilled[i]);
	}
	free(w->spilled);
	free(w->main.in);
	free(w->side.in);
	outfile_abort(w->out); /* not finished: nothing is left behind */
	pieces_free(w);
	for (size_t i = 0; i < w->nentries; i++) {
		free(w->entries[i]->name);
		free(w->entries[i]);
	}
	free(w->entries);
	free(w->path);
	free(w);
}
