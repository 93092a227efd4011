/* perfinfo-<pid>.map (lib/symbols/perfinfo.c), the .NET runtime's image loads: loaded, then
 * every image read and found again by its path. */
#include "fuzz.h"
#include "symbols/perfinfo.h"

static uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_quiet(true);
	int fd = fuzz_fd(data, size);
	struct perfinfo *p = perfinfo_load_fd(fd);
	close(fd);
	if (!p)
		return 0;
	sink += perfinfo_bad_lines(p);
	for (size_t i = 0; i < perfinfo_nr_images(p); i++) {
		const struct perfinfo_image *img = perfinfo_image_at(p, i);
		sink += strlen(img->path) + strlen(img->mvid) + img->base;
		const struct perfinfo_image *found = perfinfo_find_image(p, img->path);
		if (!found)
			abort(); /* an image that was loaded must be found by its own path */
		sink += found->base;
	}
	perfinfo_free(p);
	return 0;
}
