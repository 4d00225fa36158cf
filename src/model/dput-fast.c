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
#include "../base/lockref-internal.h"
#include "../base/rcu-read.h"
#include "stats.h"

/*
 * What fast_dput() returns: the path of a put that is complete (no lock
 * held), or FAST_DPUT_KEPT_LOCKED: d_lock held and the count back at 1, the
 * caller decides (retain or kill).  One value, so that nothing lives on
 * the stack of the caller's fast path.
 */
#define FAST_DPUT_KEPT_LOCKED	(-1)

/*
 * The parts of fast_dput() that a non-final put never reaches, out of line
 * (noinline), so that the put that only decrements runs in a small
 * function that saves no registers and spills nothing.  Same contract as
 * fast_dput().
 */

/* DCACHE_OP_DELETE: 6.1 puts with lockref_put_or_lock(). */
static int __attribute__((noinline, cold))
fast_dput_op_delete(struct dcsim_dentry *d)
{
	/* The lockref call says whether it took d_lock. */
	switch (lockref_put_or_lock_inline(&d->d_lockref)) {
	case LOCKREF_PUT_LOCKLESS:
		return DCSIM_DPUT_PATH_CAS;
	case LOCKREF_PUT_LOCKED:
		return DCSIM_DPUT_PATH_LOCKED;
	case LOCKREF_KEPT_LOCKED:
		break;
	}
	/*
	 * lockref_put_or_lock() also stops, with the lock held, at a
	 * count of 0 or a dead one: misuse.  6.1 would go on to kill
	 * the dentry a second time; we refuse.
	 */
	if (WARN_ON_ONCE(d_cnt(d) <= 0)) {
		d_unlock(d);
		return DCSIM_DPUT_PATH_WARNED;
	}
	return FAST_DPUT_KEPT_LOCKED;
}

/*
 * lockref_put_return() returned @ret <= 0: it dropped the count to zero
 * (ret 0), or did nothing (ret < 0: lock held, cmpxchg kept failing, or
 * the count was <= 0).
 */
static int __attribute__((noinline))
fast_dput_not_above_zero(struct dcsim_dentry *d, int ret)
{
	uint32_t f;

	if (unlikely(ret < 0)) {
		d_lock(d);
		if (WARN_ON_ONCE(d_cnt(d) <= 0)) {
			d_unlock(d);
			return DCSIM_DPUT_PATH_WARNED;
		}
		d_set_cnt(d, d_cnt(d) - 1);
		goto locked;
	}

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
		return DCSIM_DPUT_PATH_CAS;

	/* Not the common case: get the lock and look again. */
	d_lock(d);
locked:
	/* Someone re-got it, or killed it (count < 0), while we were unlocked. */
	if (d_cnt(d)) {
		d_unlock(d);
		return DCSIM_DPUT_PATH_LOCKED;
	}
	/* Take back the reference we dropped; the caller puts it under the lock. */
	d_set_cnt(d, 1);
	return FAST_DPUT_KEPT_LOCKED;
}

/*
 * models fs/dcache.c:fast_dput() (6.1).  Called under rcu_read_lock().
 * Return: the put's path if it is complete (no lock held: CAS, HTM,
 * LOCKED if d_lock was taken, WARNED on misuse); FAST_DPUT_KEPT_LOCKED with
 * d_lock held and the count back at 1: the caller decides (retain or kill).
 */
static inline __attribute__((always_inline)) int
fast_dput(struct dcsim_dentry *d, enum fast_htm htm)
{
	int ret;

	/*
	 * Set before the dentry is hashed (d_set_d_op()); a plain read is
	 * enough here.  The fast-htm transaction reads it again.
	 */
	if (unlikely(d_flags_read(d) & DCSIM_DCACHE_OP_DELETE))
		return fast_dput_op_delete(d);

	/* fast-htm(-all): the transaction of our kernel patch (dput-fast-htm.c). */
	if (htm != FAST_HTM_NONE && dcsim_htm_live() &&
	    (htm == FAST_HTM_ALL || fast_dput_wants_txn(d)) && fast_dput_txn(d))
		return DCSIM_DPUT_PATH_HTM;

	ret = lockref_put_return_inline(&d->d_lockref);
	if (likely(ret > 0))
		return DCSIM_DPUT_PATH_CAS;
	return fast_dput_not_above_zero(d, ret);
}

/*
 * The rest of dput() (6.1) once fast_dput() has left d_lock held with the
 * count back at 1: retain or kill, then the parents.  Out of line, so that
 * the put that ends in fast_dput() (nearly all of them) runs in a small
 * function that saves no registers.
 */
static enum dcsim_dput_path __attribute__((noinline))
dput_61_locked(struct dcsim_dentry *d, enum fast_htm htm)
{
	struct dcsim_dentry *next;
	int p;

	for (;;) {
		/* d_lock held, count 1 */
		if (retain_dentry(d, DCSIM_RETAIN_LRU_THEN_REFERENCED)) {
			d_unlock(d);
			break;
		}
		next = dentry_kill(d);
		if (!next)
			break;
		if (next != d)
			dstat_inc(next->d_cache, DCSIM_CS_PARENT_PUT); /* d may be freed */
		d = next;
		rcu_read_lock_inline();
		p = fast_dput(d, htm);
		rcu_read_unlock_inline();
		if (likely(p != FAST_DPUT_KEPT_LOCKED))
			break;
	}
	/* Only the first dentry's put is reported: it took d_lock. */
	return DCSIM_DPUT_PATH_LOCKED;
}

/*
 * models fs/dcache.c:dput() (6.1), all of it; shared with fast-htm and
 * fast-htm-all.
 */
static enum dcsim_dput_path __attribute__((noinline))
dput_61_in_section(struct dcsim_dentry *d, enum fast_htm htm)
{
	int path = fast_dput(d, htm);

	rcu_read_unlock_inline();
	if (likely(path != FAST_DPUT_KEPT_LOCKED))
		return (enum dcsim_dput_path)path;
	return dput_61_locked(d, htm);
}

static enum dcsim_dput_path __attribute__((noinline))
dput_61_full(struct dcsim_dentry *d, enum fast_htm htm)
{
	/* @d is not NULL: dcsim_dput() calls strategies with a dentry. */
	rcu_read_lock_inline();
	return dput_61_in_section(d, htm);
}

/* dput_61_fast() has put its reference and a writer waits for readers. */
static enum dcsim_dput_path __attribute__((noinline))
dput_61_wake(void)
{
	dcsim_rcu_wake_up_gp();
	return DCSIM_DPUT_PATH_CAS;
}

/* dput_61_fast() lost the race of its one try: counted as the loop would. */
static enum dcsim_dput_path __attribute__((noinline))
dput_61_lost_race(struct dcsim_dentry *d)
{
	dcsim_stat_inc(DCSIM_STAT_LOCKREF_RETRIES);
	return dput_61_in_section(d, FAST_HTM_NONE);
}

/*
 * dput() (6.1) for "fast", with the put that is not final done here, in a
 * function that makes no call but tail calls (so it saves no register):
 * under rcu_read_lock(), fast_dput()'s lockref_put_return() of a count
 * above 1, to a count of at least 1, is all that 6.1 does for it.  If
 * liburcu's inline read side is not for this thread, if the dentry has
 * ->d_delete(), or if the first try does not decrement a count above 1
 * (a count of 1, the lock held, a lost race), nothing has been done, and
 * fast_dput() does it all over, still in the section (dput_61_in_section()),
 * with the whole retry loop.
 */
static inline enum dcsim_dput_path dput_61_fast(struct dcsim_dentry *d)
{
	struct dcsim_lockref *ref = &d->d_lockref;
	uint64_t old;

	if (unlikely(!rcu_read_membarrier_ok()))
		return dput_61_full(d, FAST_HTM_NONE);
	rcu_read_lock_membarrier();
	/* As in fast_dput(): set before the dentry is hashed; a plain read. */
	if (likely(!(d_flags_read(d) & DCSIM_DCACHE_OP_DELETE))) {
		old = READ_ONCE(ref->lock_count);
		if (likely(lockref_word_unlocked(old) && lockref_word_count_above(old, 1))) {
			if (likely(dcsim_try_cmpxchg_relaxed(&ref->lock_count, &old,
							     lockref_word_add(old, -1)))) {
				if (rcu_read_unlock_membarrier_defer_wake())
					return dput_61_wake();
				return DCSIM_DPUT_PATH_CAS;
			}
			return dput_61_lost_race(d);
		}
	}
	return dput_61_in_section(d, FAST_HTM_NONE);
}

enum dcsim_dput_path dcsim_dput_61(struct dcsim_dentry *d, enum fast_htm htm)
{
	return dput_61_full(d, htm);
}

static enum dcsim_dput_path dput_fast(struct dcsim_dentry *d)
{
	return dput_61_fast(d);
}

const struct dcsim_dput_strategy dcsim_dput_fast_strategy = {
	.name = "fast",
	.description = "6.1 fast_dput(): lockless put to zero, d_lock for LRU/flag updates",
	.dput = dput_fast,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
};
