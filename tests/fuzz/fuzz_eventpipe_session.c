/* An EventPipe session (lib/dotnet/eventpipe_session.c) with whatever answers at a .NET
 * process's diagnostics socket: the input is what that "runtime" sends on the
 * CollectTracing connection, its answer (20-byte header, payload) and then the session's
 * stream.  When the answer is "unknown command" (a runtime older than .NET 10), the session
 * asks again with CollectTracing2, and the bytes after the first answer are the second
 * connection's.
 *
 * The runtime is played by fuzz_runtime.h's thread, so the whole path runs: finding and
 * checking the socket, dotnet_ipc's sending and answer parsing, the session id, the
 * fallback, then the stream read with nettrace_read over the session's fd (as a tool reading
 * a session does) and StopTracing on a new connection. */
#include "fuzz_runtime.h"
#include "nettrace/nettrace_read.h"

static uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_quiet(true);
	const struct eventpipe_config *config = fuzz_runtime();
	if (size > 1 << 20)
		return 0;
	struct eventpipe_session s;
	rt.data = data;
	rt.size = size;
	rt.nth = 0;
	int rc = eventpipe_session_start(getpid(), config, &s);
	if (rc == 0) {
		size_t first = s.command == 2 ? reply_len(data, size) : 0;
		FUZZ_CHECK(s.command == 5 || s.command == 2);
		FUZZ_CHECK(first + 28 <= size);
		uint64_t id = 0;
		for (int i = 7; i >= 0; i--)
			id = id << 8 | data[first + 20 + i];
		FUZZ_CHECK(s.id == id);
		struct nettrace_reader *r = nettrace_reader_new_fd(s.fd, "fuzz");
		struct nettrace_item it;
		for (int n = 0; n < 100000 && nettrace_reader_next(r, &it) > 0; n++)
			sink += it.kind == NETTRACE_ITEM_EVENT ? it.event->payload_size : 1;
		nettrace_reader_free(r);
		/* to the stream's end, as a tool does: the runtime never blocks on a reader */
		char buf[4096];
		ssize_t got;
		while ((got = read(s.fd, buf, sizeof(buf))) > 0 || (got < 0 && errno == EINTR))
			;
		int stop = eventpipe_session_stop_send(&s);
		FUZZ_CHECK(stop >= 0);
		FUZZ_CHECK(eventpipe_session_stop_answer(&s, stop) == 0);
		eventpipe_session_close(&s);
	}
	barrier();
	rt.data = NULL;
	return 0;
}
