/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_TESTS_HARNESS_H
#define DCSIM_TESTS_HARNESS_H

/*
 * Shared test harness: environment knobs, a seeded PRNG, HTM policy
 * handling and strategy iteration.  Generic: no test framework assumed.
 *
 * Environment:
 *   DCSIM_SEED=<n>     base seed (default fixed, printed)
 *   DCSIM_HTM=...      honoured by the library; tests that pin a policy
 *                      restore the environment's one afterwards
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dcsim/htm.h>
#include <dcsim/strategy.h>

/** dcsim_test_env_u64() - integer from the environment, or @def. */
uint64_t dcsim_test_env_u64(const char *name, uint64_t def);

/** dcsim_test_seed() - DCSIM_SEED or @def; printed once to stderr. */
uint64_t dcsim_test_seed(uint64_t def);

/* The checkers' generator (splitmix64, src/base/rng.h) behind a test-sized API. */
struct dcsim_rng {
	uint64_t s;
};

void dcsim_rng_seed(struct dcsim_rng *r, uint64_t seed);
uint64_t dcsim_rng_next(struct dcsim_rng *r);
/** dcsim_rng_below() - uniform in [0, n), n > 0. */
uint32_t dcsim_rng_below(struct dcsim_rng *r, uint32_t n);

/** dcsim_test_env_policy() - the policy the environment asked for (DCSIM_HTM, default auto). */
enum dcsim_htm_policy dcsim_test_env_policy(void);

/** dcsim_test_print_htm() - one line on stderr: policy, backend, live. */
void dcsim_test_print_htm(const char *who);

/*
 * HTM policies a suite should run a strategy under: for strategies with
 * DCSIM_STRATEGY_USES_HTM, "off" and the environment's policy (if it
 * differs); otherwise just the environment's.  Return: count (<= 2).
 */
size_t dcsim_test_policies(const struct dcsim_dput_strategy *s, enum dcsim_htm_policy out[2]);

#endif
