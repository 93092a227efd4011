/* The zip reader (lib/base/archive_read.c) as `view`, `log`, `cat` and `merge` use it:
 * open, list, find entries by name, stream each one, and extract them all (merge on a
 * .trace.zip) into a private directory, which unsafe names must never leave. */
#include "fuzz.h"
#include "base/archive.h"

static uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_quiet(true);
	int fd = fuzz_fd(data, size);
	struct archive_reader *r = archive_reader_open(fuzz_fd_path(fd));
	if (!r) {
		close(fd);
		return 0;
	}
	size_t n = archive_reader_count(r);
	for (size_t i = 0; i < n; i++) {
		const char *name = archive_reader_name(r, i);
		sink += strlen(name) + archive_reader_size(r, i) + archive_name_is_safe(name);
		FILE *f = archive_reader_open_entry(r, i);
		if (f) {
			sink += fuzz_drain(f, 1 << 20);
			fclose(f);
		}
	}
	static const char *const wanted[] = {"perf.data", "perf.data.txt", "perfcollect.log"};
	for (size_t i = 0; i < 3; i++)
		sink += (uint64_t)archive_reader_find(r, wanted[i]);
	/* what merge does with a .trace.zip: everything into a fresh directory */
	char *dest = xasprintf("%s/x", fuzz_dir());
	if (mkdir(dest, 0700) == 0)
		sink += archive_reader_extract_all(r, dest, NULL) == 0;
	free(dest);
	fuzz_dir_clear();
	archive_reader_free(r);
	close(fd);
	return 0;
}
