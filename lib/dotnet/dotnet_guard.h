/* dotnet_guard: a helper process that undoes what a collector or stacks asked of .NET
 * runtimes if it dies without undoing it (SIGKILL, an OOM kill, a crash): the one guardian
 * of every change we make in a target.
 *
 * What it undoes: an EventPipe session (a runtime ends a streaming session on StopTracing,
 * at its own exit, or when writing to its stream fails, and it writes only when it has
 * events: a quiet process would keep the session of a dead collector open); perf maps
 * collect turned on (DisablePerfMap); maps stacks borrowed (DisablePerfMap, the
 * environment variable as it was, the private directory removed: dotnet_give_back_maps()).
 * Each is told to the guard before the change is made, and with the target's start time;
 * the guard pins the process when it learns of it (base/proc's proc_pin(): a pidfd, where
 * the kernel has them, taken only when the start time is the one told) and acts on a pid
 * only while that pin says it is still that process (a pid reused within the same clock
 * tick has the same start time, not the same pidfd).  What remains: the pin is checked
 * before each undo, whose requests then go by pid (a socket path, /proc/PID/root); a
 * process that exits during an undo and whose pid is taken meanwhile could receive the
 * rest of it (each request waits at most 2 s).  The one thing undone for a process that
 * is gone is our own directory: the guard opens its parent when it is told of it, while the
 * process is pinned, and removes it through that descriptor (the target's /tmp outlives the
 * target: a container's overlay, or a /tmp it shares with the host).
 *
 * The guard is forked before the caller starts threads, in its own session (a Ctrl+C or a
 * kill of the caller's process group does not reach it), holding nothing but one end of a
 * socket pair.  When the socket reports the caller gone, the guard undoes what is still
 * noted, then exits.
 */
#ifndef PC_DOTNET_GUARD_H
#define PC_DOTNET_GUARD_H

#include "base/util.h"
#include <sys/types.h>

struct dotnet_guard;

/* Forks the guard.  Call while the process has one thread.  NULL with pc_err() when it
 * cannot (the work goes on unguarded). */
struct dotnet_guard *dotnet_guard_start(void);
/* An EventPipe session opened (open) or ended in pid (started at start: proc_start_time). */
void dotnet_guard_session(struct dotnet_guard *g, pid_t pid, uint64_t start, uint64_t session,
			  bool open);
/* Perf maps about to be turned on in pid (on), or off again. */
void dotnet_guard_perfmap(struct dotnet_guard *g, pid_t pid, uint64_t start, bool on);
/* Maps about to be borrowed (on): written into dir (as the target sees it, made by us),
 * DOTNET_PerfMapJitDumpPath set where it was old_path (NULL: unset); or given back. */
void dotnet_guard_borrow(struct dotnet_guard *g, pid_t pid, uint64_t start, const char *dir,
			 const char *old_path, bool on);
/* Everything is undone or given back: the guard exits; waits for it.  NULL is fine. */
void dotnet_guard_finish(struct dotnet_guard *g);
pid_t dotnet_guard_pid(const struct dotnet_guard *g);

/* Gives borrowed maps back: DisablePerfMap, DOTNET_PerfMapJitDumpPath set to old_path
 * again (NULL: unset), dir and what the runtime wrote into it removed.  Every step is
 * tried; 0, or -1 with pc_err() naming the first that failed.  parent_fd: dir's parent
 * directory, opened while the process was pinned (-1: opened now through /proc/PID/root).
 * alive false: the process is gone (its pid may be another's): no request is sent, only
 * the directory is removed, and only through parent_fd. */
int dotnet_give_back_maps(pid_t pid, int parent_fd, const char *dir, const char *old_path,
			  bool alive);

#endif
