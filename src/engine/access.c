// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Where a logical thread's accesses enter the engine (the sched_point
 * hook of src/base/hooks.h): a schedule point (sched-point.c), or inside
 * a simulated transaction a step of it (htm-sim.c); and, off the
 * explorer's threads, the access observer.
 */

#include <dcsim/explore.h>

#include "internal.h"

/*
 * dcsim_access_observer_set()'s observer.  Read relaxed: an access made
 * while another thread installs it may or may not be seen, and the caller
 * (dcsim-bench --sharing) installs it before it starts the threads it
 * watches, whose creation orders the store before their accesses.
 */
static dcsim_access_observer_fn *access_observer;

dcsim_access_observer_fn *dcsim_access_observer_set(dcsim_access_observer_fn *fn)
{
	return __atomic_exchange_n(&access_observer, fn, __ATOMIC_ACQ_REL);
}

/* The sched_point hook (src/base/hooks.h): dcsim_sched_point() of the primitives calls it. */
void explore_sched_point(enum dcsim_access acc, const volatile void *addr,
			 unsigned int size, const char *func, int line)
{
	struct explorer *ex = explore_ctx();
	struct lthread *lt = explore_lt;

	if (dcsim_likely(!lt)) {
		dcsim_access_observer_fn *fn = __atomic_load_n(&access_observer,
								__ATOMIC_RELAXED);

		if (dcsim_unlikely(fn))
			fn(acc, addr, size);
		return;
	}
	explore_wm_restore(lt);
	if (lt->txn.active) {
		if (ex->o.htm != DCSIM_EXPLORE_HTM_CONFLICTS || acc == DCSIM_ACC_SPIN ||
		    acc == DCSIM_ACC_RESCHED) {
			/* No schedule point inside: the transaction is atomic. */
			explore_txn_access(ex, lt, acc, addr, size, func, line);
			htm_sim_access(ex, lt, acc, addr, size, func, line);
			return;
		}
		/* Conflict mode: others may run, and may abort us meanwhile. */
		explore_schedule(ex, lt, acc, addr, size, func, line);
		htm_sim_access_conflict(ex, lt, acc, addr, size, func, line);
		return;
	}
	explore_schedule(ex, lt, acc, addr, size, func, line);
}

/* Only the baton holder runs, so its own counter needs no lock. */
void dcsim_explore_progress(void)
{
	struct lthread *lt = explore_lt;

	if (lt) {
		lt->progress++;
		window_progress(lt);
	}
}

/* Only the baton holder runs: its own field needs no lock. */
void dcsim_explore_rename_ahead(bool ahead)
{
	struct lthread *lt = explore_lt;

	if (lt)
		lt->win_rename_ahead = ahead;
}

void dcsim_explore_yield(void)
{
	struct explorer *ex = explore_ctx();
	struct lthread *lt = explore_lt;

	if (!lt)
		return;
	if (!lt->txn.active) {
		explore_schedule(ex, lt, DCSIM_ACC_FENCE, NULL, 0, "dcsim_explore_yield", 0);
	} else if (ex->o.htm == DCSIM_EXPLORE_HTM_CONFLICTS) {
		explore_schedule(ex, lt, DCSIM_ACC_FENCE, NULL, 0, "dcsim_explore_yield", 0);
		htm_sim_access_conflict(ex, lt, DCSIM_ACC_FENCE, NULL, 0, "dcsim_explore_yield", 0);
	}
}
