/* symbols_unwind: a sample's frames (symbolizer_frames): its chain named frame by frame
 * (symbols.c), its user part mended by unwinding from the registers and stack copy
 * (unwind.h), each frame's rule found through the process's maps: the mapped file's unwind
 * tables (ELF CFI, a .NET image's unwind info, the vdso's CFI), read with its symbols; code
 * in anonymous memory (JIT code) keeps a frame pointer, but for a runtime stub at the leaf,
 * which has no frame (named "stub..." by the .NET runtime's perf map).  It calls into
 * symbols.c, never the other way. */
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

/* The user frames of a sample with user registers and a stack copy: the chain (the kernel's
 * user frames, n entries) mended by unwinding (unwind.h).  Returns how many were written. */
static size_t unwind_user(struct symbolizer *s, const struct perf_sample *sample,
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

static bool mode_is_kernel(uint16_t cpumode)
{
	return cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
}

/* The user part of a sample with registers and a stack copy: the chain's user frames mended
 * by unwinding.  perf prints the frames its own unwinder found (perf --call-graph dwarf's
 * layout) one byte before each return address, in the call; our hybrid layout's frames are
 * printed as the chain's are, at the return address. */
static size_t unwound_frames(struct symbolizer *s, const struct perf_sample *sample,
			     const uint64_t *chain, size_t nchain, uint64_t time, struct frame *out,
			     size_t max)
{
	struct unwind_frame uf[MAX_STACK];
	size_t n = unwind_user(s, sample, chain, nchain, uf, max);
	bool perf_layout = sample->evsel && !perfdata_attr_regs_in_stack(&sample->evsel->attr);
	/* perf's unwinder gives nothing for a pc in no mapping it knows (a sample in execve,
	 * whose user registers are the old image's) */
	if (perf_layout && n == 1 && !machine_find_map(s->m, sample->pid, uf[0].pc, false))
		return 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t pc = uf[i].pc;
		if (perf_layout && !uf[i].exact && uf[i].source == UNWIND_FROM_COPY)
			pc--;
		symbols_resolve(s, sample->pid, false, pc, time, &out[i]);
	}
	return n;
}

size_t symbolizer_frames(struct symbolizer *s, const struct perf_sample *sample, struct frame *out,
			 size_t max)
{
	uint64_t time = sample->has_time ? sample->time : UINT64_MAX;
	if (!max)
		return 0;
	if (max > MAX_STACK)
		max = MAX_STACK;
	bool unwind = s->opts.unwind && sample->user_regs;
	if (sample->callchain) {
		/* perf starts in user mode and switches at each context marker */
		uint16_t mode = PERF_RECORD_MISC_USER;
		size_t n = 0;
		bool bad_marker = false, user_done = false;
		for (uint64_t i = 0; i < sample->nr_callchain && n < max && n < MAX_STACK; i++) {
			uint64_t ip = sample->callchain[i];
			if (ip >= PERF_CONTEXT_MAX) {
				if (ip == PERF_CONTEXT_KERNEL)
					mode = PERF_RECORD_MISC_KERNEL;
				else if (ip == PERF_CONTEXT_USER)
					mode = PERF_RECORD_MISC_USER;
				else if (ip == PERF_CONTEXT_HV)
					mode = PERF_RECORD_MISC_HYPERVISOR;
				else {
					bad_marker = true;
					break;
				}
				continue;
			}
			if (unwind && mode == PERF_RECORD_MISC_USER && !user_done) {
				/* the chain's user frames, up to the next marker */
				size_t nuser = 0;
				while (i + nuser < sample->nr_callchain &&
				       sample->callchain[i + nuser] < PERF_CONTEXT_MAX)
					nuser++;
				n += unwound_frames(s, sample, sample->callchain + i, nuser, time,
						    out + n, max - n);
				user_done = true;
				i += nuser - 1;
				continue;
			}
			symbols_resolve(s, sample->pid, mode_is_kernel(mode), ip, time, &out[n++]);
		}
		/* perf empties a callchain holding a marker it does not know (e.g. -1) */
		if (bad_marker)
			return 0;
		/* no user part in the chain (perf --call-graph dwarf): unwound after it */
		if (unwind && !user_done && n < max && n < MAX_STACK)
			n += unwound_frames(s, sample, NULL, 0, time, out + n, max - n);
		return n;
	}
	if (unwind)
		return unwound_frames(s, sample, NULL, 0, time, out, max);
	/* a lone sample ip: perf falls back to the kernel's maps for a kernel address seen in
	 * user mode (thread__find_map_fb), which it does not do for callchain entries */
	bool kernel =
	    mode_is_kernel(sample->cpumode) ||
	    (sample->ip >= KERNEL_START && !machine_find_map(s->m, sample->pid, sample->ip, false));
	symbols_resolve(s, sample->pid, kernel, sample->ip, time, &out[0]);
	out[0].ip = sample->ip; /* printed as it is */
	return 1;
}

const struct symbolizer_unwind_stats *symbolizer_unwind_stats(const struct symbolizer *s)
{
	return &s->us;
}
