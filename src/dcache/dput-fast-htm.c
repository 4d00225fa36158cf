// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Strategy "fast-htm": our kernel patch (kernel/, docs/kernel.md).  The 6.1
 * fast_dput() with one transaction in front, after the DCACHE_OP_DELETE
 * test.  It covers the non-final put, and the final put of a hashed dentry
 * on the LRU, setting DCACHE_REFERENCED in the same transaction as the
 * decrement to zero, so the second final put no longer takes d_lock either.
 * Any other state aborts with a code (<dcsim/strategy.h>) and any abort
 * falls through to the unchanged fast_dput() code.
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
		dcache_count_htm_abort(cache, status);
		return false;
	}
	old.lock_count = READ_ONCE(d->d_lockref.lock_count);
	if (unlikely(!dcsim_spin_value_unlocked(old.lock)))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_LOCKED);
	count = old.count;
	if (unlikely(count <= 0))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_BADCOUNT);
	if (count > 1) {
		/* Not the final put. */
		WRITE_ONCE(d->d_lockref.count, count - 1);
		dcsim_htm_end();
		goto committed;
	}
	if (unlikely(d_unhashed(d)))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_UNHASHED);
	f = READ_ONCE(d->d_flags);
	if (unlikely(!(f & DCSIM_DCACHE_LRU_LIST)))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_NOLRU);
	if (unlikely(f & (DCSIM_DCACHE_DISCONNECTED | DCSIM_DCACHE_DONTCACHE)))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_KILL);
	/* retain_dentry()'s flag update, in the same transaction as the put. */
	if (!(f & DCSIM_DCACHE_REFERENCED))
		WRITE_ONCE(d->d_flags, f | DCSIM_DCACHE_REFERENCED);
	WRITE_ONCE(d->d_lockref.count, 0);
	dcsim_htm_end();
committed:
	dstat_inc(cache, DCSIM_CS_HTM_ATTEMPT);
	dstat_inc(cache, DCSIM_CS_HTM_COMMIT);
	return true;
}

static enum dcsim_dput_path dput_fast_htm(struct dcsim_dentry *d)
{
	return __dcsim_dput_61(d, true);
}

const struct dcsim_dput_strategy dcsim_dput_fast_htm_strategy = {
	.name = "fast-htm",
	.description = "fast_dput() with a transaction covering the final put of a hashed LRU dentry",
	.dput = dput_fast_htm,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
	.flags = DCSIM_STRATEGY_USES_HTM,
};
