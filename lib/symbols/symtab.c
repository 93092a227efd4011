/* symtab: see symtab.h. */
#include "symtab.h"
#include "base/search.h"

#include <stdlib.h>
#include <string.h>

void symtab_reserve(struct symtab *t, size_t n)
{
	grow_array((void **)&t->syms, &t->cap, t->n + n, sizeof(*t->syms));
}

void symtab_add(struct symtab *t, uint64_t start, uint64_t size, enum sym_binding b,
		const char *name, uint16_t aux)
{
	if (t->n == t->cap)
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

/* Sorts by start, keeping the read order (seq) among equal starts: a least significant
 * digit radix sort of (start, index) pairs, 8 bits a pass, skipping the digits in which all
 * starts agree (most of the high ones), then one permutation of the symbols.  Several
 * times faster than qsort() with a comparison callback on tables of 100 000 symbols. */
struct sort_key {
	uint64_t start;
	uint32_t index;
};

static void sort_syms(struct symtab *t)
{
	size_t n = t->n;
	struct sort_key *a = xmalloc(n * sizeof(*a)), *b = xmalloc(n * sizeof(*b));
	uint64_t all_or = 0, all_and = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		a[i].start = t->syms[i].start;
		a[i].index = (uint32_t)i; /* the symbols are in read order: i is seq */
		all_or |= a[i].start;
		all_and &= a[i].start;
	}
	uint64_t varies = all_or ^ all_and;
	for (unsigned shift = 0; shift < 64; shift += 8) {
		if (!((varies >> shift) & 0xff))
			continue;
		size_t count[257] = {0};
		for (size_t i = 0; i < n; i++)
			count[((a[i].start >> shift) & 0xff) + 1]++;
		for (size_t d = 1; d <= 256; d++)
			count[d] += count[d - 1];
		for (size_t i = 0; i < n; i++)
			b[count[(a[i].start >> shift) & 0xff]++] = a[i];
		struct sort_key *tmp = a;
		a = b;
		b = tmp;
	}
	struct sym *sorted = xmalloc(t->cap * sizeof(*sorted));
	for (size_t i = 0; i < n; i++)
		sorted[i] = t->syms[a[i].index];
	free(t->syms);
	t->syms = sorted;
	free(a);
	free(b);
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

/* Two mangled C++ names of one constructor or destructor in its variants (complete, base,
 * allocating: C1/C2/C3, D0/D1/D2), which are aliases at one address in every C++ binary and
 * demangle to the same text: they tie on the rules below without demangling either (most
 * of the demangling a large C++ library would otherwise cost at load time). */
static bool ctor_dtor_variants(const char *a, const char *b)
{
	if (a[0] != '_' || a[1] != 'Z' || b[0] != '_' || b[1] != 'Z')
		return false;
	size_t i = 2;
	while (a[i] && a[i] == b[i])
		i++;
	if (!a[i] || !b[i] || strcmp(a + i + 1, b + i + 1))
		return false; /* equal, or more than one character differs */
	char pa = a[i - 1], next = a[i + 1];
	return (pa == 'C' || pa == 'D') && a[i] >= '0' && a[i] <= '5' && b[i] >= '0' &&
	       b[i] <= '5' && (next == 'E' || next == 'I' || next == 'B');
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
	if (ctor_dtor_variants(a->name, b->name))
		return true; /* the same shown name: a tie, the first stays */
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
		sort_syms(t);
	/* sizes first, as perf: of aliases without a size only the last one gets one, so it
	 * is the one kept */
	fix_ends(t, kallsyms);
	drop_aliases(t);
}

const struct sym *symtab_find(const struct symtab *t, uint64_t addr)
{
	size_t lo = LOWER_BOUND(t->n, i, t->syms[i].start <= addr);
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
