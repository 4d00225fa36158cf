/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_EXPLORE_DCACHE_H
#define DCSIM_EXPLORE_DCACHE_H

/*
 * Dentry cache scenarios for the explorer (instrumented build only), and the glue
 * that turns the cache's invariant checker into explorer failures.
 *
 * Each scenario builds a small tree in a fresh cache that uses the strategy
 * under test, runs 3 logical threads, each a short program of cache calls
 * (dput() against a racing operation), and at quiescence checks every
 * invariant of dcsim_cache_verify() with exact reference accounting (the
 * only references held outside the cache are the root's and the
 * directory's), the number of misuse warnings (0 but in "misuse"), the
 * scenario's own expectations (who must be killed, exactly once), and the
 * state against the executable spec (src/checker/spec.c):
 *  - if the execution was serial (no two calls overlapped), the spec run
 *    in that order must give exactly the same snapshot (flags, counts,
 *    hash and LRU membership and order, counters);
 *  - otherwise the state (everything but LRU order) must be the final
 *    state of at least one serial order of the threads' calls.
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
#include <stdint.h>

#include <dcsim/cache.h>
#include <dcsim/compiler.h>
#include <dcsim/dcache-cover.h>
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
	DCSIM_DSCN_PRUNE_VS_DROP,	/* prune racing lookup + d_drop + dput (husks) */
	DCSIM_DSCN_PRUNE_SIBLINGS,	/* two prunes on siblings, their parent cascading */
	DCSIM_DSCN_INVALIDATE,		/* d_invalidate(dir) against prune and dput */
	DCSIM_DSCN_SHRINK_ALL,		/* shrink_all against dput */
	DCSIM_DSCN_DONTCACHE,		/* DONTCACHE/DISCONNECTED set during a final put */
	DCSIM_DSCN_DGET_PARENT,		/* a dget_parent walk against a kill of the child */
	DCSIM_DSCN_UNLINK_ALIAS,	/* final put against d_delete of a hard link (i_lock) */
	DCSIM_DSCN_PRUNE_CREATE,	/* prune of a parent that gains a child meanwhile */
	/*
	 * prune vs lookup + d_delete + dput, the alias's d_delete holding
	 * i_lock: 6.1's bug 339e9e13530b, so it runs on a strategy without
	 * DCSIM_STRATEGY_LOCK_FOR_KILL only when opts->scenario names it
	 * (dcsim-check --scenarios); otherwise the result says skipped
	 */
	DCSIM_DSCN_PRUNE_DELETE_ALIAS,
	DCSIM_DSCN_MISUSE,		/* a put without a reference: exactly one warning */
	DCSIM_DSCN_WALK_VS_KILL,	/* RCU-walks to d/a/f and d/a/g against a kill of f */
	DCSIM_DSCN_WALK_VS_DROP,	/* RCU-walks through d/a against d_drop(a) */
	DCSIM_DSCN_WALK_VS_PRUNE,	/* RCU-walks to d/f, d/g against the shrinker */
	DCSIM_DSCN_WALK_VS_UNLINK,	/* an RCU-walk to d/f against d_delete(f) (negative) */
	DCSIM_DSCN_CREATE_IN_PLACE,	/* create over a negative against lookup and prune */
	DCSIM_DSCN_PRUNE_PARENT_DIES,	/* a prune relocks the parent of its victim as both die */
	DCSIM_DSCN_INVALIDATE_CASCADE,	/* d_invalidate(q) against a prune whose kill cascades in q */
	DCSIM_DSCN_PRUNE_PUT_ALIAS,	/* a prune of f against the killing put of its alias f2 */
	/*
	 * a prune of the negative f, relocking its parent, against a create
	 * in place of f: 6.1's own shrink_lock_dentry() kills f positive
	 * without its inode's i_lock, so on a strategy with
	 * DCSIM_STRATEGY_SHRINK_LOCK_DENTRY it runs only when named
	 */
	DCSIM_DSCN_PRUNE_NEGATIVE_CREATE,
	DCSIM_DSCN_PUT_NEGATIVE_CREATE,	/* the killing put of a negative against a create over it */
	DCSIM_DSCN_RENAME_VS_PUT,	/* a killing put of f against a lookup and rename of f */
	DCSIM_DSCN_RENAME_VS_PRUNE,	/* a prune of f against a lookup and rename of f */
	DCSIM_DSCN_RENAME_VS_DGET_PARENT, /* dget_parent(f) against a rename of f */
	DCSIM_DSCN_RENAME_VS_INVALIDATE, /* d_invalidate(p) against a rename of p's child */
	DCSIM_DSCN_GENOCIDE_VS_PUT_PRUNE, /* d_genocide(d) against puts and a prune of d's children */
	DCSIM_DSCN_NR
};

/* How the scenarios' end states were compared with the spec. */
enum dcsim_spec_check {
	DCSIM_SPEC_CHECK_SERIAL,	/* serial execution: exact, in the order run */
	DCSIM_SPEC_CHECK_ANY_ORDER,	/* overlapping calls: the end state of some order */
	DCSIM_SPEC_CHECK_NONE,		/* a shrinker skipped a busy dentry: invariants only */
	DCSIM_SPEC_CHECK_NR
};

/** dcsim_dcache_spec_checks() - executions judged each way so far, into @out[DCSIM_SPEC_CHECK_NR]. */
DCSIM_API void dcsim_dcache_spec_checks(unsigned long *out);

/**
 * dcsim_dcache_post_checks() - the post-conditions of d_invalidate() and
 * shrink_all() at their return in the scenarios so far (docs/testing.md):
 * *@checked exact, *@skipped not (another thread was inside a call then, a
 * path walk overlapped, or d_invalidate() had nothing to shrink).
 */
DCSIM_API void dcsim_dcache_post_checks(unsigned long *checked, unsigned long *skipped);

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
 * dcsim_explore_verify_cache() - run dcsim_cache_verify() on @cache (flags as
 * there) and turn violations into dcsim_explore_fail() with the report.
 * Return: the number of violations.
 */
DCSIM_API unsigned int dcsim_explore_verify_cache(struct dcsim_cache *cache,
						 const struct dcsim_held_ref *held,
						 size_t nr_held, unsigned int flags);

#endif /* DCSIM_EXPLORE_DCACHE_H */
