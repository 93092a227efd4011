/* calltree: see calltree.h. */
#include "calltree.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static uint64_t hash_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

/* Eight bytes at a time: interning runs once per frame of every sample. */
static uint64_t hash_str(uint64_t h, const char *s)
{
	size_t n = strlen(s);
	h ^= n * 0x9e3779b97f4a7c15ULL;
	for (; n >= 8; s += 8, n -= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ hash_mix(w)) * 0x9e3779b97f4a7c15ULL;
	}
	uint64_t w = 0;
	memcpy(&w, s, n);
	return hash_mix((h ^ hash_mix(w)) * 0x9e3779b97f4a7c15ULL);
}

/* ---- kinds ---- */

static bool is_kernel_module(const char *dso)
{
	static const char *const user_brackets[] = {"[unknown]", "[vdso]", "[vsyscall]",
						    "[vvar]",	 "[heap]", "[stack]",
						    "[uprobes]", "[anon",  "[JIT]"};
	size_t n = strlen(dso);
	if (n < 3 || dso[0] != '[' || dso[n - 1] != ']')
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(user_brackets); i++)
		if (str_startswith(dso, user_brackets[i]))
			return false;
	return true;
}

static bool is_perf_map(const char *base)
{
	if (!str_startswith(base, "perf-"))
		return false;
	const char *p = base + 5;
	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	return !strcmp(p, ".map");
}

enum frame_kind frame_kind_of(const char *sym, const char *dso, uint64_t ip)
{
	if (!strcmp(dso, "[kernel.kallsyms]") || str_startswith(dso, "[kernel.") ||
	    is_kernel_module(dso))
		return FRAME_KERNEL;
	const char *base = strrchr(dso, '/');
	base = base ? base + 1 : dso;
	size_t bl = strlen(base);
	if (str_startswith(sym, "JS:") || is_perf_map(base) || str_startswith(base, "jit-") ||
	    strstr(base, "jitted") || (bl > 4 && !strcasecmp(base + bl - 4, ".dll")) ||
	    str_startswith(base, "memfd:doublemapper") || str_startswith(dso, "[JIT]"))
		return FRAME_JIT;
	/* No dso, but an address in the upper half: kernel text perf could not name. */
	if ((!*dso || !strcmp(dso, "[unknown]")) && ip >= 0xffff800000000000ULL)
		return FRAME_KERNEL;
	return FRAME_NATIVE;
}

const char *frame_kind_name(enum frame_kind k)
{
	switch (k) {
	case FRAME_KERNEL:
		return "kernel";
	case FRAME_JIT:
		return "jit";
	case FRAME_PROCESS:
		return "process";
	case FRAME_NATIVE:
		break;
	}
	return "native";
}

/* ---- interned strings: chunks that never move ---- */

struct strpool {
	char **chunks;
	size_t nchunks, chunks_cap;
	size_t used, left; /* in the last chunk */
	char **slots;	   /* open addressing, power of two */
	size_t nslots, count;
};

#define STRPOOL_CHUNK 65536

static char *strpool_copy(struct strpool *p, const char *s, size_t n)
{
	if (n + 1 > p->left) {
		size_t sz = n + 1 > STRPOOL_CHUNK ? n + 1 : STRPOOL_CHUNK;
		grow_array((void **)&p->chunks, &p->chunks_cap, p->nchunks + 1, sizeof(char *));
		p->chunks[p->nchunks++] = xmalloc(sz);
		p->used = 0;
		p->left = sz;
	}
	char *d = p->chunks[p->nchunks - 1] + p->used;
	memcpy(d, s, n + 1);
	p->used += n + 1;
	p->left -= n + 1;
	return d;
}

static void strpool_rehash(struct strpool *p)
{
	size_t n = p->nslots ? p->nslots * 2 : 1024;
	char **slots = xcalloc(n, sizeof(*slots));
	for (size_t i = 0; i < p->nslots; i++) {
		if (!p->slots[i])
			continue;
		size_t j = hash_str(0, p->slots[i]) & (n - 1);
		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = p->slots[i];
	}
	free(p->slots);
	p->slots = slots;
	p->nslots = n;
}

static const char *strpool_intern(struct strpool *p, const char *s)
{
	if (2 * (p->count + 1) > p->nslots)
		strpool_rehash(p);
	size_t j = hash_str(0, s) & (p->nslots - 1);
	while (p->slots[j]) {
		if (!strcmp(p->slots[j], s))
			return p->slots[j];
		j = (j + 1) & (p->nslots - 1);
	}
	p->count++;
	return p->slots[j] = strpool_copy(p, s, strlen(s));
}

static void strpool_free(struct strpool *p)
{
	for (size_t i = 0; i < p->nchunks; i++)
		free(p->chunks[i]);
	free(p->chunks);
	free(p->slots);
}

/* ---- functions ---- */

struct func {
	const char *sym, *dso, *name;
	uint64_t hash;
	uint64_t ip; /* the first address seen in it; 0 when none */
	enum frame_kind kind;
};

struct functable {
	struct strpool strings;
	struct func *funcs;
	size_t count, cap;
	uint32_t *slots; /* id + 1; 0 = empty */
	size_t nslots;
};

struct functable *functable_new(void)
{
	return xcalloc(1, sizeof(struct functable));
}

void functable_free(struct functable *ft)
{
	if (!ft)
		return;
	strpool_free(&ft->strings);
	free(ft->funcs);
	free(ft->slots);
	free(ft);
}

static uint64_t func_hash(const char *sym, const char *dso)
{
	return hash_str(hash_str(1, sym), dso);
}

static void functable_rehash(struct functable *ft)
{
	size_t n = ft->nslots ? ft->nslots * 2 : 1024;
	uint32_t *slots = xcalloc(n, sizeof(*slots));
	for (size_t id = 0; id < ft->count; id++) {
		size_t j = ft->funcs[id].hash & (n - 1);
		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = (uint32_t)id + 1;
	}
	free(ft->slots);
	ft->slots = slots;
	ft->nslots = n;
}

static const char *display_name(struct functable *ft, const char *sym, const char *dso)
{
	if (*sym && strcmp(sym, "[unknown]"))
		return sym;
	if (!*dso || !strcmp(dso, "[unknown]"))
		return strpool_intern(&ft->strings, "[unknown]");
	const char *base = strrchr(dso, '/');
	base = base && base[1] ? base + 1 : dso;
	if (base[0] == '[')
		return base;
	char *n = xasprintf("[%s]", base);
	const char *r = strpool_intern(&ft->strings, n);
	free(n);
	return r;
}

static uint32_t intern(struct functable *ft, const char *sym, const char *dso, int kind,
		       uint64_t ip)
{
	if (2 * (ft->count + 1) > ft->nslots)
		functable_rehash(ft);
	uint64_t h = func_hash(sym, dso);
	size_t j = h & (ft->nslots - 1);
	for (; ft->slots[j]; j = (j + 1) & (ft->nslots - 1)) {
		const struct func *f = &ft->funcs[ft->slots[j] - 1];
		if (f->hash == h && !strcmp(f->sym, sym) && !strcmp(f->dso, dso))
			return ft->slots[j] - 1;
	}
	grow_array((void **)&ft->funcs, &ft->cap, ft->count + 1, sizeof(*ft->funcs));
	struct func *f = &ft->funcs[ft->count];
	f->sym = strpool_intern(&ft->strings, sym);
	f->dso = strpool_intern(&ft->strings, dso);
	f->name = display_name(ft, f->sym, f->dso);
	f->hash = h;
	f->ip = ip;
	f->kind = kind >= 0 ? (enum frame_kind)kind : frame_kind_of(sym, dso, ip);
	ft->slots[j] = (uint32_t)++ft->count;
	return (uint32_t)ft->count - 1;
}

uint32_t functable_intern(struct functable *ft, const char *sym, const char *dso,
			  enum frame_kind kind)
{
	return intern(ft, sym, dso, (int)kind, 0);
}

uint32_t functable_intern_frame(struct functable *ft, const char *sym, const char *dso, uint64_t ip)
{
	return intern(ft, sym, dso, -1, ip);
}

size_t functable_count(const struct functable *ft)
{
	return ft->count;
}

const char *functable_sym(const struct functable *ft, uint32_t id)
{
	return ft->funcs[id].sym;
}

const char *functable_dso(const struct functable *ft, uint32_t id)
{
	return ft->funcs[id].dso;
}

uint64_t functable_ip(const struct functable *ft, uint32_t id)
{
	return ft->funcs[id].ip;
}

enum frame_kind functable_kind(const struct functable *ft, uint32_t id)
{
	return ft->funcs[id].kind;
}

const char *functable_name(const struct functable *ft, uint32_t id)
{
	return ft->funcs[id].name;
}

/* ---- the trie ---- */

struct calltree {
	struct functable *ft;
	struct calltree_node *nodes;
	size_t count, cap;
	uint32_t *slots; /* child index by (parent, func): node index + 1; 0 = empty */
	size_t nslots;
};

static uint64_t child_hash(uint32_t parent, uint32_t func)
{
	return hash_mix((uint64_t)parent << 32 | func);
}

static void calltree_rehash(struct calltree *t)
{
	size_t n = t->nslots ? t->nslots * 2 : 4096;
	uint32_t *slots = xcalloc(n, sizeof(*slots));
	for (size_t i = 1; i < t->count; i++) {
		size_t j = child_hash(t->nodes[i].parent, t->nodes[i].func) & (n - 1);
		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
}

struct calltree *calltree_new(struct functable *ft)
{
	struct calltree *t = xcalloc(1, sizeof(*t));
	t->ft = ft;
	grow_array((void **)&t->nodes, &t->cap, 1, sizeof(*t->nodes));
	t->nodes[0] = (struct calltree_node){.func = CALLTREE_NONE,
					     .parent = CALLTREE_NONE,
					     .first_child = CALLTREE_NONE,
					     .next_sibling = CALLTREE_NONE};
	t->count = 1;
	calltree_rehash(t);
	return t;
}

void calltree_free(struct calltree *t)
{
	if (!t)
		return;
	free(t->nodes);
	free(t->slots);
	free(t);
}

struct functable *calltree_functable(const struct calltree *t)
{
	return t->ft;
}

static uint32_t child_of(struct calltree *t, uint32_t parent, uint32_t func)
{
	if (2 * (t->count + 1) > t->nslots)
		calltree_rehash(t);
	size_t j = child_hash(parent, func) & (t->nslots - 1);
	for (; t->slots[j]; j = (j + 1) & (t->nslots - 1)) {
		uint32_t i = t->slots[j] - 1;
		if (t->nodes[i].parent == parent && t->nodes[i].func == func)
			return i;
	}
	if (t->count >= UINT32_MAX - 1)
		abort(); /* 4 billion unique stack prefixes: memory ran out long before */
	grow_array((void **)&t->nodes, &t->cap, t->count + 1, sizeof(*t->nodes));
	uint32_t i = (uint32_t)t->count++;
	t->nodes[i] = (struct calltree_node){.func = func,
					     .parent = parent,
					     .first_child = CALLTREE_NONE,
					     .next_sibling = t->nodes[parent].first_child,
					     .depth = t->nodes[parent].depth + 1};
	t->nodes[parent].first_child = i;
	t->slots[j] = i + 1;
	return i;
}

void calltree_add(struct calltree *t, const uint32_t *funcs, size_t n, uint64_t weight)
{
	uint32_t at = CALLTREE_ROOT;
	t->nodes[at].total += weight;
	for (size_t k = 0; k < n; k++) {
		at = child_of(t, at, funcs[k]);
		t->nodes[at].total += weight;
	}
	t->nodes[at].self += weight;
}

uint32_t calltree_insert(struct calltree *t, const uint32_t *funcs, size_t n)
{
	uint32_t at = CALLTREE_ROOT;
	for (size_t k = 0; k < n; k++)
		at = child_of(t, at, funcs[k]);
	return at;
}

void calltree_add_weight(struct calltree *t, uint32_t node, uint64_t weight)
{
	if (node >= t->count)
		return;
	t->nodes[node].self += weight;
	for (uint32_t at = node; at != CALLTREE_NONE; at = t->nodes[at].parent)
		t->nodes[at].total += weight;
}

size_t calltree_count(const struct calltree *t)
{
	return t->count;
}

const struct calltree_node *calltree_node(const struct calltree *t, uint32_t i)
{
	return &t->nodes[i];
}

uint64_t calltree_total(const struct calltree *t)
{
	return t->nodes[CALLTREE_ROOT].total;
}

static int by_total(const void *a, const void *b, void *arg)
{
	const struct calltree *t = arg;
	const struct calltree_node *x = &t->nodes[*(const uint32_t *)a];
	const struct calltree_node *y = &t->nodes[*(const uint32_t *)b];
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	int c = strcmp(functable_name(t->ft, x->func), functable_name(t->ft, y->func));
	return c ? c : (x->func > y->func) - (x->func < y->func);
}

static int by_name(const void *a, const void *b, void *arg)
{
	const struct calltree *t = arg;
	const struct calltree_node *x = &t->nodes[*(const uint32_t *)a];
	const struct calltree_node *y = &t->nodes[*(const uint32_t *)b];
	int c = strcmp(functable_name(t->ft, x->func), functable_name(t->ft, y->func));
	return c ? c : (x->func > y->func) - (x->func < y->func);
}

size_t calltree_children(const struct calltree *t, uint32_t i, enum calltree_order order,
			 uint32_t **out, size_t *cap)
{
	size_t n = 0;
	for (uint32_t c = t->nodes[i].first_child; c != CALLTREE_NONE;
	     c = t->nodes[c].next_sibling) {
		grow_array((void **)out, cap, n + 1, sizeof(**out));
		(*out)[n++] = c;
	}
	if (n > 1)
		qsort_r(*out, n, sizeof(**out), order == CALLTREE_BY_NAME ? by_name : by_total,
			(void *)t);
	return n;
}

struct calltree *calltree_derive(const struct calltree *t, unsigned flags)
{
	struct calltree *d = calltree_new(t->ft);
	uint32_t *path = NULL;
	size_t cap = 0;
	/* For CALLTREE_MERGE_NAMES: func -> 1 + the func (name, "") of the same kind. */
	uint32_t *by_name = NULL;
	size_t nf = functable_count(t->ft);
	if (flags & CALLTREE_MERGE_NAMES)
		by_name = xcalloc(nf ? nf : 1, sizeof(*by_name));
	for (uint32_t i = 0; i < t->count; i++) {
		const struct calltree_node *nd = &t->nodes[i];
		if (!nd->self)
			continue;
		/* The path leaf first, which is the inverted order already. */
		size_t n = 0;
		for (uint32_t at = i; at != CALLTREE_ROOT; at = t->nodes[at].parent) {
			grow_array((void **)&path, &cap, n + 1, sizeof(*path));
			path[n++] = t->nodes[at].func;
		}
		if ((flags & CALLTREE_DROP_FIRST) && n)
			n--;
		for (size_t k = 0; by_name && k < n; k++) {
			uint32_t f = path[k];
			if (f >= nf)
				continue; /* cannot be: t's functions all predate this call */
			if (!by_name[f])
				by_name[f] = 1 + functable_intern(t->ft, functable_name(t->ft, f),
								  "", functable_kind(t->ft, f));
			path[k] = by_name[f] - 1;
		}
		if (!(flags & CALLTREE_INVERT))
			for (size_t a = 0, b = n; a + 1 < b; a++, b--) {
				uint32_t x = path[a];
				path[a] = path[b - 1];
				path[b - 1] = x;
			}
		calltree_add(d, path, n, nd->self);
	}
	free(by_name);
	free(path);
	return d;
}

void calltree_func_weights(const struct calltree *t, uint64_t **self, uint64_t **incl)
{
	size_t nf = functable_count(t->ft);
	*self = xcalloc(nf ? nf : 1, sizeof(uint64_t));
	*incl = xcalloc(nf ? nf : 1, sizeof(uint64_t));
	/* stamp[f] = the stack (node index + 1) that last counted f, so recursion counts once. */
	uint32_t *stamp = xcalloc(nf ? nf : 1, sizeof(uint32_t));
	for (uint32_t i = 1; i < t->count; i++) {
		const struct calltree_node *nd = &t->nodes[i];
		if (!nd->self)
			continue;
		(*self)[nd->func] += nd->self;
		for (uint32_t at = i; at != CALLTREE_ROOT; at = t->nodes[at].parent) {
			uint32_t f = t->nodes[at].func;
			if (stamp[f] == i + 1)
				continue;
			stamp[f] = i + 1;
			(*incl)[f] += nd->self;
		}
	}
	free(stamp);
}
