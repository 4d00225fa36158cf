// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Strategy "rtm": Linus Torvalds' RTM dput patch of 30 Sep 2013 ("Avoiding
 * the dentry d_lock on final dput(), part deux: transactional memory"), on
 * top of the 3.12 lockref dput.
 *
 * Reads/writes: DCACHE_OP_DELETE is static and tested outside.  In one
 * transaction: the hash link, d_flags (REFERENCED and LRU_LIST must both
 * be set already), the d_lock value (must be unlocked), then count--; the
 * lock word is in the read set, so whoever takes d_lock aborts us, and the
 * decrement is atomic with respect to every d_lock holder.  Any other
 * state, any abort: the 3.12 lockref dput.
 *
 * Differences from the patch (docs/design.md): the count is checked (> 0,
 * else abort BADCOUNT so misuse reaches the warning of the fallback), and a
 * final put of a DISCONNECTED/DONTCACHE dentry aborts (KILL) because this
 * model kills those on their final put, as 6.1 does.
 */

#include "dcache.h"

enum dcsim_dput_path dcsim_dput_312(struct dcsim_dentry *d);

/* The transaction; true if it committed and the put is done. */
static bool rtm_dput_txn(struct dcsim_dentry *d)
{
	/*
	 * Take the cache now, while our reference pins @d: once a final put
	 * has committed, another thread may kill and free @d at any time.
	 */
	struct dcsim_cache *cache = d->d_cache;
	struct dcsim_lockref old;
	dcsim_htm_status_t status;
	uint32_t f;

	status = dcsim_htm_begin();
	if (status != DCSIM_HTM_STARTED) {
		dcsim_cache_htm_account(cache, status);
		return false;
	}
	if (unlikely(d_unhashed(d)))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_UNHASHED);
	f = READ_ONCE(d->d_flags);
	if (unlikely(!(f & DCSIM_DCACHE_LRU_LIST)))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_NOLRU);
	if (unlikely(!(f & DCSIM_DCACHE_REFERENCED)))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_NOTREF);
	old.lock_count = READ_ONCE(d->d_lockref.lock_count);
	if (unlikely(!dcsim_spin_value_unlocked(old.lock)))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_LOCKED);
	if (unlikely(old.count <= 0))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_BADCOUNT);
	if (unlikely(old.count == 1 && (f & (DCSIM_DCACHE_DISCONNECTED | DCSIM_DCACHE_DONTCACHE))))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_KILL);
	WRITE_ONCE(d->d_lockref.count, old.count - 1);
	dcsim_htm_end();
	dcsim_cache_htm_account(cache, DCSIM_HTM_STARTED);
	return true;
}

/* models the patched fs/dcache.c:dput() */
static enum dcsim_dput_path dput_rtm(struct dcsim_dentry *d)
{
	if (!(d_flags_read(d) & DCSIM_DCACHE_OP_DELETE) && dcsim_htm_live() && rtm_dput_txn(d))
		return DCSIM_DPUT_PATH_HTM;
	return dcsim_dput_312(d);
}

const struct dcsim_dput_strategy dcsim_dput_rtm_strategy = {
	.name = "rtm",
	.description = "2013 RTM dput patch: one transaction, else 3.12 lockref dput",
	.dput = dput_rtm,
	.retain_style = DCSIM_RETAIN_ALWAYS_REFERENCED,
	.flags = DCSIM_STRATEGY_USES_HTM,
};
