/* pe_unwind: see pe_unwind.h.  A function's unwind codes are replayed as Windows'
 * RtlVirtualUnwind replays them (the codes whose prologue offset has been reached, newest
 * first), but on symbols instead of a context: where each register was saved, relative to
 * the frame's stack or frame register, and where the return address is.  That is a rule. */
#include "pe_unwind.h"

#include "base/search.h"
#include "base/span.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* IMAGE_FILE_MACHINE_AMD64, and as .NET stamps images built for other systems (the machine
 * XOR an OS mask: Linux 0x7b79, macOS 0x4644, FreeBSD 0x1993, NetBSD 0x1992). */
static const uint16_t amd64_machines[] = {0x8664, 0x8664 ^ 0x7b79, 0x8664 ^ 0x4644, 0x8664 ^ 0x1993,
					  0x8664 ^ 0x1992};

#define MAX_SECTIONS  96
#define MAX_FUNCTIONS (8u << 20)
#define CHAIN_DEPTH   8

enum {
	UWOP_PUSH_NONVOL,
	UWOP_ALLOC_LARGE,
	UWOP_ALLOC_SMALL,
	UWOP_SET_FPREG,
	UWOP_SAVE_NONVOL,
	UWOP_SAVE_NONVOL_FAR,
	UWOP_EPILOG, /* version 2 */
	UWOP_SPARE,
	UWOP_SAVE_XMM128,
	UWOP_SAVE_XMM128_FAR,
	UWOP_PUSH_MACHFRAME,
};
#define UNW_FLAG_CHAININFO 4

struct section {
	uint32_t va, vsize, raw, rawsize;
};

struct function {
	uint32_t begin, end, unwind;
};

struct pe_unwind {
	int fd;
	struct section *secs;
	size_t nsecs;
	struct function *funcs; /* sorted by begin */
	size_t nfuncs;
};

/* Windows' register numbers to DWARF's. */
static const uint8_t to_dwarf[16] = {
    UNWIND_RAX, UNWIND_RCX, UNWIND_RDX, UNWIND_RBX, UNWIND_RSP, UNWIND_RBP, UNWIND_RSI, UNWIND_RDI,
    8,		9,	    10,		11,	    12,		13,	    14,		15};

/* The file offset of [rva, rva + n) when one section holds all of it. */
static bool rva_to_off(const struct pe_unwind *t, uint32_t rva, uint32_t n, uint64_t *off)
{
	for (size_t i = 0; i < t->nsecs; i++) {
		const struct section *s = &t->secs[i];
		uint32_t size = s->vsize > s->rawsize ? s->rawsize : s->vsize;
		if (rva >= s->va && rva - s->va < size && size - (rva - s->va) >= n) {
			*off = (uint64_t)s->raw + (rva - s->va);
			return true;
		}
	}
	return false;
}

bool pe_unwind_rva(const struct pe_unwind *t, uint64_t file_off, uint32_t *rva)
{
	for (size_t i = 0; i < t->nsecs; i++) {
		const struct section *s = &t->secs[i];
		if (file_off >= s->raw && file_off - s->raw < s->rawsize &&
		    file_off - s->raw < s->vsize) {
			uint64_t v = s->va + (file_off - s->raw);
			if (v > UINT32_MAX)
				return false;
			*rva = (uint32_t)v;
			return true;
		}
	}
	return false;
}

static int cmp_func(const void *a, const void *b)
{
	const struct function *x = a, *y = b;
	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

static bool read_headers(struct pe_unwind *t, uint32_t *exc_rva, uint32_t *exc_size)
{
	uint8_t dos[64];
	if (!pread_all(t->fd, dos, sizeof(dos), 0) || dos[0] != 'M' || dos[1] != 'Z')
		return false;
	uint32_t pe = load_le32(dos + 0x3c);
	uint8_t coff[24];
	if (pe > (1u << 20) || !pread_all(t->fd, coff, sizeof(coff), pe) ||
	    memcmp(coff, "PE\0\0", 4))
		return false;
	uint16_t machine = load_le16(coff + 4), nsecs = load_le16(coff + 6),
		 optsize = load_le16(coff + 20);
	bool amd64 = false;
	for (size_t i = 0; i < ARRAY_SIZE(amd64_machines); i++)
		amd64 |= machine == amd64_machines[i];
	if (!amd64 || nsecs == 0 || nsecs > MAX_SECTIONS || optsize < 112 + 4 * 8)
		return false;
	uint8_t opt[240];
	size_t optread = optsize < sizeof(opt) ? optsize : sizeof(opt);
	if (!pread_all(t->fd, opt, optread, pe + 24) || load_le16(opt) != 0x20b) /* PE32+ */
		return false;
	uint32_t ndirs = load_le32(opt + 108);
	if (ndirs < 4 || 112 + 4 * 8 > optread)
		return false;
	*exc_rva = load_le32(opt + 112 + 3 * 8);
	*exc_size = load_le32(opt + 112 + 3 * 8 + 4);
	uint8_t *sh = xmalloc((size_t)nsecs * 40);
	bool ok = pread_all(t->fd, sh, (size_t)nsecs * 40, (uint64_t)pe + 24 + optsize);
	if (ok) {
		t->secs = xcalloc(nsecs, sizeof(*t->secs));
		for (size_t i = 0; i < nsecs; i++) {
			const uint8_t *s = sh + 40 * i;
			t->secs[t->nsecs++] =
			    (struct section){load_le32(s + 12), load_le32(s + 8), load_le32(s + 20),
					     load_le32(s + 16)};
		}
	}
	free(sh);
	return ok;
}

struct pe_unwind *pe_unwind_new(int fd)
{
	struct pe_unwind *t = xcalloc(1, sizeof(*t));
	t->fd = fd;
	uint32_t exc_rva, exc_size;
	uint64_t exc_off;
	if (!read_headers(t, &exc_rva, &exc_size) || exc_size < 12 ||
	    exc_size / 12 > MAX_FUNCTIONS || !rva_to_off(t, exc_rva, exc_size, &exc_off))
		goto fail;
	size_t n = exc_size / 12;
	uint8_t *raw = xmalloc(n * 12);
	if (!pread_all(fd, raw, n * 12, exc_off)) {
		free(raw);
		goto fail;
	}
	t->funcs = xmalloc(n * sizeof(*t->funcs));
	bool sorted = true;
	for (size_t i = 0; i < n; i++) {
		const uint8_t *e = raw + 12 * i;
		struct function f = {load_le32(e), load_le32(e + 4), load_le32(e + 8)};
		if (f.end <= f.begin)
			continue;
		if (t->nfuncs && f.begin < t->funcs[t->nfuncs - 1].begin)
			sorted = false;
		t->funcs[t->nfuncs++] = f;
	}
	free(raw);
	if (!sorted)
		qsort(t->funcs, t->nfuncs, sizeof(*t->funcs), cmp_func);
	if (!t->nfuncs)
		goto fail;
	return t;
fail:
	pe_unwind_free(t);
	return NULL;
}

void pe_unwind_free(struct pe_unwind *t)
{
	if (!t)
		return;
	if (t->fd >= 0)
		close(t->fd);
	free(t->secs);
	free(t->funcs);
	free(t);
}

size_t pe_unwind_functions(const struct pe_unwind *t)
{
	return t->nfuncs;
}

bool pe_unwind_function(const struct pe_unwind *t, size_t i, uint32_t *begin, uint32_t *end)
{
	if (i >= t->nfuncs)
		return false;
	*begin = t->funcs[i].begin;
	*end = t->funcs[i].end;
	return true;
}

static const struct function *find_function(const struct pe_unwind *t, uint32_t rva)
{
	size_t lo = LOWER_BOUND(t->nfuncs, i, t->funcs[i].begin <= rva);
	if (!lo || rva >= t->funcs[lo - 1].end)
		return NULL;
	return &t->funcs[lo - 1];
}

/* Where the caller's registers are, as the replay goes: the stack pointer is r[base] + d. */
struct model {
	uint8_t base; /* DWARF number */
	int64_t d;
	bool saved[UNWIND_NREGS];
	uint8_t save_base[UNWIND_NREGS];
	int64_t save_off[UNWIND_NREGS];
};

static void save_at(struct model *m, uint8_t reg, uint8_t base, int64_t off)
{
	m->saved[reg] = true;
	m->save_base[reg] = base;
	m->save_off[reg] = off;
}

/* Replays one UNWIND_INFO's codes that have run by prologue offset `at` (every code when
 * all is true).  *chained gets the function this one continues (UNW_FLAG_CHAININFO). */
static bool replay(const struct pe_unwind *t, uint32_t info_rva, uint32_t at, bool all,
		   struct model *m, bool first, uint8_t *est_base, int64_t *est_off,
		   struct function *chained, bool *has_chain)
{
	uint8_t buf[4 + 255 * 2 + 2 + 12];
	uint64_t off = 0;
	*has_chain = false;
	if (!rva_to_off(t, info_rva, 4, &off) || !pread_all(t->fd, buf, 4, off))
		return false;
	uint8_t version = buf[0] & 7, flags = buf[0] >> 3, prolog = buf[1], count = buf[2];
	uint8_t frame_reg = buf[3] & 15, frame_off = buf[3] >> 4;
	if (version != 1 && version != 2)
		return false;
	size_t slots = count + (count & 1);
	size_t need = 4 + 2 * slots + ((flags & UNW_FLAG_CHAININFO) ? 12 : 0);
	if (!rva_to_off(t, info_rva, (uint32_t)need, &off) || !pread_all(t->fd, buf, need, off))
		return false;
	/* The frame register is in use past the prologue, or once its code has run. */
	bool frame_in_use = frame_reg && (all || at >= prolog);
	for (size_t i = 0; i < count && frame_reg && !frame_in_use; i++) {
		const uint8_t *c = buf + 4 + 2 * i;
		if ((c[1] & 15) == UWOP_SET_FPREG && c[0] <= at)
			frame_in_use = true;
	}
	/* SAVE_NONVOL offsets are from the frame base of the function the pc is in (its
	 * frame register less the offset once that is set, else its stack pointer); chained
	 * parents use the same. */
	if (first) {
		*est_base = frame_in_use ? to_dwarf[frame_reg] : UNWIND_RSP;
		*est_off = frame_in_use ? -16 * (int64_t)frame_off : 0;
	}
	for (size_t i = 0; i < count; i++) {
		const uint8_t *c = buf + 4 + 2 * i;
		uint8_t op = c[1] & 15, info = c[1] >> 4;
		size_t extra = op == UWOP_ALLOC_LARGE		   ? (info ? 2 : 1)
			       : op == UWOP_SAVE_NONVOL		   ? 1
			       : op == UWOP_SAVE_NONVOL_FAR	   ? 2
			       : op == UWOP_SAVE_XMM128		   ? 1
			       : op == UWOP_SAVE_XMM128_FAR	   ? 2
			       : op == UWOP_EPILOG && version == 2 ? 1
								   : 0;
		if (extra && i + extra >= count)
			return false; /* the code's operand is past the codes */
		bool ran = all || c[0] <= at;
		if (op == UWOP_EPILOG || op == UWOP_SPARE) { /* version 2 epilogue descriptors */
			i += extra;
			continue;
		}
		if (!ran) {
			i += extra;
			continue;
		}
		const uint8_t *x = c + 2;
		switch (op) {
		case UWOP_PUSH_NONVOL:
			save_at(m, to_dwarf[info], m->base, m->d);
			m->d += 8;
			break;
		case UWOP_ALLOC_LARGE:
			m->d += info ? (int64_t)load_le32(x) : (int64_t)load_le16(x) * 8;
			break;
		case UWOP_ALLOC_SMALL:
			m->d += (int64_t)info * 8 + 8;
			break;
		case UWOP_SET_FPREG:
			if (!frame_reg)
				return false;
			m->base = to_dwarf[frame_reg];
			m->d = -16 * (int64_t)frame_off;
			break;
		case UWOP_SAVE_NONVOL:
			save_at(m, to_dwarf[info], *est_base, *est_off + (int64_t)load_le16(x) * 8);
			break;
		case UWOP_SAVE_NONVOL_FAR:
			save_at(m, to_dwarf[info], *est_base, *est_off + (int64_t)load_le32(x));
			break;
		case UWOP_SAVE_XMM128:
		case UWOP_SAVE_XMM128_FAR:
			break;
		default: /* PUSH_MACHFRAME (interrupt frames) and unknown codes */
			return false;
		}
		i += extra;
	}
	if (flags & UNW_FLAG_CHAININFO) {
		const uint8_t *e = buf + 4 + 2 * slots;
		*chained = (struct function){load_le32(e), load_le32(e + 4), load_le32(e + 8)};
		*has_chain = true;
	}
	return true;
}

/* The rule once the model is complete: the return address at the stack pointer. */
static void model_rule(const struct model *m, struct unwind_rule *r)
{
	memset(r, 0, sizeof(*r));
	r->kind = UNWIND_RULE_EXACT;
	r->cfa_reg = m->base;
	r->cfa_off = m->d + 8;
	r->ra_reg = UNWIND_RIP;
	static const uint8_t kept[] = {UNWIND_RBX, UNWIND_RBP, UNWIND_RSI, UNWIND_RDI,
				       12,	   13,	       14,	   15};
	for (size_t i = 0; i < sizeof(kept); i++)
		r->regs[kept[i]].how = UNWIND_SAME;
	for (int reg = 0; reg < UNWIND_NREGS; reg++) {
		if (!m->saved[reg] || reg == UNWIND_RSP)
			continue;
		int64_t off = m->save_off[reg];
		if (m->save_base[reg] == m->base && off - r->cfa_off >= INT32_MIN)
			r->regs[reg] = (struct unwind_reg_rule){.how = UNWIND_AT_CFA,
								.val = (int32_t)(off - r->cfa_off)};
		else if (off >= INT32_MIN && off <= INT32_MAX)
			r->regs[reg] = (struct unwind_reg_rule){
			    .how = UNWIND_AT_REG, .reg = m->save_base[reg], .val = (int32_t)off};
		else
			r->regs[reg].how = UNWIND_UNDEF;
	}
	r->regs[UNWIND_RIP] = (struct unwind_reg_rule){.how = UNWIND_AT_CFA, .val = -8};
}

/* An interrupted instruction in an epilogue: what is left of it (an optional stack
 * adjustment, pops, then ret or a tail jump) says where everything is, as Windows reads
 * it. */
static bool epilogue_rule(const struct pe_unwind *t, uint32_t rva, uint8_t frame_reg,
			  struct unwind_rule *r)
{
	uint8_t code[48];
	uint64_t off = 0;
	size_t n = sizeof(code);
	while (n > 8 && !rva_to_off(t, rva, (uint32_t)n, &off))
		n /= 2;
	if (n <= 8 || !pread_all(t->fd, code, n, off))
		return false;
	struct model m;
	memset(&m, 0, sizeof(m));
	m.base = UNWIND_RSP;
	size_t i = 0;
	/* add rsp, imm8/imm32 */
	if (code[0] == 0x48 && code[1] == 0x83 && code[2] == 0xc4) {
		m.d = (int8_t)code[3];
		i = 4;
	} else if (code[0] == 0x48 && code[1] == 0x81 && code[2] == 0xc4) {
		m.d = (int32_t)load_le32(code + 3);
		i = 7;
	} else if ((code[0] & 0xfe) == 0x48 && code[1] == 0x8d && frame_reg) {
		/* lea rsp, [frame register + disp8/32] */
		uint8_t modrm = code[2], rm = (modrm & 7) | ((code[0] & 1) << 3);
		if (((modrm >> 3) & 7) != 4 || rm != frame_reg || (rm & 7) == 4)
			return false;
		m.base = to_dwarf[rm];
		if ((modrm >> 6) == 1) {
			m.d = (int8_t)code[3];
			i = 4;
		} else if ((modrm >> 6) == 2) {
			m.d = (int32_t)load_le32(code + 3);
			i = 7;
		} else {
			return false;
		}
	}
	for (;;) {
		if (i + 2 > n)
			return false;
		if (code[i] >= 0x58 && code[i] <= 0x5f) { /* pop r64 */
			save_at(&m, to_dwarf[code[i] - 0x58], m.base, m.d);
			m.d += 8;
			i += 1;
		} else if (code[i] == 0x41 && code[i + 1] >= 0x58 && code[i + 1] <= 0x5f) {
			save_at(&m, to_dwarf[8 + code[i + 1] - 0x58], m.base, m.d);
			m.d += 8;
			i += 2;
		} else {
			break;
		}
	}
	uint8_t *p = code + i;
	bool end = p[0] == 0xc3 || p[0] == 0xc2 || (p[0] == 0xf3 && p[1] == 0xc3) || p[0] == 0xe9 ||
		   (p[0] == 0xff && (p[1] & 0xf8) == 0xe0) ||
		   ((p[0] & 0xf0) == 0x40 && p[1] == 0xff && (i + 3 <= n) && (p[2] & 0xf8) == 0xe0);
	if (!end || (i == 0 && p[0] != 0xc3 && p[0] != 0xc2 && p[0] != 0xf3))
		return false; /* a jump alone is no epilogue */
	model_rule(&m, r);
	return true;
}

bool pe_unwind_rule(const struct pe_unwind *t, uint32_t rva, bool exact, struct unwind_rule *rule)
{
	uint32_t at_rva = exact ? rva : rva - 1;
	if (!exact && !rva)
		return false;
	const struct function *f = find_function(t, at_rva);
	if (!f)
		return false;
	/* The function's frame register, for an epilogue's lea. */
	uint8_t hdr[4];
	uint64_t off = 0;
	if (!rva_to_off(t, f->unwind, 4, &off) || !pread_all(t->fd, hdr, 4, off))
		return false;
	uint32_t at = at_rva - f->begin;
	if (exact && at >= hdr[1] && epilogue_rule(t, rva, hdr[3] & 15, rule))
		return true;
	struct model m;
	memset(&m, 0, sizeof(m));
	m.base = UNWIND_RSP;
	struct function cur = *f;
	bool all = false;
	uint8_t est_base = UNWIND_RSP;
	int64_t est_off = 0;
	for (int depth = 0; depth < CHAIN_DEPTH; depth++) {
		struct function next;
		bool chained;
		if (!replay(t, cur.unwind, at, all, &m, depth == 0, &est_base, &est_off, &next,
			    &chained))
			return false;
		if (!chained) {
			model_rule(&m, rule);
			return true;
		}
		cur = next;
		all = true; /* the parent's prologue has run whole */
	}
	return false;
}
