/* Unit tests for outfile: the target appears only complete (a reader never sees a part of
 * it, across many renames), outfile_commit_new() gives a name to one writer only, an earlier file
 * of that name survives every failure (abort, a write that does not fit, a kill before the commit),
 * no temporary file is left behind, every file is 0600 whatever the umask, never created through a
 * symlink (at the target or where outfile_create() makes one), given to the owner set; copies stop
 * at the bound given; outputs are refused over inputs and trace archives. */
#include "base/outfile.h"
#include "test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	if (fd >= 0)
		close(fd);
}

/* A symlink where the output goes: the file it points to is never written. */
static void test_symlinks(const char *dir)
{
	char *victim = xasprintf("%s/victim", dir), *link = xasprintf("%s/link.out", dir);
	char *dangling = xasprintf("%s/dangling.out", dir), *gone = xasprintf("%s/gone", dir);
	put(victim, "victim\n");
	CHECK(symlink(victim, link) == 0 && symlink(gone, dangling) == 0);
	/* outfile_create(): refused, whether the link points somewhere or nowhere */
	CHECK(outfile_create(link, 0) < 0 && errno == EEXIST);
	CHECK(outfile_create(dangling, 0) < 0 && errno == EEXIST);
	CHECK(access(gone, F_OK) < 0); /* not created through the dangling link */
	CHECK(outfile_create(link, OUTFILE_APPEND) < 0 && strstr(pc_strerror(), "symlink"));
	char *c = contents(victim);
	CHECK_STR(c, "victim\n");
	free(c);
	/* OUTFILE_REPLACE takes the name from the link, never writes through it */
	int fd = outfile_create(dangling, OUTFILE_REPLACE);
	CHECK(fd >= 0 && write(fd, "new\n", 4) == 4);
	if (fd >= 0)
		close(fd);
	struct stat st;
	CHECK(lstat(dangling, &st) == 0 && S_ISREG(st.st_mode) && access(gone, F_OK) < 0);
	/* outfile_open() over a symlink: the commit replaces the link, not its target */
	struct outfile *o = outfile_open(link);
	CHECK(o != NULL);
	if (o) {
		fputs("replaced\n", outfile_stream(o));
		CHECK(outfile_commit(o) == 0);
	}
	c = contents(link);
	CHECK_STR(c, "replaced\n");
	free(c);
	CHECK(lstat(link, &st) == 0 && S_ISREG(st.st_mode));
	c = contents(victim);
	CHECK_STR(c, "victim\n");
	free(c);
	/* a FIFO where the log is appended to: refused at once, not waited on */
	char *fifo = xasprintf("%s/fifo.log", dir);
	CHECK(mkfifo(fifo, 0600) == 0);
	CHECK(outfile_create(fifo, OUTFILE_APPEND) < 0 && strstr(pc_strerror(), "regular"));
	/* appending keeps what is there */
	char *log = xasprintf("%s/x.log", dir);
	put(log, "one\n");
	fd = outfile_create(log, OUTFILE_APPEND);
	CHECK(fd >= 0 && write(fd, "two\n", 4) == 4);
	if (fd >= 0)
		close(fd);
	c = contents(log);
	CHECK_STR(c, "one\ntwo\n");
	free(c);
	unlink(victim), unlink(link), unlink(dangling), unlink(fifo), unlink(log);
	free(victim), free(link), free(dangling), free(gone), free(fifo), free(log);
}

/* Whatever the umask, 0600; under an owner set (root only), that owner's. */
static void test_mode_and_owner(const char *dir)
{
	char *p = xasprintf("%s/mode.out", dir);
	mode_t old = umask(0);
	int fd = outfile_create(p, 0);
	struct stat st;
	CHECK(fd >= 0 && fstat(fd, &st) == 0 && (st.st_mode & 07777) == 0600);
	if (fd >= 0)
		close(fd);
	unlink(p);
	umask(077);
	struct outfile *o = outfile_open(p);
	CHECK(o && outfile_commit(o) == 0);
	CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0600);
	umask(old);
	if (geteuid() == 0) {
		outfile_set_owner(12345, 12346);
		o = outfile_open(p);
		CHECK(o && outfile_commit(o) == 0);
		CHECK(stat(p, &st) == 0 && st.st_uid == 12345 && st.st_gid == 12346);
		unlink(p);
		fd = outfile_create(p, 0);
		CHECK(fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == 12345);
		if (fd >= 0)
			close(fd);
		outfile_set_owner((uid_t)-1, (gid_t)-1);
	} else {
		printf("note: not root, the owner is not checked\n");
	}
	unlink(p);
	free(p);
}

/* A reader of the target sees the old file or the new one, whole, never a part. */
static void test_rename_atomic(const char *dir)
{
	char *p = xasprintf("%s/atomic.out", dir);
	char a[4096], b[8192];
	memset(a, 'a', sizeof(a));
	memset(b, 'b', sizeof(b));
	struct outfile *o = outfile_open(p);
	fwrite(a, 1, sizeof(a), outfile_stream(o));
	CHECK(outfile_commit(o) == 0);
	int stop[2];
	CHECK(pipe(stop) == 0);
	pid_t child = fork();
	if (child == 0) {
		close(stop[1]);
		fcntl(stop[0], F_SETFL, O_NONBLOCK);
		int bad = 0, reads = 0;
		char c;
		while (read(stop[0], &c, 1) < 0) {
			size_t len;
			char *s = read_file(p, &len);
			reads++;
			bool whole = s && ((len == sizeof(a) && !memcmp(s, a, len)) ||
					   (len == sizeof(b) && !memcmp(s, b, len)));
			bad += !whole;
			free(s);
		}
		_exit(bad == 0 && reads > 0 ? 0 : 1);
	}
	close(stop[0]);
	for (int i = 0; i < 300; i++) {
		o = outfile_open(p);
		FILE *f = outfile_stream(o);
		if (i % 2)
			fwrite(a, 1, sizeof(a), f);
		else
			for (size_t k = 0; k < sizeof(b); k += 512) { /* in pieces */
				fwrite(b + k, 1, 512, f);
				fflush(f);
			}
		CHECK(outfile_commit(o) == 0);
	}
	close(stop[1]);
	int ws;
	CHECK(waitpid(child, &ws, 0) == child && WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	unlink(p);
	free(p);
}

/* commit_new: the name only where none is; of two writers (processes) of one name, exactly
 * one gets it, whole, and the loser's temporary file goes. */
static void test_commit_new(const char *top)
{
	char *dir = xasprintf("%s/new", top);
	CHECK(mkdir(dir, 0700) == 0);
	char *p = xasprintf("%s/claim", dir);
	struct outfile *o = outfile_open(p);
	fputs("one\n", outfile_stream(o));
	CHECK(outfile_commit_new(o) == 0);
	o = outfile_open(p);
	fputs("two\n", outfile_stream(o));
	errno = 0;
	CHECK(outfile_commit_new(o) < 0 && errno == EEXIST);
	CHECK(strstr(pc_strerror(), "exists already") != NULL);
	char *c = contents(p);
	CHECK_STR(c, "one\n");
	free(c);
	CHECK_EQ_U64(entries(dir), 1);
	unlink(p);
	for (int round = 0; round < 20; round++) {
		pid_t kids[4];
		for (int k = 0; k < 4; k++)
			if ((kids[k] = fork()) == 0) {
				struct outfile *w = outfile_open(p);
				fprintf(outfile_stream(w), "writer %d\n", k);
				_exit(w && outfile_commit_new(w) == 0 ? 0
				      : errno == EEXIST		      ? 3
								      : 1);
			}
		int won = 0, lost = 0;
		for (int k = 0; k < 4; k++) {
			int ws;
			CHECK(waitpid(kids[k], &ws, 0) == kids[k] && WIFEXITED(ws));
			won += WEXITSTATUS(ws) == 0;
			lost += WEXITSTATUS(ws) == 3;
		}
		CHECK(won == 1 && lost == 3);
		c = contents(p);
		CHECK(str_startswith(c, "writer ") && strlen(c) == strlen("writer 0\n"));
		free(c);
		CHECK_EQ_U64(entries(dir), 1);
		unlink(p);
	}
	free(p);
	free(dir);
}

/* A copy stops at its bound (the size seen at open), from an fd or a stream. */
static void test_copy(const char *dir)
{
	char *src = xasprintf("%s/src", dir), *dst = xasprintf("%s/dst", dir);
	put(src, "0123456789");
	int fd = open(src, O_RDONLY);
	uint64_t n = 99;
	CHECK(outfile_copy(fd, dst, 4, &n) == 0 && n == 4);
	char *c = contents(dst);
	CHECK_STR(c, "0123");
	free(c);
	CHECK(lseek(fd, 0, SEEK_SET) == 0 && outfile_copy(fd, dst, UINT64_MAX, &n) == 0);
	c = contents(dst);
	CHECK_STR(c, "0123456789");
	free(c);
	close(fd);
	char text[] = "from a stream";
	FILE *in = fmemopen(text, strlen(text), "r");
	fd = outfile_create(src, OUTFILE_REPLACE);
	CHECK(fd >= 0 && file_copy_stream(fd, in, 9, &n) == 0 && n == 9);
	fclose(in);
	close(fd);
	c = contents(src);
	CHECK_STR(c, "from a st");
	free(c);
	/* a source that cannot be read: nothing under the name */
	unlink(dst);
	CHECK(outfile_copy(-1, dst, 10, &n) < 0 && access(dst, F_OK) < 0);
	unlink(src);
	free(src);
	free(dst);
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
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
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

	test_symlinks(dir);
	test_mode_and_owner(dir);
	test_rename_atomic(dir);
	test_commit_new(dir);
	test_copy(dir);
	free(path);
	rm_rf(dir);
	return TEST_DONE();
}
