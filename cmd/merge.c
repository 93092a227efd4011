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
#include "base/log.h"
#include "base/tracefile.h"
#include "collect/collect.h"
#include "perfdata/perfdata_read.h"
#include "cli.h"
#include "commands.h"
#include "postprocess/postprocess.h"
#include "postprocess/postprocess_input.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int merge(int argc, char **argv, struct cli_symbols *sym);

int cmd_merge(int argc, char **argv)
{
	struct cli_symbols sym = {0};
	int rc = merge(argc, argv, &sym);
	free(sym.servers.items);
	return rc;
}

static int merge(int argc, char **argv, struct cli_symbols *sym)
{
	const char *out = NULL, *format_name = NULL;
	struct symsrv_opts symsrv;
	const struct cli_opt opts[] = {
	    {"o", 0, CLI_STR, &out, "FILE",
	     "the archive to write (default <name>.trace.zip); the .nettrace goes beside it "
	     "(with -format nettrace, FILE may name the .nettrace)"},
	    {"format", 0, CLI_STR, &format_name, "FMT",
	     "perfcollect (the trace.zip), nettrace (<name>.nettrace beside it: one file for "
	     "PerfView) or both (default)"},
	    CLI_SYMBOL_OPTS(sym, "60"),
	    {0},
	};
	const char *pos[1];
	int npos;
	bool help;
	if (cli_parse("merge", opts, argc, argv, pos, 1, &npos, &help) < 0)
		return 2;
	if (!help && cli_symbols_opts("merge", sym, &symsrv) < 0)
		return 2;
	if (help) {
		printf(
		    "usage: perfcollect-c merge <perf.data | name.trace | name.trace.zip> "
		    "[-o out.trace.zip]\n\n"
		    "Symbolizes perf.data into perf.data.txt (the text of perf script) and packs\n"
		    "it with perf.data, the JIT maps and perfcollect.log; the same pass writes\n"
		    "<name>.nettrace beside it (see -format).  A trace.zip collected where no\n"
		    "symbol server was reachable is named here: stripped files' symbols (and\n"
		    "binaries this machine lacks) are fetched by the build-ids perf.data keeps.\n"
		    "\noptions:\n");
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
	struct postprocess_input in;
	if (postprocess_input_open(pos[0], &in) < 0) {
		fprintf(stderr, "perfcollect-c merge: %s\n", pc_strerror());
		postprocess_input_free(&in);
		return 1;
	}
	bool renamed;
	char *zip = postprocess_output_name(pos[0], out, in.name, &renamed);
	if (!zip) {
		fprintf(stderr, "perfcollect-c merge: %s\n", pc_strerror());
		postprocess_input_free(&in);
		return 1;
	}
	if (renamed)
		fprintf(stderr,
			"perfcollect-c merge: %s%s is the input and stays as it is; writing %s\n",
			in.name, TRACE_ZIP_SUFFIX, zip);
	char *nettrace = tracefile_nettrace_beside(zip);
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
			postprocess_input_free(&in);
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
		postprocess_input_free(&in);
		return 1;
	}
	if (postprocess_input_start_log(&in, work) < 0)
		fprintf(stderr, "perfcollect-c merge: warning: %s\n", pc_strerror());
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
	    .symsrv = &symsrv,
	    .symsrv_timeout_s = SYMSRV_MERGE_TIMEOUT_S,
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
	postprocess_input_free(&in);
	return ret;
}
