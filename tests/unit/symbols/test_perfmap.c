/* perfmap and perfinfo on real files: node --perf-basic-prof writes a real
 * /tmp/perf-<pid>.map; every line must load and each entry must be found by its own
 * addresses.  The same file with garbage lines mixed in loads the good lines and counts
 * the bad; overlapping entries resolve to the last one in the file.  A perfinfo map in the
 * format the .NET runtime writes (perfinfo.cpp: "ImageLoad;path;mvid;base;"). */
#include "test.h"

#include "symbols/perfinfo.h"
#include "symbols/perfmap.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];

static char *write_tmp(const char *name, const char *text, size_t len)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fwrite(text, 1, len, f);
		fclose(f);
	}
	return path;
}

static void check_garbage(void)
{
	const char text[] = "1000 10 first\n"
			    "zzzz 10 not hex\n"
			    "2000 10\n" /* no name */
			    "3000 0 zero size\n"
			    "\n" /* empty lines are not errors */
			    "0x4000 0x20 with 0x prefix\r\n"
			    "1008 4 overlaps first, later in file\n"
			    "ffffffffffffffff 10 wraps around\n"
			    "5000 10 no newline at the end";
	char *path = write_tmp("garbage.map", text, sizeof(text) - 1);
	struct perfmap *m = perfmap_load(path);
	CHECK(m != NULL);
	if (m) {
		CHECK_EQ_U64(perfmap_count(m), 4);
		CHECK_EQ_U64(perfmap_bad_lines(m), 4);
		CHECK_STR(perfmap_lookup(m, 0x1000)->name, "first");
		CHECK_STR(perfmap_lookup(m, 0x1009)->name, "overlaps first, later in file");
		CHECK_STR(perfmap_lookup(m, 0x100c)->name, "first");
		CHECK(perfmap_lookup(m, 0x1010) == NULL);
		CHECK_STR(perfmap_lookup(m, 0x401f)->name, "with 0x prefix");
		CHECK_STR(perfmap_lookup(m, 0x5000)->name, "no newline at the end");
		CHECK(perfmap_lookup(m, 0x3000) == NULL);
	}
	perfmap_free(m);
	free(path);
}

static void check_node(void)
{
	if (system("command -v node >/dev/null") != 0) {
		printf("node is not installed: real perf map part skipped\n");
		return;
	}
	const char *js = "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
			 "let x = 0; for (let i = 0; i < 300; i++) x += fib(18);\n";
	char *script = write_tmp("spin.js", js, strlen(js));
	pid_t pid = fork();
	if (pid == 0) {
		execlp("node", "node", "--perf-basic-prof", script, (char *)NULL);
		_exit(127);
	}
	int st;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	char *path = xasprintf("/tmp/perf-%d.map", (int)pid);
	size_t len;
	char *text = read_file(path, &len);
	CHECK(text != NULL);
	struct perfmap *m = perfmap_load(path);
	CHECK(m != NULL);
	if (m && text) {
		size_t lines = 0;
		for (size_t i = 0; i < len; i++)
			lines += text[i] == '\n';
		CHECK(lines > 100);
		CHECK_EQ_U64(perfmap_count(m), lines);
		CHECK_EQ_U64(perfmap_bad_lines(m), 0);
		/* every entry is found at its start unless a later one covers the same place */
		bool found_fib = false;
		char *line = text;
		for (size_t i = 0; i < lines; i++) {
			char *nl = strchr(line, '\n');
			*nl = 0;
			unsigned long long start, size;
			int off;
			CHECK(sscanf(line, "%llx %llx %n", &start, &size, &off) == 2);
			const struct perfmap_entry *e = perfmap_lookup(m, start + size - 1);
			CHECK(e != NULL && e->start <= start + size - 1 &&
			      start + size - 1 < e->start + e->size);
			if (strstr(line + off, "fib"))
				found_fib = true;
			line = nl + 1;
		}
		CHECK(found_fib);
	}
	perfmap_free(m);
	free(text);
	unlink(path);
	free(path);
	free(script);
}

static void check_perfinfo(void)
{
	const char text[] =
	    "ImageLoad;/usr/share/dotnet/shared/Microsoft.NETCore.App/8.0.0/"
	    "System.Private.CoreLib.dll;"
	    "{8f6e3c5a-1b2c-4d5e-9f00-112233445566};0x7f1234560000;\n"
	    "ImageLoad;/app/my;odd.dll;{00000000-0000-0000-0000-000000000001};(nil);\n"
	    "RuntimeVersion;8.0.0;\n"
	    "garbage without separators\n"
	    "ImageLoad;/app/x.dll;{mvid};not-hex;\n";
	char *path = write_tmp("perfinfo-1.map", text, sizeof(text) - 1);
	struct perfinfo *p = perfinfo_load(path);
	CHECK(p != NULL);
	if (p) {
		CHECK_EQ_U64(perfinfo_nr_images(p), 2);
		CHECK_EQ_U64(perfinfo_bad_lines(p), 2);
		const struct perfinfo_image *img =
		    perfinfo_find_image(p, "/usr/share/dotnet/shared/Microsoft.NETCore.App/8.0.0/"
					   "System.Private.CoreLib.dll");
		CHECK(img && img->base == 0x7f1234560000ULL);
		CHECK(img && !strcmp(img->mvid, "{8f6e3c5a-1b2c-4d5e-9f00-112233445566}"));
		img = perfinfo_find_image(p, "/app/my;odd.dll");
		CHECK(img && img->base == 0);
	}
	perfinfo_free(p);
	free(path);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/pcmap.XXXXXX");
	if (!mkdtemp(dir))
		SKIP("cannot make a temporary directory: make /tmp (or $TMPDIR) writable");
	check_garbage();
	check_perfinfo();
	check_node();
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return TEST_DONE();
}
