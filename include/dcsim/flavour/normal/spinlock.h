/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_FLAVOUR_SPINLOCK_H
#define DCSIM_FLAVOUR_SPINLOCK_H

/*
 * <dcsim/spinlock.h> in the normal build: nobody watches the locks.
 * Included by <dcsim/spinlock.h>; do not include it directly.
 */

#ifndef DCSIM_SPINLOCK_H
#error "include <dcsim/spinlock.h>, not <dcsim/flavour/spinlock.h>"
#endif

#define dcsim_spin_note(ev, lock)	((void)0)

#endif /* DCSIM_FLAVOUR_SPINLOCK_H */
