// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Lockref operations; models lib/lockref.c.
 *
 * Each operation first tries to update the whole 64-bit word with cmpxchg
 * (LOCKREF_CMPXCHG_LOOP() in lockref-internal.h), which succeeds only if
 * the lock half was unlocked in the value it replaces: so the count never
 * changes under a lock holder's feet.  If the
 * lock is seen held, or DCSIM_LOCKREF_CMPXCHG_RETRIES attempts fail, the
 * operation falls back to taking the spinlock (or, for put_return, to
 * reporting failure).
 */

#include <dcsim/lockref.h>

#include "internal.h"
#include "lockref-internal.h"
#include "thread.h"

/* models lib/lockref.c:lockref_get() */
void dcsim_lockref_get(struct dcsim_lockref *lockref)
{
	LOCKREF_CMPXCHG_LOOP(lockref, 1, ,
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

	LOCKREF_CMPXCHG_LOOP(lockref, 1,
		if (old_count <= 0)
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

	LOCKREF_CMPXCHG_LOOP(lockref, -1,
		if (old_count <= 1)
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
	return lockref_put_return_inline(lockref);
}

/*
 * The first try of lockref_put_return_inline() did not succeed, and @old
 * is the word it saw (the value its failed cmpxchg found, if @tried).  Go
 * on exactly as LOCKREF_CMPXCHG_LOOP() would: a lost race is a retry, the
 * first of DCSIM_LOCKREF_CMPXCHG_RETRIES; a lock seen held is a fallback;
 * a count <= 0 a refusal.
 */
int dcsim_lockref_put_return_slow(struct dcsim_lockref *lockref, uint64_t old, bool tried)
{
	int retry = DCSIM_LOCKREF_CMPXCHG_RETRIES;

	if (tried) {
		dcsim_stat_inc(DCSIM_STAT_LOCKREF_RETRIES);
		if (!--retry)
			goto fallback;
		cpu_relax();
	}
	while (likely(lockref_word_unlocked(old))) {
		if (lockref_word_count(old) <= 0)
			return -1;
		if (likely(dcsim_try_cmpxchg_relaxed(&lockref->lock_count, &old,
						     lockref_word_add(old, -1))))
			return lockref_word_count(old) - 1;
		dcsim_stat_inc(DCSIM_STAT_LOCKREF_RETRIES);
		if (!--retry)
			break;
		cpu_relax();
	}
fallback:
	dcsim_stat_inc(DCSIM_STAT_LOCKREF_FALLBACKS);
	return -1;
}

/* models lib/lockref.c:lockref_put_or_lock() */
int dcsim_lockref_put_or_lock(struct dcsim_lockref *lockref)
{
	return lockref_put_or_lock_inline(lockref) != LOCKREF_KEPT_LOCKED;
}

enum lockref_put_how dcsim_lockref_put_or_lock_how(struct dcsim_lockref *lockref)
{
	return lockref_put_or_lock_inline(lockref);
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

	LOCKREF_CMPXCHG_LOOP(lockref, 1,
		if (old_count < 0)
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
