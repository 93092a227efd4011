/* Unit tests for the hash table template: insert, find, remove and grow, with keys that
 * collide on purpose (a hash that keeps few bits puts long runs in one place, and runs that
 * wrap around the end of the slots), checked against a plain array after every step. */
#include "base/hash.h"
#include "test.h"

#include <stdint.h>

struct pair {
	uint64_t key; /* 0: empty */
	uint64_t val;
};

/* A weak hash on purpose: the keys of a test differ in bits it throws away, so runs are long
 * and removals have to move entries back over the hole. */
static unsigned hash_bits = 64;
static uint64_t weak_hash(uint64_t key)
{
	uint64_t h = hash_mix(key);
	return hash_bits >= 64 ? h : h & ((1ULL << hash_bits) - 1);
}

#define HTAB_NAME	    pairs
#define HTAB_ENTRY	    struct pair
#define HTAB_KEY	    uint64_t
#define HTAB_EMPTY(e)	    (!(e)->key)
#define HTAB_HASH(t, e)	    weak_hash((e)->key)
#define HTAB_MATCH(t, e, k) ((e)->key == (k))
#include "base/htab.h"

/* Every key of the model is found with its value, every other key is not, and each run of
 * the table is intact: every entry is reachable from its home slot without an empty slot. */
static void check_against(const struct pairs *t, const uint64_t *model, size_t nkeys)
{
	size_t n = 0;
	for (uint64_t k = 1; k <= nkeys; k++) {
		struct pair *e = pairs_find(t, k, weak_hash(k));
		if (model[k]) {
			n++;
			CHECK(e && e->val == model[k]);
		} else {
			CHECK(!e);
		}
	}
	CHECK_EQ_U64(t->n, n);
	size_t count = 0;
	struct pair *e;
	for (size_t i = 0; (e = pairs_each(t, &i));) {
		count++;
		size_t mask = t->cap - 1, j = weak_hash(e->key) & mask;
		for (; &t->slots[j] != e; j = (j + 1) & mask)
			CHECK(t->slots[j].key != 0);
	}
	CHECK_EQ_U64(count, n);
	CHECK(t->cap == 0 || 2 * t->n <= t->cap);
}

static void put(struct pairs *t, uint64_t *model, uint64_t k, uint64_t v)
{
	bool found;
	struct pair *e = pairs_insert(t, k, weak_hash(k), &found);
	CHECK(found == (model[k] != 0));
	e->key = k;
	e->val = v;
	model[k] = v;
}

static void del(struct pairs *t, uint64_t *model, uint64_t k)
{
	struct pair *e = pairs_find(t, k, weak_hash(k));
	CHECK((e != NULL) == (model[k] != 0));
	if (e)
		pairs_remove(t, e);
	model[k] = 0;
}

/* Many keys, a pseudo-random mix of inserts, replacements and removals, for each hash
 * strength: the table agrees with the model throughout. */
static void test_random_ops(unsigned bits, size_t nkeys, size_t steps)
{
	hash_bits = bits;
	struct pairs t = {0};
	uint64_t *model = xcalloc(nkeys + 1, sizeof(*model));
	uint64_t x = 88172645463325252ULL;
	for (size_t s = 0; s < steps; s++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t k = 1 + x % nkeys;
		if ((x >> 40) % 3)
			put(&t, model, k, s + 1);
		else
			del(&t, model, k);
		if (s % 997 == 0)
			check_against(&t, model, nkeys);
	}
	check_against(&t, model, nkeys);
	/* remove everything: the table is empty and still usable */
	for (uint64_t k = 1; k <= nkeys; k++)
		if (model[k])
			del(&t, model, k);
	check_against(&t, model, nkeys);
	CHECK_EQ_U64(t.n, 0);
	put(&t, model, 1, 7);
	check_against(&t, model, nkeys);
	pairs_free(&t);
	CHECK(t.slots == NULL && t.cap == 0 && t.n == 0);
	free(model);
}

/* Removals inside one run: the entries after the hole stay reachable (what tombstones would
 * be for), whether the run wraps around the end of the slots or not. */
static void test_run_removal(void)
{
	hash_bits = 0; /* every key's home is slot 0: one run, holes in every place */
	for (uint64_t victim = 1; victim <= 7; victim++) {
		struct pairs t = {0};
		uint64_t model[9] = {0};
		for (uint64_t k = 1; k <= 7; k++)
			put(&t, model, k, k * 10);
		CHECK_EQ_U64(t.cap, 16);
		del(&t, model, victim);
		check_against(&t, model, 8);
		put(&t, model, victim, 99); /* back in, at the end of the run */
		check_against(&t, model, 8);
		pairs_free(&t);
	}
	/* a run that wraps: homes at the last slot */
	hash_bits = 64;
	struct pairs t = {0};
	uint64_t model[200] = {0};
	put(&t, model, 1, 1); /* sizes the table (16 slots) */
	uint64_t last[6];
	size_t nlast = 0;
	for (uint64_t k = 2; k < 200 && nlast < 6; k++)
		if ((weak_hash(k) & 15) == 15)
			last[nlast++] = k;
	CHECK_EQ_U64(nlast, 6);
	for (size_t i = 0; i < 6; i++)
		put(&t, model, last[i], last[i]);
	CHECK_EQ_U64(t.cap, 16);
	for (size_t i = 0; i < 6; i += 2) {
		del(&t, model, last[i]);
		check_against(&t, model, 199);
	}
	pairs_free(&t);
}

/* Growth keeps every entry; clear keeps the slots; retain keeps what it is told to. */
static bool keep_even(void *arg, struct pair *e)
{
	(*(size_t *)arg)++;
	return e->key % 2 == 0;
}

static void test_grow_clear_retain(void)
{
	hash_bits = 64;
	struct pairs t = {0};
	uint64_t *model = xcalloc(100001, sizeof(*model));
	for (uint64_t k = 1; k <= 100000; k++)
		put(&t, model, k, k << 8 | 1);
	check_against(&t, model, 100000);
	CHECK_EQ_U64(t.cap, 262144);
	size_t asked = 0;
	pairs_retain(&t, keep_even, &asked);
	CHECK_EQ_U64(asked, 100000);
	for (uint64_t k = 1; k <= 100000; k += 2)
		model[k] = 0;
	check_against(&t, model, 100000);
	CHECK_EQ_U64(t.cap, 262144);
	pairs_clear(&t);
	memset(model, 0, 100001 * sizeof(*model));
	check_against(&t, model, 100000);
	CHECK_EQ_U64(t.cap, 262144);
	pairs_free(&t);
	free(model);
}

/* A table of strings whose slots are ids into an array (HTAB_CTX): the stored hash is
 * recomputed from the array when the table grows. */
struct names {
	const char **v;
	size_t n;
};
#define HTAB_NAME	    name_ids
#define HTAB_ENTRY	    uint32_t /* id + 1; 0 empty */
#define HTAB_KEY	    const char *
#define HTAB_CTX	    const struct names *
#define HTAB_EMPTY(e)	    (!*(e))
#define HTAB_HASH(t, e)	    hash_str((t)->ctx->v[*(e)-1])
#define HTAB_MATCH(t, e, k) (!strcmp((t)->ctx->v[*(e)-1], (k)))
#define HTAB_MIN	    4
#include "base/htab.h"

static void test_ctx(void)
{
	static const char *words[] = {"alpha", "beta", "gamma", "delta", "epsilon",
				      "zeta",  "eta",  "theta", "iota",	 "kappa"};
	struct names names = {.v = words, .n = ARRAY_SIZE(words)};
	struct name_ids t = {.ctx = &names};
	for (uint32_t i = 0; i < names.n; i++) {
		bool found;
		uint32_t *e = name_ids_insert(&t, words[i], hash_str(words[i]), &found);
		CHECK(!found);
		*e = i + 1;
	}
	CHECK_EQ_U64(t.cap, 32);
	for (uint32_t i = 0; i < names.n; i++) {
		uint32_t *e = name_ids_find(&t, words[i], hash_str(words[i]));
		CHECK(e && *e == i + 1);
	}
	CHECK(!name_ids_find(&t, "omega", hash_str("omega")));
	name_ids_free(&t);
}

/* The hashes: equal input, equal hash; the stable one has FNV-1a's known values. */
static void test_hashes(void)
{
	CHECK(hash_str("abcdefghij") == hash_bytes("abcdefghij", 10));
	CHECK(hash_bytes("abcdefgh", 8) != hash_bytes("abcdefgh\0", 9));
	CHECK(hash_two(1, 2) != hash_two(2, 1));
	CHECK_EQ_U64(hash_stable32(""), 0x811c9dc5u);
	CHECK_EQ_U64(hash_stable32("a"), 0xe40c292cu);
	CHECK_EQ_U64(hash_stable32("foobar"), 0xbf9cf968u);
	/* sequential small keys spread over the low bits */
	unsigned hit[64] = {0};
	for (uint64_t k = 0; k < 64 * 16; k++)
		hit[hash_mix(k) & 63]++;
	for (size_t i = 0; i < 64; i++)
		CHECK(hit[i] > 4 && hit[i] < 40);
}

int main(void)
{
	test_hashes();
	test_run_removal();
	test_random_ops(64, 5000, 200000);
	test_random_ops(6, 3000, 100000); /* 64 homes for 3000 keys: long runs everywhere */
	test_grow_clear_retain();
	test_ctx();
	return TEST_DONE();
}
