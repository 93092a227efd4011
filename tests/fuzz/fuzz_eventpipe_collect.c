/* What lib/dotnet/eventpipe_collect.c reads of outside input: /proc/<pid>/stat of every
 * process it scans for .NET runtimes (eventpipe_proc_stat_parse), whose comm each process
 * chooses for itself (spaces, parentheses, anything but NUL).  The runtimes' streams it only
 * copies to files, unread (their reader has fuzz_nettrace_read, their sessions
 * fuzz_eventpipe_session). */
#include "fuzz.h"
#include "dotnet/eventpipe_collect.h"

static uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_quiet(true);
	char *text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = 0; /* read_file()'s promise */
	char comm[32];	/* as the collector's */
	unsigned long long start = 1;
	if (eventpipe_proc_stat_parse(text, comm, sizeof(comm), &start) == 0 || start == 0) {
		FUZZ_CHECK(strlen(comm) < sizeof(comm));
		/* comm lies between the first '(' and the last ')' */
		const char *open = strchr(text, '(');
		FUZZ_CHECK(open && !strncmp(comm, open + 1, strlen(comm)));
		sink += start + strlen(comm);
	}
	free(text);
	return 0;
}
