// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The out-of-line part of the ticket spinlock (<dcsim/spinlock.h>): the
 * cold refusal of an unlock of a lock that is not held.
 */

#include <stdio.h>

#include <dcsim/spinlock.h>

#include "internal.h"

void dcsim_spin_unlock_unheld(const dcsim_spinlock_t *lock)
{
	/*
	 * Every refusal is counted and printed (not once per call site, as
	 * WARN_ON_ONCE does): the caller is the inline unlock, one "site" for
	 * every lock, and each hit is a separate bug with its own lock.
	 */
	dcsim_warn_report(__FILE__, __LINE__, "dcsim_spin_unlock",
		     "unlock of a spinlock that is not held: refused");
	if (!dcsim_warn_quiet())
		fprintf(stderr, "dcsim:   lock %p (value %#x), unlocked from %p\n", (const void *)lock,
			__atomic_load_n(&lock->val, __ATOMIC_RELAXED),
			__builtin_return_address(0));
}
