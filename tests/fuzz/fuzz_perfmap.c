/* perf-<pid>.map (lib/symbols/perfmap.c), as node, .NET and others write them: loaded, then
 * looked up at the first, last and next byte of what each line seems to cover. */
#include "fuzz.h"
#include "symbols/perfmap.h"

static uint64_t sink;

static void probe(const struct perfmap *m, uint64_t addr)
{
	const struct perfmap_entry *e = perfmap_lookup(m, addr);
	if (e)
		sink += strlen(e->name) + e->start + e->size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_quiet(true);
	int fd = fuzz_fd(data, size);
	struct perfmap *m = perfmap_load_fd(fd);
	close(fd);
	if (!m)
		return 0;
	sink += perfmap_count(m) + perfmap_bad_lines(m);
	/* the harness's own rough reading of the lines, to know where to look */
	char *text = strndup((const char *)data, size);
	char *save = NULL;
	unsigned lines = 0;
	for (char *line = strtok_r(text, "\n", &save); line && lines < 4096;
	     line = strtok_r(NULL, "\n", &save), lines++) {
		char *end;
		uint64_t start = strtoull(line, &end, 16);
		uint64_t len = strtoull(end, NULL, 16);
		probe(m, start);
		probe(m, start - 1);
		probe(m, start + len - 1);
		probe(m, start + len);
	}
	free(text);
	perfmap_free(m);
	return 0;
}
