/* dso: the symbols of one ELF file (executable, shared library, vdso), read once.
 *
 * Where the symbols come from, in perf's order: a separate debug file named by
 * .gnu_debuglink, then /usr/lib/debug/.build-id/xx/yyyy.debug, then the file's own .symtab;
 * with none of these, .dynsym plus MiniDebugInfo (.gnu_debugdata, an xz-packed ELF with
 * the local function symbols).  Symbol addresses are turned into file offsets (through
 * the runtime file's PT_LOAD headers, as perf does), so a lookup takes the offset that a
 * mapping gives: ip - map start + map pgoff.
 */
#ifndef PC_DSO_H
#define PC_DSO_H

#include "base/util.h"
#include "symcache.h"

struct dso;

/* Reads the ELF file open on fd (the fd stays the caller's).  root is the prefix under
 * which the process sees its files ("/proc/<pid>/root", or "" for the host); debug files
 * are looked for there first, then on the host.  path is the file's name inside root.
 * With neither a debug file nor a .symtab, a debug file that a symbol server gave is looked
 * for by build-id in cache (symcache.h; NULL: none) before .dynsym and MiniDebugInfo.
 * Never NULL: a file that is not ELF gives a dso without symbols. */
struct dso *dso_new_fd(int fd, const char *root, const char *path, const struct symcache *cache);
/* The same from an ELF image in memory (the vdso); the bytes are copied. */
struct dso *dso_new_mem(const void *image, size_t size, const char *path);
void dso_free(struct dso *d);

/* Name of the symbol covering file offset off, or NULL.  range (may be NULL) gets the file
 * offsets [start, end) the symbol spans. */
const char *dso_find_symbol(const struct dso *d, uint64_t off, uint64_t range[2]);
size_t dso_nr_symbols(const struct dso *d);
/* Where the symbols came from: ".symtab", "debuglink <path>", "build-id <path>",
 * ".dynsym", ".dynsym+.gnu_debugdata", or why there are none. */
const char *dso_symbol_source(const struct dso *d);
/* p_vaddr and p_offset of the file's first executable PT_LOAD; false when it has none. */
bool dso_exec_load(const struct dso *d, uint64_t *vaddr, uint64_t *offset);
/* GNU build-id (0 size when the file has none). */
const uint8_t *dso_build_id(const struct dso *d, size_t *size);

/* What dso_new_fd() would find, without loading any symbol: the build-id, and whether the
 * file has its own symbols (a .symtab, or a debug file by debuglink or build-id, under root
 * or on the host).  -1 with pc_err() when fd is not ELF. */
struct dso_probe {
	uint8_t build_id[20];
	size_t build_id_size;
	bool has_symbols;
};
int dso_probe(int fd, const char *root, const char *path, struct dso_probe *out);

/* The places a separate debug file of the ELF file at path is looked for, in perf's and
 * gdb's order: by its .gnu_debuglink name link (NULL: none) next to it, in its .debug/ and
 * under /usr/lib/debug by its directory, then by build-id id under /usr/lib/debug/.build-id.
 * The i-th (malloc'd), NULL past the last. */
char *dso_debug_path(size_t i, const char *path, const char *link, const uint8_t *id, size_t idlen);

/* Whether a file that a symbol server sent may be used for the ELF file with build-id id:
 * it is ELF with exactly that build-id, and (kind) a debug file with a .symtab, or a binary
 * with an executable segment.  0, or -1 with pc_err() saying why not. */
int dso_check_file(int fd, enum symfile_kind kind, const uint8_t *id, size_t idlen);

#endif
