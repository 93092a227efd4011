/* What lib/base/proc_maps.c reads of outside input: /proc/<pid>/maps of any process, whose
 * paths the process chooses (any bytes but NUL and newline: spaces, " (deleted)", names
 * that look like more fields), one line at a time as proc_maps_next() hands them over. */
#include "fuzz.h"
#include "base/proc_maps.h"

static uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_quiet(true);
	char *text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = 0;
	for (char *line = text, *next; line && line < text + size; line = next) {
		char *nl = memchr(line, '\n', text + size - line);
		next = nl ? nl + 1 : NULL;
		char *copy = nl ? xstrndup(line, nl - line + 1) : xstrdup(line); /* getline's */
		size_t len = strlen(copy);
		struct proc_map m;
		if (proc_maps_parse_line(copy, &m) == 0) {
			FUZZ_CHECK(m.end > m.start);
			FUZZ_CHECK(strlen(m.perms) == 4 && !strchr(m.perms, ' '));
			/* the path is the line's tail, without its newline */
			FUZZ_CHECK(m.path >= copy && m.path <= copy + len);
			FUZZ_CHECK(!strchr(m.path, '\n'));
			sink += m.start + m.offset + m.inode + m.dev_major + strlen(m.path);
		}
		free(copy);
	}
	free(text);
	return 0;
}
