// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kill paths of the cache model: unlisting and freeing a dead dentry
 * (at once, or left as a husk for a shrink list's owner), __dentry_kill()
 * and the two eras of dentry_kill() around it (the 3.x trylock-and-restart loop, the 4.17+
 * __lock_parent() form), and dcsim_dput_locked_final(), the locked slow
 * path for users' strategies.  The lock rules are at the top of cache.c.
 */

#include <stdlib.h>
#include <string.h>

#include "dcache.h"
#include "../base/rcu-internal.h"
#include "slab.h"
#include "stats.h"

/* ---- unlisting and freeing ---- */

/*
 * Unlink a dying dentry from its parent's children (or the roots list).
 * A child keeps d_sib.next, as 6.8+'s dentry_unlist() (there are no
 * cursors here to skip): the kernel's d_walk() resumes from it.
 */
void dentry_unlist(struct dcsim_dentry *d, struct dcsim_dentry *parent)
{
	struct dcsim_cache *c = d->d_cache;

	__d_set_flags(d, DCSIM_DCACHE_DENTRY_KILLED);
	if (parent) {
		__hlist_del_keep_next(&d->d_sib);
	} else {
		dcsim_spin_lock(&c->roots_lock);
		hlist_del(&d->d_sib);
		dcsim_spin_unlock(&c->roots_lock);
	}
}

static void __d_free(struct dcsim_rcu_head *head)
{
	struct dcsim_dentry *d = dcsim_container_of(head, struct dcsim_dentry, d_rcu);

	if (d->d_name != (const char *)d->d_iname)
		free((void *)d->d_name);
	/* Poison: a use after the grace period reads a dead, freed dentry. */
	memset(d, 0x6b, __builtin_offsetof(struct dcsim_dentry, d_lockref));
	dcache_slab_free(DCACHE_SLAB_DENTRY, d);
}

/*
 * models fs/dcache.c:dentry_free(): the dentry is dead and unlisted, and
 * no list links to it any more.  Freed after a grace period.
 */
void dentry_free(struct dcsim_dentry *d)
{
	struct dcsim_cache *c = d->d_cache;
	uint32_t f = d_flags_read(d);

	if (WARN_ON_ONCE(f & DCSIM_DCACHE_FREED))	/* a second free */
		return;
	if (WARN_ON_ONCE(!(f & DCSIM_DCACHE_DENTRY_KILLED) ||
			 (f & (DCSIM_DCACHE_LRU_LIST | DCSIM_DCACHE_SHRINK_LIST))))
		return;					/* still linked: leak, don't corrupt */
	/* Nobody else can reach it now; the flag catches our own double free. */
	WRITE_ONCE(d->d_flags, f | DCSIM_DCACHE_FREED);
	dstat_inc(c, DCSIM_CS_FREE);
	dstat_add(c, DCSIM_CS_NR_DENTRY, -1);
	dcsim_call_rcu(&d->d_rcu, __d_free);
}

/*
 * The dead @d's last lock holder decides (d_lock held): free it now, or,
 * if it sits on a shrink list, leave the husk for the list's owner, who
 * unlinks and frees it (the kernel's DCACHE_MAY_FREE protocol).
 */
bool dentry_may_free(struct dcsim_dentry *d)
{
	if (!(d_flags_read(d) & DCSIM_DCACHE_SHRINK_LIST))
		return true;
	if (dcache_faulty(DCSIM_DCACHE_FAULT_HUSK_FREED_EARLY)) {
		/* Planted bug: unlink it from a list we do not own, and free it. */
		d_shrink_del(d);
		return true;
	}
	dcache_cover(DCSIM_COVER_HUSK_LEFT);
	return false;
}

/* ---- kill ---- */

/*
 * models fs/dcache.c:__dentry_kill() of 3.12..6.7, entered with d_lock,
 * the inode's i_lock if positive, and (unless @d is a root) the parent's
 * d_lock held, @parent == d_parent.  Marks it dead, takes it off the LRU
 * (not off a shrink list: that list's owner unlinks it and frees the
 * husk), unhashes, unlists, unlinks the inode, drops the locks and frees.
 * The caller drops the reference on @parent.
 */
void __dentry_kill(struct dcsim_dentry *d, struct dcsim_dentry *parent)
{
	struct dcsim_cache *c = d->d_cache;
	uint32_t f;
	bool can_free;

	WARN_ON_ONCE(d_flags_read(d) & DCSIM_DCACHE_DENTRY_KILLED);	/* killed twice */
	dcsim_lockref_mark_dead(&d->d_lockref);
	d_prune(d);
	f = d_flags_read(d);
	if ((f & (DCSIM_DCACHE_LRU_LIST | DCSIM_DCACHE_SHRINK_LIST)) == DCSIM_DCACHE_LRU_LIST)
		d_lru_del(d);
	__d_drop(d);
	dentry_unlist(d, parent);
	if (parent)
		d_unlock(parent);
	if (READ_ONCE(d->d_inode))
		dentry_unlink_inode(d);
	dstat_inc(c, DCSIM_CS_KILL);
	/*
	 * 6.1 drops d_lock for ->d_release() and retakes it to decide who
	 * frees (DCACHE_MAY_FREE); the model keeps d_lock across the call, so
	 * that a shrink list's owner cannot free the husk meanwhile
	 * (docs/kernel.md, intended differences).
	 */
	d_release(d);
	can_free = dentry_may_free(d);
	/*
	 * 3.x..6.7 mark the husk for the list's owner: 6.1's
	 * shrink_dentry_list() (k61 runs it) frees one only with
	 * DCACHE_MAY_FREE; the model's own tests DENTRY_KILLED.
	 */
	if (!can_free)
		__d_set_flags(d, DCACHE_MAY_FREE);
	d_unlock(d);
	if (can_free)
		dentry_free(d);
}

/*
 * models fs/dcache.c:__lock_parent() (4.17+): d_lock held, not a root.
 * Drop it, lock the parent, relock the child in order.  The child's
 * reference (still counted) pins the parent; RCU as the kernel does.
 */
static struct dcsim_dentry *__lock_parent(struct dcsim_dentry *d)
{
	struct dcsim_dentry *parent;

	dcsim_rcu_read_lock();
	d_unlock(d);
again:
	parent = READ_ONCE(d->d_parent);
	d_lock(parent);
	/*
	 * A rename (rename.c) changes d_parent under both parents' d_lock:
	 * with the one we read held, a d_parent still equal to it is stable.
	 */
	if (unlikely(READ_ONCE(d->d_parent) != parent)) {
		d_unlock(parent);
		goto again;
	}
	dcsim_rcu_read_unlock();
	d_lock_nested(d);
	return parent;
}

/*
 * models fs/dcache.c:dentry_kill() of 4.17..6.7: d_lock held, count 1 (the
 * caller's reference, kept across every window in which d_lock is
 * dropped).  i_lock and the parent's lock are trylocked; on failure they
 * are taken in order (i_lock, parent, child) and the decision is made
 * again: another reference appeared (drop ours, keep it), or it may now
 * be retained, or it dies.
 * Return: the parent whose reference the caller must now drop, or NULL
 * (kept, or a root).  No lock held.
 */
static struct dcsim_dentry *dentry_kill_417(struct dcsim_dentry *d)
{
	struct dcsim_inode *inode = READ_ONCE(d->d_inode);
	struct dcsim_dentry *parent = NULL;

	if (inode && unlikely(!dcsim_spin_trylock(&inode->i_lock)))
		goto slow_positive;
	if (!IS_ROOT(d)) {
		parent = READ_ONCE(d->d_parent);
		if (unlikely(!d_trylock(parent))) {
			dcache_cover(DCSIM_COVER_KILL_LOCK_PARENT);
			dstat_inc(d->d_cache, DCSIM_CS_KILL_RETRY);
			parent = __lock_parent(d);
			if (likely(inode || !READ_ONCE(d->d_inode)))
				goto got_locks;
			/*
			 * A negative that became positive while d_lock was
			 * dropped (a lookup, d_instantiate() and dput() of
			 * another thread): its i_lock comes first, as 4.17+'s
			 * dentry_kill() does.
			 */
			d_unlock(parent);
			inode = READ_ONCE(d->d_inode);
			goto slow_positive;
		}
	}
	__dentry_kill(d, parent);
	return parent;

slow_positive:
	dcache_cover(DCSIM_COVER_KILL_INODE_SLOW);
	/* The inode is pinned: our reference keeps d positive (d_delete needs count 1). */
	d_unlock(d);
	dcsim_spin_lock(&inode->i_lock);
	d_lock(d);
	if (!IS_ROOT(d)) {
		parent = READ_ONCE(d->d_parent);
		if (unlikely(!d_trylock(parent))) {
			dcache_cover(DCSIM_COVER_KILL_LOCK_PARENT);
			parent = __lock_parent(d);
		}
	}
got_locks:
	if (unlikely(d_cnt(d) != 1)) {
		/* Somebody got a reference meanwhile: ours is just dropped. */
		d_set_cnt(d, d_cnt(d) - 1);
	} else if (likely(!retain_dentry(d, d->d_cache->retain_style))) {
		__dentry_kill(d, parent);
		return parent;
	}
	dcache_cover(DCSIM_COVER_KILL_KEPT);
	if (inode)
		dcsim_spin_unlock(&inode->i_lock);
	if (parent)
		d_unlock(parent);
	d_unlock(d);
	return NULL;
}

/*
 * models fs/dcache.c:dentry_kill() in its 3.x/4.0..4.16 shape: d_lock held,
 * the caller's reference still counted.  The inode's and the parent's
 * locks are only trylocked (we hold the child; the lock order is i_lock,
 * then parent, then child); on failure drop everything and let the caller
 * retry the whole dput on @d.
 * Return: the parent whose reference the caller must now drop, @d itself
 * to retry, or NULL (a root).  No lock held.
 */
static struct dcsim_dentry *dentry_kill_3x(struct dcsim_dentry *d)
{
	struct dcsim_inode *inode = READ_ONCE(d->d_inode);
	struct dcsim_dentry *parent = NULL;

	if (inode && !dcsim_spin_trylock(&inode->i_lock)) {
		dcache_cover(DCSIM_COVER_KILL_INODE_SLOW);
		goto retry;
	}
	if (!IS_ROOT(d)) {
		parent = READ_ONCE(d->d_parent);
		if (!d_trylock(parent)) {
			if (inode)
				dcsim_spin_unlock(&inode->i_lock);
			goto retry;
		}
	}
	__dentry_kill(d, parent);
	return parent;
retry:
	d_unlock(d);
	dcache_cover(DCSIM_COVER_KILL_RETRY);
	dstat_inc(d->d_cache, DCSIM_CS_KILL_RETRY);
	cpu_relax();
	return d;
}

/*
 * The kill of the strategy's era: the trylock-and-restart loop of 3.x for
 * the 3.x retain style (locked, lockref, rtm), the __lock_parent() kill of
 * 4.17+ for the 4.13+ style (fast, fast-htm, and users' strategies of that
 * style).  Contract as dentry_kill_3x(); the 4.17 form never returns @d.
 */
struct dcsim_dentry *dentry_kill(struct dcsim_dentry *d)
{
	if (d->d_cache->retain_style == DCSIM_RETAIN_LRU_THEN_REFERENCED)
		return dentry_kill_417(d);
	return dentry_kill_3x(d);
}

/*
 * The locked slow path of the lockref-era dputs, for users' strategies: a
 * 3.11-style loop in which parents are put with d_lock too.
 */
void dcsim_dput_locked_final(struct dcsim_dentry *d, enum dcsim_retain_style style)
{
	struct dcsim_dentry *next;
	int32_t cnt;

	/*
	 * The contract is "entered with d_lock held".  Without it the unlock
	 * below would release a lock nobody holds (dcsim_spin_unlock() refuses
	 * that too) and the count would be changed unlocked: refuse at once,
	 * touching nothing.  The caller's reference stays counted, a leak
	 * that the checkers report, where going on would corrupt the dentry.
	 */
	if (WARN_ON_ONCE(!dcsim_spin_is_locked(&d->d_lockref.lock)))
		return;
	for (;;) {
		cnt = d_cnt(d);
		if (WARN_ON_ONCE(cnt <= 0)) {
			d_unlock(d);
			return;
		}
		if (cnt > 1) {
			d_set_cnt(d, cnt - 1);
			d_unlock(d);
			return;
		}
		if (retain_dentry(d, style)) {
			d_unlock(d);
			return;
		}
		next = dentry_kill(d);
		if (!next)
			return;
		if (next != d)
			dstat_inc(next->d_cache, DCSIM_CS_PARENT_PUT); /* d may be freed */
		d = next;
		d_lock(d);
	}
}
