/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_SRC_CHECK_SPLITMIX_H
#define DCSIM_SRC_CHECK_SPLITMIX_H

#include <stdint.h>

/*
 * splitmix64, the checkers' source of randomness (trace generator,
 * explorer, stress): tiny, and every seed, 0 included, gives a good
 * stream, so a seed on a replay line names one run.
 */
static inline uint64_t splitmix64_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#endif
