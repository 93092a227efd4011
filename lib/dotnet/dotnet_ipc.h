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

#include "base/bytebuf.h"
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

/* How long one exchange (connect, the request and the whole answer) may take before the call
 * gives up: 10 s unless set.  One deadline for all of it: a runtime that never answers, or
 * answers a byte at a time, costs at most this per call. */
void dotnet_ipc_set_timeout_ms(int ms);

/* EnablePerfMap: the runtime starts writing maps of the given type, including every method
 * it has already compiled or loaded.  DisablePerfMap stops it (the files stay). */
int dotnet_enable_perfmap(pid_t pid, enum dotnet_perfmap_type type);
int dotnet_disable_perfmap(pid_t pid);

/* Was pid started with perf maps on (DOTNET_PerfMapEnabled or COMPlus_PerfMapEnabled set
 * to a value other than 0 in its initial environment)? */
bool dotnet_perfmap_enabled_by_env(pid_t pid);
/* That setting as the runtime reads it (hexadecimal; DOTNET_ before COMPlus_): 0 when unset,
 * else enum dotnet_perfmap_type's values (other numbers as they are). */
unsigned dotnet_perfmap_env_type(pid_t pid);

/* The answers' parsers, apart from the socket (each reply is untrusted input; the fuzz
 * harness tests/fuzz/fuzz_dotnet_ipc.c drives them).  A reply is a 20-byte header, then the
 * payload:
 * dotnet_ipc_reply_header(): checks the header's magic and size; the payload size it
 *   announces, or SIZE_MAX with pc_err().
 * dotnet_ipc_reply_status(): 0 for a Server OK reply, else -1 with pc_err() naming the error.
 * dotnet_ipc_hresult(): an OK payload that is an HRESULT: 0 when it says success.
 * dotnet_process_info_parse(): a ProcessInfo2 payload; on failure *info is empty.
 * `what` names the command and pid the process in messages. */
size_t dotnet_ipc_reply_header(const unsigned char *hdr, const char *what);
int dotnet_ipc_reply_status(const unsigned char *hdr, const unsigned char *payload, size_t len,
			    const char *what, pid_t pid);
int dotnet_ipc_hresult(const unsigned char *payload, size_t len, const char *what, pid_t pid);
int dotnet_process_info_parse(const unsigned char *payload, size_t len,
			      struct dotnet_process_info *info);

/* Opens one of the files pid's runtime writes (name_fmt has one %d for the pid in the
 * target's namespace, e.g. "jit-%d.dump") in its map directory (DOTNET_PerfMapJitDumpPath,
 * else /tmp) below /proc/<pid>/root, as safe_open_in_root() opens a target's files.
 * *shown gets the path for messages (malloc'd, also on failure).  Returns an fd or -1, with
 * errno ENOENT when nothing is there (see safe_open_in_root()). */
int dotnet_open_map_file(pid_t pid, const char *name_fmt, char **shown);

/* One command of any command set (e.g. EventPipe's, see eventpipe_session.h) with a payload
 * the caller encoded: the header is added here.  On a Server OK answer returns 0 with its
 * payload in *answer (malloc'd, *answer_len bytes); when stream_fd is not NULL the
 * connection stays open for the continuation that follows the answer (an EventPipe
 * session's stream) and its fd goes to *stream_fd (blocking, with the send and receive
 * timeouts of every command).  -1 with pc_err() otherwise. */
int dotnet_ipc_call(pid_t pid, uint8_t cmdset, uint8_t cmdid, const void *payload,
		    size_t payload_len, const char *what, unsigned char **answer,
		    size_t *answer_len, int *stream_fd);

/* Appends s as the protocol's string to a payload: a uint32 count of UTF-16 units with the
 * terminating NUL, then the units and the NUL; NULL as the count 0 alone (no string: the
 * runtime takes it as none).  -1 with pc_err() when s is not valid UTF-8. */
int dotnet_ipc_put_string(struct bytebuf *b, const char *s);

/* The two halves of dotnet_ipc_call(), for a command whose answer may take long and must
 * not block the caller (StopTracing answers only after the session's rundown went out on
 * its stream, which the caller must go on reading): dotnet_ipc_send() connects and sends,
 * returning the connection's fd (-1 with pc_err()); dotnet_ipc_answer() reads the answer
 * from it (the fd stays open: the caller closes it). */
int dotnet_ipc_send(pid_t pid, uint8_t cmdset, uint8_t cmdid, const void *payload,
		    size_t payload_len, const char *what);
int dotnet_ipc_answer(int fd, pid_t pid, const char *what, unsigned char **answer,
		      size_t *answer_len);

/* What `collect -pid` calls before recording (dotnet_target.c, on top of dotnet_maps.h):
 * makes the runtime of a .NET process write what names its managed code, asking it over the
 * IPC (when enable_ipc) only for what it is not writing already, never truncating a file
 * it writes; says on screen what it asked and, where frames will stay unnamed, why and how
 * to fix it.  Not a .NET process: a log line.  Returns 1 when something was asked
 * (dotnet_finish_target() then puts it back), 0 otherwise; the collection goes on either
 * way.  What is to be undone is told to the guard g first (dotnet_guard.h; NULL: none). */
struct dotnet_guard;
int dotnet_prepare_target(pid_t pid, bool enable_ipc, struct dotnet_guard *g);

/* After recording stopped: undoes what dotnet_prepare_target() asked (DisablePerfMap where
 * that turns off only what was asked); nothing otherwise.  A target that exited meanwhile
 * is fine. */
void dotnet_finish_target(pid_t pid);

#endif
