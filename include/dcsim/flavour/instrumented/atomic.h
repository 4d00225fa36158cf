/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_FLAVOUR_ATOMIC_H
#define DCSIM_FLAVOUR_ATOMIC_H

/*
 * <dcsim/atomic.h> in the instrumented build: every access macro first
 * calls dcsim_sched_point().  Included by <dcsim/atomic.h>; do not include
 * it directly.
 */

#ifndef DCSIM_ATOMIC_H
#error "include <dcsim/atomic.h>, not <dcsim/flavour/atomic.h>"
#endif

/**
 * dcsim_sched_point() - hook called before each shared access (instrumented build)
 * @acc:  kind of access
 * @addr: address about to be accessed (NULL for fences)
 * @size: bytes accessed
 * @func: function making the access, for interleaving traces
 * @line: source line of the access
 *
 * Passes the access on to the engine's hook table (src/base/hooks.h).
 * Without an active explorer this returns at once.  Inside a simulated
 * transaction it never yields; it logs stores for rollback and may abort.
 */
DCSIM_API void dcsim_sched_point(enum dcsim_access acc, const volatile void *addr,
				 unsigned int size, const char *func, int line);
#define dcsim_sp_point(acc, p) \
	dcsim_sched_point((acc), (p), (unsigned int)sizeof(*(p)), __func__, __LINE__)
#define dcsim_sp_fence(acc) dcsim_sched_point((acc), NULL, 0u, __func__, __LINE__)

#endif /* DCSIM_FLAVOUR_ATOMIC_H */
