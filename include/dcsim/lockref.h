/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_LOCKREF_H
#define DCSIM_LOCKREF_H

/*
 * Lockref: a spinlock and a reference count in one 64-bit word, modelling
 * include/linux/lockref.h and lib/lockref.c.
 *
 * Operations are atomic with respect to the spinlock: an update of the count
 * is either done with a single 64-bit cmpxchg that also proves the lock was
 * free at that instant, or by taking the lock.  A transaction that reads the
 * word (the RTM dput strategies) gets the same guarantee from the hardware.
 *
 * The cmpxchg loop gives up after DCSIM_LOCKREF_CMPXCHG_RETRIES failures and
 * takes the lock instead, as the kernel's CMPXCHG_LOOP does after 100.  Both
 * events are counted per thread (DCSIM_STAT_LOCKREF_RETRIES and
 * DCSIM_STAT_LOCKREF_FALLBACKS in <dcsim/stats.h>).
 *
 * A count below zero means dead (dcsim_lockref_mark_dead() sets it to -128).
 */

#include <stdbool.h>
#include <stdint.h>

#include <dcsim/compiler.h>
#include <dcsim/spinlock.h>

#define DCSIM_LOCKREF_CMPXCHG_RETRIES	100
#define DCSIM_LOCKREF_DEAD		(-128)

struct dcsim_lockref {
	union {
		uint64_t lock_count;
		struct {
			dcsim_spinlock_t lock;
			int32_t count;
		};
	};
} __attribute__((aligned(8)));

_Static_assert(sizeof(struct dcsim_lockref) == 8, "lock and count must share one word");

static inline void dcsim_lockref_init(struct dcsim_lockref *lockref, int32_t count)
{
	dcsim_spin_lock_init(&lockref->lock);
	DCSIM_WRITE_ONCE(lockref->count, count);
}

/** dcsim_lockref_get() - increment the count unconditionally. */
DCSIM_API void dcsim_lockref_get(struct dcsim_lockref *lockref);

/**
 * dcsim_lockref_get_not_zero() - increment the count unless it is <= 0.
 * Return: 1 if incremented, 0 if the count was zero or dead.
 */
DCSIM_API int dcsim_lockref_get_not_zero(struct dcsim_lockref *lockref);

/**
 * dcsim_lockref_put_not_zero() - decrement unless that would reach zero.
 * Return: 1 if decremented, 0 if the count was <= 1 (nothing changed).
 */
DCSIM_API int dcsim_lockref_put_not_zero(struct dcsim_lockref *lockref);

/**
 * dcsim_lockref_put_return() - lockless decrement, never takes the lock.
 * Return: the new count, or -1 if the lock was held, the cmpxchg kept
 * failing, or the count was already <= 0 (nothing changed then).
 */
DCSIM_API int dcsim_lockref_put_return(struct dcsim_lockref *lockref);

/**
 * dcsim_lockref_put_or_lock() - decrement unless this is the last reference.
 * Return: 1 if decremented (lock not held); 0 with the lock held and the
 * count unchanged, when the count was <= 1.
 */
DCSIM_API int dcsim_lockref_put_or_lock(struct dcsim_lockref *lockref);

/** dcsim_lockref_mark_dead() - caller holds the lock; count becomes dead. */
DCSIM_API void dcsim_lockref_mark_dead(struct dcsim_lockref *lockref);

/**
 * dcsim_lockref_get_not_dead() - increment unless the lockref is dead.
 * Return: 1 if incremented, 0 if dead.
 */
DCSIM_API int dcsim_lockref_get_not_dead(struct dcsim_lockref *lockref);

/* Caller holds the lock (or knows the value is stable). */
static inline bool __dcsim_lockref_is_dead(const struct dcsim_lockref *lockref)
{
	return DCSIM_READ_ONCE(((struct dcsim_lockref *)lockref)->count) < 0;
}

#endif /* DCSIM_LOCKREF_H */
