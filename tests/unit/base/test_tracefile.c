/* tracefile: inputs recognized by their first bytes (every kind, an empty file, a FIFO that
 * must not block), zips by their entries, the names of a trace's files, and the claim on a
 * trace directory (held by another process, left by a collector that died). */
#include "base/tracefile.h"
#include "base/archive.h"
#include "test.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void put(const char *dir, const char *name, const void *data, size_t len)
{
	char *p = xasprintf("%s/%s", dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, data, len) == (ssize_t)len);
	if (fd >= 0)
		close(fd);
	free(p);
}

static enum tracefile_kind kind_of(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	enum tracefile_kind k = TRACEFILE_OTHER;
	if (tracefile_classify(p, &k) < 0)
		k = (enum tracefile_kind) - 1;
	free(p);
	return k;
}

/* A zip's kind by its entries (archive_reader_kind()). */
static enum tracefile_kind zip_kind_of(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	struct archive_reader *r = archive_reader_open(p);
	CHECK(r != NULL);
	enum tracefile_kind k = r ? archive_reader_kind(r) : (enum tracefile_kind) - 1;
	archive_reader_free(r);
	free(p);
	return k;
}

static void test_kinds(const char *dir)
{
	put(dir, "perf.data", "PERFILE2\x68\0\0\0", 12);
	put(dir, "be.data", "2ELIFREP", 8);
	put(dir, "x.trace.zip", "PK\3\4\24\0", 6);
	put(dir, "x.nettrace", "Nettrace\0\0\0\x14!FastSerialization", 31);
	put(dir, "perf.data.txt", "hot  2888/2888  [001]   253.847211:", 36);
	put(dir, "empty", "", 0);
	put(dir, "short", "PERF", 4);
	CHECK(kind_of(dir, "perf.data") == TRACEFILE_PERF_DATA);
	CHECK(kind_of(dir, "be.data") == TRACEFILE_PERF_DATA);
	CHECK(kind_of(dir, "x.trace.zip") == TRACEFILE_ZIP);
	CHECK(kind_of(dir, "x.nettrace") == TRACEFILE_NETTRACE);
	CHECK(kind_of(dir, "perf.data.txt") == TRACEFILE_OTHER);
	CHECK(kind_of(dir, "empty") == TRACEFILE_EMPTY);
	CHECK(kind_of(dir, "short") == TRACEFILE_OTHER);
	CHECK(kind_of(dir, ".") == TRACEFILE_DIR);
	CHECK(kind_of(dir, "missing") == (enum tracefile_kind) - 1);
	CHECK(strstr(pc_strerror(), "missing") != NULL);
	CHECK(tracefile_kind_of("PK\3\4", 4) == TRACEFILE_ZIP);
	CHECK(tracefile_kind_of("PK\3", 3) == TRACEFILE_OTHER);
	CHECK(tracefile_kind_of("", 0) == TRACEFILE_EMPTY);
	/* a .netperf: "!FastSerialization.1" behind its length, no magic of its own */
	CHECK(tracefile_kind_of("\x14\0\0\0!FastSerialization.1", 24) == TRACEFILE_NETTRACE);
	CHECK(tracefile_kind_of("\x15\0\0\0!FastSerialization.1", 24) == TRACEFILE_OTHER);

	/* a FIFO is read without waiting for a writer: nothing there, so "empty" at once */
	char *fifo = xasprintf("%s/fifo", dir);
	CHECK(mkfifo(fifo, 0600) == 0);
	pid_t child = fork();
	if (child == 0) {
		alarm(5);
		enum tracefile_kind k;
		_exit(tracefile_classify(fifo, &k) == 0 && k == TRACEFILE_EMPTY ? 0 : 1);
	}
	int ws = 0;
	CHECK(waitpid(child, &ws, 0) == child && WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	free(fifo);
}

/* A zip with the named entries (a few bytes each). */
static void put_zip(const char *dir, const char *name, const char *const *entries)
{
	char *p = xasprintf("%s/%s", dir, name);
	struct archive_writer *w = archive_writer_new(p);
	CHECK(w != NULL);
	for (size_t i = 0; w && entries[i]; i++)
		CHECK(archive_writer_add_buffer(w, entries[i], "Nettrace", 8) == 0);
	CHECK(w && archive_writer_finish(w) == 0);
	archive_writer_free(w);
	free(p);
}

/* A zip is a trace.zip, or a zip of NetTrace files only, by its entries. */
static void test_zip_kinds(const char *dir)
{
	put_zip(dir, "t.trace.zip",
		(const char *const[]){"t.trace/perf.data.txt", "t.trace/dotnet-7.nettrace", NULL});
	put_zip(dir, "raw.trace.zip", (const char *const[]){"t.trace/perf.data", NULL});
	put_zip(dir, "inputs.zip", (const char *const[]){"readme.txt", "app.nettrace", NULL});
	put_zip(dir, "old.zip", (const char *const[]){"core21.netperf", NULL});
	put_zip(dir, "gconly.trace.zip", (const char *const[]){"t.trace/dotnet-7.nettrace", NULL});
	put_zip(dir, "other.zip", (const char *const[]){"a.txt", NULL});
	CHECK(zip_kind_of(dir, "t.trace.zip") == TRACEFILE_ZIP);
	CHECK(zip_kind_of(dir, "raw.trace.zip") == TRACEFILE_ZIP);
	CHECK(zip_kind_of(dir, "inputs.zip") == TRACEFILE_NETTRACE_ZIP);
	CHECK(zip_kind_of(dir, "old.zip") == TRACEFILE_NETTRACE_ZIP);
	CHECK(zip_kind_of(dir, "gconly.trace.zip") == TRACEFILE_NETTRACE_ZIP);
	CHECK(zip_kind_of(dir, "other.zip") == TRACEFILE_ZIP);
	CHECK(tracefile_is_nettrace_name("d/x.nettrace") &&
	      tracefile_is_nettrace_name("x.netperf"));
	CHECK(!tracefile_is_nettrace_name("x.nettrace.zip"));
	CHECK(tracefile_is_runtime_stream("t.trace/dotnet-7.nettrace"));
	CHECK(tracefile_is_runtime_stream("dotnet-7-2.nettrace"));
	CHECK(!tracefile_is_runtime_stream("app.nettrace"));
	CHECK(!tracefile_is_runtime_stream("dotnet-7/x.nettrace.gz"));
}

static void check_name(const char *path, const char *want)
{
	char *n = tracefile_name(path);
	CHECK_STR(n, want);
	free(n);
}

static void check_str(char *got, const char *want)
{
	CHECK_STR(got, want);
	free(got);
}

static void test_names(void)
{
	check_name("dir/x.trace.zip", "x");
	check_name("x.trace/", "x");
	check_name("/a/b/x.trace//", "x");
	check_name("x.zip", "x");
	check_name("foo.data", "foo");
	check_name("perf.data", "perf");
	check_name(".trace", ".trace"); /* nothing would be left */
	check_name("x.trace.zip.bak", "x.trace.zip.bak");
	check_name("d/app.nettrace", "app");
	check_name("core21.netperf", "core21");
	check_name("app.txt", "app");
	check_name("perf.data.txt", "perf.data");
	check_str(tracefile_path("out", "x", TRACE_ZIP_SUFFIX), "out/x.trace.zip");
	check_str(tracefile_path(NULL, "x", TRACE_DIR_SUFFIX), "./x.trace");
	check_str(tracefile_path("", "x", TRACE_NETTRACE_SUFFIX), "./x.nettrace");
	check_str(tracefile_nettrace_beside("d/x.trace.zip"), "d/x.nettrace");
	check_str(tracefile_nettrace_beside("x.zip"), "x.nettrace");
	check_str(tracefile_nettrace_beside("x.out"), "x.out.nettrace");
	check_str(tracefile_entry("dir/app.trace.zip", "stacks-1.txt"), "app.trace/stacks-1.txt");
	check_str(tracefile_entry("app.zip", "f"), "app.trace/f");
	check_str(tracefile_entry("app", "f"), "app.trace/f");
	check_str(tracefile_entry(".zip", "f"), "stacks.trace/f");
}

static void test_claim(const char *dir)
{
	char *td = xasprintf("%s/x.trace", dir);
	CHECK(mkdir(td, 0700) == 0);
	int holder = 99;
	bool left = true;
	int fd = tracedir_claim(td, &holder, &left);
	CHECK(fd >= 0 && !left);
	/* while we hold it, another process is refused and told our pid */
	pid_t child = fork();
	if (child == 0) {
		int h;
		bool l;
		int cfd = tracedir_claim(td, &h, &l);
		_exit(cfd < 0 && h == getppid() ? 0 : 1);
	}
	int ws = 0;
	CHECK(waitpid(child, &ws, 0) == child && WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	close(fd);
	/* the marker of a collector that died: left over */
	char *marker = xasprintf("%s/%s", td, TRACEDIR_MARKER);
	put(td, TRACEDIR_MARKER, "perfcollect-c collect pid 1\n", 28);
	fd = tracedir_claim(td, &holder, &left);
	CHECK(fd >= 0 && left);
	if (fd >= 0)
		close(fd);
	/* not a directory: cannot be locked, and says why */
	CHECK(tracedir_claim(marker, &holder, &left) < 0 && holder == -1);
	free(marker);
	free(td);
}

int main(void)
{
	char dir[] = "/tmp/pc-tracefile-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	test_kinds(dir);
	test_zip_kinds(dir);
	test_names();
	test_claim(dir);
	rm_rf(dir);
	return TEST_DONE();
}
