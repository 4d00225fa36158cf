// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Strategy "retain": models the 6.8+ dput() of Al Viro's dcache rework
 * (retain_dentry() with a lockless mode folded into fast_dput(),
 * lock_for_kill(), and __dentry_kill() taking the parent's lock after
 * killing the child, in parent -> child order, so no trylock and no retry).
 *
 * Reads/writes: every put is a lockless cmpxchg decrement, DCACHE_OP_DELETE
 * or not.  After a drop to zero, retain_dentry(locked=false) reads d_flags
 * and the hash link without the lock (after smp_rmb()) and keeps the dentry
 * if nothing needs writing.  Otherwise d_lock is taken; the count stays 0
 * under the lock from then on (nobody sets it back to 1), and the locked
 * retain_dentry() or the kill decides.
 */

#include "dcache.h"
#include "stats.h"

/*
 * models fs/dcache.c:retain_dentry(dentry, locked) (6.8+): refcount-neutral.
 * Unlocked, "false" means "can't tell without d_lock"; locked, it means
 * "kill it", and "true" has done the LRU/REFERENCED update.
 */
static bool retain_dentry_68(struct dcsim_dentry *d, bool locked)
{
	uint32_t f;

	/* Order the flag and hash loads after the count drop (unlocked case). */
	smp_rmb();
	f = d_flags_read(d);
	if (unlikely(d_unhashed(d)))
		return false;
	if (unlikely(f & DCSIM_DCACHE_DISCONNECTED))
		return false;
	if (unlikely(f & DCSIM_DCACHE_OP_DELETE)) {
		if (!locked)
			return false;
		if (READ_ONCE(d->d_op)->d_delete(d))
			return false;
	}
	if (unlikely(f & DCSIM_DCACHE_DONTCACHE))
		return false;
	if (unlikely(!(f & DCSIM_DCACHE_LRU_LIST))) {
		if (!locked)
			return false;
		d_lru_add(d);
	} else if (unlikely(!(f & DCSIM_DCACHE_REFERENCED))) {
		if (!locked)
			return false;
		__d_set_flags(d, DCSIM_DCACHE_REFERENCED);
	}
	return true;
}

/*
 * models fs/dcache.c:lock_for_kill(): d_lock and RCU held.  A positive
 * dentry's i_lock ranks above d_lock, so it is trylocked, and on failure
 * d_lock is dropped and both are taken in order; meanwhile the dentry may
 * have been grabbed (count no longer 0) or unlinked (another inode).
 * Return: true with d_lock and the inode's i_lock held, count 0: kill it.
 * False with d_lock held only: somebody else owns it now.
 */
static bool lock_for_kill(struct dcsim_dentry *d)
{
	struct dcsim_inode *inode = READ_ONCE(d->d_inode);

	if (unlikely(d_cnt(d)))
		return false;
	if (!inode || likely(dcsim_spin_trylock(&inode->i_lock)))
		return true;
	dcache_cover(DCSIM_COVER_LOCK_FOR_KILL_SLOW);
	do {
		d_unlock(d);
		/* RCU (our caller's) keeps the inode's memory. */
		dcsim_spin_lock(&inode->i_lock);
		d_lock(d);
		if (likely(inode == READ_ONCE(d->d_inode)))
			break;
		dcsim_spin_unlock(&inode->i_lock);
		inode = READ_ONCE(d->d_inode);
	} while (inode);
	if (likely(!d_cnt(d)))
		return true;
	dcache_cover(DCSIM_COVER_LOCK_FOR_KILL_FALSE);
	if (inode)
		dcsim_spin_unlock(&inode->i_lock);
	return false;
}

/*
 * models fs/dcache.c:__dentry_kill() (6.8+): d_lock (and the inode's
 * i_lock, if positive) held, count 0, parent NOT locked.  Kill, drop d_lock, then lock parent and child in order to
 * unlist.  Return: the parent, locked with its count dropped to 0 (the
 * caller decides its fate), or NULL.  (k612 runs the kernel's own,
 * kernel-code/trees/6.12.tree.)
 */
struct dcsim_dentry *__dentry_kill_68(struct dcsim_dentry *d)
{
	struct dcsim_cache *c = d->d_cache;
	struct dcsim_dentry *parent = NULL;
	bool can_free;
	int32_t cnt;

	WARN_ON_ONCE(d_flags_read(d) & DCSIM_DCACHE_DENTRY_KILLED);
	dcsim_lockref_mark_dead(&d->d_lockref);
	d_prune(d);
	if ((d_flags_read(d) & (DCSIM_DCACHE_LRU_LIST | DCSIM_DCACHE_SHRINK_LIST)) ==
	    DCSIM_DCACHE_LRU_LIST)
		d_lru_del(d);
	__d_drop(d);
	if (READ_ONCE(d->d_inode))
		dentry_unlink_inode(d);
	d_unlock(d);
	dstat_inc(c, DCSIM_CS_KILL);
	d_release(d);
	if (!IS_ROOT(d)) {
		/* Stable: only a rename changes it, and the dentry is dead. */
		parent = READ_ONCE(d->d_parent);
		d_lock(parent);
		d_lock_nested(d);
	} else {
		d_lock(d);
	}
	dentry_unlist(d, parent);
	/* On someone's shrink list: its owner frees the husk. */
	can_free = dentry_may_free(d);
	d_unlock(d);
	if (can_free)
		dentry_free(d);
	if (!parent)
		return NULL;
	dstat_inc(c, DCSIM_CS_PARENT_PUT);
	cnt = d_cnt(parent) - 1;
	d_set_cnt(parent, cnt);
	if (cnt) {
		d_unlock(parent);
		return NULL;
	}
	return parent;
}

/*
 * models fs/dcache.c:fast_dput() (6.8+), and with @htm FAST_HTM_FINAL the
 * fast_dput() of our 6.12 series (retain-htm, dput-retain-htm.c).  Under
 * rcu_read_lock().
 * Return: true if done; false with d_lock held, count 0: kill it.
 */
static bool fast_dput_68(struct dcsim_dentry *d, enum fast_htm htm, enum dcsim_dput_path *path)
{
	int ret;

	/* retain-htm: the transaction of the series (dput-fast-htm.c), first. */
	if (htm == FAST_HTM_FINAL && dcsim_htm_live() && fast_dput_wants_txn(d) &&
	    fast_dput_txn(d)) {
		*path = DCSIM_DPUT_PATH_HTM;
		return true;
	}

	ret = dcsim_lockref_put_return(&d->d_lockref);
	if (unlikely(ret < 0)) {
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
	/* Count 0, unlocked; the common case needs no write at all. */
	if (retain_dentry_68(d, false))
		return true;
	d_lock(d);
	*path = DCSIM_DPUT_PATH_LOCKED;
locked:
	/* Re-got or dead meanwhile, or kept (LRU work done under the lock). */
	if (d_cnt(d) || retain_dentry_68(d, true)) {
		d_unlock(d);
		return true;
	}
	return false;
}

/* models fs/dcache.c:dput() (6.8+); shared with retain-htm */
enum dcsim_dput_path dcsim_dput_68(struct dcsim_dentry *d, enum fast_htm htm)
{
	enum dcsim_dput_path path = DCSIM_DPUT_PATH_CAS;

	dcsim_rcu_read_lock();
	if (likely(fast_dput_68(d, htm, &path))) {
		dcsim_rcu_read_unlock();
		return path;
	}
	/* d_lock held, count 0 */
	while (lock_for_kill(d)) {
		dcsim_rcu_read_unlock();
		d = __dentry_kill_68(d);
		if (!d)
			return path;
		/* The parent, locked at count 0: no fast_dput, we hold its lock. */
		if (retain_dentry_68(d, true)) {
			d_unlock(d);
			return path;
		}
		dcsim_rcu_read_lock();
	}
	/*
	 * The kernel leaves the RCU section first: a held spinlock is an RCU
	 * reader there (it disables preemption), so the d_lock it drops next
	 * cannot be in freed memory.  Here only dcsim_rcu_read_lock() makes a
	 * reader, and lock_for_kill() may have relocked a dentry that another
	 * thread killed while d_lock was dropped (queued for freeing, count
	 * dead): unlock it before leaving the section that keeps it allocated.
	 */
	d_unlock(d);
	dcsim_rcu_read_unlock();
	return path;
}

static enum dcsim_dput_path dput_retain(struct dcsim_dentry *d)
{
	return dcsim_dput_68(d, FAST_HTM_NONE);
}

const struct dcsim_dput_strategy dcsim_dput_retain_strategy = {
	.name = "retain",
	.description = "6.8+ dput(): lockless retain_dentry(), lock_for_kill(), parent locked after the kill",
	.dput = dput_retain,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
	.flags = DCSIM_STRATEGY_LOCK_FOR_KILL,
};
