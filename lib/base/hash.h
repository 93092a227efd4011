/* hash: a fast 64-bit hash of bytes for the in-memory tables (interned stacks, symbols,
 * tallies).  Eight bytes a step (FNV-1a's byte a step was 4-5 % of post-processing's
 * CPU, on stacks); the result is well mixed in its low bits, which the open-addressing
 * tables index by.  Not for anything written out or compared across runs. */
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

#endif
