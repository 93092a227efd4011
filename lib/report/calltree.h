/* calltree: stacks aggregated into a trie of functions, with weights.
 *
 * A functable interns each function once (symbol + shared object, with its kind: kernel,
 * native, JIT-compiled, ReadyToRun (precompiled .NET code), the .NET runtime itself); a calltree is
 * a trie over function ids whose nodes carry the weight of the stacks that end there (self) and
 * pass through (total).  Memory is proportional to the number of unique stack prefixes, never to
 * the number of samples.  The weight is whatever the caller adds: 1 per sample, or nanoseconds of
 * blocked time (offcpu.h).
 *
 * Trees are built in one orientation (the caller adds frames root first) and re-shaped with
 * calltree_derive(): drop the process level, or invert so that leaves become roots.
 */
#ifndef PC_CALLTREE_H
#define PC_CALLTREE_H

#include "base/util.h"

enum frame_kind {
	FRAME_NATIVE,
	FRAME_KERNEL,
	FRAME_JIT,     /* JIT-compiled code: perf maps, jitdump, .NET's JIT, JS */
	FRAME_PROCESS, /* a pseudo-frame naming the process (comm) at the root of a stack */
	FRAME_R2R,     /* precompiled .NET code (ReadyToRun): in a .dll image */
	FRAME_RUNTIME, /* the .NET runtime's own native code (libcoreclr.so, libclrjit.so ...) */
	FRAME_KINDS
};

/* The kind of a frame from its symbol, shared object and address. */
enum frame_kind frame_kind_of(const char *sym, const char *dso, uint64_t ip);
/* "native", "kernel", "jit", "process", "r2r", "runtime" */
const char *frame_kind_name(enum frame_kind k);
/* Managed code, JIT-compiled or precompiled (what reports mark [j]). */
bool frame_kind_managed(enum frame_kind k);

struct functable;
struct functable *functable_new(void);
void functable_free(struct functable *ft);
/* The id of (sym, dso), added with `kind` the first time it is seen. */
uint32_t functable_intern(struct functable *ft, const char *sym, const char *dso,
			  enum frame_kind kind);
/* The same, the kind found by frame_kind_of() the first time (sample parsing's fast path). */
uint32_t functable_intern_frame(struct functable *ft, const char *sym, const char *dso,
				uint64_t ip);
size_t functable_count(const struct functable *ft);
const char *functable_sym(const struct functable *ft, uint32_t id);
const char *functable_dso(const struct functable *ft, uint32_t id);
enum frame_kind functable_kind(const struct functable *ft, uint32_t id);
/* The first address seen in the function (functable_intern_frame), or 0. */
uint64_t functable_ip(const struct functable *ft, uint32_t id);
/* What to show: the symbol, or "[<dso file name>]" when the symbol is unknown (as
 * stackcollapse-perf does), or "[unknown]". */
const char *functable_name(const struct functable *ft, uint32_t id);

#define CALLTREE_ROOT 0u
#define CALLTREE_NONE UINT32_MAX

struct calltree_node {
	uint32_t func;				    /* meaningless for the root */
	uint32_t parent, first_child, next_sibling; /* CALLTREE_NONE when absent */
	uint32_t depth;				    /* 0 for the root */
	uint64_t self;				    /* weight of the stacks that end here */
	uint64_t total;				    /* self plus the children's totals */
};

struct calltree;
/* ft is borrowed: it must outlive the tree (several trees share one table). */
struct calltree *calltree_new(struct functable *ft);
void calltree_free(struct calltree *t);
struct functable *calltree_functable(const struct calltree *t);

/* A weight as reports show it: a count, or divided by unit_div with two decimals (ns as ms).
 * Returns buf. */
const char *calltree_weight_str(uint64_t w, uint64_t unit_div, char *buf, size_t len);

/* Adds weight to the stack funcs[0..n), funcs[0] next to the root. */
void calltree_add(struct calltree *t, const uint32_t *funcs, size_t n, uint64_t weight);
/* The node of the stack funcs[0..n), added without weight when new: for weights known only
 * later (blocked time ends at the switch-in).  Node numbers never change. */
uint32_t calltree_insert(struct calltree *t, const uint32_t *funcs, size_t n);
/* Adds weight to the stack that ends at node (its self, its and its ancestors' totals). */
void calltree_add_weight(struct calltree *t, uint32_t node, uint64_t weight);

size_t calltree_count(const struct calltree *t); /* nodes, the root included */
const struct calltree_node *calltree_node(const struct calltree *t, uint32_t i);
uint64_t calltree_total(const struct calltree *t); /* the root's total */

enum calltree_order {
	CALLTREE_BY_TOTAL, /* heaviest first, then by name */
	CALLTREE_BY_NAME,  /* by display name, as flame graphs lay them out */
};
/* The children of node i, in *out (grown as needed); returns how many. */
size_t calltree_children(const struct calltree *t, uint32_t i, enum calltree_order order,
			 uint32_t **out, size_t *cap);

#define CALLTREE_DROP_FIRST  1u /* drop the frame next to the root (the process level) */
#define CALLTREE_INVERT	     2u /* leaves become roots: the callee view */
#define CALLTREE_MERGE_NAMES 4u /* functions that show the same name become one (folded output) */
/* A new tree over the same functable with every stack of t re-added as flags say. */
struct calltree *calltree_derive(const struct calltree *t, unsigned flags);

/* A new tree over the same functable with every function f of t replaced by map[f] (stacks
 * that become alike merge).  node_map, when not NULL, gets a malloc'd array: for each node of
 * t, the node it became. */
struct calltree *calltree_remap(const struct calltree *t, const uint32_t *map, uint32_t **node_map);

/* Self and inclusive weight of each function (arrays of functable_count() entries, to be
 * freed by the caller).  A recursive function counts once per stack in incl. */
void calltree_func_weights(const struct calltree *t, uint64_t **self, uint64_t **incl);

#endif
