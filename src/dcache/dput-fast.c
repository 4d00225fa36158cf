// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Strategy "fast": models fs/dcache.c:fast_dput() and dput() as in Debian's
 * 6.1 kernel (4.0's "let the dentry count go down to zero without taking
 * d_lock", with the DISCONNECTED/DONTCACHE checks and the underflow fix).
 *
 * Reads/writes: every put is a lockless cmpxchg decrement
 * (lockref_put_return), down to zero, except for DCACHE_OP_DELETE dentries
 * (lockref_put_or_lock).  After a lockless drop to zero, d_flags and the
 * hash link are read without the lock (after smp_rmb()): if the dentry is
 * hashed, on the LRU and REFERENCED, and not DISCONNECTED/DONTCACHE, it
 * stays cached without d_lock.  Otherwise d_lock is taken, the count
 * rechecked, and the reference retaken for the slow path.
 *
 * The same loop serves fast-htm and fast-htm-all (enum fast_htm): they add
 * a transaction (dput-fast-htm.c) in front of the lockref decrement, for
 * the final put only or for every put.
 */

#include "dcache.h"

/*
 * models fs/dcache.c:fast_dput() (6.1).  Called under rcu_read_lock().
 * Return: true if the put is complete (no lock held); false with d_lock
 * held and the count back at 1: the caller decides (retain or kill).
 * *@path is raised to LOCKED when d_lock is taken; *@warned on misuse.
 */
static bool fast_dput(struct dcsim_dentry *d, enum fast_htm htm, enum dcsim_dput_path *path)
{
	uint32_t f;
	int ret;

	/*
	 * Set before the dentry is hashed (d_set_d_op()); a plain read is
	 * enough here.  The fast-htm transaction reads it again.
	 */
	if (unlikely(d_flags_read(d) & DCSIM_DCACHE_OP_DELETE)) {
		uint64_t fb = __dcsim_stat_self(DCSIM_STAT_LOCKREF_FALLBACKS);
		bool done = dcsim_lockref_put_or_lock(&d->d_lockref);

		/* The lockref call took d_lock if it counted a fallback. */
		if (__dcsim_stat_self(DCSIM_STAT_LOCKREF_FALLBACKS) != fb)
			*path = DCSIM_DPUT_PATH_LOCKED;
		/*
		 * lockref_put_or_lock() also stops, with the lock held, at a
		 * count of 0 or a dead one: misuse.  6.1 would go on to kill
		 * the dentry a second time; we refuse.
		 */
		if (!done && WARN_ON_ONCE(d_cnt(d) <= 0)) {
			d_unlock(d);
			*path = DCSIM_DPUT_PATH_WARNED;
			return true;
		}
		return done;
	}

	/* fast-htm(-all): the transaction of our kernel patch (dput-fast-htm.c). */
	if (htm != FAST_HTM_NONE && dcsim_htm_live() &&
	    (htm == FAST_HTM_ALL || fast_dput_wants_txn(d)) && fast_dput_txn(d)) {
		*path = DCSIM_DPUT_PATH_HTM;
		return true;
	}

	ret = dcsim_lockref_put_return(&d->d_lockref);
	if (unlikely(ret < 0)) {
		/* Lock held, cmpxchg kept failing, or the count was <= 0. */
		d_lock(d);
		*path = DCSIM_DPUT_PATH_LOCKED;
		if (WARN_ON_ONCE(d_cnt(d) <= 0)) {
			d_unlock(d);
			*path = DCSIM_DPUT_PATH_WARNED;
			return true;
		}
		d_set_cnt(d, d_cnt(d) - 1);
		goto locked;
	}
	if (ret)
		return true;

	/*
	 * We dropped the count to zero without the lock.  The flags and hash
	 * state are not stable, but it suffices that at some point after our
	 * decrement the dentry was hashed, on the LRU and referenced: whoever
	 * changes that later does so under d_lock and sees count 0.  smp_rmb()
	 * orders these loads after the (relaxed) cmpxchg.
	 */
	smp_rmb();
	f = d_flags_read(d) & (DCSIM_DCACHE_REFERENCED | DCSIM_DCACHE_LRU_LIST |
			       DCSIM_DCACHE_DISCONNECTED | DCSIM_DCACHE_DONTCACHE);
	if (f == (DCSIM_DCACHE_REFERENCED | DCSIM_DCACHE_LRU_LIST) && !d_unhashed(d))
		return true;

	/* Not the common case: get the lock and look again. */
	d_lock(d);
	*path = DCSIM_DPUT_PATH_LOCKED;
locked:
	/* Someone re-got it, or killed it (count < 0), while we were unlocked. */
	if (d_cnt(d)) {
		d_unlock(d);
		return true;
	}
	/* Take back the reference we dropped; the caller puts it under the lock. */
	d_set_cnt(d, 1);
	return false;
}

/* models fs/dcache.c:dput() (6.1); shared with fast-htm and fast-htm-all */
enum dcsim_dput_path __dcsim_dput_61(struct dcsim_dentry *d, enum fast_htm htm)
{
	enum dcsim_dput_path path = DCSIM_DPUT_PATH_CAS, p;
	struct dcsim_dentry *next;
	bool first = true;

	while (d) {
		p = DCSIM_DPUT_PATH_CAS;
		dcsim_rcu_read_lock();
		if (likely(fast_dput(d, htm, &p))) {
			dcsim_rcu_read_unlock();
			if (first)
				path = p;
			return path;
		}
		dcsim_rcu_read_unlock();
		if (first)
			path = DCSIM_DPUT_PATH_LOCKED;
		first = false;
		/* d_lock held, count 1 */
		if (retain_dentry(d, DCSIM_RETAIN_LRU_THEN_REFERENCED)) {
			d_unlock(d);
			return path;
		}
		next = dentry_kill(d);
		if (next && next != d)
			dstat_inc(next->d_cache, DCSIM_CS_PARENT_PUT); /* d may be freed */
		d = next;
	}
	return path;
}

static enum dcsim_dput_path dput_fast(struct dcsim_dentry *d)
{
	return __dcsim_dput_61(d, FAST_HTM_NONE);
}

const struct dcsim_dput_strategy dcsim_dput_fast_strategy = {
	.name = "fast",
	.description = "6.1 fast_dput(): lockless put to zero, d_lock for LRU/flag updates",
	.dput = dput_fast,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
};
