/* ELF files as a symbol server sends them (lib/symbols/dso.c through symsrv.c): untrusted
 * debug files and binaries.  The input is a runtime file and a debug file, each as
 * [u32 size][bytes]; without that framing the whole input is both.  The debug file is
 * checked as symsrv checks an answer (dso_check_file(), against the runtime's build-id and
 * its own), put in a symbol cache under the runtime's build-id, and the runtime is then
 * loaded as the symbolizer loads a stripped file (dso_probe(), dso_new_fd() with the cache)
 * and looked up at every offset the harness can think of. */
#include "fuzz.h"
#include "perfdata/buildid.h"
#include "symbols/dso.h"
#include "symbols/symcache.h"

static uint64_t sink;

static int part(const uint8_t **data, size_t *size, const uint8_t **out, size_t *outsize)
{
	uint32_t n;
	if (*size < 4)
		return -1;
	memcpy(&n, *data, 4);
	if (n > *size - 4)
		return -1;
	*out = *data + 4;
	*outsize = n;
	*data += 4 + n;
	*size -= 4 + n;
	return 0;
}

/* Checks fd as an answer for the file with build-id id, both kinds. */
static void check_answer(int fd, const uint8_t *id, size_t idlen)
{
	for (int kind = SYMFILE_DEBUG; kind <= SYMFILE_BINARY; kind++)
		sink += dso_check_file(fd, (enum symfile_kind)kind, id, idlen) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_quiet(true);
	const uint8_t *rt = data, *dbg = data, *p = data;
	size_t rtsize = size, dbgsize = size, left = size;
	if (part(&p, &left, &rt, &rtsize) < 0 || part(&p, &left, &dbg, &dbgsize) < 0) {
		rt = dbg = data;
		rtsize = dbgsize = size;
	}
	int rfd = fuzz_fd(rt, rtsize), dfd = fuzz_fd(dbg, dbgsize);
	uint8_t id[BUILDID_MAX], dbgid[BUILDID_MAX], n = 0, dn = 0;
	if (buildid_read_fd(rfd, id, &n) < 0)
		n = 0;
	if (buildid_read_fd(dfd, dbgid, &dn) == 0)
		check_answer(dfd, dbgid, dn);
	if (n) {
		check_answer(dfd, id, n);
		fuzz_dir_clear();
		struct symcache *c = symcache_new(fuzz_dir());
		char *keys[SYMCACHE_MAX_KEYS];
		size_t nkeys = symcache_keys(SYMFILE_DEBUG, "/x/libfuzz.so", id, n, keys);
		for (size_t k = 0; k < nkeys; k++) {
			char *path = k + 1 == nkeys ? symcache_store_path(c, keys[k]) : NULL;
			FILE *f = path ? fopen(path, "we") : NULL;
			if (f) {
				fwrite(dbg, 1, dbgsize, f);
				fclose(f);
			}
			free(path);
			free(keys[k]);
		}
		struct dso_probe pr;
		if (dso_probe(rfd, "", "/x/libfuzz.so", &pr) == 0)
			sink += pr.has_symbols + pr.build_id_size;
		struct dso *d = dso_new_fd(rfd, "", "/x/libfuzz.so", c);
		sink += dso_nr_symbols(d) + strlen(dso_symbol_source(d));
		uint64_t vaddr, off, range[2];
		if (dso_exec_load(d, &vaddr, &off))
			sink += vaddr;
		for (uint64_t o = 0; o < rtsize + 64 && o < 65536; o += 7) {
			const char *name = dso_find_symbol(d, o, range);
			if (name)
				sink += strlen(name) + range[1] - range[0];
		}
		dso_free(d);
		symcache_free(c);
	} else {
		struct dso *d = dso_new_fd(rfd, "", "/x/libfuzz.so", NULL);
		sink += dso_nr_symbols(d);
		dso_free(d);
	}
	close(rfd);
	close(dfd);
	return 0;
}
