/* util: error messages, allocation that cannot fail silently, small string and file helpers.
 *
 * Library functions report failure by returning -1 (or NULL) after pc_err() recorded one
 * line saying what went wrong; the command prints pc_strerror() and exits.  No lib code
 * calls exit().
 */
#ifndef PC_UTIL_H
#define PC_UTIL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define PC_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Record the current error (thread-local) and return -1. */
int pc_err(const char *fmt, ...) PC_PRINTF(1, 2);
/* Same, appending ": strerror(errno)". */
int pc_err_errno(const char *fmt, ...) PC_PRINTF(1, 2);
/* The last message recorded by pc_err(); "" when none. */
const char *pc_strerror(void);

/* Allocation: abort with a message on out-of-memory (nothing sensible to do then). */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) PC_PRINTF(1, 2);

/* Grow *buf (capacity *cap, element size esz) to hold at least n elements. */
void grow_array(void **buf, size_t *cap, size_t n, size_t esz);

/* Read a whole (small) file; NUL-terminated; *len gets the size without the NUL. */
char *read_file(const char *path, size_t *len);
/* The same from an open fd, to its end (the fd is not closed). */
char *read_fd(int fd, size_t *len);
/* The same, at most max bytes: a file someone else writes (a target's) is read no further
 * than the size the caller stated, however much it grows meanwhile. */
char *read_fd_max(int fd, uint64_t max, size_t *len);
/* read_fd_max() into buf, an xmalloc()ed block of cap (>= 2) bytes, regrown as needed (so
 * that a caller can choose where, and how large, the first block is); buf is freed on
 * failure. */
char *read_fd_into(int fd, char *buf, size_t cap, uint64_t max, size_t *len);
/* read_fd() of a regular file, no further than the size it had when called (a file someone
 * else appends to is not followed); others (a pipe, /proc's files of size 0) to their end. */
char *read_fd_seen(int fd, size_t *len);
/* Reads exactly n bytes at offset off, retrying on EINTR and short reads; false at an error
 * or the file's end before n bytes. */
bool pread_all(int fd, void *buf, size_t n, uint64_t off);
/* Write all of buf, retrying on EINTR and short writes. */
int write_all(int fd, const void *buf, size_t len);
/* Make a directory and its parents. */
int mkdir_p(const char *path, unsigned mode);
/* A private directory (mkdtemp: 0700) for temporary work, $TMPDIR/perfcollect-<what>.XXXXXX
 * (/tmp without TMPDIR), malloc'd; NULL with pc_err(). */
char *make_temp_dir(const char *what);
/* Recursively remove a directory tree (used for temporary work directories): every step
 * is relative to a directory fd opened without following a symlink, so a symlink swapped
 * in meanwhile is removed itself, never followed. */
int rm_rf(const char *path);
/* The same for name in the directory dirfd (not closed); shown names it in messages. */
int rm_rf_at(int dirfd, const char *name, const char *shown);
/* An exclusive lock on directory dir (flock: held while the returned fd is open, released
 * by the kernel when the holder dies).  Returns the fd; -1 when another process holds it
 * (*holder: its pid, 0 if unknown) or the directory cannot be opened (*holder -1, message
 * set). */
int lock_dir(const char *dir, int *holder);

/* Parse perfcollect sizes: "N", "NB", "NK", "NM", "NG" (case-insensitive), in bytes. */
int parse_size(const char *s, uint64_t *out);
/* A limit set by the environment variable name (a size as parse_size() reads it, not 0):
 * *out gets it and 1 is returned; 0 when unset or empty (*out untouched); -1 with pc_err()
 * naming the variable when it is not a size (*out untouched). */
int env_size(const char *name, uint64_t *out);
/* The n bytes at p as lowercase hex digits into out (2n + 1 bytes: NUL-terminated, "" for
 * n = 0); returns out. */
char *hex_encode(const void *p, size_t n, char *out);
/* Strict integer parsing: whole string, range checked. */
int parse_int(const char *s, long min, long max, long *out);
/* The hex digits at *p (no "0x"), at most 64 bits' worth; *p moves past them.  false when
 * there is none or the number does not fit. */
bool parse_hex_digits(const char **p, uint64_t *out);

/* s as it may be shown on a terminal or written into a log line, when it comes from outside
 * (a process's name, a symbol, a path a target chose): control characters (C0, DEL, and C1
 * such as CSI, U+009B) and bytes that are not UTF-8 become \xNN (\n, \t, \e for the
 * common ones), so no escape sequence reaches the terminal and no line is split.  s itself
 * when nothing needs it; else one of 8 thread-local buffers, valid for 8 more calls (so a
 * printf may show several). */
const char *str_printable(const char *s);
/* The same for the first len bytes of s (NUL or not), always a buffer. */
const char *str_printable_n(const char *s, size_t len);

/* x rounded to the nearest integer, saturated: NaN and x < 0.5 give 0, x beyond the type
 * its maximum.  For doubles read from input (a duration, a mean): a plain cast of an
 * out-of-range double is undefined behaviour. */
uint64_t u64_round(double x);
int64_t i64_round(double x);

bool str_startswith(const char *s, const char *prefix);
bool str_endswith(const char *s, const char *suffix);

/* Seconds since the epoch, and CLOCK_MONOTONIC in ns. */
uint64_t monotonic_ns(void);

/* CPUs this process may run on: the online ones, fewer under taskset or a cpuset; >= 1. */
int usable_cpus(void);

/* fn(arg) on a new thread with every signal blocked, so that signals stay with the caller's
 * thread (a worker's job is never interrupted).  0, or pthread_create()'s error number. */
int thread_start_nosignals(pthread_t *t, void *(*fn)(void *), void *arg);

/* Progress on a terminal (stderr is a tty); silent otherwise. */
struct progress;
struct progress *progress_new(const char *what, uint64_t total);
void progress_update(struct progress *p, uint64_t done);
void progress_free(struct progress *p); /* clears the line */

#endif
