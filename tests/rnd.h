/*
 * rnd.h: a xorshift64 generator for tests and benchmarks, so that their
 * "random" text is the same on every machine and every run.  Define
 * RND_SEED before including it for another sequence.
 */
#ifndef AXG_TESTS_RND_H
#define AXG_TESTS_RND_H

#include <stdint.h>

#ifndef RND_SEED
#define RND_SEED 0x9e3779b97f4a7c15ULL
#endif

static uint64_t rng = RND_SEED;

static inline uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

#endif
