/* cfi: see cfi.h.  The index holds one entry per FDE (its range, where it is, its CIE); the
 * CIEs are parsed once into a table of their own.  .eh_frame is looked in first, then
 * .debug_frame, as libunwind does. */
#include "cfi.h"
#include "cursor.h"

#include "base/search.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* Pointer encodings (LSB, "DWARF Extensions": DW_EH_PE_*). */
enum {
	PE_ABSPTR = 0x00,
	PE_ULEB128 = 0x01,
	PE_UDATA2 = 0x02,
	PE_UDATA4 = 0x03,
	PE_UDATA8 = 0x04,
	PE_SLEB128 = 0x09,
	PE_SDATA2 = 0x0a,
	PE_SDATA4 = 0x0b,
	PE_SDATA8 = 0x0c,
	PE_PCREL = 0x10,
	PE_INDIRECT = 0x80,
	PE_OMIT = 0xff,
};

/* Call frame instructions (DWARF 5, 6.4.2). */
enum {
	CFA_ADVANCE_LOC = 0x40,
	CFA_OFFSET = 0x80,
	CFA_RESTORE = 0xc0,
	CFA_NOP = 0x00,
	CFA_SET_LOC = 0x01,
	CFA_ADVANCE_LOC1 = 0x02,
	CFA_ADVANCE_LOC2 = 0x03,
	CFA_ADVANCE_LOC4 = 0x04,
	CFA_OFFSET_EXTENDED = 0x05,
	CFA_RESTORE_EXTENDED = 0x06,
	CFA_UNDEFINED = 0x07,
	CFA_SAME_VALUE = 0x08,
	CFA_REGISTER = 0x09,
	CFA_REMEMBER_STATE = 0x0a,
	CFA_RESTORE_STATE = 0x0b,
	CFA_DEF_CFA = 0x0c,
	CFA_DEF_CFA_REGISTER = 0x0d,
	CFA_DEF_CFA_OFFSET = 0x0e,
	CFA_DEF_CFA_EXPRESSION = 0x0f,
	CFA_EXPRESSION = 0x10,
	CFA_OFFSET_EXTENDED_SF = 0x11,
	CFA_DEF_CFA_SF = 0x12,
	CFA_DEF_CFA_OFFSET_SF = 0x13,
	CFA_VAL_OFFSET = 0x14,
	CFA_VAL_OFFSET_SF = 0x15,
	CFA_VAL_EXPRESSION = 0x16,
	CFA_GNU_ARGS_SIZE = 0x2e,
	CFA_GNU_NEGATIVE_OFFSET_EXTENDED = 0x2f,
};

#define REMEMBER_DEPTH 8
#define MAX_INSNS      100000 /* instructions run for one lookup, at most */

struct sec {
	uint8_t *data;
	size_t size;
	uint64_t addr;
	bool eh; /* .eh_frame (pointer encodings, CIE pointers relative) vs .debug_frame */
};

struct cie {
	uint64_t off; /* in its section */
	uint64_t code_align;
	int64_t data_align;
	uint8_t ra_reg;
	uint8_t fde_enc;
	bool has_aug_data; /* 'z': FDEs carry augmentation data to skip */
	bool signal;	   /* 'S' */
	uint8_t sec;
	size_t insns, insns_end; /* initial instructions */
};

struct fde {
	uint64_t lo, hi;
	uint32_t insns, insns_end; /* the FDE's instructions, in its section */
	uint32_t cie;		   /* index into cies */
};

struct cfi_table {
	struct sec secs[2];
	struct cie *cies; /* .eh_frame's, then .debug_frame's, each in offset order */
	size_t ncies;
	size_t cie_first[2], cie_end[2];
	struct fde *fdes[2]; /* per section, sorted by lo */
	size_t nfdes[2];
};

/* The section's bytes [from, to), positions in the span being offsets in the section (an
 * encoded pointer's "here", an instruction's place); bad when from > to. */
static struct span sec_span(const struct sec *s, size_t from, size_t to)
{
	struct span c = span_of(s->data, to);
	c.pos = from <= to ? from : to;
	c.bad = from > to;
	return c;
}

/* An encoded pointer; pc-relative ones are relative to the section's address. */
static bool c_pointer(struct span *c, const struct sec *s, uint8_t enc, uint64_t *v)
{
	*v = 0;
	if (enc == PE_OMIT)
		return false;
	uint64_t here = s->addr + c->pos;
	uint64_t u = 0;
	switch (enc & 0x0f) {
	case PE_ABSPTR:
	case PE_UDATA8:
	case PE_SDATA8:
		u = span_u64(c);
		break;
	case PE_UDATA2:
		u = span_u16(c);
		break;
	case PE_SDATA2:
		u = (uint64_t)(int64_t)(int16_t)span_u16(c);
		break;
	case PE_UDATA4:
		u = span_u32(c);
		break;
	case PE_SDATA4:
		u = (uint64_t)(int64_t)(int32_t)span_u32(c);
		break;
	case PE_ULEB128:
		if (!c_uleb(c, &u))
			return false;
		break;
	case PE_SLEB128: {
		int64_t x;
		if (!c_sleb(c, &x))
			return false;
		u = (uint64_t)x;
		break;
	}
	default:
		return false;
	}
	if (c->bad)
		return false;
	switch (enc & 0x70) {
	case 0:
		break;
	case PE_PCREL:
		u += here;
		break;
	default:
		return false; /* textrel, datarel, funcrel, aligned: not in x86-64 .eh_frame */
	}
	*v = u;
	return !(enc & PE_INDIRECT); /* the pointer would be in the process's memory */
}

/* One entry's header: its length (32- or 64-bit DWARF), its id (CIE id, or the CIE pointer),
 * and where it ends. */
struct entry {
	size_t off, body, end;
	uint64_t id;
	bool is_cie;
	size_t id_pos;
};

static bool read_entry(const struct sec *s, size_t off, struct entry *e)
{
	struct span c = sec_span(s, off, s->size);
	uint32_t len32;
	uint64_t len;
	bool dwarf64 = false;
	if (!c_u32(&c, &len32))
		return false;
	if (len32 == 0xffffffffu) {
		if (!c_u64(&c, &len))
			return false;
		dwarf64 = true;
	} else {
		len = len32;
	}
	size_t start = c.pos;
	if (len > s->size - start)
		return false;
	e->off = off;
	e->end = start + len;
	if (len == 0) { /* a terminator in .eh_frame */
		e->is_cie = false;
		e->body = e->end;
		e->id = 0;
		return true;
	}
	e->id_pos = start;
	if (dwarf64) {
		if (!c_u64(&c, &e->id))
			return false;
		e->is_cie = s->eh ? e->id == 0 : e->id == UINT64_MAX;
	} else {
		uint32_t id;
		if (!c_u32(&c, &id))
			return false;
		e->id = id;
		e->is_cie = s->eh ? id == 0 : id == 0xffffffffu;
	}
	e->body = c.pos;
	return e->body <= e->end;
}

static bool parse_cie(const struct sec *s, uint8_t secno, const struct entry *e, struct cie *out)
{
	struct span c = sec_span(s, e->body, e->end);
	memset(out, 0, sizeof(*out));
	out->off = e->off;
	out->sec = secno;
	out->fde_enc = s->eh ? PE_ABSPTR : PE_UDATA8;
	uint8_t version;
	if (!c_u8(&c, &version) || (version != 1 && version != 3 && version != 4))
		return false;
	const char *aug = span_cstr(&c);
	if (!aug)
		return false;
	size_t auglen = strlen(aug);
	/* "eh" (an old GCC's pointer to exception data) is a word to skip */
	if (auglen >= 2 && aug[0] == 'e' && aug[1] == 'h') {
		uint64_t skip;
		if (!c_u64(&c, &skip))
			return false;
	}
	if (version == 4) { /* address_size, segment_selector_size */
		uint8_t asz, ssz;
		if (!c_u8(&c, &asz) || !c_u8(&c, &ssz) || asz != 8 || ssz != 0)
			return false;
	}
	if (!c_uleb(&c, &out->code_align) || !c_sleb(&c, &out->data_align))
		return false;
	if (version == 1) {
		uint8_t ra;
		if (!c_u8(&c, &ra))
			return false;
		out->ra_reg = ra;
	} else {
		uint64_t ra;
		if (!c_uleb(&c, &ra) || ra > 255)
			return false;
		out->ra_reg = (uint8_t)ra;
	}
	if (out->ra_reg >= UNWIND_NREGS)
		return false;
	if (aug[0] == 'z') {
		uint64_t alen;
		if (!c_uleb(&c, &alen) || alen > span_left(&c))
			return false;
		struct span a = sec_span(s, c.pos, c.pos + alen);
		out->has_aug_data = true;
		for (size_t i = 1; i < auglen; i++) {
			uint8_t enc;
			uint64_t ignored;
			switch (aug[i]) {
			case 'R':
				if (!c_u8(&a, &out->fde_enc))
					return false;
				break;
			case 'L':
				if (!c_u8(&a, &enc))
					return false;
				break;
			case 'P': /* personality: its encoding, then the pointer */
				if (!c_u8(&a, &enc))
					return false;
				if (enc != PE_OMIT && !c_pointer(&a, s, enc & 0x7f, &ignored))
					return false;
				break;
			case 'S':
				out->signal = true;
				break;
			case 'B': /* AArch64 BTI; nothing to read */
			case 'G': /* MTE tagged frames */
				break;
			default: /* unknown: the data is skipped as a whole */
				i = auglen;
				break;
			}
		}
		span_take(&c, alen);
	} else if (auglen && !(auglen >= 2 && aug[0] == 'e' && aug[1] == 'h')) {
		return false; /* an augmentation without 'z' cannot be skipped */
	}
	out->insns = c.pos;
	out->insns_end = e->end;
	return true;
}

static int cmp_off(const void *key, const void *elem)
{
	uint64_t k = *(const uint64_t *)key, o = ((const struct cie *)elem)->off;
	return k < o ? -1 : k > o;
}

/* The CIE an FDE points to, parsed in the first pass. */
static long cie_index(const struct cfi_table *t, uint8_t secno, uint64_t off)
{
	size_t lo = t->cie_first[secno], end = t->cie_end[secno];
	if (lo == end)
		return -1; /* no CIE (and t->cies may be NULL) */
	const struct cie *c = bsearch(&off, t->cies + lo, end - lo, sizeof(*c), cmp_off);
	return c ? c - t->cies : -1;
}

static int cmp_fde(const void *a, const void *b)
{
	const struct fde *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void index_section(struct cfi_table *t, uint8_t secno)
{
	const struct sec *s = &t->secs[secno];
	if (!s->size || s->size > UINT32_MAX)
		return;
	struct entry e;
	size_t cap = t->ncies;
	t->cie_first[secno] = t->ncies;
	/* CIEs first (FDEs point back at them), then the FDEs. */
	for (size_t off = 0; off < s->size && read_entry(s, off, &e); off = e.end) {
		if (e.end == e.body && e.id == 0 && !e.is_cie) {
			if (s->eh)
				break; /* the terminator */
			continue;
		}
		struct cie cie;
		if (!e.is_cie || !parse_cie(s, secno, &e, &cie))
			continue;
		grow_array((void **)&t->cies, &cap, t->ncies + 1, sizeof(*t->cies));
		t->cies[t->ncies++] = cie;
	}
	t->cie_end[secno] = t->ncies;
	size_t fcap = 0;
	for (size_t off = 0; off < s->size && read_entry(s, off, &e); off = e.end) {
		if (e.end == e.body && !e.is_cie) {
			if (s->eh)
				break;
			continue;
		}
		if (e.is_cie)
			continue;
		/* .eh_frame: the CIE is that far back from the pointer; .debug_frame: an offset */
		uint64_t cie_off = s->eh ? (uint64_t)e.id_pos - e.id : e.id;
		if (s->eh && e.id > e.id_pos)
			continue;
		long ci = cie_index(t, secno, cie_off);
		if (ci < 0)
			continue;
		const struct cie *cie = &t->cies[ci];
		struct span c = sec_span(s, e.body, e.end);
		uint64_t lo, range;
		if (!c_pointer(&c, s, cie->fde_enc, &lo) ||
		    !c_pointer(&c, s, cie->fde_enc & 0x0f, &range))
			continue;
		if (cie->has_aug_data) {
			uint64_t alen;
			if (!c_uleb(&c, &alen) || !span_take(&c, alen))
				continue;
		}
		if (!range || lo + range < lo)
			continue;
		grow_array((void **)&t->fdes[secno], &fcap, t->nfdes[secno] + 1, sizeof(**t->fdes));
		t->fdes[secno][t->nfdes[secno]++] = (struct fde){
		    .lo = lo,
		    .hi = lo + range,
		    .insns = (uint32_t)c.pos,
		    .insns_end = (uint32_t)e.end,
		    .cie = (uint32_t)ci,
		};
	}
	/* linkers write them in address order: sort only when they are not */
	bool sorted = true;
	for (size_t i = 1; i < t->nfdes[secno] && sorted; i++)
		sorted = t->fdes[secno][i - 1].lo <= t->fdes[secno][i].lo;
	if (!sorted)
		qsort(t->fdes[secno], t->nfdes[secno], sizeof(**t->fdes), cmp_fde);
}

static void copy_section(struct sec *dst, const struct cfi_section *src, bool eh)
{
	dst->eh = eh;
	if (!src || !src->size || !src->data)
		return;
	dst->data = xmalloc(src->size);
	memcpy(dst->data, src->data, src->size);
	dst->size = src->size;
	dst->addr = src->addr;
}

struct cfi_table *cfi_table_new(const struct cfi_section *eh_frame,
				const struct cfi_section *debug_frame)
{
	struct cfi_table *t = xcalloc(1, sizeof(*t));
	copy_section(&t->secs[0], eh_frame, true);
	copy_section(&t->secs[1], debug_frame, false);
	index_section(t, 0);
	index_section(t, 1);
	return t;
}

void cfi_table_free(struct cfi_table *t)
{
	if (!t)
		return;
	for (int i = 0; i < 2; i++) {
		free(t->secs[i].data);
		free(t->fdes[i]);
	}
	free(t->cies);
	free(t);
}

size_t cfi_table_ranges(const struct cfi_table *t)
{
	return t->nfdes[0] + t->nfdes[1];
}

bool cfi_table_range(const struct cfi_table *t, size_t i, uint64_t *lo, uint64_t *hi)
{
	int secno = i < t->nfdes[0] ? 0 : 1;
	if (secno)
		i -= t->nfdes[0];
	if (i >= t->nfdes[secno])
		return false;
	*lo = t->fdes[secno][i].lo;
	*hi = t->fdes[secno][i].hi;
	return true;
}

/* ---- running the instructions ---- */

/* One row of the table: the CFA's rule and every register's. */
struct row {
	uint8_t cfa_reg;
	uint16_t cfa_len; /* > 0: an expression at cfa_off */
	int64_t cfa_off;
	struct unwind_reg_rule regs[UNWIND_NREGS];
};

struct run {
	const struct sec *s;
	const struct cie *cie;
	struct row row, init;
	struct row saved[REMEMBER_DEPTH];
	int nsaved;
	uint64_t loc, pc;
	int insns;
};

/* The psABI's callee-saved registers keep their value unless a rule says where; the others
 * are unknown in the caller. */
static void initial_row(struct row *r)
{
	memset(r, 0, sizeof(*r));
	static const uint8_t kept[] = {UNWIND_RBX, UNWIND_RBP, 12, 13, 14, 15};
	for (size_t i = 0; i < sizeof(kept); i++)
		r->regs[kept[i]].how = UNWIND_SAME;
}

/* An offset times the CIE's data alignment, wrapping as libdw's does (hostile bytes may
 * overflow it; set_reg() refuses what is out of range). */
static int64_t factored(uint64_t v, const struct cie *cie)
{
	return (int64_t)(v * (uint64_t)cie->data_align);
}

static bool set_reg(struct row *r, uint64_t reg, uint8_t how, int64_t val)
{
	if (reg >= UNWIND_NREGS)
		return true; /* vector registers and the like: not needed to unwind */
	if (val < INT32_MIN || val > INT32_MAX)
		return false;
	r->regs[reg] = (struct unwind_reg_rule){.how = how, .val = (int32_t)val};
	return true;
}

/* An expression block: where its bytes are, bounded. */
static bool take_block(struct span *c, int64_t *off, uint16_t *len)
{
	uint64_t n;
	if (!c_uleb(c, &n) || n > span_left(c) || n > UINT16_MAX || n == 0)
		return false;
	*off = (int64_t)c->pos;
	*len = (uint16_t)n;
	return span_take(c, n) != NULL;
}

/* Runs [from, to) of the section's instructions until the location passes r->pc.  Returns
 * false when the bytes make no sense. */
static bool run_insns(struct run *r, size_t from, size_t to, bool initial)
{
	const struct cie *cie = r->cie;
	struct span c = sec_span(r->s, from, to);
	while (span_left(&c)) {
		if (++r->insns > MAX_INSNS)
			return false;
		uint8_t op, b;
		uint64_t reg, u, reg2;
		int64_t s, off;
		uint16_t len;
		if (!c_u8(&c, &op))
			return false;
		uint8_t hi = op & 0xc0, low = op & 0x3f;
		uint64_t delta = 0;
		bool advance = false;
		if (hi == CFA_ADVANCE_LOC) {
			delta = low;
			advance = true;
		} else if (hi == CFA_OFFSET) {
			if (!c_uleb(&c, &u) ||
			    !set_reg(&r->row, low, UNWIND_AT_CFA, factored(u, cie)))
				return false;
			continue;
		} else if (hi == CFA_RESTORE) {
			if (low < UNWIND_NREGS)
				r->row.regs[low] = r->init.regs[low];
			continue;
		}
		if (!advance) {
			switch (op) {
			case CFA_NOP:
				continue;
			case CFA_SET_LOC:
				if (!c_pointer(&c, r->s, cie->fde_enc, &u))
					return false;
				if (u > r->pc)
					return true;
				r->loc = u;
				continue;
			case CFA_ADVANCE_LOC1:
				if (!c_u8(&c, &b))
					return false;
				delta = b;
				advance = true;
				break;
			case CFA_ADVANCE_LOC2: {
				uint16_t d;
				if (!c_u16(&c, &d))
					return false;
				delta = d;
				advance = true;
				break;
			}
			case CFA_ADVANCE_LOC4: {
				uint32_t d;
				if (!c_u32(&c, &d))
					return false;
				delta = d;
				advance = true;
				break;
			}
			case CFA_OFFSET_EXTENDED:
				if (!c_uleb(&c, &reg) || !c_uleb(&c, &u) ||
				    !set_reg(&r->row, reg, UNWIND_AT_CFA, factored(u, cie)))
					return false;
				continue;
			case CFA_OFFSET_EXTENDED_SF:
				if (!c_uleb(&c, &reg) || !c_sleb(&c, &s) ||
				    !set_reg(&r->row, reg, UNWIND_AT_CFA,
					     factored((uint64_t)s, cie)))
					return false;
				continue;
			case CFA_GNU_NEGATIVE_OFFSET_EXTENDED:
				if (!c_uleb(&c, &reg) || !c_uleb(&c, &u) ||
				    !set_reg(&r->row, reg, UNWIND_AT_CFA, factored(0 - u, cie)))
					return false;
				continue;
			case CFA_VAL_OFFSET:
				if (!c_uleb(&c, &reg) || !c_uleb(&c, &u) ||
				    !set_reg(&r->row, reg, UNWIND_IS_CFA, factored(u, cie)))
					return false;
				continue;
			case CFA_VAL_OFFSET_SF:
				if (!c_uleb(&c, &reg) || !c_sleb(&c, &s) ||
				    !set_reg(&r->row, reg, UNWIND_IS_CFA,
					     factored((uint64_t)s, cie)))
					return false;
				continue;
			case CFA_RESTORE_EXTENDED:
				if (!c_uleb(&c, &reg))
					return false;
				if (reg < UNWIND_NREGS)
					r->row.regs[reg] = r->init.regs[reg];
				continue;
			case CFA_UNDEFINED:
			case CFA_SAME_VALUE:
				if (!c_uleb(&c, &reg) ||
				    !set_reg(&r->row, reg,
					     op == CFA_UNDEFINED ? UNWIND_UNDEF : UNWIND_SAME, 0))
					return false;
				continue;
			case CFA_REGISTER:
				if (!c_uleb(&c, &reg) || !c_uleb(&c, &reg2) ||
				    !set_reg(&r->row, reg, UNWIND_IN_REG, 0))
					return false;
				if (reg < UNWIND_NREGS) {
					if (reg2 >= UNWIND_NREGS)
						r->row.regs[reg].how = UNWIND_UNDEF;
					r->row.regs[reg].reg = (uint8_t)reg2;
				}
				continue;
			case CFA_REMEMBER_STATE:
				if (r->nsaved >= REMEMBER_DEPTH)
					return false;
				r->saved[r->nsaved++] = r->row;
				continue;
			case CFA_RESTORE_STATE: {
				if (r->nsaved <= 0)
					return false;
				/* the CFA is not part of what is remembered in GCC's reading, but
				 * every producer remembers it with the registers: as libgcc does */
				r->row = r->saved[--r->nsaved];
				continue;
			}
			case CFA_DEF_CFA:
				/* an offset past INT64_MAX wraps, as in libdw (hand-written CFI
				 * has such); the walk then finds the CFA below the stack pointer */
				if (!c_uleb(&c, &reg) || !c_uleb(&c, &u) || reg > 255)
					return false;
				r->row.cfa_reg = (uint8_t)reg;
				r->row.cfa_off = (int64_t)u;
				r->row.cfa_len = 0;
				continue;
			case CFA_DEF_CFA_SF:
				if (!c_uleb(&c, &reg) || !c_sleb(&c, &s) || reg > 255)
					return false;
				r->row.cfa_reg = (uint8_t)reg;
				r->row.cfa_off = factored((uint64_t)s, cie);
				r->row.cfa_len = 0;
				continue;
			case CFA_DEF_CFA_REGISTER:
				if (!c_uleb(&c, &reg) || reg > 255)
					return false;
				r->row.cfa_reg = (uint8_t)reg;
				if (r->row.cfa_len) { /* a register rule after an expression */
					r->row.cfa_len = 0;
					r->row.cfa_off = 0;
				}
				continue;
			case CFA_DEF_CFA_OFFSET:
				if (!c_uleb(&c, &u))
					return false;
				if (!r->row.cfa_len)
					r->row.cfa_off = (int64_t)u;
				continue;
			case CFA_DEF_CFA_OFFSET_SF:
				if (!c_sleb(&c, &s))
					return false;
				if (!r->row.cfa_len)
					r->row.cfa_off = factored((uint64_t)s, cie);
				continue;
			case CFA_DEF_CFA_EXPRESSION:
				if (!take_block(&c, &off, &len))
					return false;
				r->row.cfa_off = off;
				r->row.cfa_len = len;
				continue;
			case CFA_EXPRESSION:
			case CFA_VAL_EXPRESSION:
				if (!c_uleb(&c, &reg) || !take_block(&c, &off, &len))
					return false;
				if (reg < UNWIND_NREGS)
					r->row.regs[reg] = (struct unwind_reg_rule){
					    .how = op == CFA_EXPRESSION ? UNWIND_AT_EXPR
									: UNWIND_IS_EXPR,
					    .len = len,
					    .val = (int32_t)off,
					};
				continue;
			case CFA_GNU_ARGS_SIZE:
				if (!c_uleb(&c, &u))
					return false;
				continue;
			default:
				return false;
			}
		}
		if (initial)
			continue; /* a CIE's instructions do not advance */
		if (delta && cie->code_align > UINT64_MAX / delta)
			return false;
		uint64_t next = r->loc + delta * cie->code_align;
		if (next > r->pc || next < r->loc)
			return true; /* the row in force at pc is the current one */
		r->loc = next;
	}
	return true;
}

static const struct fde *find_fde(const struct fde *v, size_t n, uint64_t pc)
{
	size_t lo = LOWER_BOUND(n, i, v[i].lo <= pc);
	/* the last FDE starting at or before pc; a few earlier ones may be longer */
	for (size_t i = lo, tries = 0; i-- > 0 && tries < 4; tries++)
		if (pc < v[i].hi)
			return &v[i];
	return NULL;
}

bool cfi_table_rule(const struct cfi_table *t, uint64_t pc, struct unwind_rule *rule)
{
	for (int secno = 0; secno < 2; secno++) {
		const struct fde *f = find_fde(t->fdes[secno], t->nfdes[secno], pc);
		if (!f)
			continue;
		struct run r;
		memset(&r, 0, sizeof(r));
		r.s = &t->secs[secno];
		r.cie = &t->cies[f->cie];
		r.pc = pc;
		r.loc = f->lo;
		initial_row(&r.row);
		r.row.regs[r.cie->ra_reg].how = UNWIND_UNDEF;
		if (!run_insns(&r, r.cie->insns, r.cie->insns_end, true))
			continue;
		r.init = r.row;
		r.nsaved = 0;
		if (!run_insns(&r, f->insns, f->insns_end, false))
			continue;
		if (r.row.cfa_len == 0 && r.row.cfa_reg >= UNWIND_NREGS)
			continue;
		memset(rule, 0, sizeof(*rule));
		rule->kind = UNWIND_RULE_EXACT;
		rule->cfa_reg = r.row.cfa_reg;
		rule->cfa_off = r.row.cfa_off;
		rule->cfa_len = r.row.cfa_len;
		rule->ra_reg = r.cie->ra_reg;
		rule->signal_frame = r.cie->signal;
		rule->expr = r.s->data;
		rule->expr_size = r.s->size;
		memcpy(rule->regs, r.row.regs, sizeof(rule->regs));
		return true;
	}
	return false;
}
