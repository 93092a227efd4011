/* pe_unwind on the installed .NET runtime's System.Private.CoreLib.dll (ReadyToRun, the Linux
 * machine stamp): every function of its table has a rule past its prologue, and the rule
 * agrees with the function's own first instructions, read from the file: each leading push
 * (push rbp = 0x55, push rbx = 0x53, ..., REX pushes of r12-r15) saves that register where
 * the rule says, 8 bytes further from the return address each; a function that starts with
 * no push and no stack adjustment has its return address at the stack pointer.  And at the
 * epilogue a function ends with (pops, then ret), an interrupted instruction at each pop or
 * at the ret finds what is left to pop where the code pops it. */
#include "test.h"
#include "unwind/pe_unwind.h"

#include <fcntl.h>
#include <glob.h>
#include <unistd.h>

static const uint8_t push_reg[8] = {UNWIND_RAX, UNWIND_RCX, UNWIND_RDX, UNWIND_RBX,
				    UNWIND_RSP, UNWIND_RBP, UNWIND_RSI, UNWIND_RDI};

/* The file offset of rva, by the section table (the test's own small reading). */
static long rva_offset(int fd, uint32_t rva)
{
	uint8_t h[4096];
	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return -1;
	uint32_t pe, va, vs, raw;
	uint16_t n, opt;
	memcpy(&pe, h + 0x3c, 4);
	memcpy(&n, h + pe + 6, 2);
	memcpy(&opt, h + pe + 20, 2);
	for (uint16_t i = 0; i < n; i++) {
		const uint8_t *s = h + pe + 24 + opt + 40 * i;
		memcpy(&vs, s + 8, 4);
		memcpy(&va, s + 12, 4);
		memcpy(&raw, s + 20, 4);
		if (rva >= va && rva < va + vs)
			return (long)(rva - va + raw);
	}
	return -1;
}

int main(void)
{
	glob_t g;
	if (glob("/usr/share/dotnet/shared/Microsoft.NETCore.App/*/System.Private.CoreLib.dll", 0,
		 NULL, &g) != 0)
		SKIP("no .NET runtime with System.Private.CoreLib.dll here");
	int fd = open(g.gl_pathv[0], O_RDONLY | O_CLOEXEC);
	int mine = dup(fd);
	struct pe_unwind *t = pe_unwind_new(fd);
	CHECK(t != NULL);
	if (!t)
		return TEST_DONE();
	size_t n = pe_unwind_functions(t), ruled = 0, checked = 0, pushes = 0, bad = 0;
	size_t epilogues = 0;
	uint32_t begin, end;
	for (size_t i = 0; pe_unwind_function(t, i, &begin, &end); i++) {
		struct unwind_rule r;
		/* a return address at the function's end: past any prologue */
		if (!pe_unwind_rule(t, end, false, &r))
			continue;
		ruled++;
		uint8_t code[16];
		long off = rva_offset(mine, begin);
		if (off < 0 || pread(mine, code, sizeof(code), off) != (ssize_t)sizeof(code))
			continue;
		checked++;
		bool ok = r.regs[UNWIND_RIP].how == UNWIND_AT_CFA && r.regs[UNWIND_RIP].val == -8;
		int32_t at = -16;
		bool pushed = false;
		for (size_t k = 0; k < sizeof(code) - 1 && ok;) {
			uint8_t reg;
			if (code[k] >= 0x50 && code[k] <= 0x57) {
				reg = push_reg[code[k] - 0x50];
				k += 1;
			} else if (code[k] == 0x41 && code[k + 1] >= 0x50 && code[k + 1] <= 0x57) {
				reg = (uint8_t)(8 + code[k + 1] - 0x50);
				k += 2;
			} else {
				break;
			}
			pushes++;
			pushed = true;
			/* rax and friends are pushed to make room (ALLOC_SMALL), not saved */
			if (reg == UNWIND_RAX || reg == UNWIND_RCX || reg == UNWIND_RDX)
				break;
			const struct unwind_reg_rule *rr = &r.regs[reg];
			ok = (rr->how == UNWIND_AT_CFA && rr->val == at) ||
			     (rr->how == UNWIND_AT_REG && r.cfa_reg != rr->reg);
			at -= 8;
		}
		if (!pushed && code[0] != 0x48 && code[0] != 0x4c)
			ok = ok && r.cfa_reg == UNWIND_RSP && r.cfa_off == 8; /* no frame at all */
		/* the epilogue: ... pop; pop; ret at the end */
		uint8_t tail[8];
		long toff = rva_offset(mine, end - 8);
		if (ok && end - begin >= 8 && toff >= 0 &&
		    pread(mine, tail, sizeof(tail), toff) == (ssize_t)sizeof(tail) &&
		    tail[7] == 0xc3) {
			int pops = 0;
			while (pops < 6 && tail[6 - pops] >= 0x58 && tail[6 - pops] <= 0x5f &&
			       tail[6 - pops] != 0x5c && (6 - pops == 0 || tail[5 - pops] != 0x41))
				pops++;
			for (int k = 0; k <= pops && ok; k++) {
				struct unwind_rule e;
				/* k pops still to run, at end - 1 - k */
				ok = pe_unwind_rule(t, end - 1 - (uint32_t)k, true, &e) &&
				     e.cfa_reg == UNWIND_RSP && e.cfa_off == 8 + 8 * k;
				if (ok && k) {
					uint8_t reg = push_reg[tail[7 - k] - 0x58];
					ok = e.regs[reg].how == UNWIND_AT_CFA &&
					     e.regs[reg].val == -8 - 8 * k;
				}
			}
			epilogues += ok;
		}
		if (!ok && bad++ < 5)
			fprintf(stderr,
				"function %#x-%#x (code %02x %02x %02x %02x): cfa r%u%+lld\n",
				begin, end, code[0], code[1], code[2], code[3], r.cfa_reg,
				(long long)r.cfa_off);
	}
	printf("%s: %zu functions, %zu with a rule at their end, %zu checked against their "
	       "code (%zu pushes, %zu epilogues), %zu disagreeing\n",
	       g.gl_pathv[0], n, ruled, checked, pushes, epilogues, bad);
	CHECK(epilogues > 1000);
	CHECK(n > 1000);
	CHECK(ruled * 100 >= n * 99);
	CHECK(bad == 0);
	pe_unwind_free(t);
	close(mine);
	globfree(&g);
	return TEST_DONE();
}
