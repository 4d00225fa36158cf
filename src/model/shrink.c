// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The shrinker side, common to every strategy: models prune_dcache_sb(),
 * dentry_lru_isolate(), shrink_dcache_sb(), shrink_dentry_list(),
 * shrink_lock_dentry(), __dput_to_list() and shrink_dcache_parent() of
 * fs/dcache.c (6.1), and d_invalidate().
 *
 * A private shrink list belongs to the thread that built it.  Its entries
 * carry DCACHE_SHRINK_LIST|DCACHE_LRU_LIST; others may grab or even kill
 * them under d_lock, but only the owner unlinks and frees them.
 */

#include "dcache.h"
#include "kernel-code.h"
#include "stats.h"

enum lru_status { LRU_REMOVED, LRU_ROTATE, LRU_SKIP };

/* models d_lru_isolate(): lru_lock and d_lock held */
static void d_lru_isolate(struct dcsim_dentry *d)
{
	struct dcsim_cache *c = d->d_cache;

	__d_clear_flags(d, DCSIM_DCACHE_LRU_LIST);
	dlist_del_init(&d->d_lru);
	dstat_inc(c, DCSIM_CS_LRU_DEL);
	dstat_add(c, DCSIM_CS_NR_LRU, -1);
	if (d_negative(d))
		dstat_add(c, DCSIM_CS_NR_NEGATIVE, -1);
}

/* models d_lru_shrink_move(): lru_lock and d_lock held */
static void d_lru_shrink_move(struct dcsim_dentry *d, struct dcsim_list_head *list)
{
	struct dcsim_cache *c = d->d_cache;

	__d_set_flags(d, DCSIM_DCACHE_SHRINK_LIST);
	dlist_move(&d->d_lru, list);
	dstat_inc(c, DCSIM_CS_LRU_DEL);
	if (!dcache_faulty(DCSIM_DCACHE_FAULT_LRU_ACCOUNTING))
		dstat_add(c, DCSIM_CS_NR_LRU, -1);
	if (d_negative(d))
		dstat_add(c, DCSIM_CS_NR_NEGATIVE, -1);
}

/*
 * models fs/dcache.c:dentry_lru_isolate(): lru_lock held, which is against
 * the d_lock -> lru_lock order, hence the trylock.
 */
static enum lru_status dentry_lru_isolate(struct dcsim_dentry *d, struct dcsim_list_head *dispose)
{
	if (!d_trylock(d)) {
		dcache_cover(DCSIM_COVER_LRU_SKIP);
		return LRU_SKIP;
	}
	if (d_cnt(d)) {
		/* In use: off the LRU; its next final dput puts it back. */
		dcache_cover(DCSIM_COVER_LRU_BUSY);
		d_lru_isolate(d);
		d_unlock(d);
		return LRU_REMOVED;
	}
	if (d_flags_read(d) & DCSIM_DCACHE_REFERENCED) {
		/* Second chance. */
		__d_clear_flags(d, DCSIM_DCACHE_REFERENCED);
		d_unlock(d);
		return LRU_ROTATE;
	}
	d_lru_shrink_move(d, dispose);
	d_unlock(d);
	return LRU_REMOVED;
}

/*
 * models fs/dcache.c:shrink_lock_dentry() (6.1): d_lock and RCU held.
 * Return: true holding d_lock, the inode's i_lock if positive and (unless
 * a root) the parent's d_lock, count 0; false holding d_lock only (busy
 * or dead).
 */
static bool shrink_lock_dentry(struct dcsim_dentry *d)
{
	struct dcsim_inode *inode;
	struct dcsim_dentry *parent;

	if (unlikely(dcache_faulty(DCSIM_DCACHE_FAULT_LOCK_PARENT_STALE)) && d_cnt(d) < 0 &&
	    !IS_ROOT(d)) {
		/*
		 * The planted fault: lock_parent() before c2338f2dc7c1 took
		 * the parent of a husk too; its d_parent may have died and
		 * been freed before our RCU section began.
		 */
		parent = READ_ONCE(d->d_parent);
		if (d_trylock(parent))
			d_unlock(parent);
		return false;
	}
again:
	if (d_cnt(d))
		return false;
	inode = READ_ONCE(d->d_inode);
	if (unlikely(inode && dcache_faulty(DCSIM_DCACHE_FAULT_SHRINK_I_LOCK_INVERSION))) {
		/* The planted inversion: i_lock waited for under d_lock. */
		dcsim_spin_lock(&inode->i_lock);
	} else if (inode && unlikely(!dcsim_spin_trylock(&inode->i_lock))) {
		/* i_lock comes first; RCU keeps the inode's memory meanwhile. */
		d_unlock(d);
		dcsim_spin_lock(&inode->i_lock);
		d_lock(d);
		if (d->d_cache->strategy->flags & DCSIM_STRATEGY_LOCK_FOR_KILL) {
			/*
			 * 6.8+ lock_for_kill() (339e9e13530b): a new inode (a
			 * d_delete() made it negative meanwhile) is no sign of a
			 * user; lock the one it has now, if any.
			 */
			while (unlikely(READ_ONCE(d->d_inode) != inode)) {
				dcsim_spin_unlock(&inode->i_lock);
				inode = READ_ONCE(d->d_inode);
				if (!inode)
					break;
				d_unlock(d);
				dcsim_spin_lock(&inode->i_lock);
				d_lock(d);
			}
			if (unlikely(d_cnt(d)))
				goto out;
		} else if (unlikely(d_cnt(d)) || unlikely(READ_ONCE(d->d_inode) != inode)) {
			/* 6.1: in use again, or a new inode: somebody had grabbed it. */
			goto out;
		}
	}
	if (IS_ROOT(d))
		return true;
	parent = READ_ONCE(d->d_parent);
	if (likely(d_trylock(parent)))
		return true;
	/* Retake in order; RCU keeps the parent's memory if it dies meanwhile. */
	dcache_cover(DCSIM_COVER_RELOCK);
	d_unlock(d);
	d_lock(parent);
	if (unlikely(READ_ONCE(d->d_parent) != parent)) {
		/*
		 * Renamed while d_lock was dropped (rename.c changes d_parent
		 * under the old parent's d_lock, which we hold now): 6.1 gives
		 * the dentry up here, off both lists; the model starts again,
		 * under the new parent, so that it stays on what it was on.
		 */
		d_unlock(parent);
		d_lock(d);
		if (inode)
			dcsim_spin_unlock(&inode->i_lock);
		goto again;
	}
	d_lock_nested(d);
	if (unlikely(!inode && READ_ONCE(d->d_inode)) && likely(!d_cnt(d))) {
		/*
		 * A negative that became positive while d_lock was dropped
		 * (a lookup, d_instantiate() and dput() of another thread):
		 * its i_lock first, then the parent again.  6.1 returns here
		 * with the new inode's i_lock not held, and __dentry_kill()
		 * would unlock it (docs/kernel.md, intended differences).
		 */
		d_unlock(parent);
		goto again;
	}
	if (likely(!d_cnt(d)))
		return true;
	dcache_cover(DCSIM_COVER_RELOCK_FAIL);
	d_unlock(parent);
out:
	if (inode)
		dcsim_spin_unlock(&inode->i_lock);
	return false;
}

enum shrink_locked { SHRINK_LOCKED, SHRINK_BUSY, SHRINK_AGAIN };

/*
 * The planted fault 046b961b45f9 (reverted): 3.14's shrink_dentry_list()
 * killed through dentry_kill(dentry, 0), which only trylocked the inode's
 * i_lock and the parent's d_lock, as we hold the child (against the lock
 * order), and on failure gave the dentry back to the list.  A walker that
 * holds the parent whenever the trylock runs keeps us from ever getting
 * it: d_lock and RCU held.
 * Return: SHRINK_LOCKED holding d_lock, i_lock if positive and the
 * parent's d_lock unless a root, count 0; SHRINK_BUSY holding d_lock (in
 * use, or a husk); SHRINK_AGAIN holding d_lock only.
 */
static enum shrink_locked shrink_trylock_314(struct dcsim_dentry *d)
{
	struct dcsim_inode *inode;
	struct dcsim_dentry *parent;

	if (d_cnt(d))
		return SHRINK_BUSY;
	inode = READ_ONCE(d->d_inode);
	if (inode && !dcsim_spin_trylock(&inode->i_lock))
		return SHRINK_AGAIN;
	if (IS_ROOT(d))
		return SHRINK_LOCKED;
	parent = READ_ONCE(d->d_parent);
	if (d_trylock(parent))
		return SHRINK_LOCKED;
	if (inode)
		dcsim_spin_unlock(&inode->i_lock);
	return SHRINK_AGAIN;
}

/*
 * The planted fault 3b3f09f48ba7 (reverted): 4.16's shrink_dentry_list()
 * took the parent in order (lock_parent()) but only trylocked the inode's
 * i_lock, and on failure gave the dentry back to the list.  A kill that
 * holds that i_lock and trylocks the same parent (4.16's dentry_kill(), in
 * the dput() of an alias in the same directory) can fail in step with it
 * for ever: d_lock and RCU held.
 * Return: as shrink_trylock_314().
 */
static enum shrink_locked shrink_lock_416(struct dcsim_dentry *d)
{
	struct dcsim_inode *inode;
	struct dcsim_dentry *parent = NULL;

	if (d_cnt(d))
		return SHRINK_BUSY;
	if (!IS_ROOT(d)) {
		parent = READ_ONCE(d->d_parent);
		if (!d_trylock(parent)) {
			/* lock_parent(): in order; RCU keeps the parent's memory. */
			d_unlock(d);
			d_lock(parent);
			d_lock_nested(d);
			if (d_cnt(d)) {
				d_unlock(parent);
				return SHRINK_BUSY;
			}
		}
	}
	inode = READ_ONCE(d->d_inode);
	if (inode && !dcsim_spin_trylock(&inode->i_lock)) {
		if (parent)
			d_unlock(parent);
		return SHRINK_AGAIN;
	}
	return SHRINK_LOCKED;
}

/*
 * The planted fault b2b80195d882 (reverted): 3.14's shrink_dentry_list()
 * put the parent of what it killed with lockref_put_or_lock(), and killed
 * a parent whose last reference that was in place, with dentry_kill(p, 1):
 * a trylock of its i_lock and of the grandparent's d_lock (we hold p,
 * against the lock order), and on failure unlock, cpu_relax() and put
 * again.  The reference of @p's killed child is ours to drop; no lock held.
 * Return: the ancestors killed.
 */
static unsigned long put_ancestors_314(struct dcsim_dentry *p)
{
	unsigned long killed = 0;

	while (p && !dcsim_lockref_put_or_lock(&p->d_lockref)) {
		struct dcsim_inode *inode = READ_ONCE(p->d_inode);
		struct dcsim_dentry *gp = IS_ROOT(p) ? NULL : READ_ONCE(p->d_parent);

		/* p's d_lock held, count 1: ours. */
		if (inode && !dcsim_spin_trylock(&inode->i_lock))
			goto relax;
		if (gp && !d_trylock(gp)) {
			if (inode)
				dcsim_spin_unlock(&inode->i_lock);
			goto relax;
		}
		__dentry_kill(p, gp);
		killed++;
		p = gp;
		continue;
relax:
		d_unlock(p);
		cpu_relax();
	}
	return killed;
}

/*
 * models fs/dcache.c:__dput_to_list() (6.1), and for the
 * DCSIM_STRATEGY_LOCK_FOR_KILL strategies the put of the parent in 6.8+'s
 * __dentry_kill() (a parent reaching 0 is killed in the same step there,
 * by shrink_kill(), here when the list reaches it): @p's d_lock held
 */
static void __dput_to_list(struct dcsim_dentry *p, struct dcsim_list_head *list)
{
	int32_t cnt;

	dstat_inc(p->d_cache, DCSIM_CS_PARENT_PUT);
	if (unlikely(d_flags_read(p) & DCSIM_DCACHE_SHRINK_LIST)) {
		/* Its list's owner deals with it. */
		dcache_cover(DCSIM_COVER_PARENT_ON_SHRINK);
		d_set_cnt(p, d_cnt(p) - 1);
		return;
	}
	cnt = d_cnt(p) - 1;
	/*
	 * 6.1 takes it off the LRU even if it stays busy; 6.8+, whose
	 * __dentry_kill() only drops the parent's count, leaves a busy one
	 * there (DCSIM_STRATEGY_LOCK_FOR_KILL).
	 */
	if ((d_flags_read(p) & DCSIM_DCACHE_LRU_LIST) &&
	    (!cnt || !(p->d_cache->strategy->flags & DCSIM_STRATEGY_LOCK_FOR_KILL)))
		d_lru_del(p);
	d_set_cnt(p, cnt);
	if (!cnt)
		d_shrink_add(p, list);
}

/*
 * models fs/dcache.c:shrink_dentry_list(): kill what is still unused,
 * oldest first; parents whose count drops to 0 join the list.
 * Return: the number of dentries killed.
 */
unsigned long shrink_dentry_list(struct dcsim_cache *c, struct dcsim_list_head *list)
{
	unsigned long killed = 0;

	(void)c;
	while (!dlist_empty(list)) {
		struct dcsim_dentry *d = d_lru_entry(READ_ONCE(list->prev));
		struct dcsim_dentry *parent;
		enum shrink_locked locked;

		d_lock(d);
		dcsim_rcu_read_lock();
		if (unlikely(dcache_faulty(DCSIM_DCACHE_FAULT_SHRINK_PARENT_TRYLOCK) ||
			     dcache_faulty(DCSIM_DCACHE_FAULT_INODE_TRYLOCK))) {
			locked = dcache_faulty(DCSIM_DCACHE_FAULT_INODE_TRYLOCK) ?
				 shrink_lock_416(d) : shrink_trylock_314(d);
			if (locked == SHRINK_AGAIN) {
				/* Back on the list, where the loop takes it again. */
				dcsim_rcu_read_unlock();
				d_shrink_del(d);
				d_shrink_add(d, list);
				d_unlock(d);
				continue;
			}
		} else {
			locked = shrink_lock_dentry(d) ? SHRINK_LOCKED : SHRINK_BUSY;
		}
		if (locked == SHRINK_BUSY) {
			bool can_free;

			dcsim_rcu_read_unlock();
			d_shrink_del(d);
			/* A husk: killed by someone else while on our list. */
			can_free = d_cnt(d) < 0 &&
				   (d_flags_read(d) & DCSIM_DCACHE_DENTRY_KILLED);
			dcache_cover(can_free ? DCSIM_COVER_HUSK_FREED : DCSIM_COVER_SHRINK_BUSY);
			d_unlock(d);
			if (can_free)
				dentry_free(d);
			continue;
		}
		dcsim_rcu_read_unlock();
		d_shrink_del(d);
		parent = IS_ROOT(d) ? NULL : READ_ONCE(d->d_parent);
		if (unlikely(dcache_faulty(DCSIM_DCACHE_FAULT_ANCESTOR_TRYLOCK))) {
			__dentry_kill(d, parent);
			killed++;
			killed += put_ancestors_314(parent);
			continue;
		}
		if (parent)
			__dput_to_list(parent, list);
		__dentry_kill(d, parent);
		killed++;
	}
	return killed;
}

/* models fs/dcache.c:prune_dcache_sb() over list_lru_walk_one() */
unsigned long dcache_prune(struct dcsim_cache *c, unsigned long nr_to_scan)
{
	struct dcsim_list_head dispose, *cur, *next;

	dlist_init(&dispose);
	dcsim_spin_lock(&c->lru_lock);
	for (cur = READ_ONCE(c->lru.next); nr_to_scan && cur != &c->lru; cur = next) {
		/* Saved first: a rotated entry is met again only if more follow it. */
		next = READ_ONCE(cur->next);
		nr_to_scan--;
		dstat_inc(c, DCSIM_CS_PRUNE_SCAN);
		if (dentry_lru_isolate(d_lru_entry(cur), &dispose) == LRU_ROTATE) {
			dlist_move_tail(cur, &c->lru);
			dstat_inc(c, DCSIM_CS_PRUNE_ROTATE);
		}
	}
	dcsim_spin_unlock(&c->lru_lock);
	return shrink_dentry_list(c, &dispose);
}

/* models fs/dcache.c:shrink_dcache_sb() with dentry_lru_isolate_shrink() */
unsigned long dcache_shrink_all(struct dcsim_cache *c)
{
	struct dcsim_list_head dispose, *cur, *next;
	unsigned long killed = 0;
	bool more;

	do {
		unsigned int batch = 1024;
		long moved = 0;

		dlist_init(&dispose);
		dcsim_spin_lock(&c->lru_lock);
		for (cur = READ_ONCE(c->lru.next); batch && cur != &c->lru; cur = next) {
			struct dcsim_dentry *d = d_lru_entry(cur);

			next = READ_ONCE(cur->next);
			batch--;
			if (!d_trylock(d)) {
				dcache_cover(DCSIM_COVER_LRU_SKIP);
				continue;
			}
			d_lru_shrink_move(d, &dispose);
			d_unlock(d);
			moved++;
		}
		/* The planted fault: d_lru_shrink_move() counted them already. */
		if (dcache_faulty(DCSIM_DCACHE_FAULT_SHRINK_ALL_RECOUNT))
			dstat_add(c, DCSIM_CS_NR_LRU, -moved);
		dcsim_spin_unlock(&c->lru_lock);
		killed += shrink_dentry_list(c, &dispose);
		dcsim_spin_lock(&c->lru_lock);
		more = !dlist_empty(&c->lru);
		dcsim_spin_unlock(&c->lru_lock);
		if (more)
			cpu_relax();
	} while (more);
	return killed;
}

/*
 * models fs/dcache.c:select_collect() (and, with @victim, select_collect2())
 * under a d_walk(): @dir locked; visit every descendant pre-order, each
 * under its d_lock (parent -> child order, holding the path of ancestors).
 * Unused ones go to @dispose; a busy one leaves the LRU (6.1; 6.8+ and
 * the DCSIM_STRATEGY_LOCK_FOR_KILL strategies leave it there).  *@found
 * counts those still to be dealt with.  select_collect2 stops at the first
 * unused dentry on somebody else's shrink list, returned in *@victim under
 * rcu_read_lock() (the walk's locks are dropped on the way out).
 *
 * Unlike d_walk(), which holds only the directory it walks and the child
 * it looks at (and tells lockdep so by handing the child's d_lock over to
 * subclass 0 when it descends), the walk keeps every ancestor's d_lock:
 * the d_lock of a dentry @depth levels below the walk's top is taken as
 * subclass @depth (the top's, held by the caller, is 0), the lock order
 * validator's way of seeing a chain of nested d_locks in tree order.
 * Return: true if the walk stopped at a victim.
 */
static bool collect(struct dcsim_dentry *dir, struct dcsim_list_head *dispose, unsigned long *found,
		    struct dcsim_dentry **victim, unsigned int depth)
{
	struct dcsim_hlist_node *n;

	for (n = READ_ONCE(dir->d_children); n; n = READ_ONCE(n->next)) {
		struct dcsim_dentry *d = d_sib_entry(n);
		uint32_t f;
		int32_t cnt;

		dcsim_spin_lock_nested(&d->d_lockref.lock,
				       depth + 1 < DCSIM_LOCK_SUBCLASS_MAX ? depth + 1 :
				       DCSIM_LOCK_SUBCLASS_MAX - 1);
		f = d_flags_read(d);
		cnt = d_cnt(d);
		if (f & DCSIM_DCACHE_SHRINK_LIST) {
			if (victim && !cnt) {
				dcsim_rcu_read_lock();
				*victim = d;
				d_unlock(d);
				return true;
			}
			(*found)++;
		} else if (cnt < 0) {
			(*found)++;		/* dying (retain's kill), not unlisted yet */
		} else {
			/*
			 * 6.1 takes a busy one off the LRU too (its next final
			 * dput puts it back, unreferenced); 6.8+'s
			 * select_collect() leaves it there (to_shrink_list()
			 * only for count 0).
			 */
			if ((f & DCSIM_DCACHE_LRU_LIST) &&
			    (!cnt || !(d->d_cache->strategy->flags & DCSIM_STRATEGY_LOCK_FOR_KILL)))
				d_lru_del(d);
			if (!cnt) {
				d_shrink_add(d, dispose);
				(*found)++;
			}
		}
		if (cnt >= 0 && READ_ONCE(d->d_children) && collect(d, dispose, found, victim, depth + 1)) {
			d_unlock(d);
			return true;
		}
		d_unlock(d);
	}
	return false;
}

/* models fs/dcache.c:shrink_dcache_parent() */
void dcache_shrink_dcache_parent(struct dcsim_dentry *parent)
{
	struct dcsim_cache *c = parent->d_cache;

	for (;;) {
		struct dcsim_list_head dispose;
		unsigned long found = 0;

		struct dcsim_dentry *victim = NULL;

		dlist_init(&dispose);
		d_lock(parent);
		collect(parent, &dispose, &found, NULL, 0);
		d_unlock(parent);
		if (!dlist_empty(&dispose)) {
			shrink_dentry_list(c, &dispose);
			continue;
		}
		if (!found)
			break;
		/*
		 * The planted fault: the loop before cond_resched() came back
		 * (and before select_collect2): on a CPU that it took from the
		 * owner of those lists, it walks again forever.
		 */
		if (dcache_faulty(DCSIM_DCACHE_FAULT_NO_COND_RESCHED))
			continue;
		/*
		 * The 3.15-era loop of the two trylock faults: walk again,
		 * after cond_resched(), until the lists' owners are done.
		 */
		if (unlikely(dcache_faulty(DCSIM_DCACHE_FAULT_SHRINK_PARENT_TRYLOCK) ||
			     dcache_faulty(DCSIM_DCACHE_FAULT_ANCESTOR_TRYLOCK))) {
			cond_resched();
			continue;
		}
		/*
		 * Only others' shrink lists or dying dentries left.  As 6.1's
		 * select_collect2: kill an unused one off somebody else's list
		 * ourselves (its owner frees the husk), or else let them finish.
		 */
		dcache_cover(DCSIM_COVER_SHRINK_PARENT_WAIT);
		d_lock(parent);
		collect(parent, &dispose, &found, &victim, 0);
		d_unlock(parent);
		if (victim) {
			d_lock(victim);
			if (!shrink_lock_dentry(victim)) {
				d_unlock(victim);
				dcsim_rcu_read_unlock();
			} else {
				struct dcsim_dentry *p = IS_ROOT(victim) ? NULL : READ_ONCE(victim->d_parent);

				dcsim_rcu_read_unlock();
				dcache_cover(DCSIM_COVER_SHRINK_PARENT_VICTIM);
				if (p)
					__dput_to_list(p, &dispose);
				__dentry_kill(victim, p);
			}
		}
		/*
		 * Nothing we could do: the rest is others' to finish, and the
		 * owner of a list may be the thread whose CPU we took, so let
		 * it run.  fs/dcache.c calls cond_resched() on every pass that
		 * got this far; here only on the pass that waits, the one that
		 * loops (and for the explorer a pause in a busy wait).
		 */
		if (!dlist_empty(&dispose))
			shrink_dentry_list(c, &dispose);
		else if (!victim)
			cond_resched();
	}
}

/* models fs/dcache.c:d_invalidate() (no mounts in the model) */
void dcache_d_invalidate(struct dcsim_dentry *d)
{
	d_lock(d);
	if (d_unhashed(d)) {
		d_unlock(d);
		return;
	}
	__d_drop(d);
	d_unlock(d);
	if (dcsim_d_is_negative(d))
		return;
	dcache_shrink_dcache_parent(d);
}

/*
 * The public entry points: the cache's kernel-code ops where its strategy
 * brings them (src/model/kernel-code.h), else the model's code above.
 */
unsigned long dcsim_prune(struct dcsim_cache *c, unsigned long nr_to_scan)
{
	if (WARN_ON_ONCE(!dcache_alive(c)))
		return 0;
	if (c->ops && c->ops->prune)
		return c->ops->prune(c, nr_to_scan);
	return dcache_prune(c, nr_to_scan);
}

unsigned long dcsim_shrink_all(struct dcsim_cache *c)
{
	if (WARN_ON_ONCE(!dcache_alive(c)))
		return 0;
	if (c->ops && c->ops->shrink_all)
		return c->ops->shrink_all(c);
	return dcache_shrink_all(c);
}

void dcsim_d_invalidate(struct dcsim_dentry *d)
{
	struct dcsim_cache *c = d->d_cache;

	if (WARN_ON_ONCE(!dcache_alive(c)))
		return;
	if (c->ops && c->ops->invalidate)
		c->ops->invalidate(d);
	else
		dcache_d_invalidate(d);
}
