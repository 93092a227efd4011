/* symcache: the SSQP keys as dotnet/symstore's conventions give them (lower case, the build-id
 * zero-padded to 20 bytes, the name-less key for any debug file), debuginfod's paths (the
 * build-id as it is), names that cannot be a key, lookups in our cache, dotnet-symbol's and
 * debuginfod's, and misses remembered for their time only. */
#include "test.h"

#include "base/util.h"
#include "symbols/symcache.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static const uint8_t ID20[20] = {0x18, 0x0a, 0x37, 0x3d, 0x6a, 0xfb, 0xab, 0xf0, 0xeb, 0x1f,
				 0x09, 0xbe, 0x1b, 0xc4, 0x5b, 0xd7, 0x96, 0xa7, 0x10, 0x85};
#define HEX20 "180a373d6afbabf0eb1f09be1bc45bd796a71085"

static void check_keys(void)
{
	char *k[SYMCACHE_MAX_KEYS];
	size_t n = symcache_keys(SYMFILE_DEBUG, "/usr/share/dotnet/Foo.so", ID20, 20, k);
	CHECK_EQ_U64(n, 2);
	CHECK_STR(k[0], "foo.so.dbg/elf-buildid-sym-" HEX20 "/foo.so.dbg");
	CHECK_STR(k[1], "_.debug/elf-buildid-sym-" HEX20 "/_.debug");
	for (size_t i = 0; i < n; i++)
		free(k[i]);
	n = symcache_keys(SYMFILE_BINARY, "/lib/foo.so", ID20, 20, k);
	CHECK_EQ_U64(n, 1);
	CHECK_STR(k[0], "foo.so/elf-buildid-" HEX20 "/foo.so");
	free(k[0]);
	/* shorter build-ids are padded with zeros (the spec's second example) */
	n = symcache_keys(SYMFILE_DEBUG, "bar.so", ID20, 16, k);
	CHECK_STR(k[1], "_.debug/elf-buildid-sym-180a373d6afbabf0eb1f09be1bc45bd700000000/_.debug");
	for (size_t i = 0; i < n; i++)
		free(k[i]);
	/* debuginfod: the build-id as it is */
	char *d = symcache_debuginfod_key(SYMFILE_DEBUG, ID20, 16);
	CHECK_STR(d, "buildid/180a373d6afbabf0eb1f09be1bc45bd7/debuginfo");
	free(d);
	d = symcache_debuginfod_key(SYMFILE_BINARY, ID20, 20);
	CHECK_STR(d, "buildid/" HEX20 "/executable");
	free(d);
	/* names that cannot be a key component: only the name-less key, or none */
	const char *bad[] = {"/x/..", "/x/.", "/x/", "/x/a\nb"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = symcache_keys(SYMFILE_DEBUG, bad[i], ID20, 20, k);
		CHECK_EQ_U64(n, 1);
		CHECK_STR(k[0], "_.debug/elf-buildid-sym-" HEX20 "/_.debug");
		free(k[0]);
		CHECK_EQ_U64(symcache_keys(SYMFILE_BINARY, bad[i], ID20, 20, k), 0);
	}
	/* a file replaced while mapped: its name before " (deleted)" */
	n = symcache_keys(SYMFILE_BINARY, "/lib/libz.so.1 (deleted)", ID20, 20, k);
	CHECK_STR(k[0], "libz.so.1/elf-buildid-" HEX20 "/libz.so.1");
	free(k[0]);
	CHECK_EQ_U64(symcache_keys(SYMFILE_DEBUG, "x", ID20, 0, k), 0);
}

static void put(const char *path)
{
	char *dir = xstrdup(path);
	*strrchr(dir, '/') = 0;
	CHECK(mkdir_p(dir, 0700) == 0);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("x", f);
		fclose(f);
	}
	free(dir);
}

static void check_caches(const char *top)
{
	/* HOME holds dotnet-symbol's cache; XDG_CACHE_HOME debuginfod's */
	char *home = xasprintf("%s/home", top), *xdg = xasprintf("%s/xdg", top);
	setenv("HOME", home, 1);
	setenv("XDG_CACHE_HOME", xdg, 1);
	unsetenv("DEBUGINFOD_CACHE_PATH");
	struct symcache *c = symcache_new(NULL);
	char *ours = xasprintf("%s/perfcollect-c/symbols", xdg);
	CHECK_STR(symcache_dir(c), ours);
	CHECK(symcache_find(c, SYMFILE_DEBUG, "/lib/foo.so", ID20, 20) == NULL);

	char *p = xasprintf(
	    "%s/.dotnet/symbolcache/foo.so.dbg/elf-buildid-sym-" HEX20 "/foo.so.dbg", home);
	put(p);
	char *got = symcache_find(c, SYMFILE_DEBUG, "/lib/foo.so", ID20, 20);
	CHECK_STR(got, p);
	free(got);
	free(p);
	p = xasprintf("%s/debuginfod_client/" HEX20 "/executable", xdg);
	put(p);
	got = symcache_find(c, SYMFILE_BINARY, "/lib/foo.so", ID20, 20);
	CHECK_STR(got, p);
	free(got);
	free(p);
	/* ours first */
	char *store = symcache_store_path(c, "_.debug/elf-buildid-sym-" HEX20 "/_.debug");
	CHECK(store != NULL);
	put(store);
	got = symcache_find(c, SYMFILE_DEBUG, "/lib/foo.so", ID20, 20);
	CHECK_STR(got, store);
	free(got);
	free(store);

	/* misses: per server and key, for their time */
	const char *srv = "http://127.0.0.1:1/sym",
		   *key = "_.debug/elf-buildid-sym-" HEX20 "/_.debug";
	CHECK(!symcache_missed(c, srv, key, 60));
	symcache_note_miss(c, srv, key);
	CHECK(symcache_missed(c, srv, key, 60));
	CHECK(!symcache_missed(c, "http://127.0.0.1:2", key, 60));
	char *mp = xasprintf("%s/.misses/127.0.0.1_1_sym/%s", ours, key);
	struct timeval old[2] = {{time(NULL) - 120, 0}, {time(NULL) - 120, 0}};
	CHECK(utimes(mp, old) == 0);
	CHECK(!symcache_missed(c, srv, key, 60)); /* remembered a minute, two have passed */
	CHECK(!symcache_unreachable(c, srv));
	symcache_note_unreachable(c, srv);
	CHECK(symcache_unreachable(c, srv));
	free(mp);
	free(ours);
	symcache_free(c);
	free(home);
	free(xdg);
}

int main(void)
{
	check_keys();
	char top[] = "/tmp/pc-symcache.XXXXXX";
	CHECK(mkdtemp(top) != NULL);
	check_caches(top);
	rm_rf(top);
	return test_failures ? 1 : 0;
}
