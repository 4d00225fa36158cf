// SPDX-License-Identifier: LGPL-2.1-or-later
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <dcsim/config.h>
#if DCSIM_INSTRUMENT
#include <dcsim/explore.h>
#endif

#include "harness.h"
#include "../../src/base/rng.h"

uint64_t dcsim_test_env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long x;

	if (!v || !*v)
		return def;
	x = strtoull(v, &end, 0);
	if (*end) {
		fprintf(stderr, "test: %s='%s' is not a number; using %" PRIu64 "\n", name, v, def);
		return def;
	}
	return x;
}

uint64_t dcsim_test_seed(uint64_t def)
{
	static bool printed;
	uint64_t seed = dcsim_test_env_u64("DCSIM_SEED", def);

	if (!printed) {
		fprintf(stderr, "test: seed %" PRIu64 " (override with DCSIM_SEED)\n", seed);
		printed = true;
	}
	return seed;
}

void dcsim_rng_seed(struct dcsim_rng *r, uint64_t seed)
{
	r->s = seed;
}

uint64_t dcsim_rng_next(struct dcsim_rng *r)
{
	return splitmix64_next(&r->s);
}

uint32_t dcsim_rng_below(struct dcsim_rng *r, uint32_t n)
{
	return (uint32_t)splitmix64_below(&r->s, n);
}

enum dcsim_htm_policy dcsim_test_env_policy(void)
{
	enum dcsim_htm_policy p = DCSIM_HTM_AUTO;
	const char *v = getenv("DCSIM_HTM");

	if (v && dcsim_htm_policy_parse(v, &p))
		p = DCSIM_HTM_OFF;
	return p;
}

void dcsim_test_print_htm(const char *who)
{
	struct dcsim_htm_info info;

	dcsim_htm_get_info(&info);
	fprintf(stderr, "%s: HTM policy %s, backend %s, cpu_has_htm %d, live %d\n", who,
		dcsim_htm_policy_name(info.policy), dcsim_htm_backend_name(info.backend),
		info.cpu_has_htm, info.live);
}

size_t dcsim_test_policies(const struct dcsim_dput_strategy *s, enum dcsim_htm_policy out[2])
{
	enum dcsim_htm_policy env = dcsim_test_env_policy();
	size_t n = 0;

	if (s->flags & DCSIM_STRATEGY_USES_HTM && env != DCSIM_HTM_OFF)
		out[n++] = DCSIM_HTM_OFF;
	out[n++] = env;
	return n;
}

#if DCSIM_INSTRUMENT
/*
 * Outside a suite's scope the lock order validator of real threads only
 * warns (docs/lock-order.md).  In a test, a warning is a failure: one
 * made in the process's own scope fails the test at exit.
 */
__attribute__((destructor)) static void lockdep_at_exit(void)
{
	unsigned long n = dcsim_lockdep_reports();

	if (n) {
		fprintf(stderr, "test: the lock order validator of real threads made %lu report%s "
			"(above): a failure\n", n, n > 1 ? "s" : "");
		fflush(stderr);
		_exit(1);
	}
}
#endif
