/* The streaming of a .NET runtime's EventPipe session into <trace>/dotnet-<pid>.nettrace
 * (lib/dotnet/eventpipe_collect.c), as `collect -dotnetevents` runs it: the collector with
 * its thread, started on this process (-pid), whose diagnostics socket fuzz_runtime.h plays.
 * The input is what that "runtime" sends, as in fuzz_eventpipe_session: the answer to
 * CollectTracing5 (or "unknown command", then the CollectTracing2 one) and the stream.  The
 * size cap (PERFCOLLECT_C_NETTRACE_MAX) is picked by the input's length: none, a quarter or
 * half of the input, so that a stream reaching the cap (StopTracing sent mid-stream, the
 * rest read and dropped) is fuzzed as well as one that ends on its own.
 *
 * What the collector promises is checked: the file holds exactly the stream's bytes after
 * the answer, no more than the cap, and the collector stops (joins its thread) however the
 * runtime answered. */
#include "fuzz_runtime.h"
#include "dotnet/eventpipe_collect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_quiet(true);
	const struct eventpipe_config *config = fuzz_runtime();
	if (size > 1 << 20)
		return 0;
	uint64_t cap = size % 3 == 0 ? 0 : 1 + size / (size % 3 == 1 ? 4 : 2);
	char capstr[32] = "";
	if (cap)
		snprintf(capstr, sizeof(capstr), "%llu", (unsigned long long)cap);
	setenv("PERFCOLLECT_C_NETTRACE_MAX", capstr, 1);

	const char *dir = fuzz_dir();
	fuzz_dir_clear();
	rt.data = data;
	rt.size = size;
	rt.nth = 0;
	struct eventpipe_collect_opts o = {.trace_dir = dir, .pid = getpid(), .config = config};
	struct eventpipe_collector *c = eventpipe_collector_start(&o);
	FUZZ_CHECK(c != NULL);
	eventpipe_collector_stop(c);
	barrier();

	char path[128];
	snprintf(path, sizeof(path), "%s/dotnet-%d.nettrace", dir, (int)getpid());
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		/* a session started: the stream follows the answer that gave it */
		size_t first = reply_len(data, size);
		size_t at = rt.nth == 2 ? first + reply_len(data + first, size - first) : first;
		FUZZ_CHECK(at <= size);
		size_t want = size - at;
		if (cap && want > cap)
			want = (size_t)cap;
		struct stat st;
		FUZZ_CHECK(fstat(fd, &st) == 0 && (size_t)st.st_size == want);
		uint8_t *got = malloc(want + 1);
		size_t n = 0;
		for (ssize_t r; n < want && (r = read(fd, got + n, want - n)) > 0;)
			n += (size_t)r;
		FUZZ_CHECK(n == want && !memcmp(got, data + at, want));
		free(got);
		close(fd);
	}
	rt.data = NULL;
	return 0;
}
