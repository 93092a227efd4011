/* archive: the writing half of archive.h (archive_read.c reads).  The zip container is
 * written here directly, because each entry's deflate stream is made of pieces compressed
 * in parallel (deflate_chunk.h), which no zip library on Debian takes as entry data.
 *
 * The caller's thread cuts each entry into 1 MiB pieces and queues them; one worker thread
 * per CPU compresses whichever piece is next in the queue, and whichever worker finishes
 * the oldest piece writes the finished pieces in order to the file.  At most SLOTS pieces
 * are queued or being compressed at a time, so memory stays bounded whatever the size of
 * the entries, and a producer that outruns the workers waits for them.
 *
 * A side stream (archive_writer_add_side_stream()) is filled beside the entry being written
 * (the unified NetTrace beside perf.data.txt): the caller fills a piece of each at once (a
 * filler each, whose buffer is swapped with a free slot's when queued), its pieces share the
 * queue and the workers, and whichever worker writes them appends them to an unnamed file of
 * ours; _finish() copies that file in after every other entry, no compression left to do.
 *
 * Layout (APPNOTE 6.3): per entry a local header, the data; then the central directory and
 * its end record, in zip64 form where a size or an offset needs it.  An entry whose size is
 * unknown when it starts (a stream) gets a zip64 local header whose sizes are filled in
 * when it ends; every other header is written once. */
#include "archive.h"
#include "deflate_chunk.h"
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PIECE	     (1024 * 1024)
#define MAX_WORKERS  16
#define U32_MAX	     0xffffffffULL
#define ZIP64_NEEDED 45
#define ZIP_NEEDED   20

enum piece_state { PIECE_FREE, PIECE_QUEUED, PIECE_BUSY, PIECE_DONE };

struct piece {
	enum piece_state state;
	struct zentry *e;
	uint8_t *dict; /* the 32 KiB of the entry before the piece (deflate only) */
	uint8_t *in;
	size_t dict_len, len;
	uint8_t *out;
	size_t out_len;
	uint32_t crc;
	bool first, last;
};

struct zentry {
	char *name;
	int spill_fd;	 /* a side stream's: its compressed bytes until it is placed; -1 else */
	int spill_rd;	 /* the same file, to read it back */
	bool abandoned;	 /* a side stream given up: nothing of it goes in the archive */
	uint16_t method; /* 0 stored, 8 deflate */
	enum deflate_effort effort;
	bool mixed; /* may hold compressed parts: stored 64 KiB by 64 KiB (deflate_chunk_mixed) */
	uint16_t dos_time, dos_date;
	bool zip64_local; /* the local header carries a zip64 extra (sizes filled in at the end) */
	uint64_t npieces; /* queued so far */
	/* filled in as the pieces are written: */
	uint64_t header_offset, csize, usize;
	uint32_t crc;
	bool written;
};

/* An entry being filled by the caller: the piece it fills (swapped with a free slot's
 * buffer when queued) and the entry's last 32 KiB so far (the next piece's dictionary). */
struct filler {
	struct archive_writer *w;
	struct zentry *e; /* NULL: none open */
	uint8_t *in;	  /* PIECE bytes */
	size_t len;
	uint8_t dict[DEFLATE_DICT_MAX];
	size_t dict_len;
	FILE *stream;
};

struct archive_writer {
	char *path;
	struct outfile *out; /* the archive under its temporary name, until finished */
	int fd;
	uint64_t offset; /* end of what has been written */

	struct zentry **entries;
	size_t nentries, entries_cap;

	pthread_mutex_t lock;
	pthread_cond_t work, space, written; /* for workers, the producer, _finish() */
	pthread_t workers[MAX_WORKERS];
	int nworkers;
	struct piece *slots;
	size_t nslots;
	uint64_t queued, taken, next_write; /* piece sequence numbers */
	bool writing, stop;
	int write_errno;   /* the first failed write */
	uint64_t in_total; /* bytes queued, for progress */
	uint64_t in_written;

	/* the entries being filled by the caller: in the archive's order (main), and a side
	 * stream spilled to a temporary file until it can be placed (side) */
	struct filler main, side;
	struct zentry **spilled; /* side streams ended, to place at _finish() */
	size_t nspilled, spilled_cap;
	bool finished;
};

/* --- the file ------------------------------------------------------------------------- */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* Appends to the file; the first failure is kept and later writes are skipped. */
static void file_write(struct archive_writer *w, const void *buf, size_t len)
{
	if (w->write_errno)
		return;
	if (write_all(w->fd, buf, len) < 0) {
		w->write_errno = errno ? errno : EIO;
		return;
	}
	w->offset += len;
}

static void file_pwrite(struct archive_writer *w, const void *buf, size_t len, uint64_t off)
{
	if (w->write_errno)
		return;
	if (pwrite(w->fd, buf, len, (off_t)off) != (ssize_t)len)
		w->write_errno = errno ? errno : EIO;
}

static void dos_time(time_t t, uint16_t *tm, uint16_t *date)
{
	struct tm lt;
	if (!localtime_r(&t, &lt) || lt.tm_year < 80) {
		*tm = 0;
		*date = (1 << 5) | 1; /* 1980-01-01 */
		return;
	}
	*tm = (uint16_t)((lt.tm_hour << 11) | (lt.tm_min << 5) | (lt.tm_sec / 2));
	*date = (uint16_t)(((lt.tm_year - 80) << 9) | ((lt.tm_mon + 1) << 5) | lt.tm_mday);
}

static uint16_t entry_flags(const struct zentry *e)
{
	for (const char *p = e->name; *p; p++)
		if (*p & 0x80)
			return 1 << 11; /* the name is UTF-8 */
	return 0;
}

static void write_local_header(struct archive_writer *w, struct zentry *e)
{
	uint8_t h[30];
	size_t name_len = strlen(e->name);
	e->header_offset = w->offset;
	put32(h, 0x04034b50);
	put16(h + 4, e->zip64_local ? ZIP64_NEEDED : ZIP_NEEDED);
	put16(h + 6, entry_flags(e));
	put16(h + 8, e->method);
	put16(h + 10, e->dos_time);
	put16(h + 12, e->dos_date);
	memset(h + 14, 0, 12); /* crc and sizes: filled in when the entry ends */
	put16(h + 26, (uint16_t)name_len);
	put16(h + 28, e->zip64_local ? 20 : 0);
	file_write(w, h, 30);
	file_write(w, e->name, name_len);
	if (e->zip64_local) {
		memset(h, 0, 20);
		put16(h, 0x0001);
		put16(h + 2, 16);
		file_write(w, h, 20);
	}
}

/* The entry's data is all written: its CRC and sizes go into the local header. */
static void finish_local_header(struct archive_writer *w, struct zentry *e)
{
	uint8_t b[16];
	put32(b, e->crc);
	if (e->zip64_local) {
		put32(b + 4, (uint32_t)U32_MAX);
		put32(b + 8, (uint32_t)U32_MAX);
		file_pwrite(w, b, 12, e->header_offset + 14);
		put64(b, e->usize);
		put64(b + 8, e->csize);
		file_pwrite(w, b, 16, e->header_offset + 30 + strlen(e->name) + 4);
	} else {
		put32(b + 4, (uint32_t)e->csize);
		put32(b + 8, (uint32_t)e->usize);
		file_pwrite(w, b, 12, e->header_offset + 14);
	}
	e->written = true;
}

/* Central directory and end records. */
static void write_directory(struct archive_writer *w)
{
	uint64_t cd_start = w->offset;
	for (size_t i = 0; i < w->nentries; i++) {
		struct zentry *e = w->entries[i];
		uint8_t h[46], x[4 + 24];
		size_t name_len = strlen(e->name), xl = 4;
		bool big_u = e->usize >= U32_MAX, big_c = e->csize >= U32_MAX,
		     big_o = e->header_offset >= U32_MAX;
		if (big_u)
			put64(x + (xl += 8) - 8, e->usize);
		if (big_c)
			put64(x + (xl += 8) - 8, e->csize);
		if (big_o)
			put64(x + (xl += 8) - 8, e->header_offset);
		bool zip64 = xl > 4;
		put16(x, 0x0001);
		put16(x + 2, (uint16_t)(xl - 4));
		uint16_t needed = zip64 || e->zip64_local ? ZIP64_NEEDED : ZIP_NEEDED;
		put32(h, 0x02014b50);
		put16(h + 4, (3 << 8) | needed); /* made by: Unix */
		put16(h + 6, needed);
		put16(h + 8, entry_flags(e));
		put16(h + 10, e->method);
		put16(h + 12, e->dos_time);
		put16(h + 14, e->dos_date);
		put32(h + 16, e->crc);
		put32(h + 20, big_c ? (uint32_t)U32_MAX : (uint32_t)e->csize);
		put32(h + 24, big_u ? (uint32_t)U32_MAX : (uint32_t)e->usize);
		put16(h + 28, (uint16_t)name_len);
		put16(h + 30, zip64 ? (uint16_t)xl : 0);
		put16(h + 32, 0);			   /* comment */
		put16(h + 34, 0);			   /* disk */
		put16(h + 36, 0);			   /* internal attributes */
		put32(h + 38, (uint32_t)(0100644u << 16)); /* a regular file, rw-r--r-- */
		put32(h + 42, big_o ? (uint32_t)U32_MAX : (uint32_t)e->header_offset);
		file_write(w, h, 46);
		file_write(w, e->name, name_len);
		if (zip64)
			file_write(w, x, xl);
	}
	uint64_t cd_size = w->offset - cd_start, n = w->nentries;
	uint8_t r[56 + 20 + 22];
	if (n >= 0xffff || cd_start >= U32_MAX || cd_size >= U32_MAX) {
		uint64_t z64_start = w->offset;
		put32(r, 0x06064b50); /* zip64 end of central directory */
		put64(r + 4, 44);
		put16(r + 12, (3 << 8) | ZIP64_NEEDED);
		put16(r + 14, ZIP64_NEEDED);
		put32(r + 16, 0);
		put32(r + 20, 0);
		put64(r + 24, n);
		put64(r + 32, n);
		put64(r + 40, cd_size);
		put64(r + 48, cd_start);
		put32(r + 56, 0x07064b50); /* its locator */
		put32(r + 60, 0);
		put64(r + 64, z64_start);
		put32(r + 72, 1);
		file_write(w, r, 76);
	}
	put32(r, 0x06054b50);
	put16(r + 4, 0);
	put16(r + 6, 0);
	put16(r + 8, n >= 0xffff ? 0xffff : (uint16_t)n);
	put16(r + 10, n >= 0xffff ? 0xffff : (uint16_t)n);
	put32(r + 12, cd_size >= U32_MAX ? (uint32_t)U32_MAX : (uint32_t)cd_size);
	put32(r + 16, cd_start >= U32_MAX ? (uint32_t)U32_MAX : (uint32_t)cd_start);
	put16(r + 20, 0);
	file_write(w, r, 22);
}

/* --- the workers ---------------------------------------------------------------------- */

static struct piece *slot(struct archive_writer *w, uint64_t seq)
{
	return &w->slots[seq % w->nslots];
}

/* Writes the finished pieces in order, from the oldest on; one thread at a time. */
static void write_done_pieces(struct archive_writer *w)
{
	if (w->writing)
		return;
	w->writing = true;
	while (w->next_write < w->queued && slot(w, w->next_write)->state == PIECE_DONE) {
		struct piece *p = slot(w, w->next_write);
		struct zentry *e = p->e;
		bool drop = e->abandoned;
		pthread_mutex_unlock(&w->lock);
		if (e->spill_fd >= 0) { /* a side stream's, placed at the end */
			if (!w->write_errno && !drop &&
			    write_all(e->spill_fd, p->out, p->out_len) < 0)
				w->write_errno = errno ? errno : EIO;
		} else {
			if (p->first)
				write_local_header(w, e);
			file_write(w, p->out, p->out_len);
		}
		e->crc = e->usize ? crc32_join(e->crc, p->crc, p->len) : p->crc;
		e->usize += p->len;
		e->csize += p->out_len;
		if (p->last && e->spill_fd < 0)
			finish_local_header(w, e);
		pthread_mutex_lock(&w->lock);
		w->in_written += p->len;
		p->state = PIECE_FREE;
		w->next_write++;
		pthread_cond_broadcast(&w->space);
		pthread_cond_broadcast(&w->written);
	}
	w->writing = false;
}

static void compress_piece(struct deflate_chunker *c, struct piece *p)
{
	p->crc = crc32_update(0, p->in, p->len);
	if (p->e->method == 0) {
		memcpy(p->out, p->in, p->len);
		p->out_len = p->len;
	} else if (p->e->mixed) {
		p->out_len = deflate_chunk_mixed(c, p->e->effort, p->dict, p->dict_len, p->in,
						 p->len, p->last, p->out);
	} else {
		p->out_len = deflate_chunk(c, p->e->effort, p->dict, p->dict_len, p->in, p->len,
					   p->last, p->out);
	}
}

static void *worker(void *arg)
{
	struct archive_writer *w = arg;
	struct deflate_chunker *c = deflate_chunker_new();
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->stop && w->taken == w->queued)
			pthread_cond_wait(&w->work, &w->lock);
		if (w->stop)
			break;
		struct piece *p = slot(w, w->taken++);
		p->state = PIECE_BUSY;
		bool failed = w->write_errno != 0;
		pthread_mutex_unlock(&w->lock);
		if (!failed) /* once the file failed, pieces are only passed through */
			compress_piece(c, p);
		pthread_mutex_lock(&w->lock);
		p->state = PIECE_DONE;
		write_done_pieces(w);
	}
	pthread_mutex_unlock(&w->lock);
	deflate_chunker_free(c);
	return NULL;
}

/* --- the producer side ---------------------------------------------------------------- */

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

static int stop_workers(struct archive_writer *w)
{
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_broadcast(&w->work);
	pthread_mutex_unlock(&w->lock);
	for (int i = 0; i < w->nworkers; i++)
		pthread_join(w->workers[i], NULL);
	w->nworkers = 0;
	return 0;
}

static int nr_workers(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) < n)
		n = CPU_COUNT(&set);
	return n < 1 ? 1 : n > MAX_WORKERS ? MAX_WORKERS : (int)n;
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
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->space, NULL);
	pthread_cond_init(&w->written, NULL);
	int n = nr_workers();
	/* every worker busy, one piece of each waiting for it, one being filled */
	w->nslots = 2 * (size_t)n + 1;
	w->slots = xcalloc(w->nslots, sizeof(*w->slots));
	for (size_t i = 0; i < w->nslots; i++) {
		w->slots[i].dict = xmalloc(DEFLATE_DICT_MAX);
		w->slots[i].in = xmalloc(PIECE);
		w->slots[i].out = xmalloc(deflate_chunk_bound(PIECE));
	}
	w->main.w = w->side.w = w;
	w->main.in = xmalloc(PIECE);
	/* Signals stay with the caller's thread. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int i = 0; i < n; i++) {
		int rc = pthread_create(&w->workers[i], NULL, worker, w);
		if (rc) {
			if (i == 0) {
				pthread_sigmask(SIG_SETMASK, &old, NULL);
				pc_err("cannot start compressing %s: %s", zip_path, strerror(rc));
				archive_writer_free(w);
				return NULL;
			}
			break;
		}
		w->nworkers++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return w;
}

/* Queues the piece f filled, once the next slot is free: the slot takes f's buffer and
 * gives f its own to fill next. */
static void queue_piece(struct archive_writer *w, struct filler *f, bool last)
{
	struct zentry *e = f->e;
	pthread_mutex_lock(&w->lock);
	while (slot(w, w->queued)->state != PIECE_FREE)
		pthread_cond_wait(&w->space, &w->lock);
	pthread_mutex_unlock(&w->lock);
	struct piece *p = slot(w, w->queued); /* ours until queued */
	uint8_t *in = p->in;
	p->in = f->in;
	p->len = f->len;
	f->in = in;
	f->len = 0;
	p->e = e;
	p->dict_len = e->method ? f->dict_len : 0;
	memcpy(p->dict, f->dict, p->dict_len);
	p->first = e->npieces++ == 0;
	p->last = last;
	if (e->method) { /* the next piece's dictionary: the entry's last 32 KiB */
		if (p->len >= DEFLATE_DICT_MAX) {
			memcpy(f->dict, p->in + p->len - DEFLATE_DICT_MAX, DEFLATE_DICT_MAX);
			f->dict_len = DEFLATE_DICT_MAX;
		} else {
			size_t keep = DEFLATE_DICT_MAX - p->len;
			if (keep > f->dict_len)
				keep = f->dict_len;
			memmove(f->dict, f->dict + f->dict_len - keep, keep);
			memcpy(f->dict + keep, p->in, p->len);
			f->dict_len = keep + p->len;
		}
	}
	pthread_mutex_lock(&w->lock);
	p->state = PIECE_QUEUED;
	w->queued++;
	w->in_total += p->len;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->lock);
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
			queue_piece(w, f, false);
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
	dos_time(mtime, &e->dos_time, &e->dos_date);
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
	queue_piece(w, f, true);
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
			queue_piece(w, f, false);
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
	write_local_header(w, e);
	for (uint64_t off = 0; off < e->csize && !w->write_errno;) {
		size_t n = e->csize - off < PIECE ? (size_t)(e->csize - off) : PIECE;
		ssize_t got = pread(e->spill_rd, buf, n, (off_t)off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			w->write_errno = got < 0 ? errno : EIO;
			break;
		}
		file_write(w, buf, (size_t)got);
		off += (uint64_t)got;
	}
	finish_local_header(w, e);
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

/* Waits until every queued piece is written, with progress on a terminal. */
static void wait_written(struct archive_writer *w)
{
	struct progress *prog = NULL;
	uint64_t t0 = monotonic_ns();
	pthread_mutex_lock(&w->lock);
	while (w->next_write < w->queued) {
		struct timespec t;
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += 100 * 1000000L;
		if (t.tv_nsec >= 1000000000L) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&w->written, &w->lock, &t);
		if (!prog && monotonic_ns() - t0 > 500 * 1000000ULL)
			prog = progress_new("writing archive", 100);
		if (prog && w->in_total)
			progress_update(prog, w->in_written * 100 / w->in_total);
	}
	pthread_mutex_unlock(&w->lock);
	progress_free(prog);
}

int archive_writer_finish(struct archive_writer *w)
{
	if (w->finished)
		return pc_err("%s: already finished", w->path);
	if (w->main.stream || w->side.stream)
		return pc_err("%s: %s is still open", w->path,
			      (w->main.stream ? w->main.e : w->side.e)->name);
	w->finished = true;
	wait_written(w);
	stop_workers(w);
	place_side_streams(w);
	write_directory(w);
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
	stop_workers(w);
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
	for (size_t i = 0; i < w->nslots; i++) {
		free(w->slots[i].dict);
		free(w->slots[i].in);
		free(w->slots[i].out);
	}
	free(w->slots);
	for (size_t i = 0; i < w->nentries; i++) {
		free(w->entries[i]->name);
		free(w->entries[i]);
	}
	free(w->entries);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->work);
	pthread_cond_destroy(&w->space);
	pthread_cond_destroy(&w->written);
	free(w->path);
	free(w);
}
