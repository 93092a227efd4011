/* eventpipe_session: one EventPipe session in a running .NET process, over its diagnostics
 * IPC (dotnet/diagnostics ipc-protocol.md, EventPipe command set).
 *
 * eventpipe_session_start() asks the runtime for a streaming session with the given
 * providers: CollectTracing5 (.NET 10+), which also filters by event id, else
 * CollectTracing2 (.NET 5+), keywords and levels only.  The answer's connection then carries
 * the session's NetTrace stream (lib/nettrace) until the runtime closes it.
 * eventpipe_session_stop_send() sends StopTracing on a second connection: the runtime writes
 * the rundown (method and module names, when asked for), ends the stream and closes it.
 *
 * A session lives in the runtime until StopTracing, the process's exit, or the first
 * write to a stream whose reader is gone; dotnet_guard.h covers the reader dying.
 * For any tool that wants a session (collect, stacks): start, read s->fd (e.g. with
 * nettrace_reader over it) until EOF or enough, stop, read to EOF, close.
 */
#ifndef PC_EVENTPIPE_SESSION_H
#define PC_EVENTPIPE_SESSION_H

#include "base/util.h"
#include <sys/types.h>

/* EventSource levels. */
enum {
	EVENTPIPE_LEVEL_LOGALWAYS = 0,
	EVENTPIPE_LEVEL_CRITICAL = 1,
	EVENTPIPE_LEVEL_ERROR = 2,
	EVENTPIPE_LEVEL_WARNING = 3,
	EVENTPIPE_LEVEL_INFORMATIONAL = 4,
	EVENTPIPE_LEVEL_VERBOSE = 5,
};

/* The rundown keywords CollectTracing2's requestRundown stands for (loader, JIT, NGen, end
 * rundown, IL maps, threading). */
#define EVENTPIPE_RUNDOWN_DEFAULT 0x80020139ULL

struct eventpipe_provider {
	char *name;
	uint64_t keywords;
	uint32_t level;
	char *args; /* "key=value;..." or NULL */
	/* Only these event ids (CollectTracing5; older runtimes record every event the
	 * keywords and level enable); nids 0: all. */
	uint32_t *ids;
	size_t nids;
};

struct eventpipe_config {
	struct eventpipe_provider *providers;
	size_t nproviders, cap;
	uint32_t buffer_mb;	   /* the runtime's buffer for the session; 0: 256 */
	uint64_t rundown_keywords; /* 0: no rundown at the end */
	bool no_stacks;		   /* events without managed call stacks */
};

/* The provider named name (case-insensitive), added with nothing enabled if absent. */
struct eventpipe_provider *eventpipe_config_provider(struct eventpipe_config *c, const char *name);
void eventpipe_config_release(struct eventpipe_config *c);
/* "Name:0xKEYWORDS:LEVEL[ ids N,N...]" per provider, for the log; malloc'd. */
char *eventpipe_config_describe(const struct eventpipe_config *c);

struct eventpipe_session {
	pid_t pid;
	uint64_t id; /* the runtime's session id, for StopTracing */
	int fd;	     /* the NetTrace stream; blocking */
	int command; /* 5 or 2: the CollectTracing the runtime took */
};

/* Starts a session in pid.  -1 with pc_err() when the runtime cannot (no socket, older
 * than .NET 5, diagnostics disabled, a provider string it rejects). */
int eventpipe_session_start(pid_t pid, const struct eventpipe_config *c,
			    struct eventpipe_session *s);
/* StopTracing, in two halves: the runtime answers only after the rundown went out on the
 * session's stream, so the caller must go on reading s->fd (to its end) meanwhile.
 * _send() returns the fd the answer comes on (-1 with pc_err()); _answer() reads it and
 * closes the fd. */
int eventpipe_session_stop_send(const struct eventpipe_session *s);
int eventpipe_session_stop_answer(const struct eventpipe_session *s, int fd);
void eventpipe_session_close(struct eventpipe_session *s);

/* The message payloads, exposed for the unit tests: malloc'd, *len bytes; NULL with
 * pc_err() when a string cannot be sent (not ASCII) or the message is too long. */
unsigned char *eventpipe_encode_collect(const struct eventpipe_config *c, int command, size_t *len);

#endif
