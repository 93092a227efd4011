/* cfi against libdw: for addresses all over the text of real files on this machine (libc,
 * the dynamic loader, libstdc++, the .NET runtime, our own workloads), our CFI rules must be
 * the ones libdw's dwarf_cfi_addrframe computes from the same .eh_frame: the CFA, the return
 * address and every register the psABI has callees keep. */
#include "test.h"
#include "unwind/cfi.h"
#include "unwind/unwind_tables.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <libelf.h>
#include <unistd.h>

/* libdw's answer for one register as ours would say it; false when it is not one of the
 * simple forms (an expression), which we then only check to be an expression too. */
static bool libdw_reg(Dwarf_Frame *fr, int reg, struct unwind_reg_rule *out, bool *expr)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	*expr = false;
	memset(out, 0, sizeof(*out));
	if (dwarf_frame_register(fr, reg, mem, &ops, &nops) < 0)
		return false;
	if (nops == 0) {
		out->how = ops ? UNWIND_UNDEF : UNWIND_SAME;
		return true;
	}
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		int64_t off = 0;
		size_t i = 1;
		if (i < nops && ops[i].atom == DW_OP_plus_uconst)
			off = (int64_t)ops[i++].number;
		if (i == nops) {
			out->how = UNWIND_AT_CFA;
			out->val = (int32_t)off;
			return true;
		}
		if (i + 1 == nops && ops[i].atom == DW_OP_stack_value) {
			out->how = UNWIND_IS_CFA;
			out->val = (int32_t)off;
			return true;
		}
	}
	if (nops == 1 && ops[0].atom == DW_OP_regx) {
		out->how = UNWIND_IN_REG;
		out->reg = (uint8_t)ops[0].number;
		return true;
	}
	if (nops == 1 && ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
		out->how = UNWIND_IN_REG;
		out->reg = (uint8_t)(ops[0].atom - DW_OP_reg0);
		return true;
	}
	*expr = true;
	return false;
}

struct tally {
	size_t pcs, both, neither, only_ours, only_libdw, cfa_diff, reg_diff;
};

static void compare_pc(struct cfi_table *ours, Dwarf_CFI *cfi, uint64_t pc, struct tally *t,
		       const char *path)
{
	struct unwind_rule r;
	bool have = cfi_table_rule(ours, pc, &r);
	Dwarf_Frame *fr = NULL;
	bool lhave = dwarf_cfi_addrframe(cfi, pc, &fr) == 0;
	t->pcs++;
	if (!have && !lhave) {
		t->neither++;
		return;
	}
	if (have != lhave) {
		if (have)
			t->only_ours++;
		else
			t->only_libdw++;
		if (t->only_ours + t->only_libdw <= 3)
			fprintf(stderr, "%s: pc %#llx: %s\n", path, (unsigned long long)pc,
				have ? "only we have a rule" : "only libdw has a rule");
		free(fr);
		return;
	}
	t->both++;
	Dwarf_Op *ops;
	size_t nops;
	bool cfa_ok = false;
	if (dwarf_frame_cfa(fr, &ops, &nops) == 0) {
		if (nops == 1 && ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31)
			cfa_ok = !r.cfa_len && r.cfa_reg == ops[0].atom - DW_OP_breg0 &&
				 r.cfa_off == (int64_t)ops[0].number;
		else if (nops == 1 && ops[0].atom == DW_OP_bregx)
			cfa_ok = !r.cfa_len && r.cfa_reg == ops[0].number &&
				 r.cfa_off == (int64_t)ops[0].number2;
		else
			cfa_ok = r.cfa_len > 0; /* an expression on both sides */
	}
	if (!cfa_ok) {
		if (t->cfa_diff++ < 3)
			fprintf(stderr, "%s: pc %#llx: CFA differs (ours reg %u off %lld len %u)\n",
				path, (unsigned long long)pc, r.cfa_reg, (long long)r.cfa_off,
				r.cfa_len);
	}
	static const int regs[] = {UNWIND_RBX, UNWIND_RBP, 12, 13, 14, 15, UNWIND_RIP};
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		struct unwind_reg_rule l;
		bool expr;
		bool simple = libdw_reg(fr, regs[i], &l, &expr);
		const struct unwind_reg_rule *o = &r.regs[regs[i]];
		bool same = simple
				? o->how == l.how && (o->how != UNWIND_AT_CFA || o->val == l.val) &&
				      (o->how != UNWIND_IS_CFA || o->val == l.val) &&
				      (o->how != UNWIND_IN_REG || o->reg == l.reg)
				: expr && (o->how == UNWIND_AT_EXPR || o->how == UNWIND_IS_EXPR);
		/* elfutils' x86-64 initial rules keep rax and lose rbx; the psABI has callees
		 * keep rbx (and we do) */
		if (!same && regs[i] == UNWIND_RBX && l.how == UNWIND_UNDEF &&
		    o->how == UNWIND_SAME)
			same = true;
		if (!same && t->reg_diff++ < 3)
			fprintf(stderr,
				"%s: pc %#llx: reg %d: ours how %u val %d, libdw how %u val %d%s\n",
				path, (unsigned long long)pc, regs[i], o->how, o->val, l.how, l.val,
				expr ? " (expression)" : "");
	}
	free(fr);
}

/* Compares every step-th address of the file's executable sections.  libdw's CFI comes
 * through Dwfl, as its unwinder uses it: with the psABI's initial rules (callee-saved
 * registers keep their values). */
static bool compare_file(const char *path, unsigned step)
{
	static char *debuginfo_path;
	static const Dwfl_Callbacks cb = {
	    .find_elf = dwfl_build_id_find_elf,
	    .find_debuginfo = dwfl_standard_find_debuginfo,
	    .debuginfo_path = &debuginfo_path,
	};
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	Dwfl *dwfl = dwfl_begin(&cb);
	Dwfl_Module *mod = dwfl ? dwfl_report_offline(dwfl, path, path, -1) : NULL;
	Dwarf_Addr bias;
	Dwarf_CFI *cfi = mod ? dwfl_module_eh_cfi(mod, &bias) : NULL;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!cfi || !elf) { /* CFI addresses are the file's own: the bias is not needed */
		if (elf)
			elf_end(elf);
		if (dwfl)
			dwfl_end(dwfl);
		close(fd);
		return false;
	}
	/* ours from the same sections */
	size_t shstrndx;
	elf_getshdrstrndx(elf, &shstrndx);
	struct cfi_section eh = {0};
	struct tally t = {0};
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		gelf_getshdr(scn, &sh);
		const char *n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, ".eh_frame")) {
			Elf_Data *d = elf_getdata(scn, NULL);
			eh = (struct cfi_section){d->d_buf, d->d_size, sh.sh_addr};
		}
	}
	struct cfi_table *ours = cfi_table_new(&eh, NULL);
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		gelf_getshdr(scn, &sh);
		if (sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		for (uint64_t pc = sh.sh_addr; pc < sh.sh_addr + sh.sh_size; pc += step)
			compare_pc(ours, cfi, pc, &t, path);
	}
	printf("%s: %zu ranges; %zu addresses: %zu with rules on both sides, %zu on neither, "
	       "%zu ours only, %zu libdw's only; CFA differing %zu, registers differing %zu\n",
	       path, cfi_table_ranges(ours), t.pcs, t.both, t.neither, t.only_ours, t.only_libdw,
	       t.cfa_diff, t.reg_diff);
	CHECK(t.both > 0);
	CHECK(t.only_ours == 0 && t.only_libdw == 0);
	CHECK(t.cfa_diff == 0);
	CHECK(t.reg_diff == 0);
	cfi_table_free(ours);
	dwfl_end(dwfl);
	elf_end(elf);
	close(fd);
	return true;
}

int main(void)
{
	elf_version(EV_CURRENT);
	const char *build = getenv("BUILD_DIR");
	char nofp[512] = "", hot[512] = "";
	if (build) {
		snprintf(nofp, sizeof(nofp), "%s/tests/workloads/libnofp.so", build);
		snprintf(hot, sizeof(hot), "%s/tests/workloads/hot", build);
	}
	const char *files[] = {"/lib/x86_64-linux-gnu/libc.so.6",
			       "/lib64/ld-linux-x86-64.so.2",
			       "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
			       "/usr/lib/x86_64-linux-gnu/libz.so.1",
			       nofp,
			       hot};
	int compared = 0;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		compared += files[i][0] && compare_file(files[i], 3);
	glob_t g;
	if (glob("/usr/share/dotnet/shared/Microsoft.NETCore.App/*/libcoreclr.so", 0, NULL, &g) ==
	    0) {
		compared += compare_file(g.gl_pathv[0], 11);
		globfree(&g);
	}
	if (!compared)
		SKIP("none of the files with CFI this test reads is here");
	CHECK(compared >= 2);
	return TEST_DONE();
}
