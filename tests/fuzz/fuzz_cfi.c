/* DWARF call frame information (lib/unwind/cfi.c), as a file of a target's tree has it:
 * .eh_frame and .debug_frame indexed, each range's rule looked up at its first, middle and
 * last byte, and each rule applied by the unwinder (unwind.c, with its expressions) to a
 * stack copy made of the input's last bytes.
 *
 * Input: u64 the .eh_frame's address, u32 its length, then .eh_frame's bytes, then
 * .debug_frame's (the rest), the last 256 bytes of the whole also serving as the stack. */
#include "fuzz.h"
#include "unwind/cfi.h"

static uint64_t sink;

struct one_rule {
	const struct unwind_rule *rule;
	bool used;
};

static enum unwind_rule_kind lookup(void *arg, uint64_t pc, bool exact, struct unwind_rule *out)
{
	struct one_rule *o = arg;
	if (o->used)
		return UNWIND_RULE_NONE;
	o->used = true;
	*out = *o->rule;
	return UNWIND_RULE_EXACT;
}

static void apply(const struct unwind_rule *r, const uint8_t *data, size_t size)
{
	size_t len = size < 256 ? size : 256;
	uint8_t *copy = malloc(len ? len : 1); /* exactly len: ASan sees a read past it */
	memcpy(copy, data + size - len, len);
	struct unwind_regs regs;
	memset(&regs, 0, sizeof(regs));
	for (int i = 0; i < UNWIND_NREGS; i++)
		regs.r[i] = 0x7ff000000000ull + 8 * (uint64_t)i;
	regs.valid = (1u << UNWIND_NREGS) - 1;
	struct unwind_stack st = {regs.r[UNWIND_RSP], copy, len};
	struct one_rule o = {r, false};
	struct unwind_frame out[4];
	struct unwind_result res;
	size_t n = unwind_stack(&regs, &st, NULL, 0, lookup, &o, out, 4, &res);
	FUZZ_CHECK(n <= 4 && res.max_offset <= len);
	sink += n + res.max_offset;
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 12)
		return 0;
	uint64_t addr;
	uint32_t eh_len;
	memcpy(&addr, data, 8);
	memcpy(&eh_len, data + 8, 4);
	data += 12, size -= 12;
	if (eh_len > size)
		eh_len = (uint32_t)size;
	struct cfi_section eh = {data, eh_len, addr};
	struct cfi_section dbg = {data + eh_len, size - eh_len, 0};
	struct cfi_table *t = cfi_table_new(&eh, &dbg);
	uint64_t lo, hi;
	for (size_t i = 0; i < 512 && cfi_table_range(t, i, &lo, &hi); i++) {
		const uint64_t probes[] = {lo, lo + (hi - lo) / 2, hi - 1};
		for (size_t k = 0; k < 3; k++) {
			struct unwind_rule r;
			if (cfi_table_rule(t, probes[k], &r))
				apply(&r, data, size);
		}
	}
	sink += cfi_table_ranges(t);
	cfi_table_free(t);
	return 0;
}
