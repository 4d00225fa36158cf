/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_FLAVOUR_LOCKDEP_H
#define DCSIM_FLAVOUR_LOCKDEP_H

/*
 * <dcsim/lockdep.h> in the instrumented build: the registrations go to the
 * engine's hook table (src/base/hooks.h).
 * Included by <dcsim/lockdep.h>; do not include it directly.
 */

#ifndef DCSIM_LOCKDEP_H
#error "include <dcsim/lockdep.h>, not <dcsim/flavour/lockdep.h>"
#endif

/**
 * dcsim_lock_set_class() - @lock, a dcsim_spinlock_t, is of class @cls
 * (NULL: not validated).  A later registration of the same address wins.
 */
DCSIM_API void dcsim_lock_set_class(const void *lock, const struct dcsim_lock_class *cls);

/**
 * dcsim_lock_set_class_array() - the @n locks at @first, @stride bytes
 * apart (the lock of each element of an array), are of class @cls.
 */
DCSIM_API void dcsim_lock_set_class_array(const void *first, size_t n, size_t stride,
					  const struct dcsim_lock_class *cls);

#endif /* DCSIM_FLAVOUR_LOCKDEP_H */
