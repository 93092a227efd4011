/* fuzz_runtime: a .NET runtime's diagnostics socket played by a thread of the harness, for
 * the harnesses of what reads a runtime's EventPipe answers and streams (fuzz_eventpipe_session,
 * fuzz_eventpipe_collect).  It listens where this process's own socket would be ($TMPDIR or
 * /tmp, dotnet-diagnostic-<pid>-<key>-socket) and answers each connection from the input
 * (rt.data, rt.size): a CollectTracing5 with the input as it is (the answer, then the
 * stream), a CollectTracing2 (asked only after an "unknown command" answer) with the bytes
 * after the first answer, a StopTracing with success.  It checks what it is sent: the
 * protocol's magic and sizes, CollectTracing5 first, and StopTracing naming the session id
 * the answer gave.  Another process that connects (a system-wide collection takes this one
 * for a .NET process) is not answered. */
#ifndef PC_FUZZ_RUNTIME_H
#define PC_FUZZ_RUNTIME_H

#include "fuzz.h"
#include "dotnet/dotnet_ipc.h"
#include "dotnet/eventpipe_events.h"

#include <errno.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/un.h>

/* What the runtime thread serves; set before each input, read by the thread only while
 * the harness waits on a connection it opened. */
static struct {
	const uint8_t *data;
	size_t size;
	int nth; /* connections of this input so far */
	int listen_fd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
} rt;

static void remove_socket(void)
{
	unlink(rt.path);
}

static int read_all(int fd, uint8_t *buf, size_t len)
{
	for (size_t got = 0; got < len;) {
		ssize_t n = read(fd, buf + got, len - got);
		if (n < 0 && errno == EINTR) /* libFuzzer's SIGALRM */
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

static void write_all_to(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return; /* the session stopped reading: fine */
		p += n;
		len -= (size_t)n;
	}
}

static size_t reply_len(const uint8_t *p, size_t n)
{
	size_t len = n >= 16 ? (size_t)(p[14] | p[15] << 8) : 0;
	return len < 20 ? 20 : len;
}

/* One connection: the request, checked; then the answer this input says. */
static void serve(int fd)
{
	uint8_t hdr[20], payload[0x10000];
	ssize_t first;
	while ((first = read(fd, hdr, 1)) < 0 && errno == EINTR)
		;
	if (first == 0) { /* the harness's barrier: every earlier connection is done */
		write_all_to(fd, hdr, 1);
		return;
	}
	FUZZ_CHECK(read_all(fd, hdr + 1, 19) == 0);
	FUZZ_CHECK(!memcmp(hdr, "DOTNET_IPC_V1", 14));
	size_t len = (size_t)(hdr[14] | hdr[15] << 8);
	FUZZ_CHECK(len >= 20);
	FUZZ_CHECK(read_all(fd, payload, len - 20) == 0);
	FUZZ_CHECK(hdr[16] == 0x02); /* EventPipe */
	const uint8_t *out = rt.data;
	size_t n = rt.size;
	switch (hdr[17]) {
	case 0x06: /* CollectTracing5: always asked first */
		FUZZ_CHECK(rt.nth == 0);
		break;
	case 0x03: { /* CollectTracing2: only after "unknown command" */
		FUZZ_CHECK(rt.nth == 1);
		size_t first = reply_len(rt.data, rt.size);
		out += first < n ? first : n;
		n -= first < n ? first : n;
		break;
	}
	case 0x01: { /* StopTracing: the id the answer gave */
		FUZZ_CHECK(len == 28);
		size_t first = rt.nth == 2 ? reply_len(rt.data, rt.size) : 0;
		const uint8_t *answer = rt.data + first + 20;
		FUZZ_CHECK(first + 28 <= rt.size && !memcmp(payload, answer, 8));
		static const uint8_t ok[28] = {'D', 'O', 'T', 'N', 'E', 'T', '_', 'I', 'P',
					       'C', '_', 'V', '1', 0,	28,  0,	  0xff};
		uint8_t stopped[28];
		memcpy(stopped, ok, 20);
		memcpy(stopped + 20, payload, 8);
		out = stopped;
		n = 28;
		write_all_to(fd, out, n);
		return;
	}
	default:
		FUZZ_CHECK(!"a command a session never sends");
	}
	rt.nth++;
	write_all_to(fd, out, n);
}

/* Returns when the runtime thread is done with every connection made so far (it takes them
 * in order): the input it serves from must stay until then. */
static void barrier(void)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	memcpy(addr.sun_path, rt.path, sizeof(addr.sun_path));
	uint8_t done;
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    shutdown(fd, SHUT_WR) < 0 || read_all(fd, &done, 1) < 0) {
		perror("the runtime thread's barrier");
		abort();
	}
	close(fd);
}

static void *runtime_thread(void *arg)
{
	(void)arg;
	for (;;) {
		int fd = accept(rt.listen_fd, NULL, NULL);
		if (fd < 0)
			continue;
		/* Only this process's own calls: a collector elsewhere on the machine that
		 * takes us for a .NET process (it finds the socket) gets nothing. */
		struct ucred peer;
		socklen_t len = sizeof(peer);
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) == 0 &&
		    peer.pid == getpid())
			serve(fd);
		close(fd);
	}
	return NULL;
}

static void start_runtime(void)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	/* the largest key: ours even beside a stale socket of an earlier process */
	snprintf(rt.path, sizeof(rt.path), "%s/dotnet-diagnostic-%d-18446744073709551615-socket",
		 tmp, (int)getpid());
	unlink(rt.path);
	rt.listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	memcpy(addr.sun_path, rt.path, sizeof(addr.sun_path));
	if (rt.listen_fd < 0 || bind(rt.listen_fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    listen(rt.listen_fd, 4) < 0) {
		perror(rt.path);
		abort();
	}
	atexit(remove_socket);
	pthread_t t;
	pthread_create(&t, NULL, runtime_thread, NULL);
	pthread_detach(t);
	dotnet_ipc_set_timeout_ms(5000);
}

/* The runtime, started on the first call; the session's configuration collect uses by
 * default. */
static const struct eventpipe_config *fuzz_runtime(void)
{
	static struct eventpipe_config config;
	static bool started;
	if (!started) {
		started = true;
		start_runtime();
		struct dotnet_events_opts o = {.set = DOTNET_EVENTS_DEFAULT};
		FUZZ_CHECK(eventpipe_events_build(&o, &config) == 0);
	}
	return &config;
}

#endif
