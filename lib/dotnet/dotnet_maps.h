/* dotnet_maps: makes a live .NET process name its managed code for us, asking its runtime
 * over the diagnostics IPC only for what it is not writing already, and puts it back after.
 *
 * What names managed code: the runtime's jitdump (jit-<pid>.dump: JIT'd methods, stubs and,
 * when written on request, the ReadyToRun methods already in use) and its perf map
 * (perf-<pid>.map: JIT'd methods and stubs, never ReadyToRun code).  EnablePerfMap
 * (.NET 8+) makes the runtime write the methods it has already compiled too, but it opens
 * each file it starts anew with O_TRUNC: asking for a file that exists throws away what
 * it held (the stubs it reported at startup are never reported again).  So:
 *
 *   jitdump being written             nothing is asked
 *   perf map being written, no        the jitdump alone (type JITDUMP), if the process's
 *     jitdump                         environment asked for one (DOTNET_PerfMapEnabled 1
 *                                     or 2: the runtime gave up writing it, as .NET 10
 *                                     does at startup); it stays on afterwards, since
 *                                     DisablePerfMap would stop the perf map too.  With a
 *                                     perf map alone by choice (=3) nothing is asked and a
 *                                     warning says ReadyToRun frames stay unnamed.
 *   nothing being written             both (ALL) when neither perf-<pid>.map nor
 *                                     perfinfo-<pid>.map exists (nothing to truncate;
 *                                     the map keeps naming new code should the jitdump
 *                                     fail), else the jitdump alone; turned off again
 *                                     afterwards (DisablePerfMap).
 *
 * "Being written" is what the runtime has open (its fds), not what its environment says.
 * A jitdump that is not being written is the runtime's own abandoned or finished file and
 * is restarted (truncated) by EnablePerfMap; a perf map never is.  Files the runtime
 * creates on request stay where it wrote them, as the runtime leaves them.
 *
 * Used by `collect -pid` (dotnet_target.c) and by `stacks` for managed frame names.
 * Messages go to the log (log_info) and, for what the user should know, to the screen
 * (log_say / log_warn).
 */
#ifndef PC_DOTNET_MAPS_H
#define PC_DOTNET_MAPS_H

#include "dotnet_guard.h"
#include "dotnet_ipc.h"

struct dotnet_maps {
	pid_t pid;
	bool runtime;		  /* a .NET runtime is loaded in pid */
	bool had_perfmap;	  /* the runtime was writing its perf map when we looked */
	bool had_jitdump;	  /* ... its jitdump */
	int asked;		  /* enum dotnet_perfmap_type we sent EnablePerfMap with; 0: none */
	bool disable_after;	  /* dotnet_maps_restore() sends DisablePerfMap */
	uint64_t jitdump_records; /* records in the abandoned jitdump we restarted */
	uint64_t start;		  /* pid's start time, for the guard */
	struct dotnet_guard *guard;
};

/* Looks at pid and, when may_ask, asks its runtime for what is missing (see above).
 * Returns 1 when the runtime now writes a jitdump (all managed code can be named), 0 when
 * some or all managed frames will be unnamed (said once with log_warn and how to fix it)
 * or pid runs no .NET (a log line).  Never fails the caller's work.  Maps to be turned off
 * afterwards are told to the guard g (NULL: none) before they are turned on. */
int dotnet_maps_ensure(pid_t pid, bool may_ask, struct dotnet_guard *g, struct dotnet_maps *m);

/* After the work: turns off what dotnet_maps_ensure() turned on, where that changes
 * nothing else; logs when the runtime gave up a jitdump we restarted.  Idempotent; a
 * process that exited meanwhile is fine. */
void dotnet_maps_restore(struct dotnet_maps *m);

/* The runtime in pid holds the file at fd open (same device and inode) right now. */
bool dotnet_holds_open(pid_t pid, int fd);

#endif
