/* perfinfo: the .NET runtime's perfinfo-<pid>.map, one "TYPE;VALUE;" line per event.
 * ImageLoad lines ("ImageLoad;<path>;<mvid>;<base>;", base as %p, 0 / (nil) unless the
 * image is ReadyToRun) say which assembly sits where; other types are kept by name only.
 * Garbage lines are counted, never fatal.
 */
#ifndef PC_PERFINFO_H
#define PC_PERFINFO_H

#include "base/util.h"

struct perfinfo_image {
	const char *path;
	const char *mvid;
	uint64_t base; /* 0: not mapped as a ReadyToRun image */
};

struct perfinfo;

struct perfinfo *perfinfo_load_fd(int fd);
struct perfinfo *perfinfo_load(const char *path);
void perfinfo_free(struct perfinfo *p);

size_t perfinfo_nr_images(const struct perfinfo *p);
const struct perfinfo_image *perfinfo_image_at(const struct perfinfo *p, size_t i);
/* The last ImageLoad of that path, or NULL. */
const struct perfinfo_image *perfinfo_find_image(const struct perfinfo *p, const char *path);
size_t perfinfo_bad_lines(const struct perfinfo *p);

#endif
