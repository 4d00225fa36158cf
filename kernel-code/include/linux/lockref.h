/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shim of <linux/lockref.h> for kernel-code/: the kernel's struct
 * lockref (6.1 and 6.12 alike), which has exactly the layout of dcsim's struct
 * dcsim_lockref (checked below), so the kernel's lib/lockref.c runs on
 * dcsim dentries.  USE_CMPXCHG_LOCKREF is on, as on x86-64 without lock
 * debugging.
 */
#ifndef _KC_LINUX_LOCKREF_H
#define _KC_LINUX_LOCKREF_H

#include <kc/compiler.h>
#include <kc/spinlock.h>

#include <dcsim/lockref.h>

#define USE_CMPXCHG_LOCKREF	1

struct lockref {
	union {
		aligned_u64 lock_count;
		struct {
			spinlock_t lock;
			int count;
		};
	};
};

_Static_assert(sizeof(struct lockref) == sizeof(struct dcsim_lockref), "lockref size");
_Static_assert(__builtin_offsetof(struct lockref, count) ==
	       __builtin_offsetof(struct dcsim_lockref, count), "lockref count");
_Static_assert(__builtin_offsetof(struct lockref, lock) ==
	       __builtin_offsetof(struct dcsim_lockref, lock), "lockref lock");

/*
 * Every tree brings its own lib/lockref.c: meson passes its prefix
 * (KC_LOCKREF_PREFIX=k61_, k612_) to the tree's lockref and dput objects,
 * so each tree's dput path calls its own tree's lockref.
 */
#ifdef KC_LOCKREF_PREFIX
#define __KC_CAT2(a, b)		a##b
#define __KC_CAT(a, b)		__KC_CAT2(a, b)
#define lockref_get		__KC_CAT(KC_LOCKREF_PREFIX, lockref_get)
#define lockref_put_return	__KC_CAT(KC_LOCKREF_PREFIX, lockref_put_return)
#define lockref_get_not_zero	__KC_CAT(KC_LOCKREF_PREFIX, lockref_get_not_zero)
#define lockref_put_not_zero	__KC_CAT(KC_LOCKREF_PREFIX, lockref_put_not_zero)
#define lockref_put_or_lock	__KC_CAT(KC_LOCKREF_PREFIX, lockref_put_or_lock)
#define lockref_mark_dead	__KC_CAT(KC_LOCKREF_PREFIX, lockref_mark_dead)
#define lockref_get_not_dead	__KC_CAT(KC_LOCKREF_PREFIX, lockref_get_not_dead)
#endif

extern void lockref_get(struct lockref *);
extern int lockref_put_return(struct lockref *);
extern int lockref_get_not_zero(struct lockref *);
extern int lockref_put_not_zero(struct lockref *);
extern int lockref_put_or_lock(struct lockref *);

extern void lockref_mark_dead(struct lockref *);
extern int lockref_get_not_dead(struct lockref *);

/* Must be called under spinlock for reliable results */
static __always_inline bool __lockref_is_dead(const struct lockref *l)
{
	return ((int)l->count < 0);
}

#endif
