/* The unwinder (lib/unwind/unwind.c) on a thread's registers, the kernel's chain and a copy
 * of its stack, as a sample or a stopped process gives them: hostile bytes, which it must
 * never read outside of.  The frames' rules come from this machine's libc and dynamic
 * loader (their real CFI, expressions included), or are the guesses for code without
 * tables, by mappings the input describes.
 *
 * Input: u8 chain entries, u8 mappings, 6 bytes unused; the 17 registers (DWARF order, u64
 * each); per mapping u64 start, end, file offset and u64 kind (0 libc's tables, 1 the
 * loader's, 2 a frame pointer assumed, 3 no frame); the chain (u64 each); the rest is the
 * stack copy, from the stack pointer up.  tests/unit/stacks/test_stacks_unwind writes real
 * ones (FUZZ_SEED_DIR). */
#include "fuzz.h"
#include "unwind/unwind_tables.h"

#define MAX_MAPS  16
#define MAX_CHAIN 128

struct mapping {
	uint64_t start, end, off, kind;
};

struct input {
	const struct mapping *maps;
	size_t nmaps;
	struct unwind_memo *memo;
};

static struct unwind_tables *tables[2];
static uint64_t sink;

static struct unwind_tables *load(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct unwind_tables *t = unwind_tables_new_fd(fd);
	close(fd);
	return t;
}

static enum unwind_rule_kind lookup(void *arg, uint64_t pc, bool exact, struct unwind_rule *rule)
{
	const struct input *in = arg;
	uint64_t at = exact ? pc : pc - 1;
	for (size_t i = 0; i < in->nmaps; i++) {
		const struct mapping *m = &in->maps[i];
		if (at < m->start || at >= m->end)
			continue;
		uint64_t kind = m->kind & 3;
		if (kind < 2 && tables[kind] &&
		    unwind_memo_rule(in->memo, tables[kind], pc - m->start + m->off, exact, rule))
			return UNWIND_RULE_EXACT;
		if (kind == 3 && exact) {
			unwind_rule_leaf(rule);
			return UNWIND_RULE_LEAF;
		}
		unwind_rule_fp(rule);
		return UNWIND_RULE_FP;
	}
	return UNWIND_RULE_NONE;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct unwind_memo *memo;
	if (!memo) {
		tables[0] = load("/lib/x86_64-linux-gnu/libc.so.6");
		tables[1] = load("/lib64/ld-linux-x86-64.so.2");
		memo = unwind_memo_new();
	}
	if (size < 8 + 8 * UNWIND_NREGS)
		return 0;
	size_t nchain = data[0] % (MAX_CHAIN + 1), nmaps = data[1] % (MAX_MAPS + 1);
	const uint8_t *p = data + 8, *end = data + size;
	struct unwind_regs regs;
	memcpy(regs.r, p, 8 * UNWIND_NREGS);
	regs.valid = (1u << UNWIND_NREGS) - 1;
	p += 8 * UNWIND_NREGS;
	struct mapping maps[MAX_MAPS];
	if ((size_t)(end - p) < nmaps * sizeof(*maps))
		nmaps = (size_t)(end - p) / sizeof(*maps);
	memcpy(maps, p, nmaps * sizeof(*maps));
	p += nmaps * sizeof(*maps);
	uint64_t chain[MAX_CHAIN];
	if ((size_t)(end - p) < nchain * 8)
		nchain = (size_t)(end - p) / 8;
	memcpy(chain, p, nchain * 8);
	p += nchain * 8;
	/* the copy in a buffer of its exact size: ASan sees a read past it */
	size_t len = (size_t)(end - p);
	uint8_t *copy = malloc(len ? len : 1);
	memcpy(copy, p, len);
	struct unwind_stack st = {regs.r[UNWIND_RSP], copy, len};
	struct input in = {maps, nmaps, memo};
	struct unwind_frame out[MAX_CHAIN];
	struct unwind_result res;
	size_t n = unwind_stack(&regs, &st, nchain ? chain : NULL, nchain, lookup, &in, out,
				MAX_CHAIN, &res);
	FUZZ_CHECK(n <= MAX_CHAIN);
	FUZZ_CHECK(res.max_offset <= len);
	for (size_t i = 0; i < n; i++)
		sink += out[i].pc;
	free(copy);
	return 0;
}
