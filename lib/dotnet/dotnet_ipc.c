/* dotnet_ipc: see dotnet_ipc.h.  Protocol: dotnet/diagnostics ipc-protocol.md. */
#include "dotnet_ipc.h"
#include "base/span.h"
#include "base/utf16.h"
#include "base/log.h"
#include "base/proc.h"
#include "base/proc_maps.h"
#include "base/safe_open.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#define IPC_MAGIC      "DOTNET_IPC_V1" /* 13 characters and a NUL: 14 bytes */
#define IPC_MAGIC_LEN  14
#define IPC_HEADER_LEN 20
/* The largest map file of the runtime's looked at (symbols_jit.h's JIT_FILE_MAX). */
#define MAP_FILE_MAX (4ull << 30)
/* EnablePerfMap writes every existing method before it answers: 10 s unless a caller that
 * must not wait (stacks) asks for less. */
static int ipc_timeout_ms = 10000;

enum { CMDSET_PROCESS = 0x04, CMDSET_SERVER = 0xFF };
enum {
	PROCESS_SET_ENV = 0x03,
	PROCESS_INFO2 = 0x04,
	PROCESS_ENABLE_PERFMAP = 0x05,
	PROCESS_DISABLE_PERFMAP = 0x06,
};
enum { SERVER_OK = 0x00, SERVER_ERROR = 0xFF };

/* The diagnostics server's own HRESULTs. */
#define E_BAD_ENCODING	  0x80131384u
#define E_UNKNOWN_COMMAND 0x80131385u
#define E_UNKNOWN_MAGIC	  0x80131386u

/* ---- what /proc says about the target ---------------------------------------------------- */

bool dotnet_runtime_present(pid_t pid)
{
	struct proc_maps *m = proc_maps_open(pid);
	if (!m)
		return false;
	bool found = false;
	for (struct proc_map map; !found && proc_maps_next(m, &map);)
		found = str_endswith(map.path, "/libcoreclr.so");
	proc_maps_close(m);
	if (!found) { /* a single-file app has the runtime linked in: its socket tells */
		char *socket = dotnet_socket_path(pid);
		found = socket != NULL;
		free(socket);
	}
	return found;
}

bool dotnet_perfmap_enabled_by_env(pid_t pid)
{
	static const char *const names[] = {"DOTNET_PerfMapEnabled", "COMPlus_PerfMapEnabled"};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char *v = proc_getenv(pid, names[i]);
		bool on = v && *v && strcmp(v, "0");
		free(v);
		if (on)
			return true;
	}
	return false;
}

unsigned dotnet_perfmap_env_type(pid_t pid)
{
	static const char *const names[] = {"DOTNET_PerfMapEnabled", "COMPlus_PerfMapEnabled"};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char *v = proc_getenv(pid, names[i]);
		if (!v)
			continue;
		unsigned long type = strtoul(v, NULL, 16); /* CLRConfig reads numbers as hex */
		free(v);
		return type > UINT32_MAX ? UINT32_MAX : (unsigned)type;
	}
	return 0;
}

/* Did the target's environment turn the diagnostics server off? */
static bool diagnostics_disabled(pid_t pid)
{
	static const char *const names[] = {"DOTNET_EnableDiagnostics", "COMPlus_EnableDiagnostics",
					    "DOTNET_EnableDiagnostics_IPC"};
	bool off = false;
	for (size_t i = 0; i < ARRAY_SIZE(names) && !off; i++) {
		char *v = proc_getenv(pid, names[i]);
		off = v && !strcmp(v, "0");
		free(v);
	}
	return off;
}

/* ---- finding the socket ------------------------------------------------------------------ */

/* Parses "dotnet-diagnostic-<nspid>-<key>-socket"; true with *key set when it is nspid's. */
static bool socket_name_key(const char *name, pid_t nspid, unsigned long long *key)
{
	char prefix[64];
	snprintf(prefix, sizeof(prefix), "dotnet-diagnostic-%d-", (int)nspid);
	if (!str_startswith(name, prefix) || !str_endswith(name, "-socket"))
		return false;
	const char *p = name + strlen(prefix);
	char *end;
	errno = 0;
	unsigned long long v = strtoull(p, &end, 10);
	if (end == p || errno || strcmp(end, "-socket"))
		return false;
	*key = v;
	return true;
}

struct target_socket {
	int dirfd;	/* O_PATH fd of the directory holding it */
	char name[256]; /* its name there */
	char *shown;	/* the path as we reach it, for messages */
	uid_t uid;	/* the target's uid */
};

/* Finds pid's diagnostics socket.  Of several candidates (stale sockets of an earlier
 * process with the same pid), the one whose key is this process's start time wins, else
 * the newest. */
static int find_socket(pid_t pid, struct target_socket *ts)
{
	struct proc_status ps;
	if (proc_status(pid, &ps) < 0)
		return -1;
	pid_t nspid = ps.nspid; /* the runtime names its socket with its own pid */
	ts->uid = ps.uid;
	char *tmpdir = proc_getenv(pid, "TMPDIR");
	if (!tmpdir || tmpdir[0] != '/') { /* the runtime falls back to /tmp too */
		free(tmpdir);
		tmpdir = xstrdup("/tmp");
	}
	ts->shown = NULL;
	ts->dirfd = root_open_dir(pid, tmpdir);
	if (ts->dirfd < 0)
		goto fail;
	int listfd = openat(ts->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = listfd < 0 ? NULL : fdopendir(listfd);
	if (!d) {
		pc_err_errno("cannot list /proc/%d/root%s", (int)pid, tmpdir);
		if (listfd >= 0)
			close(listfd);
		goto fail;
	}
	/* the runtime's "disambiguation key" in the socket name: the process's start time */
	unsigned long long want = proc_start_time(pid), best = 0;
	bool found = false;
	for (struct dirent *e; (e = readdir(d));) {
		unsigned long long key;
		if (!socket_name_key(e->d_name, nspid, &key) ||
		    strlen(e->d_name) >= sizeof(ts->name))
			continue;
		if (found && best == want)
			continue;
		if (!found || key == want || key > best) {
			snprintf(ts->name, sizeof(ts->name), "%s", e->d_name);
			best = key;
			found = true;
		}
	}
	closedir(d);
	if (!found) {
		pc_err("no diagnostics socket dotnet-diagnostic-%d-*-socket in /proc/%d/root%s%s",
		       (int)nspid, (int)pid, tmpdir,
		       diagnostics_disabled(pid)
			   ? " (DOTNET_EnableDiagnostics=0 in its environment)"
			   : "");
		goto fail;
	}
	ts->shown = xasprintf("/proc/%d/root%s%s%s", (int)pid, tmpdir,
			      str_endswith(tmpdir, "/") ? "" : "/", ts->name);
	free(tmpdir);
	return 0;
fail:
	if (ts->dirfd >= 0)
		close(ts->dirfd);
	ts->dirfd = -1;
	free(tmpdir);
	return -1;
}

char *dotnet_socket_path(pid_t pid)
{
	struct target_socket ts;
	if (find_socket(pid, &ts) < 0)
		return NULL;
	close(ts.dirfd);
	return ts.shown;
}

/* Connects to pid's diagnostics server.  The socket is opened O_PATH without following a
 * symlink and checked (a socket, the target's uid) before connect() goes through the very
 * inode we checked, by its /proc/self/fd name. */
static int ipc_connect(pid_t pid)
{
	struct target_socket ts;
	if (find_socket(pid, &ts) < 0)
		return -1;
	int sock = -1;
	int pathfd = openat(ts.dirfd, ts.name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (pathfd < 0 || fstat(pathfd, &st) < 0) {
		pc_err_errno("%s", ts.shown);
		goto out;
	}
	if (!S_ISSOCK(st.st_mode)) {
		pc_err("%s: not a socket", ts.shown);
		goto out;
	}
	if (st.st_uid != ts.uid) {
		pc_err("%s: owned by uid %u, not the target's uid %u", ts.shown,
		       (unsigned)st.st_uid, (unsigned)ts.uid);
		goto out;
	}
	sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sock < 0) {
		pc_err_errno("socket");
		goto out;
	}
	/* connect() waits as long as a send may (a full backlog), reads as long as a receive */
	struct timeval tv = {.tv_sec = ipc_timeout_ms / 1000,
			     .tv_usec = (ipc_timeout_ms % 1000) * 1000};
	setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	snprintf(addr.sun_path, sizeof(addr.sun_path), "/proc/self/fd/%d", pathfd);
	if (connect(sock, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		if (errno == EAGAIN || errno == EINPROGRESS)
			pc_err("cannot connect to %s: no room within %.1f s", ts.shown,
			       ipc_timeout_ms / 1000.0);
		else
			pc_err_errno("cannot connect to %s", ts.shown);
		close(sock);
		sock = -1;
	}
out:
	if (pathfd >= 0)
		close(pathfd);
	close(ts.dirfd);
	free(ts.shown);
	return sock;
}

/* ---- messages ------------------------------------------------------------------------------ */

int dotnet_ipc_put_string(struct bytebuf *b, const char *s)
{
	if (!s) {
		bytebuf_u32(b, 0);
		return 0;
	}
	size_t at = b->len, units;
	bytebuf_u32(b, 0); /* the count, known below */
	if (utf16_from_utf8(b, s, &units) < 0) {
		b->len = at;
		return -1;
	}
	bytebuf_u16(b, 0);
	if (units + 1 > UINT32_MAX) {
		b->len = at;
		return pc_err("a string of %zu characters is too long for the diagnostics IPC",
			      units);
	}
	bytebuf_patch_le(b, at, units + 1, 4);
	return 0;
}

/* When an exchange (connect, request and the whole answer) that starts now must be over. */
static uint64_t exchange_deadline(void)
{
	return monotonic_ns() + (uint64_t)ipc_timeout_ms * 1000000;
}

/* Waits until fd is ready for events, or the deadline: 1 ready, 0 at the deadline, -1 on
 * an error (errno).  Every wait of an exchange ends by the one deadline, so a runtime (or
 * whatever took its socket's name) trickling a byte at a time cannot stretch it, as a
 * timeout per read let it. */
static int wait_until(int fd, short events, uint64_t deadline)
{
	for (;;) {
		uint64_t now = monotonic_ns();
		if (now >= deadline)
			return 0;
		struct pollfd p = {.fd = fd, .events = events};
		int r = poll(&p, 1, (int)((deadline - now + 999999) / 1000000));
		if (r < 0 && errno == EINTR)
			continue;
		return r;
	}
}

static int read_full(int fd, void *buf, size_t len, const char *what, uint64_t deadline)
{
	for (size_t got = 0; got < len;) {
		int ready = wait_until(fd, POLLIN, deadline);
		if (ready < 0)
			return pc_err_errno("%s", what);
		if (ready == 0)
			return pc_err("%s: no %sanswer within %.1f s", what, got ? "complete " : "",
				      ipc_timeout_ms / 1000.0);
		ssize_t r = recv(fd, (char *)buf + got, len - got, MSG_DONTWAIT);
		if (r < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		if (r < 0)
			return pc_err_errno("%s", what);
		if (r == 0)
			return pc_err(
			    "%s: the runtime closed the connection after %zu of %zu bytes", what,
			    got, len);
		got += r;
	}
	return 0;
}

static const char *hresult_name(uint32_t hr)
{
	switch (hr) {
	case E_BAD_ENCODING:
		return " (bad encoding)";
	case E_UNKNOWN_COMMAND:
		return " (unknown command)";
	case E_UNKNOWN_MAGIC:
		return " (unknown magic)";
	default:
		return "";
	}
}

size_t dotnet_ipc_reply_header(const unsigned char *hdr, const char *what)
{
	if (memcmp(hdr, IPC_MAGIC, IPC_MAGIC_LEN)) {
		pc_err("%s: the answer does not start with %s", what, IPC_MAGIC);
		return SIZE_MAX;
	}
	size_t size = load_le16(hdr + 14);
	if (size < IPC_HEADER_LEN) {
		pc_err("%s: the answer's size %zu is smaller than its header", what, size);
		return SIZE_MAX;
	}
	return size - IPC_HEADER_LEN;
}

int dotnet_ipc_reply_status(const unsigned char *hdr, const unsigned char *payload, size_t len,
			    const char *what, pid_t pid)
{
	if (hdr[16] != CMDSET_SERVER)
		return pc_err("%s: unexpected answer (command set 0x%02x)", what, hdr[16]);
	if (hdr[17] == SERVER_ERROR) {
		uint32_t hr = len >= 4 ? load_le32(payload) : 0;
		if (hr == E_UNKNOWN_COMMAND)
			return pc_err("%s: the runtime in pid %d does not know this command (it "
				      "needs a newer .NET)",
				      what, (int)pid);
		return pc_err("%s: the runtime answered error 0x%08x%s", what, hr,
			      hresult_name(hr));
	}
	if (hdr[17] != SERVER_OK)
		return pc_err("%s: unexpected answer (command id 0x%02x)", what, hdr[17]);
	return 0;
}

/* Connects to pid and sends the message (header and payload, len bytes); returns the
 * connection, on which the answer will come. */
static int ipc_send(pid_t pid, const unsigned char *msg, size_t msg_len, const char *what,
		    uint64_t deadline)
{
	int sock = ipc_connect(pid);
	if (sock < 0)
		return -1;
	for (size_t sent = 0; sent < msg_len;) {
		int ready = wait_until(sock, POLLOUT, deadline);
		ssize_t w =
		    ready > 0 ? send(sock, msg + sent, msg_len - sent, MSG_NOSIGNAL | MSG_DONTWAIT)
			      : 0;
		if (w < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		if (ready <= 0 || w < 0) {
			if (ready == 0)
				pc_err("%s: pid %d takes nothing within %.1f s", what, (int)pid,
				       ipc_timeout_ms / 1000.0);
			else
				pc_err_errno("%s: cannot send to pid %d", what, (int)pid);
			close(sock);
			return -1;
		}
		sent += w;
	}
	return sock;
}

/* Reads the answer to a command from sock.  On a Server OK reply returns 0 with the
 * payload in *payload (malloc'd; *len bytes).  A Server Error reply becomes pc_err(); an
 * unknown command gets the explanation that matters to the user. */
static int ipc_answer(int sock, pid_t pid, const char *what, unsigned char **payload, size_t *len,
		      uint64_t deadline)
{
	*payload = NULL;
	*len = 0;
	int r = -1;
	unsigned char hdr[IPC_HEADER_LEN];
	if (read_full(sock, hdr, sizeof(hdr), what, deadline) < 0)
		goto out;
	if ((*len = dotnet_ipc_reply_header(hdr, what)) == SIZE_MAX) {
		*len = 0;
		goto out;
	}
	*payload = xmalloc(*len + 1);
	if (read_full(sock, *payload, *len, what, deadline) < 0)
		goto out;
	r = dotnet_ipc_reply_status(hdr, *payload, *len, what, pid);
out:
	if (r < 0) {
		free(*payload);
		*payload = NULL;
		*len = 0;
	}
	return r;
}

int dotnet_ipc_hresult(const unsigned char *payload, size_t len, const char *what, pid_t pid)
{
	if (len < 4)
		return pc_err("%s: answer without a result code", what);
	if (load_le32(payload))
		return pc_err("%s: the runtime in pid %d answered HRESULT 0x%08x", what, (int)pid,
			      load_le32(payload));
	return 0;
}

/* One command: send, read the answer; with stream_fd the connection stays open for the
 * command's continuation and goes to *stream_fd. */
static int ipc_exchange(pid_t pid, const unsigned char *msg, size_t msg_len, const char *what,
			unsigned char **payload, size_t *len, int *stream_fd)
{
	*payload = NULL;
	*len = 0;
	uint64_t deadline = exchange_deadline();
	int sock = ipc_send(pid, msg, msg_len, what, deadline);
	if (sock < 0)
		return -1;
	int r = ipc_answer(sock, pid, what, payload, len, deadline);
	if (r == 0 && stream_fd)
		*stream_fd = sock;
	else
		close(sock);
	return r;
}

/* The message for a command with the caller's payload; malloc'd, *len bytes. */
static unsigned char *raw_message(uint8_t cmdset, uint8_t cmdid, const void *payload,
				  size_t payload_len, const char *what, size_t *len)
{
	if (payload_len > 0xffff - IPC_HEADER_LEN) {
		pc_err("%s: a message of %zu bytes is too long for the diagnostics IPC", what,
		       payload_len);
		return NULL;
	}
	struct bytebuf msg = {0};
	bytebuf_bytes(&msg, IPC_MAGIC, IPC_MAGIC_LEN);
	bytebuf_u16(&msg, (uint16_t)(IPC_HEADER_LEN + payload_len));
	bytebuf_u8(&msg, cmdset);
	bytebuf_u8(&msg, cmdid);
	bytebuf_u16(&msg, 0); /* reserved */
	bytebuf_bytes(&msg, payload, payload_len);
	*len = msg.len;
	return msg.data;
}

int dotnet_ipc_call(pid_t pid, uint8_t cmdset, uint8_t cmdid, const void *payload,
		    size_t payload_len, const char *what, unsigned char **answer,
		    size_t *answer_len, int *stream_fd)
{
	*answer = NULL;
	*answer_len = 0;
	size_t len;
	unsigned char *msg = raw_message(cmdset, cmdid, payload, payload_len, what, &len);
	if (!msg)
		return -1;
	int r = ipc_exchange(pid, msg, len, what, answer, answer_len, stream_fd);
	free(msg);
	return r;
}

int dotnet_ipc_send(pid_t pid, uint8_t cmdset, uint8_t cmdid, const void *payload,
		    size_t payload_len, const char *what)
{
	size_t len;
	unsigned char *msg = raw_message(cmdset, cmdid, payload, payload_len, what, &len);
	if (!msg)
		return -1;
	int fd = ipc_send(pid, msg, len, what, exchange_deadline());
	free(msg);
	return fd;
}

int dotnet_ipc_answer(int fd, pid_t pid, const char *what, unsigned char **answer,
		      size_t *answer_len)
{
	return ipc_answer(fd, pid, what, answer, answer_len, exchange_deadline());
}

/* A command of the process command set whose OK answer is an int32 HRESULT; frees payload. */
static int call_hresult(pid_t pid, uint8_t cmdid, struct bytebuf *payload, const char *what)
{
	unsigned char *answer;
	size_t len;
	int r = dotnet_ipc_call(pid, CMDSET_PROCESS, cmdid, payload->data, payload->len, what,
				&answer, &len, NULL);
	bytebuf_free(payload);
	if (r < 0)
		return -1;
	r = dotnet_ipc_hresult(answer, len, what, pid);
	free(answer);
	return r;
}

int dotnet_enable_perfmap(pid_t pid, enum dotnet_perfmap_type type)
{
	struct bytebuf payload = {0};
	bytebuf_u32(&payload, (uint32_t)type);
	int r = call_hresult(pid, PROCESS_ENABLE_PERFMAP, &payload, "EnablePerfMap");
	if (r < 0 && strstr(pc_strerror(), "does not know this command"))
		pc_err("EnablePerfMap: the runtime in pid %d is older than .NET 8 and cannot "
		       "turn on perf maps while running",
		       (int)pid);
	return r;
}

int dotnet_disable_perfmap(pid_t pid)
{
	struct bytebuf payload = {0};
	return call_hresult(pid, PROCESS_DISABLE_PERFMAP, &payload, "DisablePerfMap");
}

void dotnet_ipc_set_timeout_ms(int ms)
{
	ipc_timeout_ms = ms > 0 ? ms : 10000;
}

int dotnet_set_env(pid_t pid, const char *name, const char *value)
{
	struct bytebuf payload = {0};
	/* a NULL value (no units at all) unsets the variable */
	if (dotnet_ipc_put_string(&payload, name) < 0 ||
	    dotnet_ipc_put_string(&payload, value) < 0) {
		bytebuf_free(&payload);
		return -1;
	}
	int r = call_hresult(pid, PROCESS_SET_ENV, &payload, "SetEnvironmentVariable");
	/* Unsetting a variable that is not set is what we wanted (ERROR_ENVVAR_NOT_FOUND). */
	if (r < 0 && !value && strstr(pc_strerror(), "0x800700cb"))
		r = 0;
	return r;
}

/* ---- ProcessInfo2 -------------------------------------------------------------------------- */

/* One protocol string as UTF-8; NULL with pc_err() when it does not fit the answer. */
static char *take_string(struct span *s)
{
	uint32_t units = span_u32(s);
	if (s->bad) {
		pc_err("ProcessInfo2: answer cut short");
		return NULL;
	}
	const uint8_t *p = span_take(s, (size_t)units * 2);
	if (!p) {
		pc_err("ProcessInfo2: a string of %u characters does not fit the answer", units);
		return NULL;
	}
	return utf16_to_utf8(p, units);
}

int dotnet_process_info_parse(const unsigned char *p, size_t len, struct dotnet_process_info *info)
{
	memset(info, 0, sizeof(*info));
	/* uint64 pid, GUID runtime cookie, then six strings */
	struct span s = span_of(p, len);
	info->nspid = span_u64(&s);
	span_take(&s, 16);
	if (s.bad)
		return pc_err("ProcessInfo2: answer of %zu bytes is too short", len);
	char **fields[] = {&info->command_line, &info->os, &info->arch, &info->entry_assembly,
			   &info->version};
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		if (!(*fields[i] = take_string(&s))) {
			dotnet_process_info_free(info);
			return -1;
		}
	}
	return 0;
}

int dotnet_process_info(pid_t pid, struct dotnet_process_info *info)
{
	memset(info, 0, sizeof(*info));
	unsigned char *p;
	size_t len;
	if (dotnet_ipc_call(pid, CMDSET_PROCESS, PROCESS_INFO2, NULL, 0, "ProcessInfo2", &p, &len,
			    NULL) < 0)
		return -1;
	int r = dotnet_process_info_parse(p, len, info);
	free(p);
	return r;
}

void dotnet_process_info_free(struct dotnet_process_info *info)
{
	free(info->command_line);
	free(info->os);
	free(info->arch);
	free(info->entry_assembly);
	free(info->version);
	memset(info, 0, sizeof(*info));
}

/* ---- the runtime's map files --------------------------------------------------------------- */

int dotnet_open_map_file(pid_t pid, const char *name_fmt, char **shown)
{
	struct proc_status ps;
	*shown = NULL;
	if (proc_status(pid, &ps) < 0)
		return -1;
	char *dir = proc_getenv(pid, "DOTNET_PerfMapJitDumpPath");
	if (!dir || dir[0] != '/') {
		free(dir);
		dir = xstrdup("/tmp");
	}
	char name[64];
	snprintf(name, sizeof(name), name_fmt, (int)ps.nspid);
	char *path = xasprintf("%s%s%s", dir, str_endswith(dir, "/") ? "" : "/", name);
	*shown = xasprintf("/proc/%d/root%s", (int)pid, path);
	int fd = safe_open_in_root(pid, path, ps.uid, MAP_FILE_MAX);
	int err = errno;
	free(path);
	free(dir);
	errno = err;
	return fd;
}
