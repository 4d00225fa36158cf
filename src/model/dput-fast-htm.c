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

/*
 * models fs/dcache.c:fast_dput_wants_htm() (our patch): whether this put is
 * one for the transaction, i.e. one where the 6.1 path below would take
 * d_lock although a transaction can finish it: the final put of a hashed
 * dentry on the LRU without REFERENCED and without a reason to die.  A
 * non-final put and a REFERENCED final put are lockless there anyway, the
 * other final puts need d_lock whatever we do.  (The kernel also sends
 * every put here when lockref has no cmpxchg, under lock debugging; our
 * lockref always has it.)  Plain unlocked looks, a hint only: the
 * transaction checks everything again.
 */
bool fast_dput_wants_txn(struct dcsim_dentry *d)
{
	uint32_t f;

	if (READ_ONCE(d->d_lockref.count) > 1)
		return false;
	f = d_flags_read(d) & (DCSIM_DCACHE_REFERENCED | DCSIM_DCACHE_LRU_LIST |
			       DCSIM_DCACHE_OP_DELETE | DCSIM_DCACHE_DISCONNECTED |
			       DCSIM_DCACHE_DONTCACHE);
	return f == DCSIM_DCACHE_LRU_LIST && !d_unhashed(d);
}

/* The transaction; true if it committed and the put is done. */
bool fast_dput_txn(struct dcsim_dentry *d)
{
	/*
	 * Take the cache now, while our reference pins @d: once a final put
	 * has committed, another thread may kill and free @d at any time.
	 */
	struct dcsim_cache *cache = d->d_cache;
	struct dcsim_lockref old;
	dcsim_htm_status_t status;
	int32_t count;
	uint32_t f;

	status = dcsim_htm_begin();
	if (status != DCSIM_HTM_STARTED) {
		dcsim_cache_htm_account(cache, status);
		return false;
	}
	old.lock_count = READ_ONCE(d->d_lockref.lock_count);
	if (unlikely(!dcsim_spin_value_unlocked(old.lock)))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_LOCKED);
	count = old.count;
	if (unlikely(count <= 0))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_BADCOUNT);
	if (count > 1) {
		/* Not the final put (fast-htm-all, or a reference taken since). */
		WRITE_ONCE(d->d_lockref.count, count - 1);
		dcsim_htm_end();
		goto committed;
	}
	/* retain_dentry()'s order: unhashed, the kill reasons, the LRU. */
	if (unlikely(d_unhashed(d)))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_UNHASHED);
	f = READ_ONCE(d->d_flags);
	if (unlikely(f & (DCSIM_DCACHE_DISCONNECTED | DCSIM_DCACHE_DONTCACHE |
			  DCSIM_DCACHE_OP_DELETE)))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_KILL);
	if (unlikely(!(f & DCSIM_DCACHE_LRU_LIST)))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_NOLRU);
	/* retain_dentry()'s flag update, in the same transaction as the put. */
	if (!(f & DCSIM_DCACHE_REFERENCED))
		WRITE_ONCE(d->d_flags, f | DCSIM_DCACHE_REFERENCED);
	WRITE_ONCE(d->d_lockref.count, 0);
	dcsim_htm_end();
committed:
	dcsim_cache_htm_account(cache, DCSIM_HTM_STARTED);
	return true;
}

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
