// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The RCU model: read-side sections, grace periods, and poisoning of a
 * freed object (as the describer delimits it) until its grace period ends.
 */

#include <stdlib.h>
#include <string.h>

#include <dcsim/explore.h>
#include <dcsim/rcu.h>

#include "internal.h"

/* ---- RCU: read-side sections, grace periods, poisoned objects ---- */

/*
 * ex->lock held.  Has every reader of @cb left the section it was in?
 * Inline: rcu_signature() asks at every decision, and a call in its loop
 * would make it save registers even when no callback is queued.
 */
static inline __attribute__((always_inline)) bool cb_ripe(const struct explore_pool *pool, const struct rcu_cb *cb)
{
	for (unsigned int i = 0; i < DCSIM_EXPLORE_MAX_THREADS; i++) {
		const struct lthread *t;

		if (!(cb->readers & (1u << i)))
			continue;
		if (!pool || i >= pool->n)
			continue;
		t = &pool->lt[i];
		if (t->rcu_depth && t->rcu_sections == cb->sect[i])
			return false;
	}
	return true;
}

/*
 * ex->lock held.  How far the callbacks of this execution got: queued,
 * ripe (every reader of their time has left that section), poisoned, run.
 */
uint64_t rcu_signature(const struct ex_rcu *rcu, const struct explore_pool *pool)
{
	uint64_t h = rcu->n;

	for (size_t i = 0; i < rcu->n; i++) {
		const struct rcu_cb *cb = &rcu->cbs[i];

		h = h * 31 + (uint64_t)cb->state * 2 + (cb->state == CB_PENDING && cb_ripe(pool, cb));
	}
	return h;
}

static void rcu_poison(struct rcu_cb *cb)
{
	cb->saved = xrealloc(NULL, cb->size);
	memcpy(cb->saved, cb->obj, cb->size);
	memset(cb->obj, 0x6b, cb->size);
	cb->state = CB_POISONED;
}

/* Put every poisoned object back as it was, for the check and the real callback. */
void rcu_unpoison_all(struct ex_rcu *rcu)
{
	for (size_t i = 0; i < rcu->n; i++) {
		struct rcu_cb *cb = &rcu->cbs[i];

		if (cb->saved) {
			memcpy(cb->obj, cb->saved, cb->size);
			free(cb->saved);
			cb->saved = NULL;
		}
	}
}

/*
 * ex->lock held, at @lt's schedule point.  Each callback whose grace period
 * is over runs here with probability 1/3 (its own stream of the seed): a
 * described object is poisoned, another callback runs for real on this thread with
 * schedule points off (at most one per point: it may queue more).
 */
void rcu_tick(struct explorer *ex, struct lthread *lt)
{
	if (lt->txn.active)
		return;
	for (size_t i = 0; i < ex->rcu.n; i++) {
		struct rcu_cb *cb = &ex->rcu.cbs[i];
		struct dcsim_rcu_head *head;
		dcsim_rcu_cb_t func;

		if (cb->state != CB_PENDING || !cb_ripe(ex->pool, cb))
			continue;
		if (splitmix64_below(&ex->rcu.rng, 3))
			continue;
		cb->gp_slog = ex->slog.n;
		cb->gp_step = ex->step;
		ex->rcu.cbs_run++;
		slog_add(&ex->slog, lt->id, SL_RCU_CB, cb->obj ? (void *)cb->obj : (void *)cb->head, 0,
			  cb->obj ? "(grace period over: object poisoned)" : "(grace period over: callback)",
			  0, false);
		if (cb->obj) {
			rcu_poison(cb);
			continue;
		}
		cb->state = CB_DONE;
		head = cb->head;
		func = cb->func;
		explore_lt = NULL;
		pthread_mutex_unlock(&ex->lock);
		func(head);
		pthread_mutex_lock(&ex->lock);
		explore_lt = lt;
		return;
	}
}

/* ex->lock held: @lt's access is about to touch [addr, addr+size). */
void uaf_check(struct explorer *ex, struct lthread *lt, unsigned int acc, const volatile void *addr,
	       unsigned int size, const char *func, int line)
{
	for (size_t i = 0; i < ex->rcu.n; i++) {
		const struct rcu_cb *cb = &ex->rcu.cbs[i];

		if (cb->state != CB_POISONED ||
		    !overlaps((uintptr_t)addr, size, (uintptr_t)cb->obj, cb->size))
			continue;
		ex->rcu.uaf = (struct uaf_info){
			.set = true, .queuer = cb->queuer, .accessor = (int)lt->id,
			.q_slog = cb->q_slog, .gp_slog = cb->gp_slog,
			.a_slog = ex->slog.n ? ex->slog.n - 1 : 0,
		};
		char what[200];

		describe_addr((uintptr_t)addr, size, what, sizeof(what));
		fail_lockedf(ex, "use after free: T%u %s %s%s%p (object %p + %td) at %s:%d; the object was "
			     "queued for freeing by %s%d (call_rcu at step %lu) and freed at step %lu, "
			     "when no reader of that time was left in its read-side section",
			     lt->id, acc_names[acc], what, *what ? " at " : "", (const void *)addr,
			     (void *)cb->obj, (const char *)addr - cb->obj, func ? func : "?", line,
			     cb->queuer >= 0 ? "T" : "controller ", cb->queuer, cb->q_slog,
			     cb->gp_step);
		abandon_locked(ex, lt);
	}
}

void rcu_enter(struct lthread *lt)
{
	if (!lt->rcu_depth++)
		lt->rcu_sections++;
}

/* ex->lock held. */
void rcu_exit(struct explorer *ex, struct lthread *lt, const char *func, int line)
{
	if (!lt->rcu_depth) {
		fail_lockedf(ex, "T%u: rcu_read_unlock() at %s:%d without rcu_read_lock()", lt->id,
			     func ? func : "?", line);
		abandon_locked(ex, lt);
	}
	lt->rcu_depth--;
}

void explore_rcu_note(struct explorer *ex, struct lthread *lt, enum dcsim_access acc)
{
	pthread_mutex_lock(&ex->lock);
	if (acc == DCSIM_ACC_RCU_LOCK)
		rcu_enter(lt);
	else if (acc == DCSIM_ACC_RCU_UNLOCK)
		rcu_exit(ex, lt, "(in a simulated transaction)", 0);
	pthread_mutex_unlock(&ex->lock);
}
