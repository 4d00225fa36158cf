// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * An out-of-tree dput() strategy for dcsim, and four ways to get it wrong.
 * Built against an installed dcsim (see Makefile), loaded with
 *
 *	dcsim-check --load ./libexample-fast-htm.so --strategy example-fast-htm
 *
 * The strategy, "example-fast-htm":
 *
 *  1. Every put first tries one transaction that drops the reference when
 *     nothing but the count has to change: d_lock free, and either other
 *     references remain or the dentry is hashed, on the LRU, REFERENCED
 *     and has no reason to die.  Any other state aborts with a code from
 *     <dcsim/strategy.h>; an abort changes nothing and we fall through.
 *  2. The fallback is 6.1's fast_dput() idea in the public API: a lockless
 *     decrement (dcsim_lockref_put_return()), and after a drop to zero a
 *     lockless look at the flags, inside an RCU read-side section; if the
 *     dentry needs any write (LRU add, REFERENCED, a kill), d_lock is
 *     taken, the count rechecked and the reference handed to the library's
 *     locked slow path, dcsim_dput_locked_final().
 *
 * Compiled with -DEXAMPLE_BUG=..., one line of it changes (look for "BUG"):
 *
 *  BUG_NOLRU       the lockless retain test forgets DCACHE_LRU_LIST: a
 *                  REFERENCED dentry that the shrinker took off the LRU
 *                  while it was in use is left unused and off the LRU.
 *  BUG_EARLY_READ  the lockless retain test reads the flags and the hash
 *                  state before the decrement instead of after it: right
 *                  in every serial run, wrong when a d_drop() falls between
 *                  the read and the decrement.
 *  BUG_TXN_NOLOCK  the transaction drops a non-final reference before it
 *                  tests d_lock, so its write can land inside a lock
 *                  holder's read-modify-write of the count (lost update).
 *  BUG_NORCU       fast_dput() outside its RCU read-side section: after the
 *                  lockless drop to zero another thread may kill and free
 *                  the dentry while we still read its flags.
 *
 * Shared memory is only touched through <dcsim/atomic.h> (DCSIM_READ_ONCE
 * and friends), the lockref and spinlock calls, and the dentry accessors:
 * in an instrumented build each of those is a schedule point of the explorer and
 * is logged for rollback by the simulated HTM.  A plain load or store is
 * invisible to both.
 */

#include <stdbool.h>
#include <stdint.h>

#include <dcsim/atomic.h>
#include <dcsim/dentry.h>
#include <dcsim/htm.h>
#include <dcsim/lockref.h>
#include <dcsim/rcu.h>
#include <dcsim/spinlock.h>
#include <dcsim/strategy.h>

#define BUG_NONE	0
#define BUG_NOLRU	1
#define BUG_EARLY_READ	2
#define BUG_TXN_NOLOCK	3
#define BUG_NORCU	4

#ifndef EXAMPLE_BUG
#define EXAMPLE_BUG	BUG_NONE
#endif

#if EXAMPLE_BUG == BUG_NONE
#define EXAMPLE_NAME	"example-fast-htm"
#define EXAMPLE_DESC	"out-of-tree example: a transaction for every put, then fast_dput()"
#elif EXAMPLE_BUG == BUG_NOLRU
#define EXAMPLE_NAME	"example-bug-nolru"
#define EXAMPLE_DESC	"example with a bug: lockless final put of a dentry not on the LRU"
#elif EXAMPLE_BUG == BUG_EARLY_READ
#define EXAMPLE_NAME	"example-bug-early-read"
#define EXAMPLE_DESC	"example with a bug: retain test read before the decrement"
#elif EXAMPLE_BUG == BUG_TXN_NOLOCK
#define EXAMPLE_NAME	"example-bug-txn-nolock"
#define EXAMPLE_DESC	"example with a bug: non-final put in a transaction without the lock test"
#elif EXAMPLE_BUG == BUG_NORCU
#define EXAMPLE_NAME	"example-bug-norcu"
#define EXAMPLE_DESC	"example with a bug: fast_dput() without its RCU section"
#else
#error "EXAMPLE_BUG: one of BUG_NONE, BUG_NOLRU, BUG_EARLY_READ, BUG_TXN_NOLOCK, BUG_NORCU"
#endif

#define REF_LRU		(DCSIM_DCACHE_REFERENCED | DCSIM_DCACHE_LRU_LIST)
#define MUST_DIE	(DCSIM_DCACHE_DISCONNECTED | DCSIM_DCACHE_DONTCACHE)
/* The retain style we ask dcsim_dput_locked_final() for (4.13+). */
#define STYLE		DCSIM_RETAIN_LRU_THEN_REFERENCED

/*
 * example_txn() - drop one reference inside a transaction.
 * Return: true if the transaction committed and the put is done; false if
 * it did not start or aborted, with nothing changed.
 *
 * In an instrumented build dcsim_htm_begin() is a macro around setjmp(): an abort
 * returns from it a second time.  So it is called here, in the function
 * that runs the whole transaction, this function does not return between
 * begin and end, and the abort path reads only @st, which the body never
 * writes.  Abort codes must be compile-time constants (x86 XABORT imm8).
 */
static bool example_txn(struct dcsim_dentry *d)
{
	struct dcsim_lockref *ref = dcsim_d_lockref(d);
	/*
	 * Taken now, while our reference pins the dentry: after a committed
	 * final put another thread may free it before we account the commit.
	 */
	struct dcsim_cache *cache = dcsim_d_cache(d);
	struct dcsim_lockref old;
	dcsim_htm_status_t st;
	uint32_t f;

	st = dcsim_htm_begin();
	if (st != DCSIM_HTM_STARTED) {
		/* Per-cache statistics, outside the transaction; decode(st) says why. */
		dcsim_cache_htm_account(cache, st);
		return false;
	}
	/* Lock and count in one load: the whole word joins our read set. */
	old.lock_count = DCSIM_READ_ONCE(ref->lock_count);
#if EXAMPLE_BUG == BUG_TXN_NOLOCK
	/*
	 * BUG: a non-final put commits before the lock test below.  A d_lock
	 * holder reads the count, computes and stores it back in separate
	 * steps; our decrement can land between them and be overwritten.
	 */
	if (old.count > 1) {
		DCSIM_WRITE_ONCE(ref->count, old.count - 1);
		dcsim_htm_end();
		dcsim_cache_htm_account(cache, DCSIM_HTM_STARTED);
		return true;
	}
#endif
	/*
	 * The lock word is in the read set, so a d_lock taken before our
	 * commit aborts us: if it is free now, nobody is in the middle of a
	 * locked update of the count, for any count, final or not.
	 */
	if (!dcsim_spin_value_unlocked(old.lock))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_LOCKED);
	if (old.count <= 0)
		dcsim_htm_abort(DCSIM_DCACHE_HTM_BADCOUNT);	/* misuse: the fallback warns */
	if (old.count > 1) {
		DCSIM_WRITE_ONCE(ref->count, old.count - 1);
		dcsim_htm_end();
		dcsim_cache_htm_account(cache, DCSIM_HTM_STARTED);
		return true;
	}
	/* The final put: retain_dentry()'s tests, in its order. */
	if (dcsim_d_unhashed(d))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_UNHASHED);
	f = dcsim_d_flags(d);
	if (f & (MUST_DIE | DCSIM_DCACHE_OP_DELETE))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_KILL);
	if (!(f & DCSIM_DCACHE_LRU_LIST))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_NOLRU);
	/*
	 * Setting REFERENCED would need a write to d_flags, which belongs to
	 * the library: leave that put to the locked path.
	 */
	if (!(f & DCSIM_DCACHE_REFERENCED))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_NOTREF);
	DCSIM_WRITE_ONCE(ref->count, 0);
	dcsim_htm_end();
	dcsim_cache_htm_account(cache, DCSIM_HTM_STARTED);
	return true;
}

/*
 * put_locked() - d_lock held and the caller's reference still counted:
 * let the library retain or kill the dentry (and walk up to the parent).
 * Return: the path for the statistics.
 */
static enum dcsim_dput_path put_locked(struct dcsim_dentry *d)
{
	/* Count <= 0 is misuse: dcsim_dput_locked_final() warns and unlocks. */
	bool misuse = DCSIM_READ_ONCE(dcsim_d_lockref(d)->count) <= 0;

	dcsim_dput_locked_final(d, STYLE);
	return misuse ? DCSIM_DPUT_PATH_WARNED : DCSIM_DPUT_PATH_LOCKED;
}

/*
 * example_fast_dput() - the lockless put; called inside an RCU read-side
 * section.  Sets *@locked when it took d_lock.
 * Return: true if the put is done (no lock held); false with d_lock held
 * and the caller's reference counted: put_locked() finishes.
 */
static bool example_fast_dput(struct dcsim_dentry *d, bool *locked)
{
	struct dcsim_lockref *ref = dcsim_d_lockref(d);
	bool hashed;
	uint32_t f;
	int ret;

#if EXAMPLE_BUG == BUG_EARLY_READ
	/*
	 * BUG: the retain test is read before the decrement.  Until our
	 * decrement the dentry is not ours to judge: a d_drop() and the
	 * dropper's own put can both come between this read and the
	 * decrement, which then finds a dentry that looks hashed.
	 */
	f = dcsim_d_flags(d) & (REF_LRU | MUST_DIE);
	hashed = !dcsim_d_unhashed(d);
#endif
	ret = dcsim_lockref_put_return(ref);
	if (ret < 0) {
		/* Lock held, cmpxchg contended or count <= 0: nothing was decremented. */
		dcsim_spin_lock(&ref->lock);
		*locked = true;
		return false;
	}
	if (ret > 0)
		return true;

#if EXAMPLE_BUG != BUG_EARLY_READ
	/*
	 * We dropped the count to zero without the lock.  The flags and the
	 * hash state are not stable, but it is enough that at some point after
	 * our decrement the dentry was hashed, on the LRU and REFERENCED:
	 * whoever changes that later does it under d_lock and sees count 0.
	 * lockref's cmpxchg is relaxed, so smp_rmb() orders these loads after
	 * it.  Our RCU section keeps the memory valid if it was killed.
	 */
	dcsim_smp_rmb();
	f = dcsim_d_flags(d) & (REF_LRU | MUST_DIE);
	hashed = !dcsim_d_unhashed(d);
#endif
#if EXAMPLE_BUG == BUG_NOLRU
	/* BUG: DCACHE_LRU_LIST is taken for granted, only REFERENCED is tested. */
	f |= DCSIM_DCACHE_LRU_LIST;
#endif
	if (f == REF_LRU && hashed)
		return true;

	/* Something needs a write: take the lock and look again. */
	dcsim_spin_lock(&ref->lock);
	*locked = true;
	/*
	 * Someone took a reference, or killed the dentry (count < 0), while
	 * we held none: it is theirs now.  The RCU section is still open, so
	 * a dentry killed just before we locked cannot have been freed.
	 */
	if (DCSIM_READ_ONCE(ref->count)) {
		dcsim_spin_unlock(&ref->lock);
		return true;
	}
	/* Take back the reference we dropped; put_locked() drops it. */
	DCSIM_WRITE_ONCE(ref->count, 1);
	return false;
}

/* The strategy's ->dput: drop exactly one reference on @d. */
static enum dcsim_dput_path example_dput(struct dcsim_dentry *d)
{
	bool locked = false, done;

	/*
	 * ->d_delete() must be asked under d_lock on every final put.  The
	 * flag is set before the dentry is hashed, so an unlocked look is
	 * enough.  dcsim_lockref_put_or_lock() returns 0 with d_lock held.
	 */
	if (dcsim_d_flags(d) & DCSIM_DCACHE_OP_DELETE) {
		if (dcsim_lockref_put_or_lock(dcsim_d_lockref(d)))
			return DCSIM_DPUT_PATH_CAS;
		return put_locked(d);
	}
	/* Only where dcsim_htm_begin() would run transactions at all. */
	if (dcsim_htm_live() && example_txn(d))
		return DCSIM_DPUT_PATH_HTM;
#if EXAMPLE_BUG == BUG_NORCU
	/* BUG: no dcsim_rcu_read_lock()/unlock() around the lockless put. */
	done = example_fast_dput(d, &locked);
#else
	dcsim_rcu_read_lock();
	done = example_fast_dput(d, &locked);
	dcsim_rcu_read_unlock();
#endif
	if (!done)
		return put_locked(d);
	return locked ? DCSIM_DPUT_PATH_LOCKED : DCSIM_DPUT_PATH_CAS;
}

static const struct dcsim_dput_strategy example_strategy = {
	.name = EXAMPLE_NAME,
	.description = EXAMPLE_DESC,
	.dput = example_dput,
	.retain_style = STYLE,
	/* It has a transaction: checkers run it with HTM on and off. */
	.flags = DCSIM_STRATEGY_USES_HTM,
};

/*
 * Registration.  Either way works with dcsim-check --load; the correct
 * strategy shows the entry point, the buggy ones a constructor.
 */
#if EXAMPLE_BUG == BUG_NONE
/* Called by the loader after dlopen(); nonzero refuses the library. */
int dcsim_plugin_init(void);

__attribute__((visibility("default"))) int dcsim_plugin_init(void)
{
	return dcsim_strategy_register(&example_strategy);
}
#else
/* Runs at dlopen() (or LD_PRELOAD), after libdcsim's own initialisation. */
__attribute__((constructor)) static void example_register(void)
{
	(void)dcsim_strategy_register(&example_strategy);
}
#endif
