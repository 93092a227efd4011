/* hash: the one hash of the in-memory tables (base/htab.h) and caches: integers
 * (hash_mix, hash_two), bytes and strings (hash_bytes, hash_str).  Eight bytes a step
 * (FNV-1a's byte a step was 4-5 % of post-processing's CPU, on stacks); the result is well
 * mixed in its low bits, which the tables index by.  Not for anything written out or
 * compared across runs: it may be tuned.  hash_stable32 is the exception, for output. */
#ifndef PC_HASH_H
#define PC_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t hash_mix(uint64_t h)
{
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ULL;
	h ^= h >> 32;
	return h;
}

/* Two words at once: a pid and an address, a parent and a child. */
static inline uint64_t hash_two(uint64_t a, uint64_t b)
{
	return hash_mix(a * 0x9e3779b97f4a7c15ULL ^ b);
}

static inline uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
	for (; n >= 8; s += 8, n -= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 29;
	}
	if (n) {
		uint64_t w = 0;
		memcpy(&w, s, n);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
	}
	return hash_mix(h);
}

static inline uint64_t hash_str(const char *s)
{
	return hash_bytes(s, strlen(s));
}

/* FNV-1a, 32 bits: for what is written out and must not change when the hash above is
 * tuned (a flame graph's colours follow its frames' names, the same in every version). */
static inline uint32_t hash_stable32(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

#endif
