/* htab: the hash table, as a template (after elfutils' dynamichash): open addressing with
 * linear probing, a power-of-two number of slots at most half full, removal by backward
 * shift (a removed entry's later run moves up, so there are no tombstones and a lookup
 * stops at the first empty slot).  Entries are stored in the slots themselves: a table of
 * pointers, of ids into an array, or of whole small structs.
 *
 * Each table is instantiated where it is used, by defining and including:
 *
 *	#define HTAB_NAME	     tid_table		// struct tid_table, tid_table_find() ...
 *	#define HTAB_ENTRY	     struct pending	// what a slot holds
 *	#define HTAB_KEY	     uint32_t		// what find and insert are given
 *	#define HTAB_EMPTY(e)	     (!(e)->tid)	// a free slot; all-zero bytes must be one
 *	#define HTAB_HASH(t, e)	     hash_mix((e)->tid)	// the hash of a stored entry
 *	#define HTAB_MATCH(t, e, k)  ((e)->tid == (k))	// entry e holds key k
 *	#define HTAB_CTX	     struct functable * // optional: t->ctx, for HASH and MATCH
 *	#define HTAB_MIN	     64			// optional: the first size (default 16)
 *	#include "base/htab.h"
 *
 * The caller hashes a key with base/hash.h and passes the hash along with the key: it must
 * equal HTAB_HASH of the entry that key matches.  Slots are indexed by the hash's low bits.
 *
 * A zeroed struct is an empty table (with HTAB_CTX, once ctx is set).  Pointers to entries
 * stay valid until the next insert, remove or resize.  Every function is static inline: a
 * table costs only the functions the file calls. */
#ifndef PC_HTAB_H
#define PC_HTAB_H

#include "util.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define HTAB_GLUE_(a, b) a##_##b
#define HTAB_GLUE(a, b)	 HTAB_GLUE_(a, b)

#endif

#if !defined(HTAB_NAME) || !defined(HTAB_ENTRY) || !defined(HTAB_KEY) || !defined(HTAB_EMPTY) ||   \
    !defined(HTAB_HASH) || !defined(HTAB_MATCH)
#error "base/htab.h: define HTAB_NAME, HTAB_ENTRY, HTAB_KEY, HTAB_EMPTY, HTAB_HASH, HTAB_MATCH"
#endif
#ifndef HTAB_MIN
#define HTAB_MIN 16
#endif

#define HTAB_FN(f) HTAB_GLUE(HTAB_NAME, f)

struct HTAB_NAME {
	HTAB_ENTRY *slots;
	size_t cap, n; /* slots (0 or a power of two), entries */
#ifdef HTAB_CTX
	HTAB_CTX ctx;
#endif
};

/* The entry matching key (of hash h), NULL when there is none. */
static inline HTAB_ENTRY *HTAB_FN(find)(const struct HTAB_NAME *t, HTAB_KEY key, uint64_t h)
{
	if (!t->cap)
		return NULL;
	size_t mask = t->cap - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		HTAB_ENTRY *e = &t->slots[i];
		if (HTAB_EMPTY(e))
			return NULL;
		if (HTAB_MATCH(t, e, key))
			return e;
	}
}

/* Puts stored entry e (hash h) in the first free slot of its run; t has room. */
static inline HTAB_ENTRY *HTAB_FN(place_)(struct HTAB_NAME *t, uint64_t h)
{
	size_t mask = t->cap - 1, i = h & mask;
	while (!HTAB_EMPTY(&t->slots[i]))
		i = (i + 1) & mask;
	return &t->slots[i];
}

/* Moves every entry into cap slots (a power of two, more than twice the entries). */
static inline void HTAB_FN(resize)(struct HTAB_NAME *t, size_t cap)
{
	HTAB_ENTRY *old = t->slots;
	size_t oldcap = t->cap;
	t->slots = xcalloc(cap, sizeof(*t->slots));
	t->cap = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (!HTAB_EMPTY(&old[i]))
			*HTAB_FN(place_)(t, HTAB_HASH(t, &old[i])) = old[i];
	free(old);
}

/* Whether one more entry would make t grow. */
static inline bool HTAB_FN(full)(const struct HTAB_NAME *t)
{
	return 2 * (t->n + 1) > t->cap;
}

/* The entry matching key (*found true), or the free slot where it goes (*found false),
 * counted as an entry already: the caller fills it in (not empty) before any other call on
 * t.  Grows t first when needed. */
static inline HTAB_ENTRY *HTAB_FN(insert)(struct HTAB_NAME *t, HTAB_KEY key, uint64_t h,
					  bool *found)
{
	if (HTAB_FN(full)(t))
		HTAB_FN(resize)(t, t->cap ? 2 * t->cap : HTAB_MIN);
	size_t mask = t->cap - 1, i = h & mask;
	for (;; i = (i + 1) & mask) {
		HTAB_ENTRY *e = &t->slots[i];
		if (HTAB_EMPTY(e))
			break;
		if (HTAB_MATCH(t, e, key)) {
			*found = true;
			return e;
		}
	}
	*found = false;
	t->n++;
	return &t->slots[i];
}

/* Removes entry e (a pointer into t's slots): the entries after it in its run move back
 * over the hole unless their home slot lies cyclically after it. */
static inline void HTAB_FN(remove)(struct HTAB_NAME *t, HTAB_ENTRY *e)
{
	size_t mask = t->cap - 1, hole = (size_t)(e - t->slots);
	for (size_t j = (hole + 1) & mask; !HTAB_EMPTY(&t->slots[j]); j = (j + 1) & mask) {
		size_t home = HTAB_HASH(t, &t->slots[j]) & mask;
		if (((j - home) & mask) < ((j - hole) & mask))
			continue; /* home in (hole, j]: it cannot move before it */
		t->slots[hole] = t->slots[j];
		hole = j;
	}
	memset(&t->slots[hole], 0, sizeof(t->slots[hole]));
	t->n--;
}

/* The next entry at or after slot *i (advancing *i past it); NULL after the last:
 * for (size_t i = 0; (e = name_each(t, &i));) ...  Do not insert or remove meanwhile. */
static inline HTAB_ENTRY *HTAB_FN(each)(const struct HTAB_NAME *t, size_t *i)
{
	for (; *i < t->cap; (*i)++)
		if (!HTAB_EMPTY(&t->slots[*i]))
			return &t->slots[(*i)++];
	return NULL;
}

/* Keeps the entries keep() accepts, in the same number of slots (entries are not freed:
 * keep() may release what it refuses). */
static inline void HTAB_FN(retain)(struct HTAB_NAME *t, bool (*keep)(void *arg, HTAB_ENTRY *e),
				   void *arg)
{
	HTAB_ENTRY *old = t->slots;
	t->slots = xcalloc(t->cap, sizeof(*t->slots));
	t->n = 0;
	for (size_t i = 0; i < t->cap; i++) {
		if (HTAB_EMPTY(&old[i]) || !keep(arg, &old[i]))
			continue;
		*HTAB_FN(place_)(t, HTAB_HASH(t, &old[i])) = old[i];
		t->n++;
	}
	free(old);
}

/* For a table of what may have ended, before an insert: when one more entry would grow t,
 * first drops the entries keep() refuses, and doubles t only when a quarter or more is left,
 * so the next pruning is as many insertions away as there are entries now. */
static inline void HTAB_FN(prune)(struct HTAB_NAME *t, bool (*keep)(void *arg, HTAB_ENTRY *e),
				  void *arg)
{
	if (!t->cap || !HTAB_FN(full)(t))
		return;
	HTAB_FN(retain)(t, keep, arg);
	if (4 * (t->n + 1) > t->cap)
		HTAB_FN(resize)(t, 2 * t->cap);
}

/* Empties t, keeping its slots. */
static inline void HTAB_FN(clear)(struct HTAB_NAME *t)
{
	if (t->n)
		memset(t->slots, 0, t->cap * sizeof(*t->slots));
	t->n = 0;
}

/* Frees the slots (not what entries point to): t is an empty table again. */
static inline void HTAB_FN(free)(struct HTAB_NAME *t)
{
	free(t->slots);
	t->slots = NULL;
	t->cap = t->n = 0;
}

#undef HTAB_FN
#undef HTAB_NAME
#undef HTAB_ENTRY
#undef HTAB_KEY
#undef HTAB_EMPTY
#undef HTAB_HASH
#undef HTAB_MATCH
#undef HTAB_MIN
#ifdef HTAB_CTX
#undef HTAB_CTX
#endif
