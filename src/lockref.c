// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Lockref operations; models lib/lockref.c.
 *
 * Each operation first tries to update the whole 64-bit word with cmpxchg,
 * which succeeds only if the lock half was unlocked in the value it
 * replaces: so the count never changes under a lock holder's feet.  If the
 * lock is seen held, or DCSIM_LOCKREF_CMPXCHG_RETRIES attempts fail, the
 * operation falls back to taking the spinlock (or, for put_return, to
 * reporting failure).
 */

#include <dcsim/lockref.h>

#include "internal.h"
#include "thread.h"

/*
 * CMPXCHG_LOOP(CODE, SUCCESS): run CODE on a private copy @new of the word,
 * publish it with cmpxchg, run SUCCESS on success.  CODE may "break" out to
 * the locked fallback.  A failed cmpxchg refreshes @old with the value seen,
 * so the loop re-evaluates the lock and the count each time round.
 *
 * Ordering: the cmpxchg is relaxed, as the kernel's try_cmpxchg64_relaxed():
 * a lockref operation orders nothing else, so a caller that reads shared
 * state after it (fast_dput() after lockref_put_return()) needs smp_rmb().
 */
#define CMPXCHG_LOOP(CODE, SUCCESS) do {					\
	int retry = DCSIM_LOCKREF_CMPXCHG_RETRIES;				\
	struct dcsim_lockref old;						\
	old.lock_count = READ_ONCE(lockref->lock_count);			\
	while (likely(dcsim_spin_value_unlocked(old.lock))) {			\
		struct dcsim_lockref new = old;					\
		CODE								\
		if (likely(dcsim_try_cmpxchg_relaxed(&lockref->lock_count,	\
					     &old.lock_count,			\
					     new.lock_count))) {		\
			SUCCESS;						\
		}								\
		__dcsim_stat_inc(DCSIM_STAT_LOCKREF_RETRIES);			\
		if (!--retry)							\
			break;							\
		cpu_relax();							\
	}									\
	__dcsim_stat_inc(DCSIM_STAT_LOCKREF_FALLBACKS);				\
} while (0)

/* models lib/lockref.c:lockref_get() */
void dcsim_lockref_get(struct dcsim_lockref *lockref)
{
	CMPXCHG_LOOP(
		new.count++;
	,
		return;
	);

	dcsim_spin_lock(&lockref->lock);
	WRITE_ONCE(lockref->count, READ_ONCE(lockref->count) + 1);
	dcsim_spin_unlock(&lockref->lock);
}

/* models lib/lockref.c:lockref_get_not_zero() */
int dcsim_lockref_get_not_zero(struct dcsim_lockref *lockref)
{
	int32_t count;
	int retval;

	CMPXCHG_LOOP(
		new.count++;
		if (old.count <= 0)
			return 0;
	,
		return 1;
	);

	dcsim_spin_lock(&lockref->lock);
	retval = 0;
	count = READ_ONCE(lockref->count);
	if (count > 0) {
		WRITE_ONCE(lockref->count, count + 1);
		retval = 1;
	}
	dcsim_spin_unlock(&lockref->lock);
	return retval;
}

/* models lib/lockref.c:lockref_put_not_zero() */
int dcsim_lockref_put_not_zero(struct dcsim_lockref *lockref)
{
	int32_t count;
	int retval;

	CMPXCHG_LOOP(
		new.count--;
		if (old.count <= 1)
			return 0;
	,
		return 1;
	);

	dcsim_spin_lock(&lockref->lock);
	retval = 0;
	count = READ_ONCE(lockref->count);
	if (count > 1) {
		WRITE_ONCE(lockref->count, count - 1);
		retval = 1;
	}
	dcsim_spin_unlock(&lockref->lock);
	return retval;
}

/*
 * models lib/lockref.c:lockref_put_return()
 *
 * Never takes the lock: the caller (fast_dput) decides what to do when the
 * lockless decrement is not possible.
 */
int dcsim_lockref_put_return(struct dcsim_lockref *lockref)
{
	CMPXCHG_LOOP(
		new.count--;
		if (old.count <= 0)
			return -1;
	,
		return new.count;
	);
	return -1;
}

/* models lib/lockref.c:lockref_put_or_lock() */
int dcsim_lockref_put_or_lock(struct dcsim_lockref *lockref)
{
	int32_t count;

	CMPXCHG_LOOP(
		new.count--;
		if (old.count <= 1)
			break;
	,
		return 1;
	);

	dcsim_spin_lock(&lockref->lock);
	count = READ_ONCE(lockref->count);
	if (count <= 1)
		return 0;	/* with the lock held */
	WRITE_ONCE(lockref->count, count - 1);
	dcsim_spin_unlock(&lockref->lock);
	return 1;
}

/* models lib/lockref.c:lockref_mark_dead() */
void dcsim_lockref_mark_dead(struct dcsim_lockref *lockref)
{
	WARN_ON_ONCE(!dcsim_spin_is_locked(&lockref->lock));
	WRITE_ONCE(lockref->count, DCSIM_LOCKREF_DEAD);
}

/* models lib/lockref.c:lockref_get_not_dead() */
int dcsim_lockref_get_not_dead(struct dcsim_lockref *lockref)
{
	int32_t count;
	int retval;

	CMPXCHG_LOOP(
		new.count++;
		if (old.count < 0)
			return 0;
	,
		return 1;
	);

	dcsim_spin_lock(&lockref->lock);
	retval = 0;
	count = READ_ONCE(lockref->count);
	if (count >= 0) {
		WRITE_ONCE(lockref->count, count + 1);
		retval = 1;
	}
	dcsim_spin_unlock(&lockref->lock);
	return retval;
}
