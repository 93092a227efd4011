/* dso: see dso.h.  libelf reads the files; each string table a symbol table names is copied
 * whole (one copy, not one per name: node's has 110 000 names in 7.5 MB) and the symbols
 * point into it, so no ELF handle, mapping or file stays open after loading (a file
 * truncated under a mapping would fault). */
#include "dso.h"

#include "base/safe_open.h"
#include "symcache.h"
#include "symtab.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_LIBIBERTY
#include <libiberty/demangle.h>
#endif

/* sym.aux in a dso's table: whether sym.name is already the shown one. */
enum { NAME_RAW, NAME_SHOWN };

struct dso {
	struct symtab tab;
	char **strtabs; /* copies of the string tables the symbols' names point into */
	size_t nstrtabs, strtabs_cap;
	char *names; /* names made here ("name@plt"): offsets until finish() */
	size_t names_len, names_cap;
	size_t plt_from;  /* the symbols from here on have their names in names */
	char **demangled; /* the shown names made so far (see shown_name()) */
	size_t ndemangled, demangled_cap;
	char *source;
	uint8_t build_id[64];
	size_t build_id_size;
	bool has_exec_load; /* the runtime file's first executable PT_LOAD */
	uint64_t exec_vaddr, exec_offset;
};

/* The runtime file: its PT_LOAD headers turn symbol addresses into file offsets. */
struct runtime {
	Elf *elf;
	GElf_Phdr *loads;
	size_t nloads;
	bool probe; /* dso_probe(): find where symbols would come from, load nothing */
};

static bool elf_ready(void)
{
	static int state; /* 0 unknown, 1 ok, -1 failed */
	if (!state)
		state = elf_version(EV_CURRENT) == EV_NONE ? -1 : 1;
	return state > 0;
}

static Elf_Scn *find_section(Elf *elf, const char *name, Elf64_Word type, GElf_Shdr *out)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (type != SHT_NULL && sh.sh_type != type)
			continue;
		const char *n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && (!n || strcmp(n, name)))
			continue;
		*out = sh;
		return scn;
	}
	return NULL;
}

static size_t read_build_id(Elf *elf, uint8_t *out, size_t max)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;
		while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)data->d_buf + name_off, "GNU", 4) &&
			    nh.n_descsz <= max && nh.n_descsz > 0) {
				memcpy(out, (char *)data->d_buf + desc_off, nh.n_descsz);
				return nh.n_descsz;
			}
		}
	}
	return 0;
}

/* C++ (and Rust) names are demangled as perf shows them: without parameters or return
 * types (DMGL_NO_OPTS).  NULL when name is not mangled. */
static char *demangle(const char *name)
{
#ifdef HAVE_LIBIBERTY
	return name[0] == '_' ? cplus_demangle(name, DMGL_NO_OPTS) : NULL;
#else
	(void)name;
	return NULL;
#endif
}

/* The name a symbol is shown by: demangled on first use (a lookup, or the alias rule), not
 * at load time, when most symbols of a big C++ binary are never asked for. */
static const char *shown_name(void *owner, struct sym *s)
{
	struct dso *d = owner;
	if (s->aux == NAME_SHOWN)
		return s->name;
	s->aux = NAME_SHOWN;
	char *dm = demangle(s->name);
	if (dm) {
		grow_array((void **)&d->demangled, &d->demangled_cap, d->ndemangled + 1,
			   sizeof(*d->demangled));
		d->demangled[d->ndemangled++] = dm;
		s->name = dm;
	}
	return s->name;
}

/* Name arena for names made here: offsets while loading, pointers once done.  Stored
 * demangled (the suffix would defeat the demangler later). */
static size_t add_name(struct dso *d, const char *name, const char *suffix)
{
	char *demangled = demangle(name);
	if (demangled)
		name = demangled;
	size_t l = strlen(name), ls = strlen(suffix);
	if (d->names_len + l + ls + 1 > d->names_cap)
		grow_array((void **)&d->names, &d->names_cap, d->names_len + l + ls + 1, 1);
	size_t off = d->names_len;
	memcpy(d->names + off, name, l);
	memcpy(d->names + off + l, suffix, ls);
	d->names[off + l + ls] = 0;
	d->names_len += l + ls + 1;
	free(demangled);
	return off;
}

static bool section_is_text(Elf *elf, const GElf_Shdr *sh)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	const char *n = elf_strptr(elf, shstrndx, sh->sh_name);
	return n && strstr(n, "text");
}

/* Symbol address -> file offset of the runtime file, as perf adjusts user symbols. */
static uint64_t to_file_offset(const struct runtime *rt, uint64_t v, const GElf_Shdr *sh)
{
	for (size_t i = 0; i < rt->nloads; i++) {
		const GElf_Phdr *p = &rt->loads[i];
		if (v >= p->p_vaddr && v < p->p_vaddr + p->p_memsz)
			return v - (p->p_vaddr - p->p_offset);
	}
	return v - (sh->sh_addr - sh->sh_offset);
}

/* What load_symbols() needs of a symbol's section, looked up once per section. */
struct sec_info {
	bool known, usable; /* usable: loaded (SHF_ALLOC), with a header in the runtime file */
	bool is_text;
	GElf_Shdr sh; /* the runtime file's header (offsets), see load_symbols() */
};

static const struct sec_info *sec_info(struct sec_info *cache, size_t ncache, Elf *elf,
				       const struct runtime *rt, size_t shndx)
{
	static __thread struct sec_info scratch;
	struct sec_info *si = shndx < ncache ? &cache[shndx] : &scratch;
	if (si->known && si != &scratch)
		return si;
	memset(si, 0, sizeof(*si));
	si->known = true;
	Elf_Scn *scn = elf_getscn(elf, shndx);
	if (!scn || !gelf_getshdr(scn, &si->sh) || !(si->sh.sh_flags & SHF_ALLOC))
		return si;
	Elf *names_from = elf;
	if (si->sh.sh_type == SHT_NOBITS && rt->elf != elf) {
		/* a debug file: its sections have no file offsets, the runtime's do */
		Elf_Scn *rscn = elf_getscn(rt->elf, shndx);
		if (!rscn || !gelf_getshdr(rscn, &si->sh))
			return si;
		names_from = rt->elf;
	}
	si->usable = true;
	si->is_text = section_is_text(names_from, &si->sh);
	return si;
}

/* A copy of string table section ndx, NUL-terminated past its end (so that every offset
 * into it names a string that ends inside it), kept by d; NULL when it cannot be read.  From
 * a file (fd >= 0) it is read straight into the copy: libelf would read it into a buffer of
 * its own first, and the string tables of large binaries (node's is 7.5 MB) are most of what
 * loading reads. */
static const char *copy_strtab(struct dso *d, Elf *elf, int fd, size_t ndx, size_t *size)
{
	Elf_Scn *scn = elf_getscn(elf, ndx);
	GElf_Shdr sh;
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_STRTAB)
		return NULL;
	char *copy = NULL;
	size_t n = 0;
	if (fd >= 0 && !(sh.sh_flags & SHF_COMPRESSED) && elf_getbase(elf) == 0 && sh.sh_size &&
	    sh.sh_size < (1u << 30)) {
		n = sh.sh_size;
		copy = xmalloc(n + 1);
		if (!pread_all(fd, copy, n, sh.sh_offset)) {
			free(copy);
			copy = NULL;
		}
	}
	if (!copy) {
		if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			return NULL;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || !data->d_size || data->d_size >= (1u << 30))
			return NULL;
		n = data->d_size;
		copy = xmalloc(n + 1);
		memcpy(copy, data->d_buf, n);
	}
	copy[n] = 0;
	grow_array((void **)&d->strtabs, &d->strtabs_cap, d->nstrtabs + 1, sizeof(*d->strtabs));
	d->strtabs[d->nstrtabs++] = copy;
	*size = n;
	return copy;
}

/* perf's filter: functions and objects, plus labels (NOTYPE) in text sections; only from
 * sections that are loaded (SHF_ALLOC).  elf was opened from fd (-1: from memory). */
static size_t load_symbols(struct dso *d, Elf *elf, int fd, Elf_Scn *symscn,
			   const struct runtime *rt)
{
	GElf_Shdr symsh;
	Elf_Data *data = elf_getdata(symscn, NULL);
	if (!gelf_getshdr(symscn, &symsh) || !data || !symsh.sh_entsize)
		return 0;
	size_t n = symsh.sh_size / symsh.sh_entsize, added = 0;
	/* room for every symbol and name at once, not regrown symbol by symbol */
	symtab_reserve(&d->tab, n);
	size_t strsize;
	const char *strtab = copy_strtab(d, elf, fd, symsh.sh_link, &strsize);
	if (!strtab)
		return 0;
	size_t nsec = 0;
	if (elf_getshdrnum(elf, &nsec) || nsec > 65536)
		nsec = 0;
	struct sec_info *secs = xcalloc(nsec + 1, sizeof(*secs));
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			break;
		int type = GELF_ST_TYPE(sym.st_info);
		if (!sym.st_name || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
			continue;
		bool label = type == STT_NOTYPE;
		if (!label && type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT)
			continue;
		const struct sec_info *si = sec_info(secs, nsec, elf, rt, sym.st_shndx);
		if (!si->usable || (label && !si->is_text))
			continue;
		if (sym.st_name >= strsize || !strtab[sym.st_name])
			continue;
		int bind = GELF_ST_BIND(sym.st_info);
		enum sym_binding b = bind == STB_WEAK	  ? SYM_WEAK
				     : bind == STB_GLOBAL ? SYM_GLOBAL
							  : SYM_LOCAL;
		symtab_add(&d->tab, to_file_offset(rt, sym.st_value, &si->sh), sym.st_size, b,
			   strtab + sym.st_name, NAME_RAW);
		added++;
	}
	free(secs);
	return added;
}

/* "name@plt" for each .rela.plt entry, one .plt entry each after the header entry (what
 * perf 6.1 synthesizes). */
static void load_plt(struct dso *d, Elf *elf)
{
	GElf_Shdr dynsh, relsh, pltsh;
	Elf_Scn *dyn = find_section(elf, ".dynsym", SHT_DYNSYM, &dynsh);
	Elf_Scn *rel = find_section(elf, ".rela.plt", SHT_RELA, &relsh);
	bool rela = rel != NULL;
	if (!rel)
		rel = find_section(elf, ".rel.plt", SHT_REL, &relsh);
	if (!dyn || !rel || !find_section(elf, ".plt", SHT_NULL, &pltsh))
		return;
	if (relsh.sh_link != elf_ndxscn(dyn) || !relsh.sh_entsize || !pltsh.sh_entsize)
		return;
	Elf_Data *reldata = elf_getdata(rel, NULL), *symdata = elf_getdata(dyn, NULL);
	if (!reldata || !symdata)
		return;
	uint64_t entry = pltsh.sh_entsize, off = pltsh.sh_offset + entry;
	size_t n = relsh.sh_size / relsh.sh_entsize;
	d->plt_from = d->tab.n;
	for (size_t i = 0; i < n; i++, off += entry) {
		size_t symidx;
		if (rela) {
			GElf_Rela r;
			if (!gelf_getrela(reldata, (int)i, &r))
				break;
			symidx = GELF_R_SYM(r.r_info);
		} else {
			GElf_Rel r;
			if (!gelf_getrel(reldata, (int)i, &r))
				break;
			symidx = GELF_R_SYM(r.r_info);
		}
		GElf_Sym sym;
		if (!gelf_getsym(symdata, (int)symidx, &sym))
			continue;
		const char *name = elf_strptr(elf, dynsh.sh_link, sym.st_name);
		if (!name)
			continue;
		size_t noff = add_name(d, name, "@plt");
		symtab_add(&d->tab, off, entry, SYM_GLOBAL, (const char *)(uintptr_t)noff,
			   NAME_SHOWN);
	}
}

/* MiniDebugInfo: .gnu_debugdata is an xz-compressed ELF holding a .symtab. */
static void *unxz(const void *in, size_t in_size, size_t *out_size)
{
	lzma_stream s = LZMA_STREAM_INIT;
	if (lzma_stream_decoder(&s, 256u << 20, 0) != LZMA_OK)
		return NULL;
	size_t cap = in_size * 4 + 4096;
	uint8_t *out = xmalloc(cap);
	s.next_in = in;
	s.avail_in = in_size;
	s.next_out = out;
	s.avail_out = cap;
	lzma_ret r;
	while ((r = lzma_code(&s, LZMA_FINISH)) == LZMA_OK) {
		if (s.avail_out)
			continue;
		if (cap >= (256u << 20))
			break;
		size_t done = cap;
		out = xrealloc(out, cap *= 2);
		s.next_out = out + done;
		s.avail_out = cap - done;
	}
	*out_size = s.total_out;
	lzma_end(&s);
	if (r != LZMA_STREAM_END) {
		free(out);
		return NULL;
	}
	return out;
}

static size_t load_minidebuginfo(struct dso *d, const struct runtime *rt)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(rt->elf, ".gnu_debugdata", SHT_PROGBITS, &sh);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	if (!data || !data->d_buf || !data->d_size)
		return 0;
	size_t size;
	void *image = unxz(data->d_buf, data->d_size, &size);
	if (!image)
		return 0;
	size_t added = 0;
	Elf *mini = elf_memory(image, size);
	GElf_Shdr symsh;
	Elf_Scn *sym = mini ? find_section(mini, NULL, SHT_SYMTAB, &symsh) : NULL;
	if (sym) {
		/* its sections are NOBITS like a debug file's: resolve against the runtime */
		added = load_symbols(d, mini, -1, sym, rt);
	}
	if (mini)
		elf_end(mini);
	free(image);
	return added;
}

/* path as the process rooted at root sees it (safe_open.h: symlinks stay inside root, never a
 * FIFO or device). */
static Elf *open_elf(const char *root, const char *path, int *fd)
{
	*fd = open_file_in_root(root, path);
	if (*fd < 0)
		return NULL;
	Elf *e = elf_begin(*fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		close(*fd);
		*fd = -1;
		return NULL;
	}
	return e;
}

/* A separate debug file with a .symtab, and (when both have one, or need_id) the same
 * build-id. */
static bool try_debug_file(struct dso *d, const struct runtime *rt, const char *root,
			   const char *path, const char *what, bool need_id)
{
	int fd;
	Elf *e = open_elf(root, path, &fd);
	if (!e)
		return false;
	bool used = false;
	GElf_Shdr sh;
	Elf_Scn *sym = find_section(e, NULL, SHT_SYMTAB, &sh);
	if (sym && sh.sh_size >= 2 * sh.sh_entsize) {
		uint8_t id[64];
		size_t idlen = read_build_id(e, id, sizeof(id));
		if ((!need_id && (!d->build_id_size || !idlen)) ||
		    (idlen && idlen == d->build_id_size && !memcmp(id, d->build_id, idlen))) {
			if (rt->probe) {
				used = true;
			} else if (load_symbols(d, e, fd, sym, rt)) {
				d->source = xasprintf("%s %s%s", what, root ? root : "", path);
				used = true;
			}
		}
	}
	elf_end(e);
	close(fd);
	return used;
}

/* Looks under root (the target's view) first, then on the host: there, for a target's file,
 * only a debug file of its very build-id (the host's file of that name is another's). */
static bool try_debug_path(struct dso *d, const struct runtime *rt, const char *root,
			   const char *path, const char *what)
{
	bool target = root && *root;
	if (target && try_debug_file(d, rt, root, path, what, false))
		return true;
	return try_debug_file(d, rt, NULL, path, what, target);
}

char *dso_debug_path(size_t i, const char *path, const char *link, const uint8_t *id, size_t idlen)
{
	const char *slash = path && path[0] == '/' ? strrchr(path, '/') : NULL;
	bool by_link = slash && link && *link && !strchr(link, '/');
	const char *fmts[] = {"%.*s/%s", "%.*s/.debug/%s", "/usr/lib/debug%.*s/%s"};
	for (size_t k = 0; k < ARRAY_SIZE(fmts); k++) {
		char *p = by_link ? xasprintf(fmts[k], (int)(slash - path), path, link) : NULL;
		if (p && strcmp(p, path) && i-- == 0)
			return p;
		free(p);
	}
	if (!idlen || i != 0)
		return NULL;
	char hex[2 * 64 + 1];
	hex_encode(id, idlen < 64 ? idlen : 64, hex);
	return xasprintf("/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
}

static bool load_debug_files(struct dso *d, const struct runtime *rt, const char *root,
			     const char *path)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(rt->elf, ".gnu_debuglink", SHT_NULL, &sh);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	const char *link =
	    data && data->d_buf && data->d_size && memchr(data->d_buf, 0, data->d_size)
		? data->d_buf
		: NULL;
	bool ok = false;
	char *p;
	for (size_t i = 0;
	     !ok && (p = dso_debug_path(i, path, link, d->build_id, d->build_id_size)); i++) {
		ok = try_debug_path(d, rt, root, p,
				    str_startswith(p, "/usr/lib/debug/.build-id/") ? "build-id"
										   : "debuglink");
		free(p);
	}
	return ok;
}

/* A debug file that a symbol server gave (symsrv.h), found by build-id in the caches. */
static bool load_cached_debug_file(struct dso *d, const struct runtime *rt,
				   const struct symcache *cache, const char *path)
{
	if (!cache || !d->build_id_size)
		return false;
	char *p =
	    symcache_find(cache, SYMFILE_DEBUG, path ? path : "", d->build_id, d->build_id_size);
	bool ok = p && try_debug_file(d, rt, NULL, p, "symbol cache", true);
	free(p);
	return ok;
}

static void load_elf(struct dso *d, Elf *elf, int fd, const char *root, const char *path,
		     const struct symcache *cache)
{
	struct runtime rt = {.elf = elf};
	size_t nph;
	if (!elf_getphdrnum(elf, &nph) && nph) {
		rt.loads = xcalloc(nph, sizeof(*rt.loads));
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			rt.loads[rt.nloads++] = ph;
			if ((ph.p_flags & PF_X) && !d->has_exec_load) {
				d->has_exec_load = true;
				d->exec_vaddr = ph.p_vaddr;
				d->exec_offset = ph.p_offset;
			}
		}
	}
	d->build_id_size = read_build_id(elf, d->build_id, sizeof(d->build_id));

	GElf_Shdr sh;
	Elf_Scn *scn;
	if (load_debug_files(d, &rt, root, path)) {
		/* source set by try_debug_file */
	} else if ((scn = find_section(elf, NULL, SHT_SYMTAB, &sh)) &&
		   load_symbols(d, elf, fd, scn, &rt)) {
		d->source = xstrdup(".symtab");
	} else if (load_cached_debug_file(d, &rt, cache, path)) {
		/* source set by try_debug_file */
	} else if ((scn = find_section(elf, NULL, SHT_DYNSYM, &sh))) {
		load_symbols(d, elf, fd, scn, &rt);
		bool mini = load_minidebuginfo(d, &rt) > 0;
		d->source = xstrdup(mini ? ".dynsym+.gnu_debugdata" : ".dynsym");
	} else {
		d->source = xstrdup("no symbol table");
	}
	load_plt(d, elf);
	free(rt.loads);
}

static void finish(struct dso *d)
{
	/* the arena no longer moves: offsets become pointers */
	for (size_t i = d->plt_from; i < d->tab.n; i++)
		d->tab.syms[i].name = d->names + (uintptr_t)d->tab.syms[i].name;
	d->tab.shown_name = shown_name;
	d->tab.owner = d;
	symtab_finish(&d->tab, false);
}

static struct dso *dso_alloc(void)
{
	struct dso *d = xcalloc(1, sizeof(*d));
	d->plt_from = SIZE_MAX;
	return d;
}

struct dso *dso_new_fd(int fd, const char *root, const char *path, const struct symcache *cache)
{
	struct dso *d = dso_alloc();
	Elf *elf = elf_ready() ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (elf && elf_kind(elf) == ELF_K_ELF)
		load_elf(d, elf, fd, root, path, cache);
	else
		d->source = xstrdup("not an ELF file");
	if (elf)
		elf_end(elf);
	finish(d);
	return d;
}

struct dso *dso_new_mem(const void *image, size_t size, const char *path)
{
	struct dso *d = dso_alloc();
	void *copy = xmalloc(size);
	memcpy(copy, image, size);
	Elf *elf = elf_ready() ? elf_memory(copy, size) : NULL;
	if (elf && elf_kind(elf) == ELF_K_ELF)
		load_elf(d, elf, -1, NULL, path, NULL);
	else
		d->source = xstrdup("not an ELF image");
	if (elf)
		elf_end(elf);
	free(copy);
	finish(d);
	return d;
}

void dso_free(struct dso *d)
{
	if (!d)
		return;
	symtab_release(&d->tab);
	for (size_t i = 0; i < d->ndemangled; i++)
		free(d->demangled[i]);
	free(d->demangled);
	for (size_t i = 0; i < d->nstrtabs; i++)
		free(d->strtabs[i]);
	free(d->strtabs);
	free(d->names);
	free(d->source);
	free(d);
}

const char *dso_find_symbol(const struct dso *d, uint64_t off, uint64_t range[2])
{
	const struct sym *s = symtab_find(&d->tab, off);
	if (!s)
		return NULL;
	if (range) {
		range[0] = s->start;
		range[1] = s->end;
	}
	/* Demangling on first use caches into the table: d is const to callers only. */
	struct dso *md = (struct dso *)d;
	return shown_name(md, &md->tab.syms[s - d->tab.syms]);
}

size_t dso_nr_symbols(const struct dso *d)
{
	return d->tab.n;
}

const char *dso_symbol_source(const struct dso *d)
{
	return d->source;
}

bool dso_exec_load(const struct dso *d, uint64_t *vaddr, uint64_t *offset)
{
	*vaddr = d->exec_vaddr;
	*offset = d->exec_offset;
	return d->has_exec_load;
}

const uint8_t *dso_build_id(const struct dso *d, size_t *size)
{
	*size = d->build_id_size;
	return d->build_id;
}

int dso_probe(int fd, const char *root, const char *path, struct dso_probe *out)
{
	memset(out, 0, sizeof(*out));
	Elf *elf = elf_ready() ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		return pc_err("not an ELF file");
	}
	struct dso *d = dso_alloc();
	d->build_id_size = read_build_id(elf, d->build_id, sizeof(d->build_id));
	struct runtime rt = {.elf = elf, .probe = true};
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(elf, NULL, SHT_SYMTAB, &sh);
	out->has_symbols = (scn && sh.sh_entsize && sh.sh_size >= 2 * sh.sh_entsize) ||
			   load_debug_files(d, &rt, root, path);
	size_t n =
	    d->build_id_size < sizeof(out->build_id) ? d->build_id_size : sizeof(out->build_id);
	memcpy(out->build_id, d->build_id, n);
	out->build_id_size = n;
	free(d);
	elf_end(elf);
	return 0;
}

int dso_check_file(int fd, enum symfile_kind kind, const uint8_t *id, size_t idlen)
{
	Elf *elf = elf_ready() ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		return pc_err("not an ELF file");
	}
	int rc = 0;
	uint8_t got[64];
	size_t gotlen = read_build_id(elf, got, sizeof(got));
	GElf_Shdr sh;
	if (gotlen != idlen || memcmp(got, id, idlen)) {
		char hex[2 * sizeof(got) + 1];
		rc = pc_err("its build-id is %s, not the one asked for",
			    gotlen ? hex_encode(got, gotlen, hex) : "none");
	} else if (kind == SYMFILE_DEBUG) {
		Elf_Scn *scn = find_section(elf, NULL, SHT_SYMTAB, &sh);
		if (!scn || !sh.sh_entsize || sh.sh_size < 2 * sh.sh_entsize)
			rc = pc_err("it has no symbol table (.symtab)");
	} else {
		size_t nph = 0;
		bool exec = false;
		if (!elf_getphdrnum(elf, &nph))
			for (size_t i = 0; i < nph && !exec; i++) {
				GElf_Phdr ph;
				exec = gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
				       (ph.p_flags & PF_X);
			}
		if (!exec)
			rc = pc_err("it has no executable segment");
	}
	elf_end(elf);
	return rc;
}
