/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_FLAVOUR_ATOMIC_H
#define DCSIM_FLAVOUR_ATOMIC_H

/*
 * <dcsim/atomic.h> in the normal build: a shared access is the access and
 * nothing else.  Included by <dcsim/atomic.h>; do not include it directly.
 */

#ifndef DCSIM_ATOMIC_H
#error "include <dcsim/atomic.h>, not <dcsim/flavour/atomic.h>"
#endif

#define dcsim_sp_point(acc, p)	((void)0)
#define dcsim_sp_fence(acc)	((void)0)

#endif /* DCSIM_FLAVOUR_ATOMIC_H */
