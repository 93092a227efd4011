/* archive_int: the zip writer's shared state, private to its three files.
 *
 *   archive.c         the producer side: the writer's life (new, finish, free), entries
 *                     filled and cut into pieces, the open entry's stream, the side stream
 *                     spilled to an unnamed file and placed after every other entry
 *   archive_pieces.c  between the two: the bounded queue of slots, one worker per CPU
 *                     compressing, the finished pieces written in order
 *   archive_zip.c     the zip layout (APPNOTE 6.3): local headers, the central directory,
 *                     zip64 where a size or an offset needs it
 *
 * Locking: w->lock guards the slots' states, the sequence numbers and the counters; the
 * archive file and the entries' sizes and CRCs are written by one thread at a time, the
 * worker holding w->writing, or the caller's once the workers are done. */
#ifndef PC_ARCHIVE_INT_H
#define PC_ARCHIVE_INT_H

#include "archive.h"
#include "deflate_chunk.h"

#include <pthread.h>
#include <time.h>

#define PIECE	    ARCHIVE_PIECE
#define MAX_WORKERS 16
#define U32_MAX	    0xffffffffULL

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
	enum deflate_effort effort; /* its entry's, or lighter (archive_pieces.c) */
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
	uint64_t lighter_left;	    /* pieces still to be taken a step lighter */
	uint64_t waits, wait_ns;    /* the producer waited for a free slot */
	uint64_t deflated, lighter; /* pieces deflated, and those of them a step lighter */

	/* the entries being filled by the caller: in the archive's order (main), and a side
	 * stream spilled to a temporary file until it can be placed (side) */
	struct filler main, side;
	struct zentry **spilled; /* side streams ended, to place at _finish() */
	size_t nspilled, spilled_cap;
	bool finished;
};

/* --- archive_zip.c: the layout --------------------------------------------------------- */

/* Appends to the archive; the first failure is kept in w->write_errno and later writes
 * are skipped. */
void zip_write(struct archive_writer *w, const void *buf, size_t len);
/* An entry's time and date fields: local time, 1980-01-01 for anything before. */
void zip_dos_time(time_t t, uint16_t *tm, uint16_t *date);
/* The entry's local header at the end of the file (its offset kept in e), CRC and sizes
 * left zero, with room for them in a zip64 extra when e->zip64_local. */
void zip_local_header(struct archive_writer *w, struct zentry *e);
/* The entry's data is all written: its CRC and sizes go into its local header. */
void zip_local_header_end(struct archive_writer *w, struct zentry *e);
/* The central directory of w->entries and its end records. */
void zip_directory(struct archive_writer *w);

/* --- archive_pieces.c: the queue and its workers --------------------------------------- */

/* The lock, the slots and one worker per CPU (at most MAX_WORKERS), every signal blocked
 * in them.  0, or the error number when not even one worker started. */
int pieces_start(struct archive_writer *w);
/* Queues the piece f filled, once the next slot is free: the slot takes f's buffer and
 * gives f its own to fill next.  last: the piece ends f's entry. */
void pieces_queue(struct archive_writer *w, struct filler *f, bool last);
/* Waits until every queued piece is written, with progress on a terminal. */
void pieces_wait(struct archive_writer *w);
/* Stops and joins the workers. */
void pieces_stop(struct archive_writer *w);
/* Frees the slots and the lock, once the workers are stopped (or never started). */
void pieces_free(struct archive_writer *w);

#endif
