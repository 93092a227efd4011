/* merge: the post-processing step alone.  The input is a perf.data (ours or real perf's,
 * with its JIT maps where perf looks for them), a <name>.trace directory or a
 * <name>.trace.zip (extracted to a temporary directory).  Outputs are built in a
 * temporary directory, never in the input, and packed into <name>.trace.zip, which is
 * never the input (a new name is chosen) and is not written at all when merge fails; the
 * same pass writes <name>.nettrace beside it (-format says which of the two).
 *
 * A <name>.trace directory a collector left behind (killed, crashed, out of disk) is
 * finished the way the collector would have: JIT maps are taken from the processes that
 * still run, and the directory is removed once the archive is complete.  One that a
 * collector still records into is refused. */
#include "base/archive.h"
#include "base/log.h"
#include "base/outfile.h"
#include "collect/collect.h"
#include "perfdata/perfdata_read.h"
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
	bool left_over;	 /* a collector's working directory it did not finish */
	int lock_fd;	 /* the trace directory's lock, held while merging it */
};

static void merge_input_free(struct merge_input *in)
{
	if (in->lock_fd > 0)
		close(in->lock_fd);
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

/* Whether path starts like a perf.data (PERFILE2, either byte order; perf's pipe mode too). */
static int check_perf_data(const char *path, const char *shown)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pc_err_errno("cannot open %s", shown);
	char magic[8];
	ssize_t n = read(fd, magic, sizeof(magic));
	close(fd);
	if (n == (ssize_t)sizeof(magic) &&
	    (!memcmp(magic, "PERFILE2", 8) || !memcmp(magic, "2ELIFREP", 8)))
		return 0;
	return pc_err("%s is not a perf.data file (%s); merge takes a perf.data, a <name>.trace "
		      "directory or a <name>.trace.zip",
		      shown, n <= 0 ? "it is empty" : "it does not start with PERFILE2");
}

/* A <name>.trace directory: refused while a collector records into it; else whether it is
 * a collector's own (its marker file) that the collector did not finish. */
static int claim_trace_dir(struct merge_input *in)
{
	int holder;
	in->lock_fd = lock_dir(in->trace_dir, &holder);
	if (in->lock_fd >= 0) {
		char *marker = xasprintf("%s/%s", in->trace_dir, COLLECT_MARKER);
		in->left_over = access(marker, F_OK) == 0;
		free(marker);
		return 0;
	}
	if (holder < 0)
		return -1;
	char who[32] = "";
	if (holder > 0)
		snprintf(who, sizeof(who), " (pid %d)", holder);
	return pc_err("%s is being recorded right now by a running collection%s; it writes its "
		      "archive itself when it stops (Ctrl+C in its terminal%s)",
		      in->trace_dir, who, holder > 0 ? ", or kill -INT that pid" : "");
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
		ret = claim_trace_dir(in);
		if (ret == 0)
			ret = check_perf_data(in->perf_data, in->perf_data);
	} else if (str_endswith(b, ".zip")) {
		ret = open_zip_input(path, in);
		if (ret == 0)
			ret = check_perf_data(in->perf_data, arg);
	} else {
		in->perf_data = xstrdup(path);
		in->trace_dir = dir_name(path);
		char *db = base_name(in->trace_dir);
		/* A perf.data inside a <name>.trace directory is that trace. */
		in->loose = !str_endswith(db, ".trace");
		in->name = strip_suffix(in->loose ? b : db);
		free(db);
		ret = check_perf_data(in->perf_data, arg);
		if (ret == 0 && !in->loose)
			ret = claim_trace_dir(in);
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
		int fd = open(src, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		struct stat st;
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
			outfile_copy(fd, dest, (uint64_t)st.st_size, NULL);
		if (fd >= 0)
			close(fd);
		free(src);
	}
	if (log_open(dest) < 0)
		fprintf(stderr, "perfcollect-c merge: warning: %s\n", pc_strerror());
	free(dest);
}

/* The archive to write: -o, else <name>.trace.zip here, but never the input: a zip merged
 * again without -o gets a new name (<name>-merged.trace.zip, -merged-2 ...). */
static char *output_name(const char *input, const char *out, const char *name)
{
	if (out) {
		if (same_file(out, input))
			return pc_err("-o %s is the input; merge never writes over its input: name "
				      "another archive",
				      out),
			       NULL;
		return xstrdup(out);
	}
	char *zip = xasprintf("%s.trace.zip", name);
	for (int i = 1; same_file(zip, input) || (i > 1 && access(zip, F_OK) == 0); i++) {
		free(zip);
		zip = i == 1 ? xasprintf("%s-merged.trace.zip", name)
			     : xasprintf("%s-merged-%d.trace.zip", name, i);
	}
	if (strcmp(zip + strlen(name), ".trace.zip"))
		fprintf(stderr,
			"perfcollect-c merge: %s.trace.zip is the input and stays as it is; "
			"writing %s\n",
			name, zip);
	return zip;
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
	struct merge_input in = {.lock_fd = -1};
	if (resolve_input(pos[0], &in) < 0) {
		fprintf(stderr, "perfcollect-c merge: %s\n", pc_strerror());
		merge_input_free(&in);
		return 1;
	}
	char *zip = output_name(pos[0], out, in.name);
	if (!zip) {
		fprintf(stderr, "perfcollect-c merge: %s\n", pc_strerror());
		merge_input_free(&in);
		return 1;
	}
	char *nettrace = nettrace_beside(zip);
	if (format == FORMAT_NETTRACE && out && !str_endswith(zip, ".zip")) {
		free(nettrace); /* -o names the .nettrace itself */
		nettrace = xstrdup(zip);
	}
	if (in.left_over) {
		struct perfdata_reader *pr = perfdata_reader_open(in.perf_data);
		if (!pr) {
			fprintf(
			    stderr,
			    "perfcollect-c merge: %s holds no recording: its collector was "
			    "stopped before it recorded anything (%s); nothing to finish, remove "
			    "it: rm -r %s\n",
			    in.trace_dir, pc_strerror(), pos[0]);
			free(zip);
			free(nettrace);
			merge_input_free(&in);
			return 1;
		}
		perfdata_reader_free(pr);
		fprintf(stderr,
			"perfcollect-c merge: %s was left by a collection that did not finish; "
			"finishing it into %s\n",
			in.trace_dir, format == FORMAT_NETTRACE ? nettrace : zip);
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
	    /* A left-over recording's processes may still run: their JIT maps are where
	     * the collector would have found them. */
	    .live = in.loose || in.left_over,
	    .perf_data = in.perf_data,
	    .out_dir = work,
	    .loose = in.loose,
	    .all_or_nothing = true,
	    .format = format,
	    .nettrace_path = nettrace,
	};
	struct postprocess_stats st;
	struct stat before, after;
	bool existed = stat(output, &before) == 0;
	int r = postprocess_run(&po, &st);
	log_close();
	int ret = 0;
	/* The archive is renamed into place when complete: another file there now (a new
	 * inode, or the old number reused by a file renamed in later) means it was written. */
	bool wrote = stat(output, &after) == 0 &&
		     (!existed || after.st_ino != before.st_ino || after.st_dev != before.st_dev ||
		      after.st_ctim.tv_sec != before.st_ctim.tv_sec ||
		      after.st_ctim.tv_nsec != before.st_ctim.tv_nsec);
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
	if (in.left_over)
		collect_undo_left_over(in.trace_dir);
	if (wrote && r == 0 && in.left_over) {
		/* Finished as the collector would have: its working directory goes. */
		if (rm_rf(in.trace_dir) == 0)
			fprintf(stderr, "perfcollect-c merge: removed %s (all of it is in %s)\n",
				in.trace_dir, output);
	}
	rm_rf(work);
	free(work);
	free(zip);
	free(nettrace);
	merge_input_free(&in);
	return ret;
}
