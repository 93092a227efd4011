/* Unit tests for archive: round trip through a real zip (libzip + the system's unzip as the
 * independent reader), name safety, and extraction that refuses "../" entries. */
#include "base/archive.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

static char *slurp(FILE *f)
{
	size_t cap = 1 << 16, n = 0, r;
	char *buf = malloc(cap);
	while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (n + 1 >= cap)
			buf = realloc(buf, cap *= 2);
	}
	buf[n] = 0;
	return buf;
}

int main(void)
{
	char dir[] = "/tmp/pc-archive-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *src = xasprintf("%s/input.txt", dir);
	FILE *f = fopen(src, "w");
	for (int i = 0; i < 10000; i++)
		fprintf(f, "line %d of a compressible file\n", i);
	fclose(f);

	CHECK(archive_name_is_safe("a.trace/perf.data"));
	CHECK(archive_name_is_safe("a..b/c"));
	CHECK(!archive_name_is_safe("../x"));
	CHECK(!archive_name_is_safe("a/../../x"));
	CHECK(!archive_name_is_safe("a/.."));
	CHECK(!archive_name_is_safe("/etc/passwd"));
	CHECK(!archive_name_is_safe("a\\b"));
	CHECK(!archive_name_is_safe(""));

	char *zpath = xasprintf("%s/t.trace.zip", dir);
	struct archive_writer *w = archive_writer_new(zpath);
	CHECK(w != NULL);
	CHECK(archive_writer_add_file(w, "t.trace/input.txt", src) == 0);
	CHECK(archive_writer_add_buffer(w, "t.trace/perfcollect.log", "hello\n", 6) == 0);
	CHECK(archive_writer_add_buffer(w, "../escape", "x", 1) < 0);
	CHECK(archive_writer_add_file(w, "t.trace/missing", "/nonexistent/file") < 0);
	CHECK(archive_writer_finish(w) == 0);
	archive_writer_free(w);

	/* The system's unzip is an independent reader: it must test the archive as good. */
	if (system("command -v unzip >/dev/null") == 0) {
		char *cmd = xasprintf("unzip -tq %s >/dev/null", zpath);
		CHECK(system(cmd) == 0);
		free(cmd);
	}

	struct archive_reader *r = archive_reader_open(zpath);
	CHECK(r != NULL);
	CHECK_EQ_U64(archive_reader_count(r), 2);
	long i = archive_reader_find(r, "input.txt");
	CHECK(i >= 0);
	CHECK_STR(archive_reader_name(r, i), "t.trace/input.txt");
	CHECK(archive_reader_find(r, "put.txt") < 0);
	FILE *e = archive_reader_open_entry(r, i);
	char *text = slurp(e);
	fclose(e);
	char *orig = read_file(src, NULL);
	CHECK_STR(text, orig);
	CHECK_EQ_U64(archive_reader_size(r, i), strlen(orig));
	free(text);
	free(orig);
	char *out = xasprintf("%s/out", dir);
	CHECK(archive_reader_extract_all(r, out) == 0);
	char *extracted = xasprintf("%s/t.trace/perfcollect.log", out);
	char *log = read_file(extracted, NULL);
	CHECK_STR(log, "hello\n");
	free(log);
	archive_reader_free(r);

	/* Streaming: an entry several times the stream's buffer, written while the archive is
	 * compressed on the writer's thread, plus entries added after it started. */
	char *spath = xasprintf("%s/s.trace.zip", dir);
	w = archive_writer_new(spath);
	CHECK(w != NULL);
	CHECK(archive_writer_add_file(w, "s.trace/input.txt", src) == 0);
	FILE *sf = archive_writer_add_stream(w, "s.trace/perf.data.txt");
	CHECK(sf != NULL);
	CHECK(archive_writer_add_stream(w, "s.trace/second") == NULL);
	CHECK(archive_writer_start(w) == 0);
	size_t expect_len = 0;
	char *expect = NULL;
	size_t expect_cap = 0;
	for (int n = 0; n < 200000; n++) {
		char line[64];
		int l = snprintf(line, sizeof(line), "%d sample %x\n", n, n * 2654435761u);
		grow_array((void **)&expect, &expect_cap, expect_len + l + 1, 1);
		memcpy(expect + expect_len, line, l);
		expect_len += l;
		CHECK(fwrite(line, 1, l, sf) == (size_t)l);
	}
	expect[expect_len] = 0;
	CHECK(fclose(sf) == 0);
	CHECK(archive_writer_add_buffer(w, "s.trace/perfcollect.log", "late\n", 5) == 0);
	CHECK(archive_writer_add_file(w, "s.trace/late.txt", src) == 0);
	CHECK(archive_writer_add_buffer(w, "../escape", "x", 1) < 0);
	CHECK(archive_writer_finish(w) == 0);
	archive_writer_free(w);
	if (system("command -v unzip >/dev/null") == 0) {
		char *cmd = xasprintf("unzip -tq %s >/dev/null", spath);
		CHECK(system(cmd) == 0);
		free(cmd);
	}
	r = archive_reader_open(spath);
	CHECK(r != NULL);
	CHECK_EQ_U64(archive_reader_count(r), 4);
	i = archive_reader_find(r, "perf.data.txt");
	CHECK(i >= 0);
	e = archive_reader_open_entry(r, i);
	text = slurp(e);
	fclose(e);
	CHECK(strlen(text) == expect_len && !strcmp(text, expect));
	free(text);
	CHECK(archive_reader_find(r, "late.txt") >= 0);
	i = archive_reader_find(r, "perfcollect.log");
	CHECK(i >= 0);
	e = archive_reader_open_entry(r, i);
	text = slurp(e);
	fclose(e);
	CHECK_STR(text, "late\n");
	free(text);
	archive_reader_free(r);

	/* The archive cannot be written: the producer is not blocked, _finish() says why. */
	char *bad = xasprintf("%s/nodir/b.zip", dir);
	w = archive_writer_new(bad);
	CHECK(w != NULL);
	sf = archive_writer_add_stream(w, "b.trace/perf.data.txt");
	CHECK(sf != NULL);
	CHECK(archive_writer_start(w) == 0);
	CHECK(fwrite(expect, 1, expect_len, sf) == expect_len);
	fclose(sf);
	CHECK(archive_writer_add_buffer(w, "b.trace/perfcollect.log", "x", 1) == 0);
	CHECK(archive_writer_finish(w) < 0);
	CHECK(strstr(pc_strerror(), "b.zip") != NULL);
	archive_writer_free(w);
	CHECK(access(bad, F_OK) != 0);

	/* Freed without _finish(): nothing is left behind. */
	char *gone = xasprintf("%s/gone.zip", dir);
	w = archive_writer_new(gone);
	sf = archive_writer_add_stream(w, "g.trace/perf.data.txt");
	CHECK(archive_writer_start(w) == 0);
	fwrite(expect, 1, expect_len / 2, sf);
	fclose(sf);
	archive_writer_free(w);
	CHECK(access(gone, F_OK) != 0);
	free(expect), free(spath), free(bad), free(gone);

	/* A hostile zip (made with libzip directly) with a "../" entry must not extract. */
	char *evil = xasprintf("%s/evil.zip", dir);
	int err;
	zip_t *z = zip_open(evil, ZIP_CREATE | ZIP_TRUNCATE, &err);
	zip_file_add(z, "../../pc-archive-escaped", zip_source_buffer(z, "x", 1, 0), 0);
	CHECK(zip_close(z) == 0);
	r = archive_reader_open(evil);
	CHECK(r != NULL);
	char *out2 = xasprintf("%s/out2/sub", dir);
	CHECK(archive_reader_extract_all(r, out2) < 0);
	CHECK(strstr(pc_strerror(), "unsafe") != NULL);
	char *escaped = xasprintf("%s/pc-archive-escaped", dir);
	CHECK(access(escaped, F_OK) != 0);
	archive_reader_free(r);

	CHECK(archive_reader_open("/nonexistent.zip") == NULL);
	CHECK(strstr(pc_strerror(), "nonexistent") != NULL);

	char *rm = xasprintf("rm -rf %s", dir);
	CHECK(system(rm) == 0);
	free(rm);
	free(src), free(zpath), free(out), free(extracted), free(evil), free(out2), free(escaped);
	return TEST_DONE();
}
