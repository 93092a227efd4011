/* DWARF call frame information (lib/unwind/cfi.c), as a file of a target's tree has it:
 * .eh_frame and .debug_frame indexed, each range's rule looked up at its first, middle and
 * last byte, and each rule applied by the unwinder (unwind.c, with its expressions) to a
 * stack copy made of the input's last bytes.
 *
 * Input: u64 the .eh_frame's address, u32 its length, then .eh_frame's bytes, then
 * .debug_frame's (the rest), the last 256 bytes of the whole also serving as the stack. */
#include "fuzz_rule.h"
#include "unwind/cfi.h"

static uint64_t sink;

static void apply(const struct unwind_rule *r, const uint8_t *data, size_t size)
{
	sink += fuzz_rule_apply(r, data, size, 256, 8);
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
