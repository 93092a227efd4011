/* unwind_tables: see unwind_tables.h.  An ELF file's sections are copied out while libelf
 * has it open (no mapping of a file the target could truncate stays behind); a PE image
 * stays open for the few bytes each lookup reads. */
#include "unwind_tables.h"

#include "base/hash.h"
#include "base/util.h"
#include "cfi.h"
#include "pe_unwind.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct load {
	uint64_t offset, filesz, vaddr;
};

struct unwind_tables {
	uint64_t id;
	struct cfi_table *cfi;
	struct load *loads; /* PT_LOAD: file offsets to the addresses CFI speaks of */
	size_t nloads;
	struct pe_unwind *pe;
};

static atomic_uint_fast64_t next_id = 1;

static struct unwind_tables *tables_alloc(void)
{
	struct unwind_tables *t = xcalloc(1, sizeof(*t));
	t->id = atomic_fetch_add(&next_id, 1);
	return t;
}

static bool elf_ok(void)
{
	static atomic_int state; /* 0 unknown, 1 ok, -1 failed */
	int s = atomic_load(&state);
	if (!s) {
		s = elf_version(EV_CURRENT) == EV_NONE ? -1 : 1;
		atomic_store(&state, s);
	}
	return s > 0;
}

/* A section's bytes (decompressed when SHF_COMPRESSED); false when it has none. */
static bool section_bytes(Elf *elf, size_t shstrndx, const char *want, struct cfi_section *out)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		const char *n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!n || strcmp(n, want))
			continue;
		if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			return false;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || !d->d_size)
			return false;
		*out = (struct cfi_section){d->d_buf, d->d_size, sh.sh_addr};
		return true;
	}
	return false;
}

static void read_elf(struct unwind_tables *t, Elf *elf)
{
	size_t shstrndx, nph;
	if (elf_kind(elf) != ELF_K_ELF || gelf_getclass(elf) != ELFCLASS64 ||
	    elf_getshdrstrndx(elf, &shstrndx) || elf_getphdrnum(elf, &nph))
		return;
	t->loads = xcalloc(nph ? nph : 1, sizeof(*t->loads));
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			t->loads[t->nloads++] = (struct load){ph.p_offset, ph.p_filesz, ph.p_vaddr};
	}
	struct cfi_section eh = {0}, dbg = {0};
	bool have_eh = section_bytes(elf, shstrndx, ".eh_frame", &eh);
	bool have_dbg = section_bytes(elf, shstrndx, ".debug_frame", &dbg);
	if (have_eh || have_dbg)
		t->cfi = cfi_table_new(have_eh ? &eh : NULL, have_dbg ? &dbg : NULL);
}

struct unwind_tables *unwind_tables_new_fd(int fd)
{
	struct unwind_tables *t = tables_alloc();
	char magic[2];
	if (pread(fd, magic, 2, 0) == 2 && magic[0] == 'M' && magic[1] == 'Z') {
		/* A PE image: its table keeps a descriptor of its own. */
		int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (own >= 0)
			t->pe = pe_unwind_new(own);
		return t;
	}
	if (!elf_ok())
		return t;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf) {
		read_elf(t, elf);
		elf_end(elf);
	}
	return t;
}

struct unwind_tables *unwind_tables_new_mem(const void *image, size_t size)
{
	struct unwind_tables *t = tables_alloc();
	if (!elf_ok() || !size)
		return t;
	/* libelf may write to the image (decompression): work on a copy */
	char *copy = xmalloc(size);
	memcpy(copy, image, size);
	Elf *elf = elf_memory(copy, size);
	if (elf) {
		read_elf(t, elf);
		elf_end(elf);
	}
	free(copy);
	return t;
}

void unwind_tables_free(struct unwind_tables *t)
{
	if (!t)
		return;
	cfi_table_free(t->cfi);
	pe_unwind_free(t->pe);
	free(t->loads);
	free(t);
}

bool unwind_tables_empty(const struct unwind_tables *t)
{
	return !(t->cfi && cfi_table_ranges(t->cfi)) && !t->pe;
}

const char *unwind_tables_describe(const struct unwind_tables *t, char *buf, size_t len)
{
	if (t->pe)
		snprintf(buf, len, "PE unwind info, %zu functions", pe_unwind_functions(t->pe));
	else if (t->cfi && cfi_table_ranges(t->cfi))
		snprintf(buf, len, "CFI, %zu ranges", cfi_table_ranges(t->cfi));
	else
		snprintf(buf, len, "no unwind tables");
	return buf;
}

bool unwind_tables_rule(const struct unwind_tables *t, uint64_t off, bool exact,
			struct unwind_rule *rule)
{
	if (t->pe) {
		uint32_t rva;
		return pe_unwind_rva(t->pe, off, &rva) && pe_unwind_rule(t->pe, rva, exact, rule);
	}
	if (!t->cfi)
		return false;
	/* a return address: the call is the instruction before it */
	uint64_t at = exact ? off : off - 1;
	if (!exact && !off)
		return false;
	for (size_t i = 0; i < t->nloads; i++) {
		const struct load *l = &t->loads[i];
		if (at >= l->offset && at - l->offset < l->filesz)
			return cfi_table_rule(t->cfi, at - l->offset + l->vaddr, rule);
	}
	return false;
}

/* ---- the memo ---- */

#define MEMO_SIZE 4096 /* power of two */

struct memo_entry {
	uint64_t id; /* 0: empty */
	uint64_t off;
	bool exact, found;
	struct unwind_rule rule;
};

struct unwind_memo {
	struct memo_entry *v;
};

struct unwind_memo *unwind_memo_new(void)
{
	struct unwind_memo *m = xcalloc(1, sizeof(*m));
	m->v = xcalloc(MEMO_SIZE, sizeof(*m->v));
	return m;
}

void unwind_memo_free(struct unwind_memo *m)
{
	if (!m)
		return;
	free(m->v);
	free(m);
}

bool unwind_memo_rule(struct unwind_memo *m, const struct unwind_tables *t, uint64_t off,
		      bool exact, struct unwind_rule *rule)
{
	struct memo_entry *e = &m->v[hash_two(t->id, off << 1 | exact) & (MEMO_SIZE - 1)];
	if (e->id == t->id && e->off == off && e->exact == exact) {
		if (e->found)
			*rule = e->rule;
		return e->found;
	}
	e->id = t->id;
	e->off = off;
	e->exact = exact;
	e->found = unwind_tables_rule(t, off, exact, &e->rule);
	if (e->found)
		*rule = e->rule;
	return e->found;
}
