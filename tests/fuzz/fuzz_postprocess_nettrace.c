/* The .NET runtime's event files of a trace directory (lib/postprocess/postprocess_nettrace.c),
 * as `merge` meets them: the input is a dotnet-<pid>.nettrace someone sent, found in its
 * directory beside files the pattern must pass over, read to its end and summed up for the
 * log (version, pid, events, time span, stacks, a cut or lost events). */
#include "fuzz.h"
#include "postprocess/postprocess_nettrace.h"

static uint64_t sink;

static void put(const char *dir, const char *name, const uint8_t *data, size_t size)
{
	char *path = xasprintf("%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write_all(fd, data, size) < 0) {
		perror(path);
		abort();
	}
	close(fd);
	free(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_quiet(true);
	const char *dir = fuzz_dir();
	static bool others;
	if (!others) { /* names that are not the runtime's event files */
		put(dir, "perf.data", data, 0);
		put(dir, "dotnet-1.nettrace.tmp", data, 0);
		put(dir, "xdotnet-2.nettrace", data, 0);
		others = true;
	}
	put(dir, "dotnet-42.nettrace", data, size);
	size_t n;
	char **names = nettrace_files_find(dir, &n);
	FUZZ_CHECK(n == 1 && !strcmp(names[0], "dotnet-42.nettrace"));
	nettrace_files_log(dir, names, n);
	sink += n;
	nettrace_files_free(names, n);
	return 0;
}
