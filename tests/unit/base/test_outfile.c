/* Unit tests for outfile: the target appears only complete, an earlier file of that name
 * survives every failure (abort, a write that does not fit, a kill before the commit), no
 * temporary file is left behind, and outputs are refused over inputs and trace archives. */
#include "base/outfile.h"
#include "test.h"

#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static size_t entries(const char *dir)
{
	DIR *d = opendir(dir);
	size_t n = 0;
	struct dirent *de;
	while (d && (de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

static char *contents(const char *path)
{
	char *s = read_file(path, NULL);
	return s ? s : xstrdup("(missing)");
}

int main(void)
{
	char dir[] = "/tmp/test_outfile.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *path = xasprintf("%s/out.svg", dir);

	/* Commit: the bytes under the name, with the usual permissions, nothing else. */
	struct outfile *o = outfile_open(path);
	CHECK(o != NULL);
	fputs("first\n", outfile_stream(o));
	struct stat st;
	CHECK(stat(path, &st) < 0); /* not there before the commit */
	CHECK(str_startswith(strrchr(outfile_temp_path(o), '/') + 1, ".out.svg."));
	CHECK(outfile_commit(o) == 0);
	char *c = contents(path);
	CHECK_STR(c, "first\n");
	free(c);
	mode_t um = umask(0);
	umask(um);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == (0666 & ~um));
	CHECK_EQ_U64(entries(dir), 1);

	/* Abort: the earlier file stays, the temporary goes. */
	o = outfile_open(path);
	fputs("second, abandoned\n", outfile_stream(o));
	outfile_abort(o);
	c = contents(path);
	CHECK_STR(c, "first\n");
	free(c);
	CHECK_EQ_U64(entries(dir), 1);

	/* A write that does not fit (RLIMIT_FSIZE as a full disk): the commit fails and the
	 * earlier file is untouched. */
	pid_t child = fork();
	if (child == 0) {
		signal(SIGXFSZ, SIG_IGN);
		struct rlimit lim = {4096, 4096};
		setrlimit(RLIMIT_FSIZE, &lim);
		struct outfile *big = outfile_open(path);
		for (int i = 0; big && i < 10000; i++)
			fputs("0123456789abcdef\n", outfile_stream(big));
		int rc = big ? outfile_commit(big) : 0;
		_exit(rc < 0 && strstr(pc_strerror(), "cannot write") ? 0 : 1);
	}
	int ws;
	CHECK(waitpid(child, &ws, 0) == child && WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	c = contents(path);
	CHECK_STR(c, "first\n");
	free(c);
	CHECK_EQ_U64(entries(dir), 1);

	/* Killed before the commit: the target is the earlier file (a hidden temporary may
	 * remain, never under the target's name). */
	child = fork();
	if (child == 0) {
		struct outfile *k = outfile_open(path);
		fputs("killed\n", outfile_stream(k));
		fflush(outfile_stream(k));
		raise(SIGKILL);
		_exit(1);
	}
	CHECK(waitpid(child, &ws, 0) == child && WIFSIGNALED(ws));
	c = contents(path);
	CHECK_STR(c, "first\n");
	free(c);

	/* No directory to write in: one line naming the file. */
	char *nodir = xasprintf("%s/missing/x.svg", dir);
	CHECK(outfile_open(nodir) == NULL && strstr(pc_strerror(), nodir));
	free(nodir);

	/* Refusals: over an input (also by another name), onto a .trace.zip name. */
	char *input = xasprintf("%s/in.trace.zip", dir);
	char *alias = xasprintf("%s/./in.trace.zip", dir);
	FILE *f = fopen(input, "w");
	fclose(f);
	const char *inputs[] = {input, NULL};
	CHECK(outfile_check_target(alias, "the flame graph", inputs) < 0);
	CHECK(strstr(pc_strerror(), "over the input") != NULL);
	CHECK(outfile_check_target("other.trace.zip", "the flame graph", inputs) < 0);
	CHECK(strstr(pc_strerror(), ".trace.zip") != NULL);
	CHECK(outfile_check_target(path, "the flame graph", inputs) == 0);
	CHECK(same_file(input, alias) && !same_file(input, path) && !same_file(input, NULL));
	free(input);
	free(alias);

	free(path);
	rm_rf(dir);
	return TEST_DONE();
}
