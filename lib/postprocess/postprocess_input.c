/* postprocess_input: see postprocess_input.h. */
#include "postprocess_input.h"
#include "base/archive.h"
#include "base/log.h"
#include "base/outfile.h"
#include "base/tracefile.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void postprocess_input_free(struct postprocess_input *in)
{
	if (in->lock_fd > 0)
		close(in->lock_fd);
	if (in->extracted)
		rm_rf(in->extracted);
	free(in->trace_dir);
	free(in->perf_data);
	free(in->name);
	free(in->extracted);
	memset(in, 0, sizeof(*in));
	in->lock_fd = -1;
}

static char *dir_name(const char *path)
{
	char *copy = xstrdup(path);
	char *d = xstrdup(dirname(copy));
	free(copy);
	return d;
}

/* Whether path starts like a perf.data (shown: the name the user gave). */
static int check_perf_data(const char *path, const char *shown)
{
	enum tracefile_kind kind;
	if (tracefile_classify(path, &kind) < 0)
		return -1;
	if (kind == TRACEFILE_PERF_DATA)
		return 0;
	return pc_err("%s is not a perf.data file (%s); merge takes a perf.data, a <name>.trace "
		      "directory or a <name>.trace.zip",
		      shown,
		      kind == TRACEFILE_EMPTY ? "it is empty" : "it does not start with PERFILE2");
}

static int open_zip_input(const char *path, struct postprocess_input *in)
{
	struct archive_reader *r = archive_reader_open(path);
	if (!r)
		return -1;
	long i = archive_reader_find(r, "perf.data");
	if (i < 0) {
		archive_reader_free(r);
		return pc_err("%s has no perf.data entry", path);
	}
	char *entry = xstrdup(archive_reader_name(r, i));
	/* What merge writes anew is not extracted: perf.data.txt and the unified NetTrace of
	 * the trace directory (in a 400k-sample zip, most of what extraction would inflate). */
	char *dir = dir_name(entry), *base = tracefile_name(dir);
	bool top = !strcmp(dir, "."); /* entries at the zip's top level: no trace directory */
	char *txt = top ? xstrdup("perf.data.txt") : xasprintf("%s/perf.data.txt", dir);
	char *nt = top ? NULL : tracefile_path(dir, base, TRACE_NETTRACE_SUFFIX);
	const char *const skip[] = {txt, nt, NULL};
	in->extracted = make_temp_dir("merge-in");
	int ret = -1;
	if (in->extracted && archive_reader_extract_all(r, in->extracted, skip) == 0) {
		in->perf_data = xasprintf("%s/%s", in->extracted, entry);
		in->trace_dir = dir_name(in->perf_data);
		in->name = tracefile_name(path);
		ret = 0;
	}
	free(entry), free(dir), free(base), free(txt), free(nt);
	archive_reader_free(r);
	return ret;
}

/* A <name>.trace directory: refused while a collector records into it. */
static int claim(struct postprocess_input *in)
{
	int holder;
	in->lock_fd = tracedir_claim(in->trace_dir, &holder, &in->left_over);
	if (in->lock_fd >= 0 || holder < 0)
		return in->lock_fd < 0 ? -1 : 0;
	char who[32] = "";
	if (holder > 0)
		snprintf(who, sizeof(who), " (pid %d)", holder);
	return pc_err("%s is being recorded right now by a running collection%s; it writes its "
		      "archive itself when it stops (Ctrl+C in its terminal%s)",
		      in->trace_dir, who, holder > 0 ? ", or kill -INT that pid" : "");
}

int postprocess_input_open(const char *arg, struct postprocess_input *in)
{
	memset(in, 0, sizeof(*in));
	in->lock_fd = -1;
	enum tracefile_kind kind;
	if (tracefile_classify(arg, &kind) < 0)
		return -1;
	char *path = realpath(arg, NULL);
	if (!path)
		return pc_err_errno("cannot resolve %s", arg);
	int ret = 0;
	if (kind == TRACEFILE_DIR) {
		in->trace_dir = xstrdup(path);
		in->perf_data = xasprintf("%s/perf.data", path);
		in->name = tracefile_name(path);
		ret = claim(in);
		if (ret == 0)
			ret = check_perf_data(in->perf_data, in->perf_data);
	} else if (str_endswith(path, ".zip")) {
		ret = open_zip_input(path, in);
		if (ret == 0)
			ret = check_perf_data(in->perf_data, arg);
	} else {
		in->perf_data = xstrdup(path);
		in->trace_dir = dir_name(path);
		/* A perf.data inside a <name>.trace directory is that trace. */
		in->loose = !str_endswith(in->trace_dir, TRACE_DIR_SUFFIX);
		in->name = tracefile_name(in->loose ? path : in->trace_dir);
		ret = check_perf_data(in->perf_data, arg);
		if (ret == 0 && !in->loose)
			ret = claim(in);
	}
	free(path);
	return ret;
}

char *postprocess_output_name(const char *input, const char *out, const char *name, bool *renamed)
{
	*renamed = false;
	if (out) {
		if (same_file(out, input))
			return pc_err("-o %s is the input; merge never writes over its input: name "
				      "another archive",
				      out),
			       NULL;
		return xstrdup(out);
	}
	char *zip = xasprintf("%s%s", name, TRACE_ZIP_SUFFIX);
	for (int i = 1; same_file(zip, input) || (i > 1 && access(zip, F_OK) == 0); i++) {
		free(zip);
		zip = i == 1 ? xasprintf("%s-merged%s", name, TRACE_ZIP_SUFFIX)
			     : xasprintf("%s-merged-%d%s", name, i, TRACE_ZIP_SUFFIX);
		*renamed = true;
	}
	return zip;
}

int postprocess_input_start_log(const struct postprocess_input *in, const char *out_dir)
{
	char *dest = xasprintf("%s/perfcollect.log", out_dir);
	if (!in->loose) {
		char *src = xasprintf("%s/perfcollect.log", in->trace_dir);
		int fd = open(src, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		struct stat st;
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
			outfile_copy(fd, dest, (uint64_t)st.st_size, NULL);
		if (fd >= 0)
			close(fd);
		free(src);
	}
	int r = log_open(dest);
	free(dest);
	return r;
}
