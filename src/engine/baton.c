// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The baton: one logical thread (or the controller) runs at a time, and
 * hands the baton to the next holder here, by a condition variable
 * (pthread hand-off) or a switch of context (fiber.c).
 */

#include "internal.h"

/* ex->lock held, by @lt.  Wait until the baton comes back (or park). */
void wait_turn(struct explorer *ex, struct lthread *lt)
{
	while (ex->pool != lt->pool || ex->current != (int)lt->id) {
		if (lt->pool->dead || lt->pool->shutdown)
			return;
		pthread_cond_wait(&lt->cv, &ex->lock);
	}
}

/*
 * ex->lock held, by @lt (NULL: the controller), which has set ex->current to
 * the next holder (CTL: the controller).  Hand the baton over and return
 * when it comes back to @lt, ex->lock held again; for the controller, when
 * the execution is done.  @dying (fibers): @lt never runs again.
 * Pthreads wake the holder's condition variable and wait on their own;
 * fibers drop the lock (no pthread else takes it meanwhile) and switch.
 */
void baton_pass(struct explorer *ex, struct lthread *lt, bool dying)
{
	struct explore_pool *pool = ex->pool;

	if (handoff_fiber(ex)) {
		struct fiber *from = lt ? &lt->fib : &ex->ctl_fib;
		struct lthread *to = ex->current == CTL ? NULL : &pool->lt[ex->current];

		pthread_mutex_unlock(&ex->lock);
		fiber_switch(from, to ? &to->fib : &ex->ctl_fib, to, dying);
		pthread_mutex_lock(&ex->lock);
		return;
	}
	pthread_cond_signal(ex->current == CTL ? &ex->ctl_cv : &pool->lt[ex->current].cv);
	if (lt) {
		wait_turn(ex, lt);
		return;
	}
	while (!ex->exec_done)
		pthread_cond_wait(&ex->ctl_cv, &ex->lock);
}
