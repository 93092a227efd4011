/* symbols_unwind: a sample's user frames unwound from its registers and stack copy
 * (unwind.h), each frame's rule found through the process's maps: the mapped file's unwind
 * tables (ELF CFI, a .NET image's unwind info, the vdso's CFI), read with its symbols; code
 * in anonymous memory (JIT code) keeps a frame pointer, but for a runtime stub at the leaf,
 * which has no frame (named "stub..." by the .NET runtime's perf map). */
#include "symbols_int.h"

#include "base/log.h"
#include "symbols_jit.h"
#include "unwind/unwind_tables.h"

#include <string.h>
#include <sys/mman.h>

struct lookup {
	struct symbolizer *s;
	uint32_t pid;
	uint64_t time;
};

/* A .NET stub (precode, write barrier, dynamic helper ...): the runtime's perf map calls
 * them "stub<...> ..." or "[stub] ..."; they set up no frame. */
static bool is_stub_name(const char *name)
{
	return name && (str_startswith(name, "stub") || str_startswith(name, "[stub"));
}

static enum unwind_rule_kind rule_at(void *arg, uint64_t pc, bool exact, struct unwind_rule *rule)
{
	struct lookup *l = arg;
	struct symbolizer *s = l->s;
	uint64_t at = exact ? pc : pc - 1;
	struct map *map = machine_find_map(s->m, l->pid, at, false);
	if (!map || !(map->prot & PROT_EXEC))
		return UNWIND_RULE_NONE;
	uint64_t off = pc - map->start + map->pgoff;
	const struct unwind_tables *ut = NULL;
	struct symfile *sf = NULL;
	if (!strcmp(map->filename, "[vdso]")) {
		symbols_vdso(s);
		ut = s->vdso_ut;
	} else {
		sf = symbols_classify(s, l->pid, map);
		ut = symbols_unwind_tables(s, sf);
	}
	if (ut && unwind_memo_rule(s->memo, ut, off, exact, rule))
		return UNWIND_RULE_EXACT;
	/* JIT code, in anonymous memory or the runtime's double mapping */
	if (exact && sf && (sf == &s->anon || sf == &s->jit_file)) {
		struct jit_proc *jp = jit_procs_get(s->jit, l->pid);
		jit_proc_load(s->jit, jp);
		if (is_stub_name(jit_proc_lookup(jp, pc, l->time, NULL))) {
			unwind_rule_leaf(rule);
			return UNWIND_RULE_LEAF;
		}
	}
	unwind_rule_fp(rule);
	return UNWIND_RULE_FP;
}

size_t symbols_unwind_user(struct symbolizer *s, const struct perf_sample *sample,
			   const uint64_t *chain, size_t nchain, struct unwind_frame *out,
			   size_t max)
{
	struct unwind_regs regs;
	unwind_regs_from_perf(&regs, sample->user_regs_mask, sample->user_regs);
	struct unwind_stack stack = {regs.r[UNWIND_RSP], sample->user_stack,
				     sample->user_stack ? sample->user_stack_size : 0};
	struct lookup l = {s, sample->pid, sample->has_time ? sample->time : UINT64_MAX};
	struct unwind_result res;
	size_t n = unwind_stack(&regs, &stack, chain, nchain, rule_at, &l, out, max, &res);
	s->us.samples++;
	s->us.frames_in += nchain;
	s->us.frames_out += n;
	s->us.copy_short += res.copy_short;
	if (n > nchain)
		s->us.mended++;
	return n;
}
