/* log, ls, cat: read a trace.zip without unzip.  Entries are streamed, never extracted. */
#include "base/archive.h"
#include "base/outfile.h"
#include "cli.h"
#include "commands.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct archive_reader *open_zip(const char *cmd, const char *path)
{
	struct archive_reader *r = archive_reader_open(path);
	if (!r)
		fprintf(stderr, "perfcollect-c %s: %s\n", cmd, pc_strerror());
	return r;
}

/* After a stream: stdout must have taken everything and the entry must have read whole. */
static int stream_status(const char *cmd, bool bad_in, const char *what)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "perfcollect-c %s: cannot write to stdout\n", cmd);
		return 1;
	}
	if (bad_in) {
		fprintf(stderr, "perfcollect-c %s: cannot read %s (damaged archive?)\n", cmd, what);
		return 1;
	}
	return 0;
}

static int copy_stream(const char *cmd, FILE *in, const char *what)
{
	/* what was printed goes first, then the entry straight to the fd */
	bool copied =
	    fflush(stdout) == 0 && file_copy_stream(STDOUT_FILENO, in, UINT64_MAX, NULL) == 0;
	if (!copied && !ferror(in)) {
		fprintf(stderr, "perfcollect-c %s: cannot write to stdout\n", cmd);
		return 1;
	}
	return stream_status(cmd, ferror(in), what);
}

/* Prints the last n lines of in, keeping only those n in memory. */
static int tail_stream(const char *cmd, FILE *in, size_t n, const char *what)
{
	char **ring = NULL;
	size_t cap = 0, count = 0;
	char *line = NULL;
	size_t lcap = 0;
	ssize_t len;
	while ((len = getline(&line, &lcap, in)) >= 0) {
		if (!n)
			continue;
		size_t slot = count % n;
		if (slot >= cap) {
			size_t old = cap;
			grow_array((void **)&ring, &cap, slot + 1, sizeof(*ring));
			for (size_t i = old; i < cap; i++)
				ring[i] = NULL;
		}
		free(ring[slot]);
		ring[slot] = xstrndup(line, len);
		count++;
	}
	free(line);
	bool bad_in = ferror(in);
	size_t shown = count < n ? count : n;
	for (size_t i = count - shown; i < count; i++)
		fputs(ring[i % n], stdout);
	for (size_t i = 0; i < cap; i++)
		free(ring[i]);
	free(ring);
	return stream_status(cmd, bad_in, what);
}

static int usage_error(const char *cmd, const char *usage)
{
	fprintf(stderr, "usage: perfcollect-c %s %s\n", cmd, usage);
	return 2;
}

int cmd_log(int argc, char **argv)
{
	long tail = -1;
	const struct cli_opt opts[] = {
	    {"tail", 0, CLI_INT, &tail, "N", "print only the last N lines"},
	    {0},
	};
	const char *pos[1];
	int npos;
	bool help;
	if (cli_parse("log", opts, argc, argv, pos, 1, &npos, &help) < 0)
		return 2;
	if (help) {
		printf("usage: perfcollect-c log <trace.zip> [-tail N]\n\n"
		       "Prints perfcollect.log from the archive.\n\noptions:\n");
		cli_print_options(stdout, opts);
		return 0;
	}
	if (npos != 1)
		return usage_error("log", "<trace.zip> [-tail N]");
	struct archive_reader *r = open_zip("log", pos[0]);
	if (!r)
		return 1;
	long i = archive_reader_find(r, "perfcollect.log");
	int ret = 1;
	if (i < 0) {
		fprintf(stderr, "perfcollect-c log: %s has no perfcollect.log\n", pos[0]);
	} else {
		FILE *in = archive_reader_open_entry(r, i);
		if (!in) {
			fprintf(stderr, "perfcollect-c log: %s\n", pc_strerror());
		} else {
			const char *what = archive_reader_name(r, i);
			ret = tail >= 0 ? tail_stream("log", in, (size_t)tail, what)
					: copy_stream("log", in, what);
			fclose(in);
		}
	}
	archive_reader_free(r);
	return ret;
}

int cmd_ls(int argc, char **argv)
{
	const struct cli_opt opts[] = {{0}};
	const char *pos[1];
	int npos;
	bool help;
	if (cli_parse("ls", opts, argc, argv, pos, 1, &npos, &help) < 0)
		return 2;
	if (help) {
		printf("usage: perfcollect-c ls <trace.zip>\n\n"
		       "Lists the archive's entries: uncompressed size and name.\n");
		return 0;
	}
	if (npos != 1)
		return usage_error("ls", "<trace.zip>");
	struct archive_reader *r = open_zip("ls", pos[0]);
	if (!r)
		return 1;
	for (size_t i = 0; i < archive_reader_count(r); i++)
		printf("%12" PRIu64 "  %s\n", archive_reader_size(r, i), archive_reader_name(r, i));
	archive_reader_free(r);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "perfcollect-c ls: cannot write to stdout\n");
		return 1;
	}
	return 0;
}

int cmd_cat(int argc, char **argv)
{
	const struct cli_opt opts[] = {{0}};
	const char *pos[2];
	int npos;
	bool help;
	if (cli_parse("cat", opts, argc, argv, pos, 2, &npos, &help) < 0)
		return 2;
	if (help) {
		printf("usage: perfcollect-c cat <trace.zip> <entry>\n\n"
		       "Prints one entry; <entry> is its full name or the part after the last "
		       "directory\n(e.g. perf.data.txt).\n");
		return 0;
	}
	if (npos != 2)
		return usage_error("cat", "<trace.zip> <entry>");
	const char *entry = pos[1];
	if (!archive_name_is_safe(entry)) {
		fprintf(stderr,
			"perfcollect-c cat: refusing entry name '%s' (absolute, '..' or '\\')\n",
			entry);
		return 2;
	}
	struct archive_reader *r = open_zip("cat", pos[0]);
	if (!r)
		return 1;
	long i = archive_reader_find(r, entry);
	int ret = 1;
	if (i < 0) {
		fprintf(stderr, "perfcollect-c cat: no entry '%s' in %s (see 'perfcollect-c ls')\n",
			entry, pos[0]);
	} else {
		FILE *in = archive_reader_open_entry(r, i);
		if (!in) {
			fprintf(stderr, "perfcollect-c cat: %s\n", pc_strerror());
		} else {
			ret = copy_stream("cat", in, archive_reader_name(r, i));
			fclose(in);
		}
	}
	archive_reader_free(r);
	return ret;
}
