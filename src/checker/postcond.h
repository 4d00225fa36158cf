/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_CHECKER_POSTCOND_H
#define DCSIM_CHECKER_POSTCOND_H

/*
 * Post-conditions of the cache's bulk calls, checked when they return:
 * d_invalidate() (and the shrink_dcache_parent() inside it) and
 * shrink_all() (shrink_dcache_sb()).  The differential suite checks them
 * after each such step; the explorer's scenarios at the return of each
 * INVALIDATE and SHRINK_ALL, when that is exact (dcache-scenarios.c,
 * docs/testing.md "Post-conditions").
 *
 * What is checked, over the dentries that no other thread referenced
 * during the call (nor any descendant of them: a put or a kill of one may
 * leave its ancestors unused after the walk passed them), "in scope" below:
 *  - d_invalidate(dir), when dir was hashed and positive at the call (else
 *    it only unhashes): dir is unhashed, and no in-scope dentry strictly
 *    below dir is unused or on the LRU (shrink_dcache_parent() kills the
 *    unused ones and takes every other off the LRU);
 *  - shrink_all(): no in-scope dentry of the cache is unused or on the LRU;
 *  - both: dcsim_cache_verify() with exact references, so every counter
 *    (nr_dentry, nr_hashed, nr_lru, allocs - frees) matches the structure.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dcsim/cache.h>
#include <dcsim/dentry.h>

enum postcond_call {
	POSTCOND_INVALIDATE,
	POSTCOND_SHRINK_ALL,
};

struct postcond {
	enum postcond_call call;
	uint64_t target;		/* d_invalidate()'s dentry; 0 for shrink_all() */
	const char *off;		/* set: not checked at the return, and why */
	uint64_t *excused;		/* ids: held by another thread, or an ancestor of one */
	size_t nr_excused, cap_excused;
};

/* "d_invalidate()" or "shrink_all()" */
const char *postcond_call_name(enum postcond_call call);

/*
 * postcond_begin() - note @call as it begins (@target: the dentry of
 * d_invalidate(), pinned by the caller; NULL for shrink_all()).  Reads
 * @target's state without a lock: the caller must have the cache to
 * itself (one thread, or dcsim_explore_run_alone()).
 */
void postcond_begin(struct postcond *pc, enum postcond_call call, struct dcsim_dentry *target);

/*
 * postcond_excuse() - another thread held a reference to @d during the
 * call: excuse it and its ancestors.  @d is pinned; as postcond_begin().
 */
void postcond_excuse(struct postcond *pc, const struct dcsim_dentry *d);

/* The check at the return is not exact: @why (kept if one is set already). */
void postcond_skip(struct postcond *pc, const char *why);

/*
 * postcond_check() - the post-condition at the return, with @held the
 * references held outside the cache (exact).  The caller must have the
 * cache to itself.  Violations go to @buf, one line each.
 * Return: the number of violations (0 also when pc->off).
 */
unsigned int postcond_check(struct postcond *pc, struct dcsim_cache *c,
			    const struct dcsim_held_ref *held, size_t nr_held, char *buf, size_t len);

void postcond_release(struct postcond *pc);

#endif /* DCSIM_CHECKER_POSTCOND_H */
