// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The pool that runs the logical threads (a pthread each, or a fiber each
 * on the controller's pthread: fiber.c); the baton they pass is baton.c.
 */

#include <stdio.h>
#include <stdlib.h>

#include "../base/rcu-internal.h"
#include "internal.h"

/*
 * ex->lock held: @lt's body returned.  Check what it left, note its exit,
 * and set ex->current to the next holder (CTL when the execution is over).
 */
static void lthread_exited(struct explorer *ex, struct lthread *lt)
{
	struct explore_pool *pool = lt->pool;
	int next;

	flush_write(lt);
	lasso_flush(lt);
	if (lt->rcu_depth) {
		fail_lockedf(ex, "T%u returned inside an RCU read-side section (depth %u)",
			     lt->id, lt->rcu_depth);
		abandon_locked(ex, lt);
	}
	lt->state = LT_DONE;
	wm_clear(lt);
	rcu_tick(ex, lt);
	slog_add(&ex->slog, lt->id, SL_EXIT, NULL, 0, "(body returned)", 0, false);
	strict_exit(ex, lt);
	next = pick(ex, lt);
	if (next < 0) {
		bool live = false;

		for (unsigned int i = 0; i < pool->n; i++)
			live |= pool->lt[i].state != LT_DONE;
		if (live) {
			char who[160] = "";

			strict_stuck(ex, lt);

			describe_threads(ex, who, sizeof(who));
			fail_lockedf(ex, "deadlock: the last running thread T%u returned and "
				     "every other spins:%s", lt->id, who);
		}
		ex->exec_done = true;
		ex->current = CTL;
	} else {
		ex->current = next;
	}
}

/* ex->lock held, @lt holds the baton: run its body once. */
static void lthread_run_body(struct explorer *ex, struct lthread *lt)
{
	pthread_mutex_unlock(&ex->lock);
	ex->sc->thread(ex->state, lt->id);
	explore_wm_restore(lt);
	pthread_mutex_lock(&ex->lock);
	lthread_exited(ex, lt);
}

static void *lthread_main(void *arg)
{
	struct explorer *ex = explore_ctx();
	struct lthread *lt = arg;
	struct explore_pool *pool = lt->pool;

	/*
	 * Registered with liburcu before its first body, as a fiber's pthread
	 * is (fiber.c): the model's RCU read side takes its inline path only
	 * on a registered pthread, so a thread that registered inside its
	 * first rcu_read_lock() would run other code (other schedule points)
	 * in a pool's first execution than in its later ones, and a replay
	 * in a fresh pool would not repeat the execution it replays.
	 */
	dcsim_rcu_thread_online_slow();
	explore_lt = lt;
	pthread_mutex_lock(&ex->lock);
	for (;;) {
		wait_turn(ex, lt);
		if (pool->shutdown)
			break;
		if (pool->dead) {
			pthread_mutex_unlock(&ex->lock);
			park_forever();
		}
		lthread_run_body(ex, lt);
		pthread_cond_signal(ex->current == CTL ? &ex->ctl_cv : &pool->lt[ex->current].cv);
	}
	pthread_mutex_unlock(&ex->lock);
	explore_lt = NULL;
	return NULL;
}

/*
 * A fiber's life (fiber.c starts it at its first switch-in, with the
 * baton): one body per execution, the baton passed on after each.  It
 * never returns: pool_destroy() drops a fiber parked here, and an
 * abandoned one is never switched to again.
 */
static __attribute__((noreturn)) void lthread_fiber_main(struct lthread *lt)
{
	struct explorer *ex = explore_ctx();

	pthread_mutex_lock(&ex->lock);
	for (;;) {
		lthread_run_body(ex, lt);
		baton_pass(ex, lt, false);
	}
}

struct explore_pool *pool_create(struct explorer *ex, unsigned int n)
{
	struct explore_pool *pool = calloc(1, sizeof(*pool));

	if (!pool)
		return NULL;
	pool->n = n;
	for (unsigned int i = 0; i < n; i++) {
		struct lthread *lt = &pool->lt[i];

		lt->pool = pool;
		lt->id = i;
		lt->state = LT_DONE;
		pthread_cond_init(&lt->cv, NULL);
		if (handoff_fiber(ex)) {
			fiber_create(lt, lthread_fiber_main);
			continue;
		}
		if (pthread_create(&lt->pthread, NULL, lthread_main, lt)) {
			fputs("dcsim-explore: pthread_create failed\n", stderr);
			abort();
		}
	}
	return pool;
}

/* Its threads read ex->pool under ex->lock as soon as they start. */
void pool_install(struct explorer *ex, struct explore_pool *pool)
{
	if (!pool) {
		fputs("dcsim-explore: out of memory\n", stderr);
		abort();
	}
	pthread_mutex_lock(&ex->lock);
	ex->pool = pool;
	pthread_mutex_unlock(&ex->lock);
}

/* Only for a pool that is not dead: its threads wait at the top of their loop. */
void pool_destroy(struct explorer *ex, struct explore_pool *pool)
{
	if (handoff_fiber(ex)) {
		for (unsigned int i = 0; i < pool->n; i++) {
			fiber_destroy(ex, &pool->lt[i]);
			pthread_cond_destroy(&pool->lt[i].cv);
		}
		free(pool);
		return;
	}
	pthread_mutex_lock(&ex->lock);
	pool->shutdown = true;
	for (unsigned int i = 0; i < pool->n; i++)
		pthread_cond_signal(&pool->lt[i].cv);
	pthread_mutex_unlock(&ex->lock);
	for (unsigned int i = 0; i < pool->n; i++) {
		pthread_join(pool->lt[i].pthread, NULL);
		pthread_cond_destroy(&pool->lt[i].cv);
	}
	free(pool);
}
