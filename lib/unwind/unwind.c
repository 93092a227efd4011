/* unwind: see unwind.h.  A frame is unwound by applying its rule to its registers; every
 * memory read goes through read_u64(), which reads the copy or fails. */
#include "unwind.h"

#include "cursor.h"

#include <string.h>

/* DWARF expression opcodes (DWARF 5, 7.7.1) that CFI uses on x86-64: glibc's PLT entries and
 * signal trampoline, GCC's realigned frames. */
enum {
	OP_ADDR = 0x03,
	OP_DEREF = 0x06,
	OP_CONST1U = 0x08,
	OP_CONST1S = 0x09,
	OP_CONST2U = 0x0a,
	OP_CONST2S = 0x0b,
	OP_CONST4U = 0x0c,
	OP_CONST4S = 0x0d,
	OP_CONST8U = 0x0e,
	OP_CONST8S = 0x0f,
	OP_CONSTU = 0x10,
	OP_CONSTS = 0x11,
	OP_DUP = 0x12,
	OP_DROP = 0x13,
	OP_OVER = 0x14,
	OP_PICK = 0x15,
	OP_SWAP = 0x16,
	OP_ROT = 0x17,
	OP_ABS = 0x19,
	OP_AND = 0x1a,
	OP_DIV = 0x1b,
	OP_MINUS = 0x1c,
	OP_MOD = 0x1d,
	OP_MUL = 0x1e,
	OP_NEG = 0x1f,
	OP_NOT = 0x20,
	OP_OR = 0x21,
	OP_PLUS = 0x22,
	OP_PLUS_UCONST = 0x23,
	OP_SHL = 0x24,
	OP_SHR = 0x25,
	OP_SHRA = 0x26,
	OP_XOR = 0x27,
	OP_BRA = 0x28,
	OP_EQ = 0x29,
	OP_GE = 0x2a,
	OP_GT = 0x2b,
	OP_LE = 0x2c,
	OP_LT = 0x2d,
	OP_NE = 0x2e,
	OP_SKIP = 0x2f,
	OP_LIT0 = 0x30,
	OP_LIT31 = 0x4f,
	OP_REG0 = 0x50,
	OP_BREG0 = 0x70,
	OP_BREG31 = 0x8f,
	OP_BREGX = 0x92,
	OP_NOP = 0x96,
};

#define EXPR_STACK 16
#define EXPR_STEPS 256 /* a loop in a hostile expression ends here */

/* Reads from the copy only; remembers how far into it reads went. */
struct mem {
	const struct unwind_stack *st;
	uint64_t max_offset;
};

static bool read_u64(struct mem *m, uint64_t addr, uint64_t *v)
{
	const struct unwind_stack *st = m->st;
	if (addr < st->base)
		return false;
	uint64_t off = addr - st->base;
	if (off > st->len || st->len - off < 8)
		return false;
	*v = load_le64(st->data + off);
	if (off + 8 > m->max_offset)
		m->max_offset = off + 8;
	return true;
}

/* Evaluates the expression [off, off + len) of the rule's bytes; push_cfa puts the CFA on the
 * stack first (register rules do, the CFA's own expression does not). */
static bool eval_expr(const struct unwind_rule *rule, int64_t off, uint16_t len,
		      const struct unwind_regs *regs, struct mem *m, bool push_cfa, uint64_t cfa,
		      uint64_t *out)
{
	if (off < 0 || (uint64_t)off > rule->expr_size || rule->expr_size - (uint64_t)off < len)
		return false;
	struct span c = span_of(rule->expr + off, len);
	uint64_t st[EXPR_STACK];
	size_t n = 0;
	if (push_cfa)
		st[n++] = cfa;
	for (int steps = 0; span_left(&c); steps++) {
		if (steps >= EXPR_STEPS)
			return false;
		uint8_t op = span_u8(&c);
		uint64_t u, a, b;
		int64_t s;
		if (op >= OP_LIT0 && op <= OP_LIT31) {
			u = op - OP_LIT0;
			goto push;
		}
		if ((op >= OP_BREG0 && op <= OP_BREG31) || op == OP_BREGX) {
			uint64_t reg = op - OP_BREG0;
			if (op == OP_BREGX && !c_uleb(&c, &reg))
				return false;
			if (!c_sleb(&c, &s) || reg >= UNWIND_NREGS || !(regs->valid & (1u << reg)))
				return false;
			u = regs->r[reg] + (uint64_t)s;
			goto push;
		}
		switch (op) {
		case OP_NOP:
			continue;
		case OP_ADDR:
		case OP_CONST8U:
		case OP_CONST8S:
			if (!c_u64(&c, &u))
				return false;
			goto push;
		case OP_CONST1U: {
			uint8_t v;
			if (!c_u8(&c, &v))
				return false;
			u = v;
			goto push;
		}
		case OP_CONST1S: {
			uint8_t v;
			if (!c_u8(&c, &v))
				return false;
			u = (uint64_t)(int64_t)(int8_t)v;
			goto push;
		}
		case OP_CONST2U: {
			uint16_t v;
			if (!c_u16(&c, &v))
				return false;
			u = v;
			goto push;
		}
		case OP_CONST2S: {
			uint16_t v;
			if (!c_u16(&c, &v))
				return false;
			u = (uint64_t)(int64_t)(int16_t)v;
			goto push;
		}
		case OP_CONST4U: {
			uint32_t v;
			if (!c_u32(&c, &v))
				return false;
			u = v;
			goto push;
		}
		case OP_CONST4S: {
			uint32_t v;
			if (!c_u32(&c, &v))
				return false;
			u = (uint64_t)(int64_t)(int32_t)v;
			goto push;
		}
		case OP_CONSTU:
			if (!c_uleb(&c, &u))
				return false;
			goto push;
		case OP_CONSTS:
			if (!c_sleb(&c, &s))
				return false;
			u = (uint64_t)s;
			goto push;
		case OP_DUP:
			if (n < 1)
				return false;
			u = st[n - 1];
			goto push;
		case OP_OVER:
			if (n < 2)
				return false;
			u = st[n - 2];
			goto push;
		case OP_PICK: {
			uint8_t i;
			if (!c_u8(&c, &i) || i >= n)
				return false;
			u = st[n - 1 - i];
			goto push;
		}
		case OP_DROP:
			if (n < 1)
				return false;
			n--;
			continue;
		case OP_SWAP:
			if (n < 2)
				return false;
			u = st[n - 1], st[n - 1] = st[n - 2], st[n - 2] = u;
			continue;
		case OP_ROT:
			if (n < 3)
				return false;
			u = st[n - 1], st[n - 1] = st[n - 2], st[n - 2] = st[n - 3], st[n - 3] = u;
			continue;
		case OP_DEREF:
			if (n < 1 || !read_u64(m, st[n - 1], &st[n - 1]))
				return false;
			continue;
		case OP_ABS:
		case OP_NEG:
		case OP_NOT:
			if (n < 1)
				return false;
			s = (int64_t)st[n - 1];
			st[n - 1] = op == OP_NOT   ? ~st[n - 1]
				    : op == OP_NEG ? (uint64_t)0 - st[n - 1]
				    : s < 0	   ? (uint64_t)0 - st[n - 1]
						   : st[n - 1];
			continue;
		case OP_PLUS_UCONST:
			if (n < 1 || !c_uleb(&c, &u))
				return false;
			st[n - 1] += u;
			continue;
		case OP_SKIP:
		case OP_BRA: {
			uint16_t raw;
			if (!c_u16(&c, &raw))
				return false;
			int16_t d = (int16_t)raw;
			if (op == OP_BRA) {
				if (n < 1)
					return false;
				if (!st[--n])
					continue;
			}
			if ((d < 0 && c.pos < (size_t)-d) || (d > 0 && span_left(&c) < (size_t)d))
				return false;
			c.pos += (size_t)(ptrdiff_t)d;
			continue;
		}
		default:
			break;
		}
		/* the binary operators */
		if (n < 2)
			return false;
		b = st[--n];
		a = st[n - 1];
		switch (op) {
		case OP_AND:
			u = a & b;
			break;
		case OP_OR:
			u = a | b;
			break;
		case OP_XOR:
			u = a ^ b;
			break;
		case OP_PLUS:
			u = a + b;
			break;
		case OP_MINUS:
			u = a - b;
			break;
		case OP_MUL:
			u = a * b;
			break;
		case OP_DIV:
			if (!b || ((int64_t)a == INT64_MIN && (int64_t)b == -1))
				return false;
			u = (uint64_t)((int64_t)a / (int64_t)b);
			break;
		case OP_MOD:
			if (!b)
				return false;
			u = a % b;
			break;
		case OP_SHL:
			u = b >= 64 ? 0 : a << b;
			break;
		case OP_SHR:
			u = b >= 64 ? 0 : a >> b;
			break;
		case OP_SHRA:
			u = (uint64_t)((int64_t)a >> (b >= 63 ? 63 : b));
			break;
		case OP_EQ:
			u = a == b;
			break;
		case OP_NE:
			u = a != b;
			break;
		case OP_GE:
			u = (int64_t)a >= (int64_t)b;
			break;
		case OP_GT:
			u = (int64_t)a > (int64_t)b;
			break;
		case OP_LE:
			u = (int64_t)a <= (int64_t)b;
			break;
		case OP_LT:
			u = (int64_t)a < (int64_t)b;
			break;
		default:
			return false; /* an operation CFI has no use for (OP_REGn, pieces, calls) */
		}
		st[n - 1] = u;
		continue;
	push:
		if (n >= EXPR_STACK)
			return false;
		st[n++] = u;
	}
	if (!n)
		return false;
	*out = st[n - 1];
	return true;
}

void unwind_regs_from_perf(struct unwind_regs *regs, uint64_t mask, const void *values)
{
	/* perf_event_x86_regs: AX BX CX DX SI DI BP SP IP FLAGS CS SS DS ES FS GS R8..R15 */
	static const int8_t to_dwarf[24] = {
	    UNWIND_RAX, UNWIND_RBX, UNWIND_RCX, UNWIND_RDX, UNWIND_RSI, UNWIND_RDI,
	    UNWIND_RBP, UNWIND_RSP, UNWIND_RIP, -1,	    -1,		-1,
	    -1,		-1,	    -1,		-1,	    8,		9,
	    10,		11,	    12,		13,	    14,		15};
	const uint8_t *v = values;
	memset(regs, 0, sizeof(*regs));
	for (int bit = 0; bit < 64; bit++) {
		if (!(mask & (1ull << bit)))
			continue;
		uint64_t value = load_le64(v);
		v += 8;
		if (bit < 24 && to_dwarf[bit] >= 0) {
			regs->r[to_dwarf[bit]] = value;
			regs->valid |= 1u << to_dwarf[bit];
		}
	}
}

/* The rules made without tables: the CFA is reg + off, the return address just below it,
 * every other register as the callee left it. */
static void rule_ra_below_cfa(struct unwind_rule *r, enum unwind_rule_kind kind, uint8_t cfa_reg,
			      int64_t cfa_off)
{
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->cfa_reg = cfa_reg;
	r->cfa_off = cfa_off;
	r->ra_reg = UNWIND_RIP;
	for (int i = 0; i < UNWIND_NREGS; i++)
		r->regs[i].how = UNWIND_SAME;
	r->regs[UNWIND_RIP] = (struct unwind_reg_rule){.how = UNWIND_AT_CFA, .val = -8};
}

void unwind_rule_fp(struct unwind_rule *r)
{
	rule_ra_below_cfa(r, UNWIND_RULE_FP, UNWIND_RBP, 16);
	r->regs[UNWIND_RBP] = (struct unwind_reg_rule){.how = UNWIND_AT_CFA, .val = -16};
}

void unwind_rule_leaf(struct unwind_rule *r)
{
	rule_ra_below_cfa(r, UNWIND_RULE_LEAF, UNWIND_RSP, 8);
}

bool unwind_rule_is_fp(const struct unwind_rule *r)
{
	return r->cfa_len == 0 && r->cfa_reg == UNWIND_RBP && r->cfa_off == 16 &&
	       r->ra_reg == UNWIND_RIP && r->regs[UNWIND_RBP].how == UNWIND_AT_CFA &&
	       r->regs[UNWIND_RBP].val == -16 && r->regs[UNWIND_RIP].how == UNWIND_AT_CFA &&
	       r->regs[UNWIND_RIP].val == -8;
}

/* One step: the caller's registers from this frame's by its rule.  false when the return
 * address cannot be had from the copy; *outermost when the rule says there is no caller. */
static bool step(const struct unwind_rule *rule, const struct unwind_regs *cur,
		 struct unwind_regs *next, struct mem *m, bool *outermost)
{
	uint64_t cfa;
	*outermost = false;
	if (rule->ra_reg >= UNWIND_NREGS)
		return false;
	if (rule->cfa_len) {
		if (!eval_expr(rule, rule->cfa_off, rule->cfa_len, cur, m, false, 0, &cfa))
			return false;
	} else {
		if (rule->cfa_reg >= UNWIND_NREGS || !(cur->valid & (1u << rule->cfa_reg)))
			return false;
		cfa = cur->r[rule->cfa_reg] + (uint64_t)rule->cfa_off;
	}
	if (rule->regs[rule->ra_reg].how == UNWIND_UNDEF) {
		*outermost = true;
		return false;
	}
	memset(next, 0, sizeof(*next));
	for (int i = 0; i < UNWIND_NREGS; i++) {
		const struct unwind_reg_rule *rr = &rule->regs[i];
		uint64_t v = 0, addr;
		bool ok = false;
		switch (rr->how) {
		case UNWIND_SAME:
			ok = cur->valid & (1u << i);
			v = cur->r[i];
			break;
		case UNWIND_AT_CFA:
			ok = read_u64(m, cfa + (uint64_t)(int64_t)rr->val, &v);
			break;
		case UNWIND_IS_CFA:
			ok = true;
			v = cfa + (uint64_t)(int64_t)rr->val;
			break;
		case UNWIND_IN_REG:
			ok = rr->reg < UNWIND_NREGS && (cur->valid & (1u << rr->reg));
			v = ok ? cur->r[rr->reg] : 0;
			break;
		case UNWIND_AT_REG:
			ok = rr->reg < UNWIND_NREGS && (cur->valid & (1u << rr->reg)) &&
			     read_u64(m, cur->r[rr->reg] + (uint64_t)(int64_t)rr->val, &v);
			break;
		case UNWIND_AT_EXPR:
			ok = eval_expr(rule, rr->val, rr->len, cur, m, true, cfa, &addr) &&
			     read_u64(m, addr, &v);
			break;
		case UNWIND_IS_EXPR:
			ok = eval_expr(rule, rr->val, rr->len, cur, m, true, cfa, &v);
			break;
		default:
			break;
		}
		if (ok) {
			next->r[i] = v;
			next->valid |= 1u << i;
		}
	}
	/* The stack pointer of the caller is the CFA unless a rule says otherwise. */
	if (rule->regs[UNWIND_RSP].how == UNWIND_SAME ||
	    rule->regs[UNWIND_RSP].how == UNWIND_UNDEF) {
		next->r[UNWIND_RSP] = cfa;
		next->valid |= 1u << UNWIND_RSP;
	}
	if (!(next->valid & (1u << rule->ra_reg)))
		return false;
	next->r[UNWIND_RIP] = next->r[rule->ra_reg];
	next->valid |= 1u << UNWIND_RIP;
	return true;
}

/* The frame pointers the kernel's chain went through: fp[1] is the registers' rbp, fp[i + 1]
 * the word at fp[i]; each chain[i] (i >= 1) is the word at fp[i] + 8.  Those whose frame
 * record is in the copy are known, and so is the first that is not: its index is returned
 * (0 when there is none, the chain ending inside the copy). */
static size_t first_fp_outside(const struct unwind_regs *regs, const struct unwind_stack *st,
			       size_t nchain, uint64_t *fp, size_t max)
{
	if (!(regs->valid & (1u << UNWIND_RBP)) || nchain < 2 || max < 2)
		return 0;
	struct mem m = {st, 0};
	fp[1] = regs->r[UNWIND_RBP];
	for (size_t i = 1; i < nchain && i < max; i++) {
		uint64_t next, ret;
		if (!read_u64(&m, fp[i], &next) || !read_u64(&m, fp[i] + 8, &ret))
			return i;
		if (i + 1 < max)
			fp[i + 1] = next;
	}
	return 0;
}

/* The index in the chain where a frame found in the copy is also found: then the chain goes
 * on from there.  Looks from the outermost frame found in the copy inwards. */
static bool find_join(const struct unwind_frame *out, size_t n, const uint64_t *chain,
		      size_t nchain, size_t *at_out, size_t *chain_at)
{
	for (size_t i = n; i-- > 1;) {
		if (out[i].source != UNWIND_FROM_COPY)
			continue;
		for (size_t j = 1; j < nchain; j++) {
			if (chain[j] == out[i].pc) {
				*at_out = i;
				*chain_at = j;
				return true;
			}
		}
	}
	return false;
}

#define MAX_FP 128

/* The walk cannot go on from the copy: the chain goes on where it has a frame found in the
 * copy; else everything it has beyond the leaf follows, so no caller it knows is lost. */
static size_t join_chain(struct unwind_frame *out, size_t n, size_t max, const uint64_t *chain,
			 size_t nchain, struct unwind_result *res)
{
	size_t at, j = 0;
	res->copy_short = true;
	if (find_join(out, n, chain, nchain, &at, &j))
		n = at + 1;
	res->chain_from = j + 1 < nchain ? j + 1 : 0;
	for (j++; j < nchain && n < max; j++)
		out[n++] = (struct unwind_frame){chain[j], UNWIND_FROM_CHAIN, false};
	return n;
}

#define MAX_FP 128

size_t unwind_stack(const struct unwind_regs *regs, const struct unwind_stack *stack,
		    const uint64_t *chain, size_t nchain, unwind_lookup_fn lookup, void *arg,
		    struct unwind_frame *out, size_t max, struct unwind_result *res)
{
	memset(res, 0, sizeof(*res));
	size_t n = 0;
	const uint32_t need = (1u << UNWIND_RIP) | (1u << UNWIND_RSP);
	if (!max)
		return 0;
	/* Without registers, or with a chain that is not of this moment, the chain as it is. */
	if ((regs->valid & need) != need || (nchain && chain[0] != regs->r[UNWIND_RIP])) {
		for (; n < nchain && n < max; n++)
			out[n] = (struct unwind_frame){
			    chain[n], n ? UNWIND_FROM_CHAIN : UNWIND_FROM_REGS, n == 0};
		return n;
	}
	uint64_t fp[MAX_FP];
	size_t outside = first_fp_outside(regs, stack, nchain, fp, MAX_FP);
	/* The chain ended where the frame record of its last frame says no caller follows (a
	 * saved frame pointer of 0: clone and _start clear rbp for the outermost frame): the
	 * walk ends there too (below is the start code the chain never shows; stacks keep one
	 * root however deep they are).  A chain that ended because the word there led nowhere
	 * readable was broken, and the walk goes on. */
	size_t last = nchain ? nchain - 1 : 0;
	uint64_t after_last = 1;
	struct mem probe = {stack, 0};
	bool end_known = nchain >= 2 && last < MAX_FP && (!outside || last < outside) &&
			 read_u64(&probe, fp[last], &after_last) && after_last == 0;
	struct mem m = {stack, 0};
	struct unwind_regs cur = *regs;
	bool exact = true;
	out[n++] = (struct unwind_frame){cur.r[UNWIND_RIP], UNWIND_FROM_REGS, true};
	while (n < max) {
		struct unwind_rule rule;
		enum unwind_rule_kind kind = lookup(arg, cur.r[UNWIND_RIP], exact, &rule);
		if (kind == UNWIND_RULE_NONE) {
			n = join_chain(out, n, max, chain, nchain, res);
			break;
		}
		/* The first frame pointer the kernel followed outside the copy: its chain knows
		 * the callers from here. */
		if (outside && (cur.valid & (1u << UNWIND_RBP)) &&
		    cur.r[UNWIND_RBP] == fp[outside] &&
		    (kind == UNWIND_RULE_FP || unwind_rule_is_fp(&rule))) {
			res->chain_from = outside;
			res->copy_short = true;
			for (size_t j = outside; j < nchain && n < max; j++)
				out[n++] =
				    (struct unwind_frame){chain[j], UNWIND_FROM_CHAIN, false};
			break;
		}
		bool chain_end = end_known && (cur.valid & (1u << UNWIND_RBP)) &&
				 cur.r[UNWIND_RBP] == fp[last] &&
				 (kind == UNWIND_RULE_FP || unwind_rule_is_fp(&rule));
		struct unwind_regs next;
		bool outermost;
		if (!step(&rule, &cur, &next, &m, &outermost)) {
			if (outermost)
				res->ended = true;
			else
				n = join_chain(out, n, max, chain, nchain, res);
			break;
		}
		if (!next.r[UNWIND_RIP]) {
			res->ended = true;
			break;
		}
		/* Each caller's frame is above its callee's: a rule that says otherwise is wrong
		 * (or the copy's bytes are), and would loop. */
		if (next.r[UNWIND_RSP] <= cur.r[UNWIND_RSP]) {
			n = join_chain(out, n, max, chain, nchain, res);
			break;
		}
		exact = rule.signal_frame;
		cur = next;
		res->from_copy++;
		out[n++] = (struct unwind_frame){cur.r[UNWIND_RIP], UNWIND_FROM_COPY, exact};
		if (chain_end) {
			res->ended = true;
			break;
		}
	}
	res->max_offset = m.max_offset;
	return n;
}
