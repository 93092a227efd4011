/* postprocess: first version (foundation issue): pack perf.data and perfcollect.log.
 * The post-processing issue replaces this with the symbolizing pass. */
#include "postprocess.h"
#include "archive.h"
#include "log.h"

#include <stdlib.h>
#include <unistd.h>

int postprocess_run(const struct postprocess_opts *o, struct postprocess_stats *st)
{
	static const char *const files[] = {"perf.data", "perfcollect.log"};
	struct archive_writer *w = archive_writer_new(o->zip_path);
	if (!w)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *src = xasprintf("%s/%s", o->trace_dir, files[i]);
		char *name = xasprintf("%s.trace/%s", o->name, files[i]);
		int r = access(src, F_OK) == 0 ? archive_writer_add_file(w, name, src) : 0;
		free(src);
		free(name);
		if (r < 0) {
			archive_writer_free(w);
			return -1;
		}
	}
	int r = archive_writer_finish(w);
	archive_writer_free(w);
	return r;
}
