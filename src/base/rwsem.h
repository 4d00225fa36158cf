/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_SRC_RWSEM_H
#define DCSIM_SRC_RWSEM_H

/*
 * The sleeping lock behind a directory's create lock (dcsim_inode_lock()),
 * standing for i_rwsem held for write.  models kernel/locking/rwsem.c's
 * writer side: a short optimistic spin (rwsem_optimistic_spin()) and then
 * sleep until the holder wakes us, so that a waiter gives its CPU away
 * instead of spinning for a holder that has been preempted.  Not
 * modelled: readers (nobody takes the model's create lock shared), the
 * owner-is-running test of the spin (user space cannot see it: the spin is
 * a bounded number of polls), hand-off to the longest waiter (a releaser
 * may take the lock again at once, as rwsem's lock stealing allows).
 *
 * Normal build: one 32-bit futex word, 0 free, 1 held, 2 held with
 * possible sleepers (the mutex of Drepper's "Futexes Are Tricky").  An
 * uncontended down and up are one cmpxchg and one xchg.
 *
 * Instrumented build: the model's ticket spinlock, as before, so that every
 * access stays a schedule point the explorer interleaves; a futex wait
 * would block a logical thread behind the explorer, which runs one at a
 * time.  Its waiter yields the CPU after a short spin (dcsim_spin_lock()).
 *
 * Ordering: down is an acquire, up a release.  All accesses go through
 * <dcsim/atomic.h>.
 */

#include <stdbool.h>
#include <stdint.h>

#include <dcsim/atomic.h>
#include <dcsim/compiler.h>
#include <dcsim/config.h>
#include <dcsim/spinlock.h>

#if DCSIM_INSTRUMENT

typedef struct dcsim_rwsem {
	dcsim_spinlock_t lock;
} dcsim_rwsem_t;

static inline void dcsim_rwsem_init(dcsim_rwsem_t *sem)
{
	dcsim_spin_lock_init(&sem->lock);
}

static inline bool dcsim_rwsem_is_locked(dcsim_rwsem_t *sem)
{
	return dcsim_spin_is_locked(&sem->lock);
}

/* A macro, so that the lock order validator sees the caller's function and line. */
#define dcsim_down_write(sem)	dcsim_spin_lock(&(sem)->lock)

static inline void dcsim_up_write(dcsim_rwsem_t *sem)
{
	dcsim_spin_unlock(&sem->lock);	/* warns itself if not held */
}

#else /* !DCSIM_INSTRUMENT */

typedef struct dcsim_rwsem {
	uint32_t val;		/* 0 free, 1 held, 2 held and maybe sleepers */
} dcsim_rwsem_t;

static inline void dcsim_rwsem_init(dcsim_rwsem_t *sem)
{
	DCSIM_WRITE_ONCE(sem->val, 0u);
}

static inline bool dcsim_rwsem_is_locked(dcsim_rwsem_t *sem)
{
	return DCSIM_READ_ONCE(sem->val) != 0;
}

/* rwsem.c: the contended halves */
void dcsim_down_write_slow(dcsim_rwsem_t *sem);
void dcsim_up_write_wake(dcsim_rwsem_t *sem);
void dcsim_up_write_unheld(dcsim_rwsem_t *sem);

/*
 * dcsim_down_write() - take the lock, sleeping while somebody holds it.
 * Return: (void) with the lock held.
 */
static inline void dcsim_down_write(dcsim_rwsem_t *sem)
{
	/* Fully ordered cmpxchg: its success is the acquire of the section. */
	if (dcsim_likely(dcsim_cmpxchg(&sem->val, 0u, 1u) == 0u))
		return;
	dcsim_down_write_slow(sem);
}

/*
 * dcsim_up_write() - release the lock, waking one sleeper if there may be
 * one.  An up of a free lock is refused with a warning: clearing the word
 * anyway would let two holders in once somebody slept.
 * Return: (void) with the lock released.
 */
static inline void dcsim_up_write(dcsim_rwsem_t *sem)
{
	/* The xchg releases the section and tells whether anyone sleeps. */
	uint32_t old = dcsim_xchg(&sem->val, 0u);

	if (dcsim_likely(old == 1u))
		return;
	if (old == 2u)
		dcsim_up_write_wake(sem);
	else
		dcsim_up_write_unheld(sem);
}

#endif /* DCSIM_INSTRUMENT */

#endif
