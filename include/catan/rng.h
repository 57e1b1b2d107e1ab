/*
 * catan/rng.h - the deterministic random number generator of the core.
 *
 * SplitMix64: one 64-bit word of state, integer arithmetic only, the same
 * sequence on every machine. The game RNG lives inside the game state and
 * only the core advances it; bots and cosmetics use RNGs of their own.
 */
#ifndef CATAN_RNG_H
#define CATAN_RNG_H

#include <stdint.h>

typedef struct catan_rng {
	uint64_t s;
} catan_rng;

static inline void catan_rng_seed(catan_rng *r, uint64_t seed)
{
	r->s = seed ^ 0x6a09e667f3bcc909ull;
}

static inline uint64_t catan_rng_next(catan_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * Uniform integer in [0, n), n >= 1, without modulo bias (Lemire's
 * multiply-shift with rejection). Deterministic.
 */
static inline uint32_t catan_rng_below(catan_rng *r, uint32_t n)
{
	uint64_t m = (uint64_t)(uint32_t)(catan_rng_next(r) >> 32) * n;
	uint32_t low = (uint32_t)m;
	if (low < n) {
		uint32_t t = (uint32_t)(-n) % n;
		while (low < t) {
			m = (uint64_t)(uint32_t)(catan_rng_next(r) >> 32) * n;
			low = (uint32_t)m;
		}
	}
	return (uint32_t)(m >> 32);
}

#endif
