/* unnamed: the frames a trace left unnamed inside ELF files (stripped where it was
 * symbolized), counted by file, and said in one line with the build-ids perf.data keeps for
 * those files: what a symbol server could name, and what `merge` fetches on a machine that
 * reaches one (symbols/symsrv.h).  Frames of anonymous memory, JIT code and unknown
 * addresses are not a file's and are left out. */
#ifndef PC_UNNAMED_H
#define PC_UNNAMED_H

#include "pprof.h"

struct unnamed;

struct unnamed *unnamed_new(void);
void unnamed_free(struct unnamed *u);
/* One frame as perf.data.txt gives it. */
void unnamed_frame(struct unnamed *u, const char *sym, const char *dso);
/* "N of M frames are unnamed in files without symbols: file count (build-id ...), ...", the
 * files by count, and how merge names them; nothing when no frame is.  ids: the build-ids
 * of the trace (view_read_build_ids()), n of them. */
void unnamed_print(const struct unnamed *u, const struct pprof_build_id *ids, size_t n,
		   const char *input, FILE *f);

#endif
