/* outfile: every file we write is created here, one way: O_CREAT | O_EXCL | O_NOFOLLOW |
 * O_CLOEXEC (never over an existing file, never through a symlink someone planted), mode
 * 0600 (traces hold kernel addresses, command lines, environments: perf writes 0600 too),
 * given to the owner outfile_set_owner() names, if any.
 *
 * An output the user asked for is either complete or not there: outfile_open() writes it
 * under a temporary name beside its target (".<name>.XXXXXX", same directory, so the rename
 * stays on one file system), and only outfile_commit() (flush, fsync, rename) gives it the
 * target's name; a failure, an abort or a kill never leaves a half-written file under that
 * name, and an earlier file of that name stays as it was until the new one is complete.
 *
 *	struct outfile *o = outfile_open("x.svg");
 *	fprintf(outfile_stream(o), ...);	(or write(outfile_fd(o), ...))
 *	if (outfile_commit(o) < 0) ... (pc_strerror() says why; nothing was renamed)
 *
 * A file that grows in place while a collection runs and must outlive a kill of the
 * collector (perf.data, a runtime's .nettrace, the log) is made by outfile_create() instead,
 * as are the copies of outfile_copy() (bounded: at most the bytes the caller states) into a
 * trace's working directory, which the archive takes in whole.
 *
 * Also here: the checks that keep an output off an input (outfile_check_target()).
 */
#ifndef PC_OUTFILE_H
#define PC_OUTFILE_H

#include "util.h"
#include <sys/types.h>

/* Who owns every file made after this call (fchown; (uid_t)-1 and (gid_t)-1: whoever we
 * run as, the default).  For a root collector run under sudo, the user who ran it. */
void outfile_set_owner(uid_t uid, gid_t gid);
/* Under sudo (real uid 0, SUDO_UID and SUDO_GID set to numbers), the user who ran sudo owns
 * every file made from now on: the archive, the .nettrace, reports, flame graphs.  Directories
 * are not given away: a trace directory a user owned could have its files swapped for
 * symlinks while root works in it.  Returns the uid given, or -1 when none. */
long outfile_owner_from_sudo(void);

struct outfile;

/* NULL with pc_err() when the temporary file cannot be created. */
struct outfile *outfile_open(const char *path);
/* The same with OUTFILE_OURS (the only flag it takes). */
struct outfile *outfile_open_flags(const char *path, int flags);
/* The file as a stream (made on first use) or as an fd; write through one of them. */
FILE *outfile_stream(struct outfile *o);
int outfile_fd(const struct outfile *o);
/* The temporary file's name (for writers that need a path, e.g. libzip). */
const char *outfile_temp_path(const struct outfile *o);
/* Flushes, syncs and renames over the target, then frees o.  -1 with pc_err() on any
 * failure, and then the temporary file is removed and the target is untouched. */
int outfile_commit(struct outfile *o);
/* As outfile_commit(), but only where nothing has the target's name yet (link(), not
 * rename()): -1 with errno EEXIST when something has, and the temporary file is removed.
 * Of two writers of one name, one wins (start's claim on a background collection's name). */
int outfile_commit_new(struct outfile *o);
/* Removes the temporary file and frees o (NULL is fine). */
void outfile_abort(struct outfile *o);
/* The whole of an output written by write(stream, arg): to standard output for path "-",
 * else through outfile_open() and outfile_commit(), nothing left at path when write()
 * returns non-zero (after pc_err()) or the commit fails.  0 or -1. */
int outfile_write(const char *path, int (*write)(FILE *out, const void *arg), const void *arg);

enum {
	OUTFILE_REPLACE = 1, /* remove what has the name first (a file we made before) */
	OUTFILE_APPEND = 2,  /* O_APPEND, and keep an existing regular file (not O_EXCL) */
	OUTFILE_OURS = 4,    /* not given to the owner set: bookkeeping a later run of ours
				trusts (start/stop's state), which its reader must not rewrite */
};
/* Creates path itself, with the rule above (flags: OUTFILE_*); returns a write-only fd or
 * -1 with pc_err(). */
int outfile_create(const char *path, int flags);

/* Copies src (from its current offset) to dest, at most max bytes (the size the caller saw
 * at open, or its cap), made by outfile_create(dest, OUTFILE_REPLACE); a copy that fails
 * leaves nothing under that name.  *copied (may be NULL) gets the bytes copied. */
int outfile_copy(int src, const char *dest, uint64_t max, uint64_t *copied);
/* The copy loop itself, into an fd of ours: from an fd, or from a stream (a zip entry,
 * whose reader says why a read failed). */
int file_copy_fd(int dst, int src, uint64_t max, uint64_t *copied);
int file_copy_stream(int dst, FILE *src, uint64_t max, uint64_t *copied);

/* A download that may take several runs: written under "<path>.part<tag>" (tag names
 * where it comes from, so that two sources' halves never meet), appended to where an
 * earlier run left it (*have: its size then), renamed to path by outfile_commit().
 * outfile_suspend() closes it and keeps the part for the next run; outfile_abort()
 * removes it.  NULL with pc_err() when it cannot be opened. */
struct outfile *outfile_resume(const char *path, const char *tag, uint64_t *have);
void outfile_suspend(struct outfile *o);

/* Whether a and b name the same existing file (device and inode). */
bool same_file(const char *a, const char *b);

/* Refuses (-1, one pc_err() line naming what to do instead) to write `what` (e.g. "the
 * flame graph") to `path` when path is one of the inputs (same file, NULL-terminated
 * list) or names a trace archive (*.trace.zip), which only collect and merge write. */
int outfile_check_target(const char *path, const char *what, const char *const *inputs);

#endif
