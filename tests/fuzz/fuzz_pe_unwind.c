/* A PE image's x64 unwind information (lib/unwind/pe_unwind.c), as a .NET ReadyToRun image
 * in a target's tree has it: the function table read, each function's rule looked up at
 * every prologue offset, in its middle and at its end, as an interrupted instruction (an
 * epilogue is read from the code) and as a return address, and each rule applied by the
 * unwinder (unwind.c) to a stack copy made of the input's last bytes. */
#include "fuzz_rule.h"
#include "unwind/pe_unwind.h"

static uint64_t sink;

static void apply(const struct unwind_rule *r, const uint8_t *data, size_t size)
{
	sink += fuzz_rule_apply(r, data, size, 512, 16);
}

static void probe(const struct pe_unwind *t, uint32_t rva, const uint8_t *data, size_t size)
{
	for (int exact = 0; exact < 2; exact++) {
		struct unwind_rule r;
		if (pe_unwind_rule(t, rva, exact, &r))
			apply(&r, data, size);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = fuzz_fd(data, size);
	struct pe_unwind *t = pe_unwind_new(fd); /* keeps fd */
	if (!t)
		return 0;
	uint32_t begin, end, rva;
	for (size_t i = 0; i < 256 && pe_unwind_function(t, i, &begin, &end); i++) {
		for (uint32_t at = 0; at < 40 && begin + at < end; at++)
			probe(t, begin + at, data, size);
		probe(t, begin + (end - begin) / 2, data, size);
		probe(t, end - 1, data, size);
		probe(t, end, data, size);
	}
	for (uint64_t off = 0; off < size && off < (1u << 16); off += 97)
		if (pe_unwind_rva(t, off, &rva))
			probe(t, rva, data, size);
	sink += pe_unwind_functions(t);
	pe_unwind_free(t);
	return 0;
}
