// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Strategy "fast-htm": our kernel patch (kernel/, docs/kernel.md), v2.  The
 * 6.1 fast_dput() with one transaction, tried only for the final put that
 * 6.1 would take d_lock for just to set REFERENCED (fast_dput_wants_txn()).
 * Every other put is exactly 6.1: a non-final one is lockref's lockless
 * cmpxchg decrement (a transaction costs about two cmpxchg), a REFERENCED
 * final put is lockless too, and the rest need d_lock anyway.  The first
 * design, a transaction on every put, is kept as "fast-htm-all"
 * (dput-fast-htm-all.c) for comparison.
 *
 * What the transaction saves: the final put of a hashed dentry that is on
 * the LRU without DCACHE_REFERENCED (the second final put since
 * d_lru_add(), or one after the shrinker's LRU walk cleared the flag) sets
 * REFERENCED and drops the count to zero in one atomic step, where fast
 * takes d_lock for it.  If the state changed since the look
 * (or for fast-htm-all, which sends every put), any other state aborts
 * with a code (<dcsim/strategy.h>), tested in the order of
 * retain_dentry(): UNHASHED, then KILL (DISCONNECTED, DONTCACHE, or
 * OP_DELETE set since the caller's plain test), then NOLRU.  Any abort
 * falls through to the unchanged fast_dput() code.
 *
 * After a conflict abort we fall through, no retry: a conflict means
 * another thread wrote the lockref word or d_flags, i.e. took a reference
 * (then our put is no longer final and lockref drops it without the lock),
 * took d_lock (a retry would abort LOCKED), or changed the flags; and the
 * fallback is 6.1's path, lockless whenever the dentry is REFERENCED on
 * the LRU.  A retry would pay a second transaction to save a lock only for
 * a REFERENCED-cleared dentry whose state conflicted once already.
 *
 * Reads/writes in the transaction: the lockref word (lock must be free; it
 * is in the read set, so a later d_lock acquisition aborts us), the hash
 * link, d_flags; writes the count and maybe d_flags.  Everything the
 * locked slow path would do is atomic with respect to d_lock holders.
 *
 * The logic must stay identical to the kernel patch; docs/design.md has
 * the two side by side.
 */

#include "dcache.h"

/* The transaction itself, fast_dput_wants_txn() and fast_dput_txn(), is dput-txn.c. */

static enum dcsim_dput_path dput_fast_htm(struct dcsim_dentry *d)
{
	return dcsim_dput_61(d, FAST_HTM_FINAL);
}

const struct dcsim_dput_strategy dcsim_dput_fast_htm_strategy = {
	.name = "fast-htm",
	.description = "fast_dput() plus a transaction for the final put of an unreferenced LRU dentry",
	.dput = dput_fast_htm,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
	.flags = DCSIM_STRATEGY_USES_HTM,
};
