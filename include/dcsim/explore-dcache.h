/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_EXPLORE_DCACHE_H
#define DCSIM_EXPLORE_DCACHE_H

/*
 * Dentry cache scenarios for the explorer (check build only), and the glue
 * that turns the cache's invariant checker into explorer failures.
 *
 * Each scenario builds a small tree in a fresh cache that uses the strategy
 * under test, runs 2-3 logical threads doing dput() against a racing
 * operation, and at quiescence checks every invariant of
 * dcsim_cache_check() with exact reference accounting (the only reference
 * held outside the cache is the root's), that no misuse warning fired, and
 * the scenario's own expectations (who must be killed, exactly once).
 * Deferred frees run after the check, so "freed while reachable" is caught
 * as a reachable DCSIM_DCACHE_FREED dentry rather than as a crash.
 *
 * A user who registers a strategy (<dcsim/strategy.h>) can run every
 * scenario on it:
 *
 *	for (int i = 0; i < DCSIM_DSCN_NR; i++)
 *		if (dcsim_explore_dcache(my_strategy, i, &opts, &res))
 *			...res.failure, and the report on stderr...
 */

#include <stddef.h>

#include <dcsim/cache.h>
#include <dcsim/compiler.h>
#include <dcsim/explore.h>
#include <dcsim/strategy.h>

enum dcsim_dcache_scenario {
	DCSIM_DSCN_FINAL_DPUTS,		/* concurrent final dputs of one dentry */
	DCSIM_DSCN_FINAL_DPUTS_COLD,	/* same, dentry not yet on the LRU */
	DCSIM_DSCN_DPUT_VS_DROP,	/* dput racing lookup + d_drop + dput */
	DCSIM_DSCN_DPUT_VS_DELETE,	/* dput racing lookup + d_delete + dput */
	DCSIM_DSCN_LOOKUP_SHRINK,	/* dput racing lookups and the shrinker */
	DCSIM_DSCN_OP_DELETE,		/* final dputs of DCACHE_OP_DELETE dentries */
	DCSIM_DSCN_CASCADE,		/* kills walking up while children are looked up */
	DCSIM_DSCN_NR
};

/** dcsim_dcache_scenario_name() - short stable name ("final-dputs"), NULL if out of range. */
DCSIM_API const char *dcsim_dcache_scenario_name(enum dcsim_dcache_scenario scn);

/**
 * dcsim_explore_dcache() - explore scenario @scn with strategy @s.
 * The explorer scenario is named "<scn>/<strategy>/<htm>" (htm: off,
 * sim-commit or sim-aborts), which DCSIM_EXPLORE_SCENARIO matches.
 * Return: as dcsim_explore_run().
 */
DCSIM_API int dcsim_explore_dcache(const struct dcsim_dput_strategy *s,
				   enum dcsim_dcache_scenario scn,
				   const struct dcsim_explore_opts *opts,
				   struct dcsim_explore_result *res);

/**
 * dcsim_explore_check_cache() - run dcsim_cache_check() on @cache (flags as
 * there) and turn violations into dcsim_explore_fail() with the report.
 * Return: the number of violations.
 */
DCSIM_API unsigned int dcsim_explore_check_cache(struct dcsim_cache *cache,
						 const struct dcsim_held_ref *held,
						 size_t nr_held, unsigned int flags);

#endif /* DCSIM_EXPLORE_DCACHE_H */
