/* unwind_copy: how big the copy of the user stack must be for hybrid call stacks.
 *
 *   unwind_copy PERF.DATA [SIZE...]      (sizes in bytes; default 256 512 1024 1536 2048 3072
 *                                          4096 8192)
 *
 * PERF.DATA is recorded with `collect -callgraph hybrid,32K` (or larger): the kernel's
 * frame-pointer chain and a big copy.  Each sample is unwound with its whole copy, then with
 * the copy cut to each SIZE; printed per SIZE: the share of samples whose frames are those
 * of the whole copy (from the leaf to the frame the chain ends in: below it, in the start
 * code, only a copy that reaches the stack's base has frames, whatever its size), and of
 * those the chain alone (SIZE 0) got wrong.  bench/README.md
 * ("Call stacks") has the figures the default size comes from. */
#include "perfdata/perfdata_read.h"
#include "symbols/symbols.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 127
#define MAX_SIZES  16

static bool any_matches(const regex_t *re, const char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!regexec(re, names[i], 0, NULL, 0))
			return true;
	return false;
}

static size_t frames(struct symbolizer *s, const struct perf_sample *sample, uint64_t limit,
		     const char **names)
{
	struct perf_sample cut = *sample;
	if (cut.user_stack_size > limit)
		cut.user_stack_size = limit;
	if (limit == UINT64_MAX - 1)
		cut.user_regs = NULL; /* the chain as it is */
	struct frame f[MAX_FRAMES];
	size_t n = symbolizer_frames(s, &cut, f, MAX_FRAMES);
	for (size_t i = 0; i < n; i++)
		names[i] = f[i].sym; /* interned: equal names are equal pointers */
	return n;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: unwind_copy PERF.DATA [SIZE...]\n");
		return 2;
	}
	uint64_t sizes[MAX_SIZES] = {0, 256, 512, 1024, 1536, 2048, 3072, 4096, 8192};
	size_t nsizes = 9;
	if (argc > 2) {
		nsizes = 1;
		for (int i = 2; i < argc && nsizes < MAX_SIZES; i++)
			sizes[nsizes++] = strtoull(argv[i], NULL, 0);
	}
	struct perfdata_reader *r = perfdata_reader_open(argv[1]);
	if (!r) {
		fprintf(stderr, "unwind_copy: %s\n", pc_strerror());
		return 1;
	}
	struct symbolizer_opts so = {.unwind = true};
	struct symbolizer *s = symbolizer_new(&so);
	uint64_t samples = 0, same[MAX_SIZES] = {0}, chain_wrong = 0, fixed[MAX_SIZES] = {0};
	regex_t reach, filter;
	const char *reach_env = getenv("UNWIND_COPY_REACH"), *filter_env = getenv("UNWIND_COPY_FILTER");
	if (reach_env && regcomp(&reach, reach_env, REG_EXTENDED | REG_NOSUB))
		reach_env = NULL;
	if (filter_env && regcomp(&filter, filter_env, REG_EXTENDED | REG_NOSUB))
		filter_env = NULL;
	uint64_t reach_n = 0, reach_chain = 0, reach_whole = 0;
	/* UNWIND_COPY_SHOW=SIZE: print the first samples that SIZE gets wrong */
	const char *show_env = getenv("UNWIND_COPY_SHOW");
	uint64_t show = show_env ? strtoull(show_env, NULL, 0) : 0;
	int shown = 0;
	struct perfdata_record rec;
	const char *full[MAX_FRAMES], *cut[MAX_FRAMES];
	while (perfdata_reader_next(r, &rec) > 0) {
		if (rec.header->type != PERF_RECORD_SAMPLE) {
			symbolizer_process(s, &rec);
			continue;
		}
		const struct perf_sample *sm = &rec.sample;
		if (!sm->user_regs || !sm->user_stack)
			continue;
		samples++;
		size_t nfull = frames(s, sm, UINT64_MAX, full);
		if (reach_env) {
			const char *chain[MAX_FRAMES];
			size_t nc = frames(s, sm, UINT64_MAX - 1, chain);
			if (!filter_env || any_matches(&filter, full, nfull) ||
			    any_matches(&filter, chain, nc)) {
				reach_n++;
				reach_chain += any_matches(&reach, chain, nc);
				reach_whole += any_matches(&reach, full, nfull);
			}
		}
		/* Compared up to the frame the kernel's chain ends in: below it only a copy that
		 * reaches the stack's base finds frames (the start code), whatever its size. */
		const char *chain_only[MAX_FRAMES];
		size_t nchain = frames(s, sm, UINT64_MAX - 1, chain_only);
		size_t upto = nfull;
		for (size_t i = nfull; nchain && i-- > 0;)
			if (full[i] == chain_only[nchain - 1]) {
				upto = i + 1;
				break;
			}
		bool chain_ok = true;
		for (size_t k = 0; k < nsizes; k++) {
			size_t n = frames(s, sm, sizes[k], cut);
			bool eq = n >= upto && !memcmp(cut, full, upto * sizeof(*cut));
			bool match = !getenv("UNWIND_COPY_GREP");
			for (size_t i = 0; i < nfull && !match; i++)
				match = strstr(full[i], getenv("UNWIND_COPY_GREP")) != NULL;
			if (!eq && show && sizes[k] == show && match && shown++ < 6) {
				const char *chain[MAX_FRAMES];
				size_t nc = frames(s, sm, UINT64_MAX - 1, chain);
				printf("sample at %llu: whole copy / %llu bytes / the chain\n",
				       (unsigned long long)sm->time, (unsigned long long)show);
				for (size_t i = 0; i < n || i < nfull || i < nc; i++)
					printf("  %-45.45s %-45.45s %-.45s\n",
					       i < nfull ? full[i] : "", i < n ? cut[i] : "",
					       i < nc ? chain[i] : "");
			}
			same[k] += eq;
			if (k == 0) {
				chain_ok = eq;
				chain_wrong += !eq;
			} else if (!chain_ok) {
				fixed[k] += eq;
			}
		}
	}
	printf("%s: %llu samples with registers and a stack copy; the chain alone (size 0) "
	       "differs from the whole copy's stack in %llu (%.1f%%)\n",
	       argv[1], (unsigned long long)samples, (unsigned long long)chain_wrong,
	       samples ? 100.0 * chain_wrong / samples : 0);
	printf("%8s %16s %22s\n", "copy", "same as whole", "of those chain wrong");
	for (size_t k = 0; k < nsizes; k++)
		printf("%8llu %15.1f%% %21.1f%%\n", (unsigned long long)sizes[k],
		       samples ? 100.0 * same[k] / samples : 0,
		       chain_wrong ? 100.0 * fixed[k] / chain_wrong : 0);
	if (reach_env)
		printf("reach %s: of %llu samples%s%s, the chain alone %llu (%.1f%%), the whole copy "
		       "%llu (%.1f%%)\n",
		       reach_env, (unsigned long long)reach_n, filter_env ? " with " : "",
		       filter_env ? filter_env : "", (unsigned long long)reach_chain,
		       reach_n ? 100.0 * reach_chain / reach_n : 0, (unsigned long long)reach_whole,
		       reach_n ? 100.0 * reach_whole / reach_n : 0);
	symbolizer_free(s);
	perfdata_reader_free(r);
	return 0;
}
