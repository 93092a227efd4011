/* outfile: an output file that is either complete or not there.  It is written under a
 * temporary name beside its target (".<name>.XXXXXX", same directory, so the rename stays
 * on one file system) and renamed over the target only by outfile_commit(); a failure, an
 * abort or a kill never leaves a half-written file under the target's name, and an earlier
 * file of that name stays as it was until the new one is complete.
 *
 *	struct outfile *o = outfile_open("x.svg");
 *	fprintf(outfile_stream(o), ...);
 *	if (outfile_commit(o) < 0) ... (pc_strerror() says why; nothing was renamed)
 *
 * Also here: the checks that keep an output off an input (outfile_check_target()).
 */
#ifndef PC_OUTFILE_H
#define PC_OUTFILE_H

#include "util.h"

struct outfile;

/* NULL with pc_err() when the temporary file cannot be created. */
struct outfile *outfile_open(const char *path);
FILE *outfile_stream(struct outfile *o);
/* The temporary file's name (for writers that need a path, e.g. libzip). */
const char *outfile_temp_path(const struct outfile *o);
/* Flushes, syncs and renames over the target, then frees o.  -1 with pc_err() on any
 * failure, and then the temporary file is removed and the target is untouched. */
int outfile_commit(struct outfile *o);
/* Removes the temporary file and frees o (NULL is fine). */
void outfile_abort(struct outfile *o);

/* Whether a and b name the same existing file (device and inode). */
bool same_file(const char *a, const char *b);

/* Refuses (-1, one pc_err() line naming what to do instead) to write `what` (e.g. "the
 * flame graph") to `path` when path is one of the inputs (same file, NULL-terminated
 * list) or names a trace archive (*.trace.zip), which only collect and merge write. */
int outfile_check_target(const char *path, const char *what, const char *const *inputs);

#endif
