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
 * @ev:   what happened
 * @lock: the lock
 *
 * Passes the event on to the engine's hook table (src/base/hooks.h).
 * Returns at once outside an exploration; never a schedule point.
 */
DCSIM_API void dcsim_spin_note(enum dcsim_spin_event ev, const dcsim_spinlock_t *lock);

#endif /* DCSIM_FLAVOUR_SPINLOCK_H */
