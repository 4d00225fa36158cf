// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The pool of pthreads that run the logical threads.
 */

#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

/* ---- the pool ---- */

static void *lthread_main(void *arg)
{
	struct lthread *lt = arg;
	struct explore_pool *pool = lt->pool;

	explore_lt = lt;
	pthread_mutex_lock(&ex.lock);
	for (;;) {
		int next;

		wait_turn(lt);
		if (pool->shutdown)
			break;
		if (pool->dead) {
			pthread_mutex_unlock(&ex.lock);
			park_forever();
		}
		pthread_mutex_unlock(&ex.lock);

		ex.sc->thread(ex.state, lt->id);

		explore_wm_restore(lt);
		pthread_mutex_lock(&ex.lock);
		flush_write(lt);
		lasso_flush(lt);
		if (lt->rcu_depth) {
			fail_lockedf("T%u returned inside an RCU read-side section (depth %u)",
				     lt->id, lt->rcu_depth);
			abandon_locked(lt);
		}
		lt->state = LT_DONE;
		wm_clear(lt);
		rcu_tick(lt);
		slog_add(lt->id, SL_EXIT, NULL, 0, "(body returned)", 0, false);
		strict_exit(lt);
		next = pick(lt);
		if (next < 0) {
			bool live = false;

			for (unsigned int i = 0; i < pool->n; i++)
				live |= pool->lt[i].state != LT_DONE;
			if (live) {
				char who[160] = "";

				strict_stuck(lt);

				describe_threads(who, sizeof(who));
				fail_lockedf("deadlock: the last running thread T%u returned and "
					     "every other spins:%s", lt->id, who);
			}
			ex.exec_done = true;
			ex.current = CTL;
			pthread_cond_signal(&ex.ctl_cv);
		} else {
			ex.current = next;
			pthread_cond_signal(&pool->lt[next].cv);
		}
	}
	pthread_mutex_unlock(&ex.lock);
	explore_lt = NULL;
	return NULL;
}

struct explore_pool *pool_create(unsigned int n)
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
		if (pthread_create(&lt->pthread, NULL, lthread_main, lt)) {
			fputs("dcsim-explore: pthread_create failed\n", stderr);
			abort();
		}
	}
	return pool;
}

/* Its threads read ex.pool under ex.lock as soon as they start. */
void pool_install(struct explore_pool *pool)
{
	if (!pool) {
		fputs("dcsim-explore: out of memory\n", stderr);
		abort();
	}
	pthread_mutex_lock(&ex.lock);
	ex.pool = pool;
	pthread_mutex_unlock(&ex.lock);
}

/* Only for a pool that is not dead: its threads wait at the top of their loop. */
void pool_destroy(struct explore_pool *pool)
{
	pthread_mutex_lock(&ex.lock);
	pool->shutdown = true;
	for (unsigned int i = 0; i < pool->n; i++)
		pthread_cond_signal(&pool->lt[i].cv);
	pthread_mutex_unlock(&ex.lock);
	for (unsigned int i = 0; i < pool->n; i++) {
		pthread_join(pool->lt[i].pthread, NULL);
		pthread_cond_destroy(&pool->lt[i].cv);
	}
	free(pool);
}
