/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_FLAVOUR_SPINLOCK_H
#define DCSIM_FLAVOUR_SPINLOCK_H

/*
 * <dcsim/spinlock.h> in the instrumented build: each lock operation tells
 * the checkers what it did.  Included by <dcsim/spinlock.h>; do not
 * include it directly.
 */

#ifndef DCSIM_SPINLOCK_H
#error "include <dcsim/spinlock.h>, not <dcsim/flavour/spinlock.h>"
#endif

/*
 * dcsim_spin_note() - tell the checkers what a lock operation did
 * @ev:       what happened
 * @lock:     the lock
 * @subclass: lockdep subclass of an acquisition (0 unless nested)
 * @func:     function that took it (the caller of dcsim_spin_lock())
 * @line:     its line
 *
 * Passes the event on to the engine's hook table (src/base/hooks.h).
 * Returns at once outside an exploration; never a schedule point.
 */
DCSIM_API void dcsim_spin_note(enum dcsim_spin_event ev, const dcsim_spinlock_t *lock,
			       unsigned int subclass, const char *func, int line);

/*
 * dcsim_spin_assert_held() - lockdep_assert_held() for the explorer
 * @lock: the lock
 * @lock_name: what the lock is, for the report ("the inode's i_lock")
 * @what: what the caller is doing ("detaching the inode of dentry")
 * @object: the name of what it does it to, or NULL
 *
 * In an exploration, a logical thread that does not hold @lock (as
 * dcsim_spin_note() saw it taken and released) fails the execution here:
 * "T<n>: @what '@object' without holding @lock_name (T<m> holds it)" or
 * "(nobody holds it)".  Returns at once when that
 * is not known: outside an exploration, inside a simulated transaction
 * (its locks are not tracked), or past the tracked number of held locks.
 * Never a schedule point.
 */
DCSIM_API void dcsim_spin_assert_held(const dcsim_spinlock_t *lock, const char *lock_name,
				       const char *what, const char *object);
/*
 * dcsim_spin_site() - the next lock operations of the caller are made at
 * @func:@line (code whose lock calls go through wrappers names its own
 * place, as the kernel code's spin_lock() shims do); the explorer's
 * window-directed mode names lock-drop windows by it.  Never a schedule
 * point; nothing outside an exploration.
 */
DCSIM_API void dcsim_spin_site(const char *func, int line);

#endif /* DCSIM_FLAVOUR_SPINLOCK_H */
