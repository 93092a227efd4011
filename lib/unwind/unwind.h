/* unwind: a thread's user-space callers from its registers, a copy of the top of its stack,
 * and (when there is one) the kernel's frame-pointer chain of the same moment.
 *
 * Each frame is unwound by a rule (struct unwind_rule) that the caller's lookup gives for its
 * code: the file's DWARF CFI (cfi.h), a PE image's x64 unwind info (pe_unwind.h), or a guess
 * for code that has neither (JIT code keeps a frame pointer; a runtime stub at the leaf has
 * none).  Frames are unwound from the copy while what they need is in it.  Where the walk
 * reaches a frame whose frame pointer is the first one the kernel's chain found outside the
 * copy, the rest is the kernel's chain from there; a walk the copy cannot finish ends in the
 * chain where one of its frames is found there, so it never gives fewer callers than the
 * chain alone would.
 *
 * Pure: reads only its arguments (the stack copy is hostile input; nothing outside it is ever
 * read) and calls the lookup, which may be shared by threads when it only reads immutable
 * tables.  x86-64 only: the registers are the DWARF numbering of the x86-64 psABI.
 */
#ifndef PC_UNWIND_H
#define PC_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* DWARF register numbers (x86-64 psABI): 16 is the return address column (rip). */
enum {
	UNWIND_RAX,
	UNWIND_RDX,
	UNWIND_RCX,
	UNWIND_RBX,
	UNWIND_RSI,
	UNWIND_RDI,
	UNWIND_RBP,
	UNWIND_RSP,
	UNWIND_R8,
	UNWIND_R15 = 15,
	UNWIND_RIP = 16,
	UNWIND_NREGS = 17,
};

struct unwind_regs {
	uint64_t r[UNWIND_NREGS];
	uint32_t valid; /* bit n: r[n] is known */
};

/* The user registers a perf sample carries (PERF_SAMPLE_REGS_USER, x86-64: the kernel's
 * enum perf_event_x86_regs): what hybrid call stacks record (the pc, the stack and frame
 * pointers), and what perf --call-graph dwarf records (all but the segment registers). */
#define UNWIND_PERF_REGS_HYBRID ((1ull << 6) | (1ull << 7) | (1ull << 8)) /* BP, SP, IP */
#define UNWIND_PERF_REGS_ALL	0xff0fffull
/* The registers of a sample: one value per bit of mask, in perf's order (values may be
 * unaligned). */
void unwind_regs_from_perf(struct unwind_regs *regs, uint64_t mask, const void *values);

/* The copy of the stack: len bytes that were at [base, base + len) (base: the stack pointer
 * when it was taken). */
struct unwind_stack {
	uint64_t base;
	const uint8_t *data;
	size_t len;
};

/* How a register of the caller's frame is found (DWARF CFI's register rules). */
enum unwind_reg_how {
	UNWIND_UNDEF,	/* unknown (for the return address: no caller, the outermost frame) */
	UNWIND_SAME,	/* unchanged */
	UNWIND_AT_CFA,	/* saved at CFA + val */
	UNWIND_IS_CFA,	/* the value CFA + val */
	UNWIND_IN_REG,	/* in register reg */
	UNWIND_AT_EXPR, /* saved at the address expression [val, val + len) computes */
	UNWIND_IS_EXPR, /* the value that expression computes */
	UNWIND_AT_REG,	/* saved at r[reg] + val, this frame's register (PE unwind codes) */
};

struct unwind_reg_rule {
	uint8_t how; /* enum unwind_reg_how */
	uint8_t reg;
	uint16_t len;
	int32_t val;
};

enum unwind_rule_kind {
	UNWIND_RULE_NONE,  /* no code at this address: the walk ends */
	UNWIND_RULE_EXACT, /* from the code's unwind tables */
	UNWIND_RULE_FP,	   /* no unwind tables: a frame-pointer frame is assumed (JIT code) */
	UNWIND_RULE_LEAF,  /* no unwind tables, at the leaf only: no frame at all (a stub) */
};

/* How to find the caller's registers from a frame's: the canonical frame address (CFA: the
 * stack pointer before the call) from a register plus an offset, or from a DWARF expression;
 * then each register by its rule. */
struct unwind_rule {
	uint8_t kind;	   /* enum unwind_rule_kind */
	uint8_t cfa_reg;   /* CFA = r[cfa_reg] + cfa_off, when cfa_len is 0 */
	uint8_t ra_reg;	   /* the column holding the return address (16) */
	bool signal_frame; /* a signal trampoline: its caller's pc is exact, not a return */
	uint16_t cfa_len;  /* > 0: CFA is the expression at cfa_off of expr */
	int64_t cfa_off;
	const uint8_t *expr; /* the bytes expressions are in (the table's own, immutable) */
	size_t expr_size;
	struct unwind_reg_rule regs[UNWIND_NREGS];
};

/* Standard rules for code without unwind tables. */
void unwind_rule_fp(struct unwind_rule *r);
void unwind_rule_leaf(struct unwind_rule *r);
/* Whether r is a frame-pointer frame: CFA = rbp + 16, rbp saved at CFA - 16, the return
 * address at CFA - 8 (what the kernel's chain assumes of every frame). */
bool unwind_rule_is_fp(const struct unwind_rule *r);

/* The rule of the frame running at pc: exact is true for an interrupted instruction (the
 * leaf, or the frame a signal interrupted), false for a return address (the call is the
 * instruction before pc).  Returns the kind it wrote into *rule. */
typedef enum unwind_rule_kind (*unwind_lookup_fn)(void *arg, uint64_t pc, bool exact,
						  struct unwind_rule *rule);

/* Where a frame came from. */
enum unwind_source {
	UNWIND_FROM_REGS,  /* the leaf: the registers' pc */
	UNWIND_FROM_COPY,  /* unwound from the stack copy */
	UNWIND_FROM_CHAIN, /* the kernel's frame-pointer chain */
};

struct unwind_frame {
	uint64_t pc;
	uint8_t source; /* enum unwind_source */
	bool exact;	/* the leaf, or the frame a signal interrupted (not a return address) */
};

/* What happened, for the log and for choosing the size of the copy. */
struct unwind_result {
	size_t from_copy;    /* frames unwound from the copy */
	size_t chain_from;   /* the chain joined at this index (0: it was not) */
	bool copy_short;     /* the copy ended before the walk could (the chain took over, or
				the stack ends there) */
	bool ended;	     /* reached the outermost frame (no return address) */
	uint64_t max_offset; /* one past the highest byte of the copy read, from base */
};

/* The frames of one stack, innermost first, at most max.  chain (n entries, may be NULL) is
 * the kernel's frame-pointer chain of user addresses, chain[0] being the interrupted pc.
 * With no registers (valid lacks rip or rsp) the chain is the answer, as it is. */
size_t unwind_stack(const struct unwind_regs *regs, const struct unwind_stack *stack,
		    const uint64_t *chain, size_t nchain, unwind_lookup_fn lookup, void *arg,
		    struct unwind_frame *out, size_t max, struct unwind_result *res);

#endif
