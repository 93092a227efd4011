/* diff: see diff.h. */
#include "diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct pair {
	uint32_t node, base;
};

uint64_t *diff_base_totals(const struct calltree *t, const struct calltree *base)
{
	const struct functable *ft = calltree_functable(t), *bft = calltree_functable(base);
	uint64_t *out = xcalloc(calltree_count(t), sizeof(*out));
	out[CALLTREE_ROOT] = calltree_total(base);
	struct pair *stack = NULL;
	size_t n = 0, cap = 0;
	uint32_t *a = NULL, *b = NULL;
	size_t acap = 0, bcap = 0;
	grow_array((void **)&stack, &cap, 1, sizeof(*stack));
	stack[n++] = (struct pair){CALLTREE_ROOT, CALLTREE_ROOT};
	while (n) {
		struct pair p = stack[--n];
		size_t na = calltree_children(t, p.node, CALLTREE_BY_NAME, &a, &acap);
		size_t nb = calltree_children(base, p.base, CALLTREE_BY_NAME, &b, &bcap);
		/* Both sorted by name: walk them side by side. */
		for (size_t i = 0, j = 0; i < na; i++) {
			const char *name = functable_name(ft, calltree_node(t, a[i])->func);
			int c = 1;
			while (j < nb &&
			       (c = strcmp(functable_name(bft, calltree_node(base, b[j])->func),
					   name)) < 0)
				j++;
			if (j >= nb || c)
				continue;
			out[a[i]] = calltree_node(base, b[j])->total;
			grow_array((void **)&stack, &cap, n + 1, sizeof(*stack));
			stack[n++] = (struct pair){a[i], b[j]};
			j++;
		}
	}
	free(a);
	free(b);
	free(stack);
	return out;
}

/* ---- the table ---- */

struct fn {
	const char *name;
	double self[2], incl[2]; /* shares in %: [0] base, [1] new */
};

static int by_fn_name(const void *x, const void *y)
{
	return strcmp(((const struct fn *)x)->name, ((const struct fn *)y)->name);
}

/* The functions of t (processes left out) with their shares, in fns[side]. */
static void collect(const struct calltree *t, int side, struct fn **fns, size_t *n, size_t *cap)
{
	const struct functable *ft = calltree_functable(t);
	uint64_t *self, *incl;
	calltree_func_weights(t, &self, &incl);
	double total = (double)calltree_total(t);
	for (uint32_t f = 0; f < functable_count(ft); f++) {
		if (!incl[f] || functable_kind(ft, f) == FRAME_PROCESS)
			continue;
		grow_array((void **)fns, cap, *n + 1, sizeof(**fns));
		struct fn *e = &(*fns)[(*n)++];
		memset(e, 0, sizeof(*e));
		e->name = functable_name(ft, f);
		e->self[side] = total ? 100.0 * (double)self[f] / total : 0;
		e->incl[side] = total ? 100.0 * (double)incl[f] / total : 0;
	}
	free(self);
	free(incl);
}

static int by_change(const void *x, const void *y)
{
	const struct fn *a = x, *b = y;
	double da = fabs(a->self[1] - a->self[0]), db = fabs(b->self[1] - b->self[0]);
	if (da != db)
		return da > db ? -1 : 1;
	da = fabs(a->incl[1] - a->incl[0]);
	db = fabs(b->incl[1] - b->incl[0]);
	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(a->name, b->name);
}

static void print_share(FILE *out, double old, double now)
{
	fprintf(out, "%7.2f%%  %7.2f%%  %+7.2f", old, now, now - old);
}

int diff_report(FILE *out, const struct calltree *t, const struct calltree *base,
		const struct diff_opts *o)
{
	struct fn *fns = NULL;
	size_t n = 0, cap = 0;
	collect(base, 0, &fns, &n, &cap);
	collect(t, 1, &fns, &n, &cap);
	/* One entry per name: add up the two sides' entries. */
	qsort(fns, n, sizeof(*fns), by_fn_name);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && !strcmp(fns[k - 1].name, fns[i].name)) {
			for (int s = 0; s < 2; s++) {
				fns[k - 1].self[s] += fns[i].self[s];
				fns[k - 1].incl[s] += fns[i].incl[s];
			}
		} else {
			fns[k++] = fns[i];
		}
	}
	n = k;
	qsort(fns, n, sizeof(*fns), by_change);
	fprintf(out,
		"# Differential profile: %s (new, %llu %s) against %s (old, %llu %s)\n"
		"# Shares of each profile's own total; the change in percentage points.\n"
		"# Functions that moved most, by self share, then by inclusive share\n"
		"#  Old self  New self   Change   Old incl  New incl   Change  Function\n",
		o->new_name, (unsigned long long)calltree_total(t), o->unit, o->base_name,
		(unsigned long long)calltree_total(base), o->unit);
	size_t shown = 0;
	for (size_t i = 0; i < n && shown < o->top; i++) {
		const struct fn *e = &fns[i];
		if (e->self[0] == e->self[1] && e->incl[0] == e->incl[1])
			break;
		fputs(" ", out);
		print_share(out, e->self[0], e->self[1]);
		fputs("  ", out);
		print_share(out, e->incl[0], e->incl[1]);
		fprintf(out, "  %s%s\n", e->name,
			!e->incl[0]   ? "  (new)"
			: !e->incl[1] ? "  (gone)"
				      : "");
		shown++;
	}
	if (!shown)
		fputs("# no function's share changed\n", out);
	free(fns);
	if (fflush(out) || ferror(out))
		return pc_err_errno("cannot write the report");
	return 0;
}
