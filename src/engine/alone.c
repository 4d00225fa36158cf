// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dcsim_explore_run_alone(): a checker's look at shared state from inside
 * a logical thread, while every other thread stays parked where it is.
 */

#include <dcsim/explore.h>

#include "internal.h"

void dcsim_explore_run_alone(void (*fn)(void *arg), void *arg)
{
	struct explorer *ex = explore_ctx();
	struct lthread *lt = explore_lt;

	if (!lt) {
		fn(arg);
		return;
	}
	if (lt->txn.active) {
		/* Its stores could still roll back: nothing to look at yet. */
		dcsim_explore_fail("dcsim_explore_run_alone() inside a transaction");
		return;
	}
	/*
	 * Put back what a stale load (relaxed-rmw) patched in: @fn reads
	 * memory as it is.  The other threads wait for the baton, which we
	 * keep: with explore_lt cleared our accesses are no schedule points,
	 * as for an RCU callback run for real (rcu_tick()).
	 */
	pthread_mutex_lock(&ex->lock);
	explore_wm_restore(lt);
	pthread_mutex_unlock(&ex->lock);
	explore_lt = NULL;
	fn(arg);
	explore_lt = lt;
}
