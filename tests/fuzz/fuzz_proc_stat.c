/* What lib/base/proc.c reads of outside input in a stat file: /proc/<pid>/stat of any
 * process (proc_stat_parse(); collect's .NET scan, stacks and kstacks read every one), whose
 * comm each process chooses for itself (spaces, parentheses, anything but NUL). */
#include "fuzz.h"
#include "base/proc.h"

static uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_quiet(true);
	char *text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = 0; /* read_file()'s promise */
	struct proc_stat st;
	if (proc_stat_parse(text, &st) == 0) {
		FUZZ_CHECK(strlen(st.comm) < sizeof(st.comm));
		/* comm lies between the first '(' and the last ')' */
		const char *open = strchr(text, '(');
		FUZZ_CHECK(open && !strncmp(st.comm, open + 1, strlen(st.comm)));
		FUZZ_CHECK(st.state && st.state != ' ');
		sink += st.starttime + st.flags + (uint64_t)st.ppid + strlen(st.comm);
	}
	free(text);
	return 0;
}
