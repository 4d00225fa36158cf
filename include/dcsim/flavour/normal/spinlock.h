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

#define dcsim_spin_note(ev, lock, subclass, func, line) \
	((void)(subclass), (void)(func), (void)(line))
#define dcsim_spin_assert_held(lock, lock_name, what, object) \
	((void)(lock), (void)(lock_name), (void)(what), (void)(object))
#define dcsim_spin_site(func, line)	((void)0)

#endif /* DCSIM_FLAVOUR_SPINLOCK_H */
