/* fuzz_rule: a rule from outside input (CFI, PE unwind info) applied by the unwinder
 * (lib/unwind/unwind.c) to a stack copy made of the input's last bytes, in a buffer of its
 * exact size: a read past it is ASan's to see.  For fuzz_cfi and fuzz_pe_unwind. */
#ifndef PC_FUZZ_RULE_H
#define PC_FUZZ_RULE_H

#include "fuzz.h"
#include "unwind/unwind.h"

struct fuzz_one_rule {
	const struct unwind_rule *rule;
	bool used;
};

/* The rule once, for the first frame; then no more frames. */
static enum unwind_rule_kind fuzz_rule_lookup(void *arg, uint64_t pc, bool exact,
					      struct unwind_rule *out)
{
	struct fuzz_one_rule *o = arg;
	if (o->used)
		return UNWIND_RULE_NONE;
	o->used = true;
	*out = *o->rule;
	return UNWIND_RULE_EXACT;
}

/* Applies r to registers spaced by step and a stack of the last (at most) max bytes. */
static inline uint64_t fuzz_rule_apply(const struct unwind_rule *r, const uint8_t *data,
				       size_t size, size_t max, uint64_t step)
{
	size_t len = size < max ? size : max;
	uint8_t *copy = malloc(len ? len : 1);
	memcpy(copy, data + size - len, len);
	struct unwind_regs regs;
	memset(&regs, 0, sizeof(regs));
	for (int i = 0; i < UNWIND_NREGS; i++)
		regs.r[i] = 0x7ff000000000ull + step * (uint64_t)i;
	regs.valid = (1u << UNWIND_NREGS) - 1;
	struct unwind_stack st = {regs.r[UNWIND_RSP], copy, len};
	struct fuzz_one_rule o = {r, false};
	struct unwind_frame out[4];
	struct unwind_result res;
	size_t n = unwind_stack(&regs, &st, NULL, 0, fuzz_rule_lookup, &o, out, 4, &res);
	FUZZ_CHECK(n <= 4 && res.max_offset <= len);
	free(copy);
	return n + res.max_offset;
}

#endif
