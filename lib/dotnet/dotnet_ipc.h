/* dotnet_ipc: the .NET runtime's diagnostics IPC, for turning its perf maps on and off in a
 * process that is already running (no restart, no DOTNET_PerfMapEnabled in its environment).
 *
 * The runtime (CoreCLR, .NET 5+) listens on a Unix socket in its own temporary directory:
 * $TMPDIR or /tmp, named dotnet-diagnostic-<nspid>-<start time>-socket.  A target in a
 * container is reached through /proc/<pid>/root, so the socket is the container's own; the
 * path is walked without following symlinks and the socket must belong to the target's uid.
 * Each command is one connection: a 20-byte header ("DOTNET_IPC_V1", size, command set,
 * command id), a payload, one reply.  EnablePerfMap / DisablePerfMap exist since .NET 8.
 *
 * dotnet_prepare_target() and dotnet_finish_target() are what `collect -pid` calls; the other
 * functions are the pieces, for tests and other commands.  All return -1 with pc_err() on
 * failure, and never block longer than a few seconds on a runtime that does not answer.
 */
#ifndef PC_DOTNET_IPC_H
#define PC_DOTNET_IPC_H

#include "base/util.h"
#include <sys/types.h>

/* The runtime's PerfMapType (what EnablePerfMap writes). */
enum dotnet_perfmap_type {
	DOTNET_PERFMAP_ALL = 1,	    /* perf-<pid>.map and jit-<pid>.dump */
	DOTNET_PERFMAP_JITDUMP = 2, /* jit-<pid>.dump only */
	DOTNET_PERFMAP_PERFMAP = 3, /* perf-<pid>.map only */
};

/* Is a CoreCLR runtime loaded in pid (libcoreclr.so in its mappings, or, for single-file
 * apps that link it in, a diagnostics socket of its own)? */
bool dotnet_runtime_present(pid_t pid);

/* The diagnostics socket of pid as this process reaches it
 * ("/proc/<pid>/root/tmp/dotnet-diagnostic-<nspid>-<key>-socket"), malloc'd; NULL with
 * pc_err() saying why when there is none (runtime absent, diagnostics disabled, ...). */
char *dotnet_socket_path(pid_t pid);

/* What ProcessInfo2 (.NET 7+) reports; strings are UTF-8, malloc'd, never NULL. */
struct dotnet_process_info {
	uint64_t nspid; /* the process id in its own pid namespace */
	char *command_line;
	char *os, *arch;
	char *entry_assembly; /* managed entry point assembly name */
	char *version;	      /* runtime product version, e.g. "10.0.12" */
};
int dotnet_process_info(pid_t pid, struct dotnet_process_info *info);
void dotnet_process_info_free(struct dotnet_process_info *info);

/* Sets an environment variable inside the runtime (SetEnvironmentVariable, .NET 6+); the
 * runtime reads some settings (e.g. DOTNET_PerfMapStubGranularity) only when it uses them.
 * value NULL removes the variable. */
int dotnet_set_env(pid_t pid, const char *name, const char *value);

/* How long each IPC step (connect, send, the answer) may take before the call gives up:
 * 10 s unless set.  A runtime that never answers costs at most this per call. */
void dotnet_ipc_set_timeout_ms(int ms);

/* NAME's value in pid's initial environment (/proc/<pid>/environ), malloc'd; NULL when
 * unset or unreadable.  Changes the process made since are not seen. */
char *dotnet_target_getenv(pid_t pid, const char *name);

/* Opens directory dir (absolute, as the target sees it) below /proc/<pid>/root, one
 * component at a time and never through a symlink, so a planted link cannot lead out of
 * the target's root.  Returns an O_PATH fd, or -1 with pc_err(). */
int dotnet_open_target_dir(pid_t pid, const char *dir);

/* EnablePerfMap: the runtime starts writing maps of the given type, including every method
 * it has already compiled or loaded.  DisablePerfMap stops it (the files stay). */
int dotnet_enable_perfmap(pid_t pid, enum dotnet_perfmap_type type);
int dotnet_disable_perfmap(pid_t pid);

/* Was pid started with perf maps on (DOTNET_PerfMapEnabled or COMPlus_PerfMapEnabled set
 * to a value other than 0 in its initial environment)? */
bool dotnet_perfmap_enabled_by_env(pid_t pid);

/* Opens one of the files pid's runtime writes (name_fmt has one %d for the pid in the
 * target's namespace, e.g. "jit-%d.dump") in its map directory (DOTNET_PerfMapJitDumpPath,
 * else /tmp) below /proc/<pid>/root: no symlinks, a regular file of the target's uid.
 * *shown gets the path for messages (malloc'd, also on failure).  Returns an fd or -1. */
int dotnet_open_map_file(pid_t pid, const char *name_fmt, char **shown);

/* What `collect -pid` calls before recording (lib/dotnet_target.c).  A .NET process whose
 * maps are off: asks its runtime to write them (when enable_ipc), says so on screen and in
 * the log, and remembers to turn them off again; where that is impossible (old runtime, no
 * socket, enable_ipc false) warns that managed frames will be unnamed and how to fix it.
 * Maps on from its environment: they stay on, but a jitdump the runtime gave up writing is
 * restarted over IPC (ReadyToRun methods are named only there).  Not a .NET process: a log
 * line.  Returns 1 when maps were enabled over IPC (dotnet_finish_target() turns them off),
 * 0 otherwise; the collection goes on either way. */
int dotnet_prepare_target(pid_t pid, bool enable_ipc);

/* After recording stopped: DisablePerfMap for a process dotnet_prepare_target() enabled;
 * nothing otherwise.  A target that exited meanwhile is fine. */
void dotnet_finish_target(pid_t pid);

#endif
