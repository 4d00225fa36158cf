// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The final put in one transaction, our kernel patch's fast_dput_htm():
 * which puts it is for (fast_dput_wants_txn()) and the transaction
 * (fast_dput_txn()).  The strategies fast-htm and fast-htm-all
 * (dput-fast.c's dcsim_dput_61()) and retain-htm (dput-retain.c) use it;
 * dput-fast-htm.c says why it is shaped this way, what it reads and
 * writes, and why an abort falls through without a retry.
 */

#include "dcache.h"

/*
 * models fs/dcache.c:fast_dput_wants_htm() (our patch): whether this put is
 * one for the transaction, i.e. one where the 6.1 path (dput-fast.c) would take
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
