/* symbols: see symbols.h.
 *
 * Each mapping is classified once and its answer kept in map->dso (a struct symfile): a
 * file's symbols, anonymous JIT memory, or nothing.  ELF files are opened once each
 * (cached by path, then by device and inode so /proc/<pid>/root views of one file share
 * it).  Resolved frames are cached per (pid, address) until the next change to any
 * address space; JIT frames are not cached since their answer depends on time.
 *
 * The `ip` column follows perf 6.1 (sample__fprintf_callchain): the map-relative address
 * (ip - start + pgoff) for user-space file mappings, the address itself for kernel,
 * anonymous and unmapped addresses.
 */
#include "symbols.h"

#include "base/hash.h"
#include "base/log.h"
#include "base/proc.h"
#include "base/proc_maps.h"
#include "base/safe_open.h"
#include "dso.h"
#include "kallsyms.h"
#include "perfdata/buildid.h"
#include "symbols_int.h"
#include "symbols_jit.h"
#include "unwind/unwind_tables.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define FRAME_CACHE_SIZE 16384 /* power of two */
#define PID_GEN_SLOTS	 65536 /* power of two */

static const char UNKNOWN[] = "[unknown]";
static const char KERNEL_DSO[] = "[kernel.kallsyms]";

/* A second after a process's last thread exited its maps go (machine_drop_exited): later
 * than any sample of it that the records' order can still bring. */
#define DROP_EXITED_NS 1000000000ULL

/* Frames cached for pid are stale from now on (0 marks an empty cache slot). */
static void bump_gen(struct symbolizer *s, uint32_t pid)
{
	uint32_t *g = &s->pid_gen[pid & (PID_GEN_SLOTS - 1)];
	if (++*g == 0)
		*g = 1;
}

/* Its maps are gone: frames cached for it point into them. */
static void forget_pid(void *arg, uint32_t pid)
{
	bump_gen(arg, pid);
}

struct symbolizer *symbolizer_new(const struct symbolizer_opts *o)
{
	struct symbolizer *s = xcalloc(1, sizeof(*s));
	s->opts = *o;
	s->side_dir = o->side_dir ? xstrdup(o->side_dir) : NULL;
	s->kallsyms_path = o->kallsyms_path ? xstrdup(o->kallsyms_path) : NULL;
	s->symfs = o->symfs ? xstrdup(o->symfs) : NULL;
	s->opts.side_dir = s->side_dir;
	s->opts.symfs = s->symfs;
	s->opts.kallsyms_path = s->kallsyms_path;
	s->m = machine_new();
	machine_drop_exited(s->m, DROP_EXITED_NS, forget_pid, s);
	s->anon.cls = SF_ANON;
	s->jit_file.cls = SF_JIT_FILE;
	s->missing.cls = SF_FILE;
	s->jit = jit_procs_new(o->side_dir, o->live);
	jit_procs_trust(s->jit, o->uids, !o->side_dir_foreign);
	s->symcache = symcache_new(o->symbol_cache);
	s->opts.symbol_cache = NULL; /* not kept: symcache has its copy */
	s->cache = xcalloc(FRAME_CACHE_SIZE, sizeof(*s->cache));
	if (o->unwind)
		s->memo = unwind_memo_new();
	s->pid_gen = xmalloc(PID_GEN_SLOTS * sizeof(*s->pid_gen));
	for (size_t i = 0; i < PID_GEN_SLOTS; i++)
		s->pid_gen[i] = 1;
	return s;
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	machine_free(s->m);
	symbols_kernel_free(s);
	for (size_t i = 0; i < s->nfiles; i++) {
		dso_free(s->files[i]->dso);
		unwind_tables_free(s->files[i]->ut);
		free(s->files[i]->open_root);
		free(s->files[i]->open_path);
		free(s->files[i]);
	}
	unwind_tables_free(s->vdso_ut);
	unwind_memo_free(s->memo);
	free(s->files);
	struct path_entry *pe;
	for (size_t i = 0; (pe = path_table_each(&s->paths, &i));)
		free(pe->path);
	path_table_free(&s->paths);
	dso_free(s->vdso);
	jit_procs_free(s->jit);
	symcache_free(s->symcache);
	for (size_t i = 0; i < s->nrecorded; i++)
		free(s->recorded[i].path);
	free(s->recorded);
	free(s->cache);
	free(s->pid_gen);
	free(s->side_dir);
	free(s->kallsyms_path);
	free(s->symfs);
	free(s);
}

struct machine *symbolizer_machine(struct symbolizer *s)
{
	return s->m;
}

/* perf's jitdump marker: the JIT mmaps its jit-<pid>.dump so the recorder sees the path. */
static void note_jitdump_mmap(struct symbolizer *s, const struct perfdata_record *rec)
{
	const struct perf_event_header *h = rec->header;
	size_t off = sizeof(*h) + (h->type == PERF_RECORD_MMAP2 ? 64 : 32);
	if (h->size <= off)
		return;
	const char *name = (const char *)h + off;
	size_t len = strnlen(name, h->size - off);
	const char *base = memrchr(name, '/', len);
	base = base ? base + 1 : name;
	size_t blen = len - (base - name);
	if (blen < 10 || strncmp(base, "jit-", 4) || memcmp(base + blen - 5, ".dump", 5))
		return;
	uint32_t pid;
	memcpy(&pid, h + 1, 4);
	struct jit_proc *p = jit_procs_get(s->jit, pid);
	if (!p->jitdump_hint)
		p->jitdump_hint = xstrndup(name, len);
}

void symbolizer_process(struct symbolizer *s, const struct perfdata_record *rec)
{
	uint32_t type = rec->header->type;
	if (type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2 || type == PERF_RECORD_COMM ||
	    type == PERF_RECORD_FORK) {
		/* all four begin with the pid whose maps change (FORK: the child's) */
		uint32_t pid = UINT32_MAX;
		if (rec->header->size >= sizeof(*rec->header) + 4)
			memcpy(&pid, rec->header + 1, 4);
		bump_gen(s, pid);
		if (type != PERF_RECORD_COMM && type != PERF_RECORD_FORK)
			note_jitdump_mmap(s, rec);
	}
	machine_process(s->m, rec);
}

/* ---- kernel ---- */

static void resolve_kernel(struct symbolizer *s, uint64_t ip, struct frame *f)
{
	struct map *km = machine_find_map(s->m, 0, ip, true);
	if (km)
		km->hit = true;
	struct kallsyms *k = symbols_kallsyms(s);
	const char *module = NULL;
	uint64_t range[2];
	const char *name = k ? kallsyms_lookup(k, ip, &module, range) : NULL;
	f->ip = f->addr = ip;
	f->map = km;
	f->kernel = true;
	f->sym_start = f->sym_end = 0;
	f->jit_map = NULL;
	if (name) {
		f->sym_start = range[0];
		f->sym_end = range[1];
		f->sym = name;
		f->dso = module ? module : KERNEL_DSO;
		f->kind = FRAME_KERNEL;
	} else {
		f->sym = UNKNOWN;
		f->dso = km ? KERNEL_DSO : UNKNOWN;
		f->kind = FRAME_UNKNOWN;
	}
}

/* ---- files ---- */

/* The running kernel's vdso, read from our own address space (the same kernel wrote the
 * samples when we are the collector). */
struct dso *symbols_vdso(struct symbolizer *s)
{
	if (s->vdso_tried)
		return s->vdso;
	s->vdso_tried = true;
	const void *image;
	size_t size;
	if (proc_self_vdso(&image, &size)) {
		s->vdso = dso_new_mem(image, size, "[vdso]");
		if (s->opts.unwind)
			s->vdso_ut = unwind_tables_new_mem(image, size);
	}
	return s->vdso;
}

const struct unwind_tables *symbols_unwind_tables(struct symbolizer *s, struct symfile *sf)
{
	if (!sf || sf->ut_tried || !sf->open_path)
		return sf ? sf->ut : NULL;
	/* Read on first need: most files a trace names are only ever in the chains' part
	 * beyond the copies, and some are big (node's .eh_frame is 2.7 MB). */
	sf->ut_tried = true;
	uint64_t t0 = monotonic_ns();
	int fd = open_file_in_root(sf->open_root, sf->open_path);
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == sf->dev && st.st_ino == sf->ino) {
		sf->ut = unwind_tables_new_fd(fd);
		char what[64];
		log_info("unwind tables: %s: %s", sf->open_path,
			 unwind_tables_describe(sf->ut, what, sizeof(what)));
	} else {
		log_info("unwind tables: %s: not the file symbols were read from any more",
			 sf->open_path);
	}
	if (fd >= 0)
		close(fd);
	s->us.tables++;
	s->us.tables_ns += monotonic_ns() - t0;
	return sf->ut;
}

/* The largest ELF file a gone process mapped that is read from our side. */
#define GONE_FILE_MAX (4ull << 30)

/* Opens filename as process pid sees it (live: through /proc/<pid>/root, or where the host
 * has it once the process is gone; else under symfs, or at its path).  *rootdir gets the
 * root it was opened in (malloc'd; NULL: the host's), *own whether that is the process's own
 * root, where the file is the one it mapped whatever its build-id.  For a gone process, map
 * (NULL: none known) says which file it mapped: the host's file of that name is taken only
 * when it is that very inode (*checked then; a container's /app/x is another file on the
 * host, or a symlink, FIFO or device planted there); else, or without an inode, the caller
 * must check a build-id (*checked false).  -1 when not there or refused. */
static int open_mapped_file(struct symbolizer *s, uint32_t pid, const char *filename,
			    const struct map *map, char **rootdir, bool *own, bool *checked)
{
	/* Inside the target's root, symlinks there resolve as the target sees them (a
	 * container's absolute link to /usr/lib/... never lands on the host's file); only a
	 * regular file is opened. */
	*own = s->opts.live && pid;
	*checked = true;
	*rootdir = *own		   ? xasprintf("/proc/%u/root", pid)
		   : s->opts.symfs ? xstrdup(s->opts.symfs)
				   : NULL;
	int fd = open_file_in_root(*rootdir, filename);
	if (fd < 0 && *own && (errno == ENOENT || errno == ESRCH)) {
		free(*rootdir); /* the process is gone */
		*rootdir = NULL;
		*own = false;
		if (map && map->ino) {
			fd = safe_open_inode(filename, makedev(map->maj, map->min), map->ino,
					     GONE_FILE_MAX);
			if (fd < 0 && errno == ESTALE)
				log_info("symbols: %s of pid %u, which is gone: %s; not used",
					 filename, pid, pc_strerror());
		} else {
			*checked = false;
			fd = open_file_in_root(NULL, filename);
		}
	}
	return fd;
}

static int cmp_recorded(const void *a, const void *b)
{
	return strcmp(((const struct recorded_file *)a)->path,
		      ((const struct recorded_file *)b)->path);
}

static const struct recorded_file *recorded(const struct symbolizer *s, const char *path)
{
	struct recorded_file key = {.path = (char *)path};
	return s->nrecorded ? bsearch(&key, s->recorded, s->nrecorded, sizeof(key), cmp_recorded)
			    : NULL;
}

static bool same_id(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
	return na == nb && !memcmp(a, b, na);
}

/* The file the recording mapped: fd when it has the recorded build-id (or none is known),
 * else the binary with that build-id from the symbol cache (*rootdir then NULL), else -1.
 * fd is the caller's no more. */
static int recorded_build(struct symbolizer *s, int fd, const char *filename, char **rootdir,
			  bool own, char **from_cache)
{
	const struct recorded_file *r = own ? NULL : recorded(s, filename);
	if (!r)
		return fd;
	uint8_t id[BUILDID_MAX], n = 0;
	if (fd >= 0) {
		if (buildid_read_fd(fd, id, &n) == 0 && same_id(id, n, r->id, r->size))
			return fd;
		close(fd);
	}
	char *cached = symcache_find(s->symcache, SYMFILE_BINARY, filename, r->id, r->size);
	int cfd = cached ? open_file_in_root(NULL, cached) : -1;
	if (cfd >= 0 && (buildid_read_fd(cfd, id, &n) < 0 || !same_id(id, n, r->id, r->size))) {
		close(cfd);
		cfd = -1;
	}
	char hex[2 * BUILDID_MAX + 1];
	buildid_to_hex(r->id, r->size, hex);
	if (cfd >= 0)
		log_info("symbols: %s: the binary of build-id %s from %s", filename, hex, cached);
	else if (fd >= 0)
		log_info("symbols: %s here is another build than the one recorded (build-id %s): "
			 "not used",
			 filename, hex);
	if (cfd >= 0)
		*from_cache = cached;
	else
		free(cached);
	free(*rootdir);
	*rootdir = NULL;
	return cfd;
}

/* A gone process's file found by name only (no inode to match): fd when the recording said
 * which build it mapped (its build-id table, checked by recorded_build(), or the MMAP2
 * record's build-id) and fd is that build; else -1, fd closed. */
static int unchecked_build(struct symbolizer *s, int fd, const char *filename,
			   const struct map *map, uint32_t pid)
{
	if (fd < 0 || recorded(s, filename))
		return fd;
	uint8_t id[BUILDID_MAX], n = 0;
	if (map && map->build_id_size && buildid_read_fd(fd, id, &n) == 0 &&
	    same_id(id, n, map->build_id, map->build_id_size))
		return fd;
	log_info("symbols: %s of pid %u, which is gone: the recording names neither its inode "
		 "nor its build-id, so the file of that name here is not taken for it",
		 filename, pid);
	close(fd);
	return -1;
}

/* An ELF file (cls SF_FILE: its symbols) or a .NET image (SF_JIT_FILE: named from the JIT
 * side files, opened only for its unwind tables). */
static struct symfile *file_symfile(struct symbolizer *s, uint32_t pid, const struct map *map,
				    enum map_class cls)
{
	const char *filename = map->filename;
	char *path = s->opts.live ? xasprintf("/proc/%u/root%s", pid, filename) : xstrdup(filename);
	const struct path_entry *known = path_table_find(&s->paths, path, hash_str(path));
	if (known) {
		free(path);
		return known->sf;
	}
	struct symfile *sf = &s->missing;
	char *rootdir, *from_cache = NULL;
	bool own, checked;
	int fd =
	    open_mapped_file(s, s->opts.live ? pid : 0, filename, map, &rootdir, &own, &checked);
	if (!checked)
		fd = unchecked_build(s, fd, filename, map, pid);
	if (cls == SF_FILE) /* a .NET image has no build-id */
		fd = recorded_build(s, fd, filename, &rootdir, own, &from_cache);
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		for (size_t i = 0; i < s->nfiles; i++) {
			if (s->files[i]->dev == st.st_dev && s->files[i]->ino == st.st_ino) {
				sf = s->files[i];
				break;
			}
		}
		if (sf == &s->missing) {
			sf = xcalloc(1, sizeof(*sf));
			sf->cls = cls;
			sf->dev = st.st_dev;
			sf->ino = st.st_ino;
			if (cls == SF_FILE) {
				sf->dso =
				    dso_new_fd(fd, rootdir ? rootdir : "", filename, s->symcache);
				log_info("symbols: %s: %zu from %s", filename,
					 dso_nr_symbols(sf->dso), dso_symbol_source(sf->dso));
			}
			if (s->opts.unwind) { /* its unwind tables: read on first need */
				sf->open_root = rootdir ? xstrdup(rootdir) : NULL;
				sf->open_path = xstrdup(from_cache ? from_cache : filename);
			}
			grow_array((void **)&s->files, &s->files_cap, s->nfiles + 1,
				   sizeof(*s->files));
			s->files[s->nfiles++] = sf;
		}
	}
	if (fd >= 0)
		close(fd);
	free(rootdir);
	free(from_cache);
	if (sf == &s->missing && cls == SF_JIT_FILE)
		sf = &s->jit_file; /* named all the same */
	bool found;
	*path_table_insert(&s->paths, path, hash_str(path), &found) =
	    (struct path_entry){.path = path, .sf = sf};
	return sf;
}

/* Whether a recorded file's name is one to look for symbols of: an ELF file by path. */
static bool fetchable_name(const char *path)
{
	size_t l = strlen(path);
	return path[0] == '/' && !str_startswith(path, "/memfd:") &&
	       !str_endswith(path, " (deleted)") && !(l > 4 && !strcasecmp(path + l - 4, ".dll")) &&
	       strcmp(path, "//anon");
}

void symbolizer_prepare(struct symbolizer *s, const struct symbolizer_file *files, size_t n,
			const struct symsrv_opts *o, double default_timeout_s)
{
	uint64_t t0 = monotonic_ns();
	struct symsrv_file *want = xcalloc(n + 1, sizeof(*want));
	size_t nwant = 0;
	s->recorded = xcalloc(n + 1, sizeof(*s->recorded));
	for (size_t i = 0; i < n; i++) {
		const struct symbolizer_file *f = &files[i];
		if (!f->build_id_size || f->build_id_size > BUILDID_MAX || !fetchable_name(f->path))
			continue;
		struct recorded_file *r = &s->recorded[s->nrecorded++];
		r->path = xstrdup(f->path);
		memcpy(r->id, f->build_id, f->build_id_size);
		r->size = (uint8_t)f->build_id_size;

		struct symsrv_file *w = &want[nwant];
		memset(w, 0, sizeof(*w));
		w->path = r->path;
		memcpy(w->build_id, r->id, r->size);
		w->build_id_size = r->size;
		char *rootdir;
		bool own, checked; /* the build-id is checked below */
		int fd = open_mapped_file(s, s->opts.live ? f->pid : 0, f->path, NULL, &rootdir,
					  &own, &checked);
		struct dso_probe pr;
		bool here = fd >= 0 && dso_probe(fd, rootdir ? rootdir : "", f->path, &pr) == 0;
		if (here && !own && !same_id(pr.build_id, pr.build_id_size, r->id, r->size))
			here = false; /* another build of it */
		if (fd >= 0)
			close(fd);
		free(rootdir);
		if (here && pr.has_symbols)
			continue;
		char *bin =
		    here ? NULL
			 : symcache_find(s->symcache, SYMFILE_BINARY, f->path, r->id, r->size);
		char *dbg = symcache_find(s->symcache, SYMFILE_DEBUG, f->path, r->id, r->size);
		w->need_binary = !here && !bin;
		w->need_debug = !dbg;
		free(bin);
		free(dbg);
		/* one fetch per build-id: two downloads of one file would share its part */
		for (size_t k = 0; k < nwant; k++)
			if (same_id(want[k].build_id, want[k].build_id_size, r->id, r->size))
				w->need_binary = w->need_debug = false;
		nwant += w->need_binary || w->need_debug;
	}
	qsort(s->recorded, s->nrecorded, sizeof(*s->recorded), cmp_recorded);
	log_info("symbols: %zu files of the recording's build-id table looked for, %zu of them "
		 "without symbols here, in %.3f s",
		 s->nrecorded, nwant, (monotonic_ns() - t0) / 1e9);
	if (nwant && o)
		symsrv_fetch(o, default_timeout_s, s->symcache, want, nwant);
	free(want);
}

static bool is_anon_name(const char *n)
{
	return !strcmp(n, "//anon") || str_startswith(n, "/dev/zero") ||
	       str_startswith(n, "/anon_hugepage") || str_startswith(n, "[anon:") ||
	       str_startswith(n, "[stack") || str_startswith(n, "/SYSV") || !strcmp(n, "[heap]");
}

static bool is_jit_file_name(const char *n)
{
	if (str_startswith(n, "/memfd:doublemapper"))
		return true;
	size_t l = strlen(n);
	return l > 4 && !strcasecmp(n + l - 4, ".dll");
}

struct symfile *symbols_classify(struct symbolizer *s, uint32_t pid, struct map *map)
{
	if (map->dso)
		return map->dso;
	const char *n = map->filename;
	struct symfile *sf;
	if ((map->flags & MAP_HUGETLB) || is_anon_name(n))
		sf = &s->anon;
	else if (is_jit_file_name(n))
		/* a .NET image's own unwind info covers its ReadyToRun code */
		sf = s->opts.unwind && n[0] == '/' && !str_startswith(n, "/memfd:")
			 ? file_symfile(s, pid, map, SF_JIT_FILE)
			 : &s->jit_file;
	else if (!strcmp(n, "[vdso]"))
		sf = NULL; /* handled by the caller: the vdso is not a file */
	else if (n[0] == '/')
		sf = file_symfile(s, pid, map, SF_FILE);
	else
		sf = &s->missing; /* [vsyscall], [uprobes] and other names without a file */
	map->dso = sf;
	return sf;
}

/* Whether a JIT name is a .NET method as the runtime writes it, "ret [Module] Type::M(args)":
 * a space-separated token in brackets, which is where PerfView's reader of a perf map's names
 * splits them into module and method (dropping the return type).  Such names get the perf
 * map as their dso wherever the code sits (ReadyToRun code in a .dll, code in the runtime's
 * double-mapped memory, anonymous memory), so PerfView names a method one way whether it ran
 * precompiled or JIT-compiled.  Every other JIT frame (stubs, node's JS functions, addresses
 * no map names) keeps the mapping's name ("//anon", "/memfd:doublemapper"), where perf writes
 * the perf map for anonymous memory: from a perf map, PerfView would show the map's path as
 * the symbol and a piece of the name as the module. */
static bool has_module_token(const char *name)
{
	for (const char *t = name; *t;) {
		const char *end = strchr(t, ' ');
		size_t len = end ? (size_t)(end - t) : strlen(t);
		if (len >= 2 && t[0] == '[' && t[len - 1] == ']')
			return true;
		if (!end)
			break;
		t = end + 1;
	}
	return false;
}

static void set_unknown(struct frame *f, uint64_t ip)
{
	f->ip = f->addr = ip;
	f->sym_start = f->sym_end = 0;
	f->jit_map = NULL;
	f->map = NULL;
	f->kernel = false;
	f->sym = UNKNOWN;
	f->dso = UNKNOWN;
	f->kind = FRAME_UNKNOWN;
}

/* A symbol of a file mapping: its file offsets [range) as addresses of the mapping. */
static void set_file_sym(struct frame *f, const struct map *map, const char *name,
			 const uint64_t range[2])
{
	f->sym = name;
	f->kind = FRAME_NATIVE;
	uint64_t lo = range[0] > map->pgoff ? range[0] - map->pgoff : 0;
	uint64_t hi = range[1] > map->pgoff ? range[1] - map->pgoff : 0;
	uint64_t size = map->end - map->start;
	f->sym_start = map->start + (lo < size ? lo : size);
	f->sym_end = map->start + (hi < size ? hi : size);
}

/* Returns false when the answer depends on time (jitdump) and must not be cached. */
static bool resolve_user(struct symbolizer *s, uint32_t pid, uint64_t ip, uint64_t time,
			 struct frame *f)
{
	struct map *map = machine_find_map(s->m, pid, ip, false);
	if (!map) {
		set_unknown(f, ip);
		return true;
	}
	map->hit = true;
	uint64_t off = ip - map->start + map->pgoff;
	uint64_t range[2];
	f->ip = off;
	f->addr = ip;
	f->map = map;
	f->kernel = false;
	f->sym_start = f->sym_end = 0;
	f->jit_map = NULL;
	f->dso = map->filename;
	f->sym = UNKNOWN;
	f->kind = FRAME_UNKNOWN;
	bool is_vdso = !strcmp(map->filename, "[vdso]");
	struct symfile *sf = is_vdso ? NULL : symbols_classify(s, pid, map);
	if (is_vdso) {
		struct dso *v = symbols_vdso(s);
		const char *name = v ? dso_find_symbol(v, off, range) : NULL;
		if (name)
			set_file_sym(f, map, name, range);
		return true;
	}
	if (sf->cls == SF_FILE) {
		const char *name = sf->dso ? dso_find_symbol(sf->dso, off, range) : NULL;
		if (name)
			set_file_sym(f, map, name, range);
		return true;
	}
	struct jit_proc *jp = jit_procs_get(s->jit, pid);
	if (sf->cls == SF_ANON) {
		f->ip = ip;
		if (!(map->prot & PROT_EXEC))
			return true; /* perf names non-executable anon memory by itself */
	}
	jit_proc_load(s->jit, jp);
	const char *name = jit_proc_lookup(jp, ip, time, range);
	if (name) {
		f->sym = name;
		f->kind = FRAME_JIT;
		f->sym_start = range[0];
		f->sym_end = range[1];
		if (sf->cls == SF_ANON)
			f->jit_map = jp->dso_name;
		if (has_module_token(name))
			f->dso = jp->dso_name;
	}
	/* only jitdump code loads depend on time; a perf map says the same all along */
	return jp->jitdump == NULL;
}

void symbols_resolve(struct symbolizer *s, uint32_t pid, bool kernel, uint64_t ip, uint64_t time,
		     struct frame *f)
{
	uint32_t key_pid = kernel ? UINT32_MAX : pid;
	struct cached_frame *c = &s->cache[hash_two(key_pid, ip) & (FRAME_CACHE_SIZE - 1)];
	uint32_t gen = s->pid_gen[key_pid & (PID_GEN_SLOTS - 1)];
	if (c->gen == gen && c->key_ip == ip && c->key_pid == key_pid) {
		*f = c->f;
		return;
	}
	bool cacheable = true;
	if (kernel)
		resolve_kernel(s, ip, f);
	else
		cacheable = resolve_user(s, pid, ip, time, f);
	if (cacheable) {
		c->gen = gen;
		c->key_ip = ip;
		c->key_pid = key_pid;
		c->f = *f;
	}
}

bool symbolizer_map_elf(struct symbolizer *s, const struct map *map, struct map_elf *out)
{
	memset(out, 0, sizeof(*out));
	const struct symfile *sf = map->dso;
	if (!sf || sf->cls != SF_FILE || !sf->dso)
		return false;
	size_t n = 0;
	const uint8_t *id = dso_build_id(sf->dso, &n);
	if (map->build_id_size) {
		id = map->build_id;
		n = map->build_id_size;
	}
	if (n > sizeof(out->build_id))
		n = sizeof(out->build_id);
	memcpy(out->build_id, id, n);
	out->build_id_size = n;
	out->has_exec_load = dso_exec_load(sf->dso, &out->p_vaddr, &out->p_offset);
	return true;
}

void symbolizer_foreach_jit_file(struct symbolizer *s,
				 void (*fn)(void *arg, uint32_t pid, enum jit_file_kind kind,
					    const char *found_path, const char *why),
				 void *arg)
{
	jit_procs_foreach(s->jit, fn, arg);
}

int symbolizer_copy_jit_file(struct symbolizer *s, uint32_t pid, enum jit_file_kind kind,
			     const char *dest_path, uint64_t *size)
{
	return jit_procs_copy(s->jit, pid, kind, dest_path, size);
}
