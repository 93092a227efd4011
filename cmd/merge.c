/* merge: the post-processing step alone.  The input is a perf.data (ours or real perf's,
 * with its JIT maps where perf looks for them), a <name>.trace directory or a
 * <name>.trace.zip (extracted to a temporary directory).  Outputs are built in a
 * temporary directory, never in the input, and packed into <name>.trace.zip; the same pass
 * writes <name>.nettrace beside it (-format says which of the two). */
#include "base/archive.h"
#include "base/log.h"
#include "cli.h"
#include "commands.h"
#include "postprocess/postprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct merge_input {
	char *trace_dir; /* where perf.data and side files are */
	char *perf_data;
	char *name;
	bool loose;	 /* a bare perf.data: maps are where perf looks for them */
	char *extracted; /* temporary directory of an extracted zip, removed at the end */
};

static void merge_input_free(struct merge_input *in)
{
	if (in->extracted)
		rm_rf(in->extracted);
	free(in->trace_dir);
	free(in->perf_data);
	free(in->name);
	free(in->extracted);
}

static char *base_name(const char *path)
{
	char *copy = xstrdup(path);
	size_t l = strlen(copy);
	while (l > 1 && copy[l - 1] == '/')
		copy[--l] = 0;
	char *b = xstrdup(basename(copy));
	free(copy);
	return b;
}

static char *dir_name(const char *path)
{
	char *copy = xstrdup(path);
	char *d = xstrdup(dirname(copy));
	free(copy);
	return d;
}

/* "x.trace" -> "x"; "x.trace.zip" -> "x"; "foo.data" -> "foo"; "perf.data" -> "perf". */
static char *strip_suffix(const char *base)
{
	static const char *const suffixes[] = {".trace.zip", ".zip", ".trace", ".data"};
	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++) {
		size_t bl = strlen(base), sl = strlen(suffixes[i]);
		if (bl > sl && str_endswith(base, suffixes[i]))
			return xstrndup(base, bl - sl);
	}
	return xstrdup(base);
}

/* x.trace.zip -> x.nettrace; x.zip -> x.nettrace; anything else gets .nettrace added. */
static char *nettrace_beside(const char *zip)
{
	size_t l = strlen(zip);
	if (str_endswith(zip, ".trace.zip"))
		l -= strlen(".trace.zip");
	else if (str_endswith(zip, ".zip"))
		l -= strlen(".zip");
	return xasprintf("%.*s.nettrace", (int)l, zip);
}

static char *make_temp_dir(const char *what)
{
	const char *tmp = getenv("TMPDIR");
	char *tmpl = xasprintf("%s/perfcollect-%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", what);
	if (!mkdtemp(tmpl)) {
		pc_err_errno("cannot create a temporary directory %s", tmpl);
		free(tmpl);
		return NULL;
	}
	return tmpl;
}

static int open_zip_input(const char *path, struct merge_input *in)
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
	in->extracted = make_temp_dir("merge-in");
	int ret = -1;
	if (in->extracted && archive_reader_extract_all(r, in->extracted) == 0) {
		in->perf_data = xasprintf("%s/%s", in->extracted, entry);
		in->trace_dir = dir_name(in->perf_data);
		char *b = base_name(path);
		in->name = strip_suffix(b);
		free(b);
		ret = 0;
	}
	free(entry);
	archive_reader_free(r);
	return ret;
}

static int resolve_input(const char *arg, struct merge_input *in)
{
	struct stat st;
	if (stat(arg, &st) < 0)
		return pc_err_errno("cannot open %s", arg);
	/* Names come from the real path: "." or "x.trace/" name the trace too. */
	char *path = realpath(arg, NULL);
	if (!path)
		return pc_err_errno("cannot resolve %s", arg);
	char *b = base_name(path);
	int ret = 0;
	if (S_ISDIR(st.st_mode)) {
		in->trace_dir = xstrdup(path);
		in->perf_data = xasprintf("%s/perf.data", path);
		in->name = strip_suffix(b);
		if (access(in->perf_data, R_OK) < 0)
			ret = pc_err_errno("%s", in->perf_data);
	} else if (str_endswith(b, ".zip")) {
		ret = open_zip_input(path, in);
	} else {
		in->perf_data = xstrdup(path);
		in->trace_dir = dir_name(path);
		char *db = base_name(in->trace_dir);
		/* A perf.data inside a <name>.trace directory is that trace. */
		in->loose = !str_endswith(db, ".trace");
		in->name = strip_suffix(in->loose ? b : db);
		free(db);
	}
	free(b);
	free(path);
	return ret;
}

/* Starts out_dir/perfcollect.log from the input's log (a collection's), so the archive
 * keeps the recording's story and adds the merge's. */
static void start_log(const struct merge_input *in, const char *out_dir)
{
	char *dest = xasprintf("%s/perfcollect.log", out_dir);
	if (!in->loose) {
		char *src = xasprintf("%s/perfcollect.log", in->trace_dir);
		int fd = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			char buf[65536];
			ssize_t n;
			int out = open(dest, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
			while (out >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
				if (write_all(out, buf, n) < 0)
					break;
			if (out >= 0)
				close(out);
			close(fd);
		}
		free(src);
	}
	if (log_open(dest) < 0)
		fprintf(stderr, "perfcollect-c merge: warning: %s\n", pc_strerror());
	free(dest);
}

int cmd_merge(int argc, char **argv)
{
	const char *out = NULL, *format_name = NULL;
	const struct cli_opt opts[] = {
	    {"o", 0, CLI_STR, &out, "FILE",
	     "the archive to write (default <name>.trace.zip); the .nettrace goes beside it "
	     "(with -format nettrace, FILE may name the .nettrace)"},
	    {"format", 0, CLI_STR, &format_name, "FMT",
	     "perfcollect (the trace.zip), nettrace (<name>.nettrace beside it: one file for "
	     "PerfView) or both (default)"},
	    {0},
	};
	const char *pos[1];
	int npos;
	bool help;
	if (cli_parse("merge", opts, argc, argv, pos, 1, &npos, &help) < 0)
		return 2;
	if (help) {
		printf(
		    "usage: perfcollect-c merge <perf.data | name.trace | name.trace.zip> "
		    "[-o out.trace.zip]\n\n"
		    "Symbolizes perf.data into perf.data.txt (the text of perf script) and packs\n"
		    "it with perf.data, the JIT maps and perfcollect.log; the same pass writes\n"
		    "<name>.nettrace beside it (see -format).\n\noptions:\n");
		cli_print_options(stdout, opts);
		return 0;
	}
	if (npos != 1) {
		fprintf(stderr, "usage: perfcollect-c merge <perf.data | name.trace | "
				"name.trace.zip> [-o out.trace.zip]\n");
		return 2;
	}
	enum output_format format = FORMAT_BOTH;
	if (format_name && output_format_parse(format_name, &format) < 0) {
		fprintf(stderr, "perfcollect-c merge: %s\n", pc_strerror());
		return 2;
	}
	struct merge_input in = {0};
	if (resolve_input(pos[0], &in) < 0) {
		fprintf(stderr, "perfcollect-c merge: %s\n", pc_strerror());
		merge_input_free(&in);
		return 1;
	}
	char *zip = out ? xstrdup(out) : xasprintf("%s.trace.zip", in.name);
	char *nettrace = nettrace_beside(zip);
	if (format == FORMAT_NETTRACE && !str_endswith(zip, ".zip")) {
		free(nettrace); /* -o names the .nettrace itself */
		nettrace = xstrdup(zip);
	}
	char *work = make_temp_dir("merge");
	if (!work) {
		fprintf(stderr, "perfcollect-c merge: %s\n", pc_strerror());
		free(zip);
		free(nettrace);
		merge_input_free(&in);
		return 1;
	}
	start_log(&in, work);
	const char *output = format == FORMAT_NETTRACE ? nettrace : zip;
	log_info("merge %s -> %s", pos[0], output);
	struct postprocess_opts po = {
	    .trace_dir = in.trace_dir,
	    .name = in.name,
	    .zip_path = zip,
	    .live = in.loose,
	    .perf_data = in.perf_data,
	    .out_dir = work,
	    .loose = in.loose,
	    .format = format,
	    .nettrace_path = nettrace,
	};
	struct postprocess_stats st;
	struct stat before, after;
	bool existed = stat(output, &before) == 0;
	int r = postprocess_run(&po, &st);
	log_close();
	int ret = 0;
	/* The archive is renamed into place when complete: a new inode means it was written. */
	bool wrote = stat(output, &after) == 0 &&
		     (!existed || after.st_ino != before.st_ino || after.st_dev != before.st_dev);
	if (r < 0) {
		fprintf(stderr, "perfcollect-c merge: %s%s\n", pc_strerror(),
			wrote ? " (the archive holds what could be read)" : "");
		ret = 1;
	}
	if (wrote)
		fprintf(stderr,
			"perfcollect-c: wrote %s%s%s: %" PRIu64 " samples, %" PRIu64 " lost%s\n",
			output, format == FORMAT_BOTH && st.nettrace ? " and " : "",
			format == FORMAT_BOTH && st.nettrace ? nettrace : "", st.samples, st.lost,
			st.truncated ? " (perf.data was truncated)" : "");
	rm_rf(work);
	free(work);
	free(zip);
	free(nettrace);
	merge_input_free(&in);
	return ret;
}
