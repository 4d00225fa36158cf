// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * RCU callbacks queued while an exploration runs: recorded with their
 * readers, run at a schedule point once ripe, or drained at quiescence.
 */

#include <string.h>

#include <dcsim/rcu.h>

#include "internal.h"

/* ---- RCU callbacks: queued with their readers ---- */

/*
 * Called for every dcsim_call_rcu() while an exploration runs, from a
 * logical thread (holding the baton, not ex->lock), from the controller, or
 * from a callback (ex->lock released around it).  The readers are the
 * threads inside a read-side section now.
 */
void defer_rcu(struct dcsim_rcu_head *head, dcsim_rcu_cb_t func)
{
	struct explorer *ex = explore_ctx();
	struct lthread *lt = explore_lt;
	struct rcu_cb *cb;

	pthread_mutex_lock(&ex->lock);
	if (ex->rcu.n == ex->rcu.cap) {
		ex->rcu.cap = ex->rcu.cap ? 2 * ex->rcu.cap : 256;
		ex->rcu.cbs = xrealloc(ex->rcu.cbs, ex->rcu.cap * sizeof(*ex->rcu.cbs));
	}
	cb = &ex->rcu.cbs[ex->rcu.n++];
	memset(cb, 0, sizeof(*cb));
	cb->head = head;
	cb->func = func;
	cb->state = CB_PENDING;
	cb->obj = rcu_head_object(head, &cb->size);
	if (!cb->obj)
		cb->size = 0;
	cb->queuer = lt ? (int)lt->id : CTL;
	cb->q_slog = ex->slog.n;
	for (unsigned int i = 0; ex->pool && i < ex->pool->n; i++) {
		if (ex->pool->lt[i].rcu_depth) {
			cb->readers |= 1u << i;
			cb->sect[i] = ex->pool->lt[i].rcu_sections;
		}
	}
	if (lt)
		slog_add(&ex->slog, lt->id, SL_CALL_RCU, head, 0, lt->last_func, lt->last_line, lt->txn.active);
	pthread_mutex_unlock(&ex->lock);
}

/*
 * At quiescence, on the controller: every callback not yet run runs now,
 * in call_rcu() order (no reader is left, so every grace period is over).
 * Callbacks may queue more callbacks; run until none is left.
 */
void drain_rcu(struct explorer *ex)
{
	for (;;) {
		struct rcu_cb cb;
		size_t i;

		pthread_mutex_lock(&ex->lock);
		for (i = 0; i < ex->rcu.n && ex->rcu.cbs[i].state == CB_DONE; i++)
			;
		if (i == ex->rcu.n) {
			ex->rcu.n = 0;
			pthread_mutex_unlock(&ex->lock);
			return;
		}
		ex->rcu.cbs[i].state = CB_DONE;
		cb = ex->rcu.cbs[i];
		pthread_mutex_unlock(&ex->lock);
		cb.func(cb.head);
	}
}

/* A failed execution: its state is leaked, and so are its callbacks. */
void discard_rcu(struct explorer *ex)
{
	pthread_mutex_lock(&ex->lock);
	rcu_unpoison_all(&ex->rcu);
	ex->rcu.n = 0;
	pthread_mutex_unlock(&ex->lock);
}
