/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_SRC_LOCKREF_INTERNAL_H
#define DCSIM_SRC_LOCKREF_INTERNAL_H

/*
 * The lockref cmpxchg loop, inline, for lib/lockref.c's model (lockref.c)
 * and for the library's hot paths (the dput strategies), which call the
 * operation they need without a function call or a spill of the word to
 * the stack.  Not installed: users call the out-of-line dcsim_lockref_*()
 * of <dcsim/lockref.h>, which are these same bodies.
 *
 * The word is handled as a plain 64-bit value (lock in the low half, count
 * in the high half on little-endian, as the union of <dcsim/lockref.h> lays
 * it out), so the compiler keeps it in a register across the loop.
 */

#include <stdbool.h>
#include <stdint.h>

#include <dcsim/lockref.h>
#include <dcsim/stats.h>

#include "internal.h"
#include "thread.h"

/*
 * The two halves of a lockref word, read from a value (no access).  On
 * little-endian the count is the high half, so moving it is one 64-bit
 * add that cannot carry into the lock (a carry out of bit 63 is lost);
 * elsewhere the union does it.
 */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
_Static_assert(__builtin_offsetof(struct dcsim_lockref, count) == 4, "count is the high half");

static inline int32_t lockref_word_count(uint64_t w)
{
	return (int32_t)(w >> 32);
}

static inline dcsim_spinlock_t lockref_word_lock(uint64_t w)
{
	return (dcsim_spinlock_t){ .val = (uint32_t)w };
}

/* @w with its count raised by @delta (which may be negative). */
static inline uint64_t lockref_word_add(uint64_t w, int32_t delta)
{
	return w + ((uint64_t)(int64_t)delta << 32);
}

/* The count of @w is above @n: one compare of the whole word (count is its sign half). */
static inline bool lockref_word_count_above(uint64_t w, int32_t n)
{
	return (int64_t)w >= (int64_t)((uint64_t)(int64_t)(n + 1) << 32);
}

/* dcsim_spin_value_unlocked() of the lock half: head (bits 0-15) == tail (16-31). */
static inline bool lockref_word_unlocked(uint64_t w)
{
	return (uint16_t)w == (uint16_t)(w >> 16);
}
#else
static inline int32_t lockref_word_count(uint64_t w)
{
	struct dcsim_lockref l = { .lock_count = w };

	return l.count;
}

static inline dcsim_spinlock_t lockref_word_lock(uint64_t w)
{
	struct dcsim_lockref l = { .lock_count = w };

	return l.lock;
}

static inline uint64_t lockref_word_add(uint64_t w, int32_t delta)
{
	struct dcsim_lockref l = { .lock_count = w };

	l.count += delta;
	return l.lock_count;
}

static inline bool lockref_word_unlocked(uint64_t w)
{
	return dcsim_spin_value_unlocked(lockref_word_lock(w));
}

static inline bool lockref_word_count_above(uint64_t w, int32_t n)
{
	return lockref_word_count(w) > n;
}
#endif

/*
 * LOCKREF_CMPXCHG_LOOP(DELTA, REFUSE, SUCCESS): while the lock half of the
 * word is free, try to publish the word with its count moved by DELTA.
 * REFUSE is evaluated on @old_count (the count seen) before each try and
 * may "return" or "break" out to the locked fallback; SUCCESS runs once the
 * cmpxchg succeeds, with @new_count the count published.  A failed
 * cmpxchg refreshes the value seen, so the loop re-evaluates the lock and
 * the count each time round.  Falling out of the loop counts a fallback.
 *
 * Ordering: the cmpxchg is relaxed, as the kernel's try_cmpxchg64_relaxed():
 * a lockref operation orders nothing else, so a caller that reads shared
 * state after it (fast_dput() after lockref_put_return()) needs smp_rmb().
 */
#define LOCKREF_CMPXCHG_LOOP(lockref, DELTA, REFUSE, SUCCESS) do {		\
	int __retry = DCSIM_LOCKREF_CMPXCHG_RETRIES;				\
	uint64_t __old = READ_ONCE((lockref)->lock_count);			\
	while (likely(lockref_word_unlocked(__old))) {	\
		int32_t old_count = lockref_word_count(__old);			\
		int32_t new_count = old_count + (DELTA);			\
		(void)new_count;						\
		REFUSE								\
		if (likely(dcsim_try_cmpxchg_relaxed(&(lockref)->lock_count,	\
					     &__old,				\
					     lockref_word_add(__old, (DELTA))))) { \
			SUCCESS;						\
		}								\
		dcsim_stat_inc(DCSIM_STAT_LOCKREF_RETRIES);			\
		if (!--__retry)							\
			break;							\
		cpu_relax();							\
	}									\
	dcsim_stat_inc(DCSIM_STAT_LOCKREF_FALLBACKS);				\
} while (0)

/*
 * The rest of lockref_put_return_inline() after a first try that did not
 * succeed, seeing @old; @tried if its cmpxchg failed (a lost race).  Out
 * of line (lockref.c).
 */
int dcsim_lockref_put_return_slow(struct dcsim_lockref *lockref, uint64_t old, bool tried);

/*
 * models lib/lockref.c:lockref_put_return(): never takes the lock.
 * Return: the new count, or -1 if the lock was held, the cmpxchg kept
 * failing, or the count was already <= 0 (nothing changed then).
 *
 * The first try is inline and the rest of the loop out of line
 * (lockref.c), so that a caller's fast path holds no retry counter: the
 * same attempts in the same order as LOCKREF_CMPXCHG_LOOP(), counted the
 * same way.
 */
static inline int lockref_put_return_inline(struct dcsim_lockref *lockref)
{
	uint64_t old = READ_ONCE(lockref->lock_count);
	int32_t count = lockref_word_count(old);
	bool tried = false;

	if (likely(lockref_word_unlocked(old) && count > 0)) {
		if (likely(dcsim_try_cmpxchg_relaxed(&lockref->lock_count, &old,
						     lockref_word_add(old, -1))))
			return count - 1;
		tried = true;
	}
	return dcsim_lockref_put_return_slow(lockref, old, tried);
}

/* How dcsim_lockref_put_or_lock_how() went. */
enum lockref_put_how {
	LOCKREF_KEPT_LOCKED = 0,	/* count <= 1: not decremented, lock held */
	LOCKREF_PUT_LOCKLESS = 1,	/* decremented by the cmpxchg */
	LOCKREF_PUT_LOCKED = 2,		/* decremented under the lock, now released */
};

/*
 * models lib/lockref.c:lockref_put_or_lock(), and says whether it took the
 * lock: what a dput strategy reports as its path, learnt here instead of
 * from the statistics counters (which a concurrent reset could change).
 * Return: LOCKREF_PUT_LOCKLESS or LOCKREF_PUT_LOCKED if decremented (the
 * lock not held); LOCKREF_KEPT_LOCKED with the lock held and the count
 * unchanged, when the count was <= 1.
 */
static inline enum lockref_put_how lockref_put_or_lock_inline(struct dcsim_lockref *lockref)
{
	int32_t count;

	LOCKREF_CMPXCHG_LOOP(lockref, -1,
		if (old_count <= 1)
			break;
	,
		return LOCKREF_PUT_LOCKLESS;
	);

	dcsim_spin_lock(&lockref->lock);
	count = READ_ONCE(lockref->count);
	if (count <= 1)
		return LOCKREF_KEPT_LOCKED;	/* with the lock held */
	WRITE_ONCE(lockref->count, count - 1);
	dcsim_spin_unlock(&lockref->lock);
	return LOCKREF_PUT_LOCKED;
}

/* The out-of-line copy of lockref_put_or_lock_inline(), for colder callers. */
enum lockref_put_how dcsim_lockref_put_or_lock_how(struct dcsim_lockref *lockref);

#endif /* DCSIM_SRC_LOCKREF_INTERNAL_H */
