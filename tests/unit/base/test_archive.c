/* Unit tests for archive: round trip through a real zip (libzip, and the system's unzip and
 * Python's zipfile as independent readers), stored and deflated entries, a side stream written
 * beside another entry (placed last, or left out when abandoned), write failures, name
 * safety, and extraction that refuses "../" entries. */
#include "base/archive.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
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

/* Independent readers: unzip, Python's zipfile (the archive's CRCs and every entry, n of
 * them). */
static void check_other_readers(const char *zpath, int n)
{
	if (system("command -v unzip >/dev/null") == 0) {
		char *cmd = xasprintf("unzip -tq %s >/dev/null", zpath);
		CHECK(system(cmd) == 0);
		free(cmd);
	}
	if (system("command -v python3 >/dev/null") == 0) {
		char *cmd =
		    xasprintf("python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); "
			      "sys.exit(z.testzip() is not None or len(z.namelist()) != %d)' %s",
			      n, zpath);
		CHECK(system(cmd) == 0);
		free(cmd);
	}
}

/* Nothing is left in dir (no archive, no temporary file). */
static void check_empty(const char *dir)
{
	char *ls = xasprintf("test -z \"$(ls -A %s)\"", dir);
	CHECK(system(ls) == 0);
	free(ls);
}

/* Text of n lines, different for each seed. */
static void put_lines(FILE *to, char **acc, size_t *len, size_t *cap, int seed, int from, int n)
{
	for (int i = from; i < from + n; i++) {
		char line[80];
		int l = snprintf(line, sizeof(line), "%d event %d %x\n", seed, i,
				 (unsigned)i * 2654435761u ^ (unsigned)seed);
		grow_array((void **)acc, cap, *len + (size_t)l + 1, 1);
		memcpy(*acc + *len, line, (size_t)l);
		*len += (size_t)l;
		(*acc)[*len] = 0;
		CHECK(fwrite(line, 1, (size_t)l, to) == (size_t)l);
	}
}

static char *entry_text(struct archive_reader *r, const char *name)
{
	long i = archive_reader_find(r, name);
	if (i < 0)
		return NULL;
	FILE *e = archive_reader_open_entry(r, (size_t)i);
	char *text = slurp(e);
	fclose(e);
	return text;
}

/* Whether entry name of r holds exactly want[0..len). */
static bool entry_holds(struct archive_reader *r, const char *name, const char *want, size_t len)
{
	char *got = entry_text(r, name);
	bool ok = got && strlen(got) == len && !memcmp(got, want, len);
	free(got);
	return ok;
}

/* A side stream filled at the same time as the main stream (several pieces of each,
 * interleaved) is placed after every other entry, whole; an abandoned one is left out; no
 * file is left beside the archive; freed unfinished, nothing is left. */
static void side_streams(const char *dir)
{
	char *sub = xasprintf("%s/side", dir), *zpath = xasprintf("%s/side/t.zip", dir);
	CHECK(mkdir(sub, 0755) == 0);
	struct archive_writer *w = archive_writer_new(zpath);
	CHECK(w != NULL);
	FILE *m = archive_writer_add_stream(w, "t.trace/perf.data.txt");
	FILE *s = archive_writer_add_side_stream(w, "t.trace/t.nettrace");
	CHECK(m && s);
	CHECK(archive_writer_add_side_stream(w, "t.trace/other.nettrace") == NULL); /* one */
	char *mt = NULL, *st = NULL;
	size_t ml = 0, mc = 0, sl = 0, sc = 0;
	for (int round = 0; round < 40; round++) {
		put_lines(m, &mt, &ml, &mc, 1, round * 5000, 5000);
		put_lines(s, &st, &sl, &sc, 2, round * 3000, 3000);
	}
	CHECK(ml > 3 << 20 && sl > 2 << 20);
	CHECK(fclose(s) == 0);
	/* the name is taken while it waits to be placed */
	CHECK(archive_writer_add_buffer(w, "t.trace/t.nettrace", "x", 1) < 0);
	/* a second side stream, abandoned after a few pieces */
	FILE *d = archive_writer_add_side_stream(w, "t.trace/dropped.nettrace");
	CHECK(d != NULL);
	char *dt = NULL;
	size_t dl = 0, dc = 0;
	put_lines(d, &dt, &dl, &dc, 3, 0, 100000);
	put_lines(m, &mt, &ml, &mc, 1, 200000, 1000);
	archive_writer_abandon_side_stream(w, d);
	CHECK(fclose(m) == 0);
	CHECK(archive_writer_add_buffer(w, "t.trace/perfcollect.log", "log\n", 4) == 0);
	CHECK(archive_writer_finish(w) == 0);
	archive_writer_free(w);
	char *ls = xasprintf("test \"$(ls -A %s)\" = t.zip", sub);
	CHECK(system(ls) == 0);
	check_other_readers(zpath, 3);
	int err = 0;
	zip_t *z = zip_open(zpath, ZIP_RDONLY | ZIP_CHECKCONS, &err);
	CHECK(z != NULL);
	if (z)
		zip_discard(z);
	struct archive_reader *r = archive_reader_open(zpath);
	CHECK(r != NULL);
	CHECK_EQ_U64(archive_reader_count(r), 3);
	CHECK_STR(archive_reader_name(r, 0), "t.trace/perf.data.txt");
	CHECK_STR(archive_reader_name(r, 1), "t.trace/perfcollect.log");
	CHECK_STR(archive_reader_name(r, 2), "t.trace/t.nettrace");
	CHECK(entry_holds(r, "perf.data.txt", mt, ml));
	CHECK(entry_holds(r, "t.nettrace", st, sl));
	archive_reader_free(r);

	/* freed unfinished, side streams open and ended: nothing left */
	CHECK(unlink(zpath) == 0);
	w = archive_writer_new(zpath);
	m = archive_writer_add_stream(w, "u.trace/perf.data.txt");
	s = archive_writer_add_side_stream(w, "u.trace/u.nettrace");
	CHECK(m && s);
	CHECK(fwrite(st, 1, sl, s) == sl && fwrite(mt, 1, ml, m) == ml);
	fclose(s);
	s = archive_writer_add_side_stream(w, "u.trace/v.nettrace");
	CHECK(s && fwrite(st, 1, sl / 2, s) == sl / 2);
	fclose(s);
	fclose(m);
	archive_writer_free(w);
	check_empty(sub);
	free(ls), free(mt), free(st), free(dt), free(sub), free(zpath);
}

/* n numbered lines (put_lines' text) in memory, *len bytes. */
static char *lines_text(int seed, int n, size_t *len)
{
	FILE *null = fopen("/dev/null", "w");
	char *text = NULL;
	size_t cap = 0;
	*len = 0;
	put_lines(null, &text, len, &cap, seed, 0, n);
	fclose(null);
	return text;
}

/* A producer faster than the compressors (text copied from memory) waits for them, and
 * the pieces after a wait are compressed a step lighter: the stats say so, and what the
 * entries hold is unchanged, the text's pieces (SMALL and FAST) and the side stream's (BEST
 * and SMALL, zlib's and ISA-L's deflate) joined in one stream each. */
static void lighter_when_behind(const char *dir)
{
	char *zpath = xasprintf("%s/behind.zip", dir);
	size_t len;
	char *text = lines_text(4, 1000000, &len); /* ~24 MB */
	struct archive_writer *w = archive_writer_new(zpath);
	CHECK(w != NULL);
	struct archive_stats st;
	archive_writer_stats(w, &st);
	CHECK(st.waits == 0 && st.deflated == 0 && st.lighter == 0);
	FILE *m = archive_writer_add_stream(w, "b.trace/perf.data.txt");
	FILE *s = archive_writer_add_side_stream(w, "b.trace/b.nettrace");
	CHECK(m && s);
	size_t half = len / 2;
	for (size_t off = 0; off < half; off += 1 << 20) {
		size_t n = half - off < (1u << 20) ? half - off : 1u << 20;
		CHECK(fwrite(text + off, 1, n, m) == n);
		CHECK(fwrite(text + half + off, 1, n, s) == n);
	}
	CHECK(fclose(s) == 0 && fclose(m) == 0);
	archive_writer_stats(w, &st);
	CHECK(st.waits > 0);
	CHECK(st.lighter > 0 && st.lighter <= st.deflated);
	CHECK(archive_writer_finish(w) == 0);
	archive_writer_free(w);
	check_other_readers(zpath, 2);
	struct archive_reader *r = archive_reader_open(zpath);
	CHECK(r != NULL);
	CHECK(entry_holds(r, "perf.data.txt", text, half));
	CHECK(entry_holds(r, "b.nettrace", text + half, half));
	archive_reader_free(r);
	CHECK(unlink(zpath) == 0);
	free(text), free(zpath);
}

/* archive_writer_give(): buffers taken as pieces whole, between bytes fwrite() put in the
 * same entry (main stream and side stream), read back in order; what it cannot take (more
 * than a piece, another FILE) it leaves to fwrite(). */
static void give_pieces(const char *dir)
{
	char *zpath = xasprintf("%s/give.zip", dir);
	size_t len;
	char *text = lines_text(5, 300000, &len); /* ~7 MB */
	FILE *other = fopen("/dev/null", "w");
	struct archive_writer *w = archive_writer_new(zpath);
	CHECK(w != NULL);
	FILE *m = archive_writer_add_stream(w, "g.trace/perf.data.txt");
	FILE *s = archive_writer_add_side_stream(w, "g.trace/g.nettrace");
	CHECK(m && s);
	size_t bcap = ARCHIVE_PIECE;
	uint8_t *buf = xmalloc(bcap);
	CHECK(archive_writer_give(w, other, &buf, &bcap, 100) == 1); /* not one of its streams */
	uint8_t *big = xmalloc(ARCHIVE_PIECE + 1);
	size_t big_cap = ARCHIVE_PIECE + 1;
	CHECK(archive_writer_give(w, m, &big, &big_cap, ARCHIVE_PIECE + 1) == 1);
	free(big);
	fclose(other);
	/* what goes to each stream, in order */
	char *want_m = xmalloc(len + 1), *want_s = xmalloc(len + 1);
	size_t ml = 0, sl = 0;
	size_t off = 0, n = 0, given = 0;
	for (int i = 0; off < len; i++, off += n) {
		n = (size_t)(i % 5 + 1) * 200000;
		if (n > len - off)
			n = len - off;
		FILE *to = i % 2 ? s : m;
		if (i % 2)
			memcpy(want_s + sl, text + off, n), sl += n;
		else
			memcpy(want_m + ml, text + off, n), ml += n;
		if (i % 3) { /* fwrite */
			CHECK(fwrite(text + off, 1, n, to) == n);
			continue;
		}
		memcpy(buf, text + off, n);
		uint8_t *before = buf;
		CHECK(archive_writer_give(w, to, &buf, &bcap, n) == 0);
		CHECK(buf != before && bcap == ARCHIVE_PIECE);
		given++;
	}
	free(buf);
	CHECK(given >= 3);
	CHECK(fclose(s) == 0 && fclose(m) == 0);
	CHECK(archive_writer_finish(w) == 0);
	archive_writer_free(w);
	check_other_readers(zpath, 2);
	struct archive_reader *r = archive_reader_open(zpath);
	CHECK(r != NULL);
	CHECK(entry_holds(r, "perf.data.txt", want_m, ml));
	CHECK(entry_holds(r, "g.nettrace", want_s, sl));
	archive_reader_free(r);
	CHECK(unlink(zpath) == 0);
	free(want_m), free(want_s), free(text), free(zpath);
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
	CHECK(archive_reader_extract_all(r, out, NULL) == 0);
	char *extracted = xasprintf("%s/t.trace/perfcollect.log", out);
	char *log = read_file(extracted, NULL);
	CHECK_STR(log, "hello\n");
	free(log);
	archive_reader_free(r);

	/* Streaming: an entry of many pieces (1 MiB each), compressed by the writer's threads
	 * while it is written, then more entries after it; an incompressible file is stored. */
	char *spath = xasprintf("%s/s.trace.zip", dir);
	char *noise = xasprintf("%s/noise.bin", dir);
	char *empty = xasprintf("%s/empty", dir);
	f = fopen(noise, "w");
	uint64_t x = 88172645463325252ULL;
	for (int n = 0; n < (3 << 20) / 8; n++) { /* xorshift: does not compress */
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		fwrite(&x, 8, 1, f);
	}
	fclose(f);
	f = fopen(empty, "w");
	fclose(f);
	/* Text, then already compressed bytes, then text (perf.data with zstd records between
	 * uncompressed ones): the compressed middle is stored, the text deflated. */
	char *mixed = xasprintf("%s/mixed.bin", dir);
	f = fopen(mixed, "w");
	for (int n = 0; n < 120000; n++)
		fprintf(f, "record %d of some metadata\n", n);
	for (int n = 0; n < (1 << 20) / 8; n++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		fwrite(&x, 8, 1, f);
	}
	for (int n = 0; n < 30000; n++)
		fprintf(f, "record %d of more metadata\n", n);
	fclose(f);
	w = archive_writer_new(spath);
	CHECK(w != NULL);
	CHECK(archive_writer_add_file(w, "s.trace/input.txt", src) == 0);
	FILE *sf = archive_writer_add_stream(w, "s.trace/perf.data.txt");
	CHECK(sf != NULL);
	CHECK(archive_writer_add_stream(w, "s.trace/second") == NULL);
	CHECK(archive_writer_add_buffer(w, "s.trace/during", "x", 1) < 0);
	size_t expect_len = 0;
	char *expect = NULL;
	size_t expect_cap = 0;
	for (int n = 0; n < 400000; n++) {
		char line[64];
		int l = snprintf(line, sizeof(line), "%d sample %x\n", n, n * 2654435761u);
		grow_array((void **)&expect, &expect_cap, expect_len + l + 1, 1);
		memcpy(expect + expect_len, line, l);
		expect_len += l;
		CHECK(fwrite(line, 1, l, sf) == (size_t)l);
	}
	expect[expect_len] = 0;
	CHECK(expect_len > 3 << 20);
	CHECK(fclose(sf) == 0);
	CHECK(archive_writer_add_buffer(w, "s.trace/perfcollect.log", "late\n", 5) == 0);
	CHECK(archive_writer_add_file(w, "s.trace/late.txt", src) == 0);
	CHECK(archive_writer_add_file(w, "s.trace/late.txt", src) < 0); /* twice */
	CHECK(archive_writer_add_file(w, "s.trace/noise.bin", noise) == 0);
	CHECK(archive_writer_add_file(w, "s.trace/empty", empty) == 0);
	CHECK(archive_writer_add_file(w, "s.trace/mixed.bin", mixed) == 0);
	CHECK(archive_writer_add_buffer(w, "../escape", "x", 1) < 0);
	CHECK(archive_writer_finish(w) == 0);
	archive_writer_free(w);
	struct stat st;
	CHECK(stat(spath, &st) == 0 && (st.st_mode & 0777) == 0600); /* outfile.h */
	check_other_readers(spath, 7);
	/* libzip, checking that local and central headers agree */
	int err = 0;
	zip_t *z = zip_open(spath, ZIP_RDONLY | ZIP_CHECKCONS, &err);
	CHECK(z != NULL);
	if (z) {
		zip_stat_t zs;
		CHECK(zip_stat(z, "s.trace/noise.bin", 0, &zs) == 0);
		CHECK(zs.comp_method == ZIP_CM_STORE && zs.size == 3 << 20);
		CHECK(zip_stat(z, "s.trace/perf.data.txt", 0, &zs) == 0);
		CHECK(zs.comp_method == ZIP_CM_DEFLATE && zs.comp_size < zs.size / 2);
		CHECK(zip_stat(z, "s.trace/mixed.bin", 0, &zs) == 0);
		CHECK(zs.comp_method == ZIP_CM_DEFLATE);
		CHECK(zs.comp_size >= 1 << 20 && zs.comp_size < zs.size / 2);
		zip_discard(z);
	}
	r = archive_reader_open(spath);
	CHECK(r != NULL);
	CHECK_EQ_U64(archive_reader_count(r), 7);
	CHECK_STR(archive_reader_name(r, 0), "s.trace/input.txt");
	CHECK_STR(archive_reader_name(r, 1), "s.trace/perf.data.txt");
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
	CHECK_EQ_U64(archive_reader_size(r, archive_reader_find(r, "empty")), 0);
	char *out3 = xasprintf("%s/out3", dir);
	CHECK(archive_reader_extract_all(r, out3, NULL) == 0);
	char *noise_out = xasprintf("%s/s.trace/noise.bin", out3);
	char *cmp = xasprintf("cmp -s %s %s", noise, noise_out);
	CHECK(system(cmp) == 0);
	free(cmp), free(noise_out);
	char *mixed_out = xasprintf("%s/s.trace/mixed.bin", out3);
	cmp = xasprintf("cmp -s %s %s", mixed, mixed_out);
	CHECK(system(cmp) == 0);
	free(cmp), free(mixed_out), free(out3), free(mixed);
	archive_reader_free(r);

	side_streams(dir);

	/* The archive cannot be created: said at once, naming it. */
	char *bad = xasprintf("%s/nodir/b.zip", dir);
	CHECK(archive_writer_new(bad) == NULL);
	CHECK(strstr(pc_strerror(), "b.zip") != NULL);

	/* Writing fails midway (a file size limit, as a full disk would): the producer is not
	 * blocked, _finish() says why, and no archive or temporary file is left. */
	char *full = xasprintf("%s/full/f.zip", dir);
	char *fulldir = xasprintf("%s/full", dir);
	CHECK(mkdir(fulldir, 0755) == 0);
	struct rlimit old_lim, lim = {.rlim_cur = 256 * 1024, .rlim_max = RLIM_INFINITY};
	getrlimit(RLIMIT_FSIZE, &old_lim);
	lim.rlim_max = old_lim.rlim_max;
	signal(SIGXFSZ, SIG_IGN);
	CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	w = archive_writer_new(full);
	CHECK(w != NULL);
	CHECK(archive_writer_add_file(w, "f.trace/noise.bin", noise) == 0);
	sf = archive_writer_add_stream(w, "f.trace/perf.data.txt");
	CHECK(sf != NULL);
	CHECK(fwrite(expect, 1, expect_len, sf) == expect_len);
	fclose(sf);
	CHECK(archive_writer_finish(w) < 0);
	CHECK(strstr(pc_strerror(), "f.zip") != NULL);
	archive_writer_free(w);
	setrlimit(RLIMIT_FSIZE, &old_lim);
	check_empty(fulldir);

	/* Freed without _finish(): nothing is left behind. */
	char *gone = xasprintf("%s/gone/g.zip", dir);
	char *gonedir = xasprintf("%s/gone", dir);
	CHECK(mkdir(gonedir, 0755) == 0);
	w = archive_writer_new(gone);
	sf = archive_writer_add_stream(w, "g.trace/perf.data.txt");
	fwrite(expect, 1, expect_len / 2, sf);
	fclose(sf);
	archive_writer_free(w);
	check_empty(gonedir);
	free(expect), free(spath), free(bad), free(gone), free(noise), free(empty);
	free(full), free(fulldir), free(gonedir);

	/* A hostile zip (made with libzip directly) with a "../" entry must not extract. */
	char *evil = xasprintf("%s/evil.zip", dir);
	z = zip_open(evil, ZIP_CREATE | ZIP_TRUNCATE, &err);
	zip_file_add(z, "../../pc-archive-escaped", zip_source_buffer(z, "x", 1, 0), 0);
	CHECK(zip_close(z) == 0);
	r = archive_reader_open(evil);
	CHECK(r != NULL);
	char *out2 = xasprintf("%s/out2/sub", dir);
	CHECK(archive_reader_extract_all(r, out2, NULL) < 0);
	CHECK(strstr(pc_strerror(), "unsafe") != NULL);
	char *escaped = xasprintf("%s/pc-archive-escaped", dir);
	CHECK(access(escaped, F_OK) != 0);
	archive_reader_free(r);

	CHECK(archive_reader_open("/nonexistent.zip") == NULL);
	CHECK(strstr(pc_strerror(), "nonexistent") != NULL);

	lighter_when_behind(dir);
	give_pieces(dir);

	char *rm = xasprintf("rm -rf %s", dir);
	CHECK(system(rm) == 0);
	free(rm);
	free(src), free(zpath), free(out), free(extracted), free(evil), free(out2), free(escaped);
	return TEST_DONE();
}
