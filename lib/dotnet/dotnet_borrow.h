/* dotnet_borrow: a .NET process's JIT maps for one look at its stacks, borrowed and given back.
 *
 * A runtime that already writes a perf map or a jitdump (it holds the file open) is left
 * alone: its own files are read where they are.  One that writes neither is asked over the
 * diagnostics IPC to write both into a private directory made for the purpose inside its
 * /tmp (SetEnvironmentVariable DOTNET_PerfMapJitDumpPath, then EnablePerfMap), so no file the
 * target or anyone else owns is created, truncated or appended to.  dotnet_return_maps()
 * undoes it all: DisablePerfMap, the variable as it was, the directory removed; and so does
 * the guard (dotnet_guard.h), told before the runtime is changed, if we are killed first.
 *
 * Every IPC step has a short timeout.  A runtime that does not answer costs at most that
 * per step; what was sent is still carried out, in order, if it ever answers (the server
 * serves one connection at a time), so the undo steps are sent even after a timeout.
 */
#ifndef PC_DOTNET_BORROW_H
#define PC_DOTNET_BORROW_H

#include "base/util.h"
#include "dotnet_guard.h"
#include <sys/types.h>

struct dotnet_borrowed {
	bool runtime;	     /* a CoreCLR runtime is loaded */
	char *dir;	     /* where its maps are, as the target sees it; NULL: none to read */
	bool writes_perfmap; /* the runtime held its perf map open before we came */
	bool writes_jitdump; /* ... its jitdump */
	bool borrowed;	     /* we asked for maps: dotnet_return_maps() must undo it */
	char *why;	     /* why there are no maps (or no jitdump), for the report; or NULL */
	char *done;	     /* what was asked of the runtime, for the report; or NULL */
	/* private */
	char *old_path;	   /* DOTNET_PerfMapJitDumpPath before, NULL when unset */
	char *private_dir; /* the directory we made, as the target sees it */
	int tmp_fd;	   /* its parent, opened while the target ran; or -1 */
	int timeout_ms;
	uint64_t start;		    /* the target's start time, for the guard */
	struct dotnet_guard *guard; /* or NULL */
};

/* Finds or borrows pid's maps (see above), the borrowing told to g first (NULL: none).
 * Never fails: what could not be done is in
 * m->why, and m->dir is NULL when there is nothing to read. */
void dotnet_borrow_maps(pid_t pid, int timeout_ms, struct dotnet_guard *g,
			struct dotnet_borrowed *m);
/* Gives borrowed maps back; a no-op otherwise.  Sets m->why when the runtime could not be
 * restored (it says what is left).  alive false: pid is gone (and may name another process
 * now): nothing is asked of it, only our directory is removed from the /tmp it had. */
void dotnet_return_maps(pid_t pid, struct dotnet_borrowed *m, bool alive);
void dotnet_borrowed_free(struct dotnet_borrowed *m);

#endif
