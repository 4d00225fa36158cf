/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_FLAVOUR_LOCKDEP_H
#define DCSIM_FLAVOUR_LOCKDEP_H

/*
 * <dcsim/lockdep.h> in the normal build: no validator, no registration.
 * Included by <dcsim/lockdep.h>; do not include it directly.
 */

#ifndef DCSIM_LOCKDEP_H
#error "include <dcsim/lockdep.h>, not <dcsim/flavour/lockdep.h>"
#endif

#define dcsim_lock_set_class(lock, cls)	((void)(lock), (void)(cls))
#define dcsim_lock_set_class_array(first, n, stride, cls) \
	((void)(first), (void)(n), (void)(stride), (void)(cls))

#endif /* DCSIM_FLAVOUR_LOCKDEP_H */
