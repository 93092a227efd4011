/* symtab: see symtab.h. */
#include "symtab.h"

#include <stdlib.h>
#include <string.h>

void symtab_add(struct symtab *t, uint64_t start, uint64_t size, enum sym_binding b,
		const char *name, uint16_t aux)
{
	grow_array((void **)&t->syms, &t->cap, t->n + 1, sizeof(*t->syms));
	struct sym *s = &t->syms[t->n];
	s->start = start;
	s->end = start + size < start ? UINT64_MAX : start + size;
	s->name = name;
	s->seq = (uint32_t)t->n;
	s->aux = aux;
	s->binding = b;
	s->sized = size != 0;
	t->n++;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

static const char *shown_name(const struct symtab *t, struct sym *s)
{
	return t->shown_name ? t->shown_name(t->owner, s) : s->name;
}

/* true when a is to be kept over b (perf's choose_best_symbol).  The names compared are
 * the shown ones, so they are only asked for when the other rules tie. */
static bool prefer_first(const struct symtab *t, struct sym *a, struct sym *b)
{
	bool a_sized = a->end > a->start, b_sized = b->end > b->start;
	if (a_sized != b_sized)
		return a_sized;
	bool a_weak = a->binding == SYM_WEAK, b_weak = b->binding == SYM_WEAK;
	if (a_weak != b_weak)
		return b_weak;
	bool a_glob = a->binding == SYM_GLOBAL, b_glob = b->binding == SYM_GLOBAL;
	if (a_glob != b_glob)
		return a_glob;
	const char *na = shown_name(t, a), *nb = shown_name(t, b);
	size_t ua = leading_underscores(na), ub = leading_underscores(nb);
	if (ua != ub)
		return ua < ub;
	size_t la = strlen(na), lb = strlen(nb);
	if (la != lb)
		return la > lb;
	return true;
}

static void drop_aliases(struct symtab *t)
{
	size_t out = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (out && t->syms[out - 1].start == t->syms[i].start) {
			if (!prefer_first(t, &t->syms[out - 1], &t->syms[i]))
				t->syms[out - 1] = t->syms[i];
			continue;
		}
		t->syms[out++] = t->syms[i];
	}
	t->n = out;
}

static uint64_t next_page(uint64_t a)
{
	uint64_t r = (a + 4095) & ~4095ULL;
	return r + 4096 < r ? UINT64_MAX : r + 4096;
}

static void fix_ends(struct symtab *t, bool kallsyms)
{
	for (size_t i = 0; i + 1 < t->n; i++) {
		struct sym *s = &t->syms[i], *next = &t->syms[i + 1];
		if (s->end != s->start)
			continue;
		if (kallsyms && s->aux != next->aux)
			s->end = next_page(s->start);
		else
			s->end = next->start;
	}
	if (t->n && t->syms[t->n - 1].end == t->syms[t->n - 1].start)
		t->syms[t->n - 1].end = next_page(t->syms[t->n - 1].start);
}

void symtab_finish(struct symtab *t, bool kallsyms)
{
	/* /proc/kallsyms comes sorted: seq is the read order, so ascending starts are
	 * already cmp_sym's order and the sort can be skipped */
	bool sorted = true;
	for (size_t i = 1; i < t->n && sorted; i++)
		sorted = t->syms[i - 1].start <= t->syms[i].start;
	if (!sorted)
		qsort(t->syms, t->n, sizeof(*t->syms), cmp_sym);
	/* sizes first, as perf: of aliases without a size only the last one gets one, so it
	 * is the one kept */
	fix_ends(t, kallsyms);
	drop_aliases(t);
}

const struct sym *symtab_find(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo = first symbol after addr; look back a little for an enclosing symbol when the
	 * nearest one is too short (nested symbols, e.g. a function and its .cold part) */
	const struct sym *found = NULL;
	for (size_t i = lo, tries = 0; i > 0 && tries < 4; i--, tries++) {
		const struct sym *s = &t->syms[i - 1];
		if (addr >= s->end)
			continue;
		if (s->sized)
			return s;
		if (!found)
			found = s;
	}
	return found;
}

void symtab_release(struct symtab *t)
{
	free(t->syms);
	t->syms = NULL;
	t->n = t->cap = 0;
}
