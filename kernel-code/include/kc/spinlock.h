/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spinlock_t (include/linux/spinlock_types.h, non-PREEMPT_RT) over dcsim's
 * ticket lock: arch_spinlock_t is dcsim_spinlock_t, so the kernel's
 * "old.lock.rlock.raw_lock" in lib/lockref.c names dcsim's lock word.
 * Every operation is one call into kc/glue.h, where dcsim's lock (with its
 * own schedule points in the instrumented build) does the work.
 */
#ifndef _KC_SPINLOCK_H
#define _KC_SPINLOCK_H

#include <kc/compiler.h>

#include <dcsim/spinlock.h>

typedef dcsim_spinlock_t arch_spinlock_t;

typedef struct raw_spinlock {
	arch_spinlock_t raw_lock;
} raw_spinlock_t;

typedef struct spinlock {
	union {
		struct raw_spinlock rlock;
	};
} spinlock_t;

_Static_assert(sizeof(spinlock_t) == sizeof(dcsim_spinlock_t), "spinlock_t is dcsim's lock");

#define arch_spin_value_unlocked(lock)	dcsim_spin_value_unlocked(lock)

/*
 * Each operation first names its place (the kernel function and, through
 * extract.py's #line, its fs/dcache.c line) for the explorer's
 * window-directed mode (<dcsim/spinlock.h>: dcsim_spin_site(); nothing in
 * the normal build).
 */
#define KC_SITE()		dcsim_spin_site(__func__, __LINE__)
#ifdef KC_SPINLOCK_IS_RCU_READER
/* A held lock is an RCU read-side section, as in the kernel (kc/glue-impl.h). */
#define spin_lock(l)		(KC_SITE(), kc_spin_lock_rcu(&(l)->rlock.raw_lock))
#define spin_lock_nested(l, s)	(KC_SITE(), kc_spin_lock_rcu(&(l)->rlock.raw_lock))
#define spin_trylock(l)		(KC_SITE(), kc_spin_trylock_rcu(&(l)->rlock.raw_lock))
#define spin_unlock(l)		(KC_SITE(), kc_spin_unlock_rcu(&(l)->rlock.raw_lock))
#else
#define spin_lock(l)		(KC_SITE(), kc_spin_lock(&(l)->rlock.raw_lock))
#define spin_lock_nested(l, s)	(KC_SITE(), kc_spin_lock(&(l)->rlock.raw_lock))
#define spin_trylock(l)		(KC_SITE(), kc_spin_trylock(&(l)->rlock.raw_lock))
#define spin_unlock(l)		(KC_SITE(), kc_spin_unlock(&(l)->rlock.raw_lock))
#endif
#define spin_is_locked(l)	kc_spin_is_locked(&(l)->rlock.raw_lock)
#define assert_spin_locked(l)	((void)WARN_ON(!spin_is_locked(l)))

#include <kc/bug.h>

#endif
