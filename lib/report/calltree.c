/* calltree: see calltree.h. */
#include "calltree.h"
#include "base/hash.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* The runtime's native libraries (the host's, the runtime's and the framework's shims). */
static bool is_dotnet_runtime(const char *base)
{
	static const char *const libs[] = {"libcoreclr.so",
					   "libclrjit.so",
					   "libhostpolicy.so",
					   "libhostfxr.so",
					   "libSystem.",
					   "libmscordaccore.so",
					   "libcoreclrtraceptprovider.so"};
	for (size_t i = 0; i < ARRAY_SIZE(libs); i++)
		if (str_startswith(base, libs[i]))
			return true;
	return false;
}

enum frame_kind frame_kind_of(const char *sym, const char *dso, uint64_t ip)
{
	if (!strcmp(dso, "[kernel.kallsyms]") || str_startswith(dso, "[kernel.") ||
	    is_kernel_module(dso))
		return FRAME_KERNEL;
	const char *base = strrchr(dso, '/');
	base = base ? base + 1 : dso;
	size_t bl = strlen(base);
	if (bl > 4 && !strcasecmp(base + bl - 4, ".dll"))
		return FRAME_R2R;
	if (str_startswith(sym, "JS:") || is_perf_map(base) || str_startswith(base, "jit-") ||
	    strstr(base, "jitted") || str_startswith(base, "memfd:doublemapper") ||
	    str_startswith(dso, "[JIT]"))
		return FRAME_JIT;
	if (is_dotnet_runtime(base))
		return FRAME_RUNTIME;
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
	case FRAME_R2R:
		return "r2r";
	case FRAME_RUNTIME:
		return "runtime";
	case FRAME_NATIVE:
	case FRAME_KINDS:
		break;
	}
	return "native";
}

bool frame_kind_managed(enum frame_kind k)
{
	return k == FRAME_JIT || k == FRAME_R2R;
}

/* ---- interned strings: chunks that never move ---- */

#define HTAB_NAME	    string_set
#define HTAB_ENTRY	    const char *
#define HTAB_KEY	    const char *
#define HTAB_EMPTY(e)	    (!*(e))
#define HTAB_HASH(t, e)	    hash_str(*(e))
#define HTAB_MATCH(t, e, k) (!strcmp(*(e), (k)))
#define HTAB_MIN	    1024
#include "base/htab.h"

struct strpool {
	char **chunks;
	size_t nchunks, chunks_cap;
	size_t used, left; /* in the last chunk */
	struct string_set set;
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

static const char *strpool_intern(struct strpool *p, const char *s)
{
	bool found;
	const char **e = string_set_insert(&p->set, s, hash_str(s), &found);
	if (!found)
		*e = strpool_copy(p, s, strlen(s));
	return *e;
}

static void strpool_free(struct strpool *p)
{
	for (size_t i = 0; i < p->nchunks; i++)
		free(p->chunks[i]);
	free(p->chunks);
	string_set_free(&p->set);
}

/* ---- functions ---- */

struct func {
	const char *sym, *dso, *name;
	uint64_t hash;
	uint64_t ip; /* the first address seen in it; 0 when none */
	enum frame_kind kind;
};

struct func_key {
	const char *sym, *dso;
	uint64_t hash;
};

/* Function ids by name: a slot is the id + 1 (0: empty) into the table's funcs. */
#define HTAB_NAME	func_ids
#define HTAB_ENTRY	uint32_t
#define HTAB_KEY	struct func_key
#define HTAB_CTX	struct func *const * /* the functable's funcs */
#define HTAB_EMPTY(e)	(!*(e))
#define FUNC_OF(t, e)	(&(*(t)->ctx)[*(e)-1])
#define HTAB_HASH(t, e) (FUNC_OF(t, e)->hash)
#define HTAB_MATCH(t, e, k)                                                                        \
	(FUNC_OF(t, e)->hash == (k).hash && !strcmp(FUNC_OF(t, e)->sym, (k).sym) &&                \
	 !strcmp(FUNC_OF(t, e)->dso, (k).dso))
#define HTAB_MIN 1024
#include "base/htab.h"
#undef FUNC_OF

struct functable {
	struct strpool strings;
	struct func *funcs;
	size_t count, cap;
	struct func_ids ids;
};

struct functable *functable_new(void)
{
	struct functable *ft = xcalloc(1, sizeof(struct functable));
	ft->ids.ctx = &ft->funcs;
	return ft;
}

void functable_free(struct functable *ft)
{
	if (!ft)
		return;
	strpool_free(&ft->strings);
	free(ft->funcs);
	func_ids_free(&ft->ids);
	free(ft);
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
	struct func_key key = {sym, dso, hash_two(hash_str(sym), hash_str(dso))};
	bool found;
	uint32_t *slot = func_ids_insert(&ft->ids, key, key.hash, &found);
	if (found)
		return *slot - 1;
	grow_array((void **)&ft->funcs, &ft->cap, ft->count + 1, sizeof(*ft->funcs));
	struct func *f = &ft->funcs[ft->count];
	f->sym = strpool_intern(&ft->strings, sym);
	f->dso = strpool_intern(&ft->strings, dso);
	f->name = display_name(ft, f->sym, f->dso);
	f->hash = key.hash;
	f->ip = ip;
	f->kind = kind >= 0 ? (enum frame_kind)kind : frame_kind_of(sym, dso, ip);
	*slot = (uint32_t)++ft->count;
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

struct child_key {
	uint32_t parent, func;
};

/* A node by its parent and function: a slot is the node's index + 1 (0: empty). */
#define HTAB_NAME	    node_ids
#define HTAB_ENTRY	    uint32_t
#define HTAB_KEY	    struct child_key
#define HTAB_CTX	    struct calltree_node *const * /* the tree's nodes */
#define HTAB_EMPTY(e)	    (!*(e))
#define NODE_OF(t, e)	    (&(*(t)->ctx)[*(e)-1])
#define HTAB_HASH(t, e)	    child_hash(NODE_OF(t, e)->parent, NODE_OF(t, e)->func)
#define HTAB_MATCH(t, e, k) (NODE_OF(t, e)->parent == (k).parent && NODE_OF(t, e)->func == (k).func)
#define HTAB_MIN	    4096

static uint64_t child_hash(uint32_t parent, uint32_t func)
{
	return hash_mix((uint64_t)parent << 32 | func);
}

#include "base/htab.h"
#undef NODE_OF

struct calltree {
	struct functable *ft;
	struct calltree_node *nodes;
	size_t count, cap;
	struct node_ids children;
};

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
	t->children.ctx = &t->nodes;
	return t;
}

void calltree_free(struct calltree *t)
{
	if (!t)
		return;
	free(t->nodes);
	node_ids_free(&t->children);
	free(t);
}

struct functable *calltree_functable(const struct calltree *t)
{
	return t->ft;
}

static uint32_t child_of(struct calltree *t, uint32_t parent, uint32_t func)
{
	struct child_key key = {parent, func};
	bool found;
	uint32_t *slot = node_ids_insert(&t->children, key, child_hash(parent, func), &found);
	if (found)
		return *slot - 1;
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
	*slot = i + 1;
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

struct calltree *calltree_remap(const struct calltree *t, const uint32_t *map, uint32_t **node_map)
{
	struct calltree *d = calltree_new(t->ft);
	uint32_t *to = xmalloc(t->count * sizeof(*to));
	to[CALLTREE_ROOT] = CALLTREE_ROOT;
	/* A node comes after its parent: one pass in index order. */
	for (uint32_t i = 1; i < t->count; i++)
		to[i] = child_of(d, to[t->nodes[i].parent], map[t->nodes[i].func]);
	for (uint32_t i = 0; i < t->count; i++)
		if (t->nodes[i].self)
			calltree_add_weight(d, to[i], t->nodes[i].self);
	if (node_map)
		*node_map = to;
	else
		free(to);
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

const char *calltree_weight_str(uint64_t w, uint64_t unit_div, char *buf, size_t len)
{
	if (unit_div > 1)
		snprintf(buf, len, "%.2f", (double)w / (double)unit_div);
	else
		snprintf(buf, len, "%llu", (unsigned long long)w);
	return buf;
}
