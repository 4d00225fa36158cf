/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_SRC_RNG_H
#define DCSIM_SRC_RNG_H

/*
 * splitmix64, the one source of randomness of the checkers (trace
 * generator, explorer, stress) and of the tests (tests/common/harness.h):
 * tiny, and every seed, 0 included, gives a good stream, so a seed on a
 * replay line names one run.  Internal and header-only, with no include of
 * the project, so that every layer may use it (tests/layering.py).
 */

#include <stdint.h>

static inline uint64_t splitmix64_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * splitmix64_below() - a value in [0, @n), 0 if @n is 0.  The modulo's
 * bias (under 2^-40 for the n < 2^24 the checkers use) does not matter to
 * a test generator; a stream of this function is what a seed replays.
 */
static inline uint64_t splitmix64_below(uint64_t *s, uint64_t n)
{
	return n ? splitmix64_next(s) % n : 0;
}

#endif /* DCSIM_SRC_RNG_H */
