// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The deterministic interleaving explorer.
 *
 * Usage: dcsim_explore_run() creates a pool of K "logical threads" and
 * runs the scenario's bodies on them, once per execution.  Exactly one of
 * the K+1 threads (the pool and the controller that called
 * dcsim_explore_run()) holds the baton, ex->current, at any time.  A
 * logical thread is a fiber on the controller's pthread (fiber.c: the
 * others are switched out), or with DCSIM_EXPLORE_HANDOFF_PTHREAD a
 * pthread of its own (the others wait on their condition variable).  A logical thread gives the baton away
 * only in explore_schedule(), which every dcsim_sched_point() outside
 * a simulated transaction calls, or when its body returns.
 *
 * Ordering: ex->lock protects the baton and every field of the explorer and
 * of the logical threads that another thread may read.  Because the baton
 * only moves under ex->lock, everything the previous holder did (including
 * its plain stores to the scenario's memory) happens-before what the next
 * holder does: the scenario runs sequentially consistent, one access at a
 * time, as an interleaving of the threads' program orders (the relaxed-rmw
 * mode then lets some loads return older values on purpose, by patching
 * memory between a load and the same thread's next schedule point).
 *
 * Every decision (which thread runs next) is recorded; the list is what
 * DCSIM_EXPLORE_SCHEDULE replays and what the dfs mode backtracks over.
 * The random choices come from a splitmix64 stream seeded by the execution
 * seed, and HTM abort injection from a second stream of the same seed, so
 * a seed reproduces an execution exactly (with the same scenario, mode and
 * PCT step estimate, which the failure report prints).
 *
 * Three models sit on top of the interleaving (see <dcsim/explore.h>):
 * RCU grace periods with poisoning of freed objects, the "relaxed-rmw"
 * weak-memory mode, and the conflict-driven simulated HTM.  Each adds its
 * own choices (when a ready callback runs, whether a load passes a relaxed
 * RMW) from its own splitmix64 stream of the execution seed, so a seed
 * still reproduces an execution; DCSIM_EXPLORE_SCHEDULE records thread
 * choices only, so replay it with the same seed.
 */

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <dcsim/explore.h>
#include <dcsim/rcu.h>

#include "internal.h"

__thread struct lthread *explore_lt __attribute__((tls_model("initial-exec")));

/* dcsim_explore_set_handoff(): what DCSIM_EXPLORE_HANDOFF_DEFAULT means. */
static enum dcsim_explore_handoff handoff_default = DCSIM_EXPLORE_HANDOFF_FIBER;

void dcsim_explore_set_handoff(enum dcsim_explore_handoff h)
{
	if (h == DCSIM_EXPLORE_HANDOFF_DEFAULT || (unsigned int)h > DCSIM_EXPLORE_HANDOFF_PTHREAD)
		h = DCSIM_EXPLORE_HANDOFF_FIBER;
	__atomic_store_n(&handoff_default, h, __ATOMIC_RELAXED);
}

static void exec_prepare(struct explorer *ex)
{
	struct explore_pool *pool = ex->pool;
	unsigned int n = pool->n;
	unsigned int perm[DCSIM_EXPLORE_MAX_THREADS];

	ex->rng = ex->exec_seed;
	ex->htm.inj_rng = ex->exec_seed ^ 0x6a09e667f3bcc909ull;
	(void)splitmix64_next(&ex->htm.inj_rng);
	ex->rcu.rng = ex->exec_seed ^ 0xbb67ae8584caa73bull;
	(void)splitmix64_next(&ex->rcu.rng);
	ex->wm.rng = ex->exec_seed ^ 0x3c6ef372fe94f82bull;
	(void)splitmix64_next(&ex->wm.rng);
	memset(&ex->rcu.uaf, 0, sizeof(ex->rcu.uaf));
	ex->step = 0;
	ex->slog.n = 0;
	ex->slog.first_changed = ULONG_MAX;
	names_exec_begin();
	ex->dec.n = 0;
	ex->dfs.preempt = 0;
	ex->failed = false;
	ex->abandoned = false;
	ex->exec_done = false;
	ex->msg[0] = '\0';
	if (ex->o.mode == DCSIM_EXPLORE_DFS)
		ex->dfs.n = ex->dfs.replay_len;

	/* PCT: a random permutation of priorities d..d+n-1, d-1 change points in 1..k. */
	for (unsigned int i = 0; i < n; i++)
		perm[i] = i;
	for (unsigned int i = n; i > 1; i--) {
		unsigned int j = (unsigned int)splitmix64_below(&ex->rng, i), t = perm[i - 1];

		perm[i - 1] = perm[j];
		perm[j] = t;
	}
	ex->pct.nchange = ex->o.pct_depth ? ex->o.pct_depth - 1 : 0;
	ex->pct.k_used = ex->pct.k ? ex->pct.k : 32;
	for (unsigned int i = 0; i < ex->pct.nchange; i++)
		ex->pct.change[i] = 1 + splitmix64_below(&ex->rng, ex->pct.k_used);
	if (ex->o.where) {
		/* Plain stores: read by another process only after this one died. */
		ex->o.where->exec_seed = ex->exec_seed;
		ex->o.where->exec_no = ex->exec_no;
		ex->o.where->pct_steps = ex->pct.k_used;
	}

	for (unsigned int i = 0; i < n; i++) {
		struct lthread *lt = &pool->lt[i];

		lt->state = LT_RUNNABLE;
		lt->spun = false;
		lt->foreign_write = false;
		lt->pending_write = false;
		lt->prio = ex->o.pct_depth + perm[i];
		lt->last_func = NULL;
		lt->last_line = 0;
		lt->rcu_depth = 0;
		lt->rcu_sections = 0;
		lt->wm_open = false;
		lt->wm_n = 0;
		lt->wm_patched = false;
		lt->lz_addr = NULL;
		lt->progress = 0;
		htm_sim_reset(lt);
	}
	strict_prepare(ex);
	lasso_exec_begin(ex);
	window_exec_begin(ex);
	lockdep_exec_begin();
}

/* FNV-1a over this execution's decisions and steps, on top of @h. */
static uint64_t schedule_hash(struct explorer *ex, uint64_t h)
{
	if (!h)
		h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < ex->dec.n; i++)
		h = (h ^ (uint8_t)ex->dec.d[i]) * 0x100000001b3ull;
	for (unsigned int i = 0; i < 64; i += 8)
		h = (h ^ ((ex->step >> i) & 0xff)) * 0x100000001b3ull;
	return h;
}

int dcsim_explore_run(const struct dcsim_scenario *sc, const struct dcsim_explore_opts *opts,
		      struct dcsim_explore_result *res)
{
	struct explorer *ex = explore_ctx();
	struct dcsim_explore_result r;
	struct sigaction sa, old_segv, old_bus, old_abrt, old_ill;
	bool single = opts && opts->replay;
	unsigned long max_iter;

	memset(&r, 0, sizeof(r));
	if (!sc || !opts || !sc->thread || !sc->name || sc->nthreads < 1 ||
	    sc->nthreads > DCSIM_EXPLORE_MAX_THREADS || opts->pct_depth > PCT_MAX_DEPTH ||
	    (unsigned int)opts->mode > DCSIM_EXPLORE_DFS ||
	    (unsigned int)opts->htm > DCSIM_EXPLORE_HTM_CONFLICTS ||
	    (unsigned int)opts->memory > DCSIM_EXPLORE_MEM_RELAXED_RMW ||
	    (unsigned int)opts->sched > DCSIM_EXPLORE_SCHED_WINDOW ||
	    (unsigned int)opts->handoff > DCSIM_EXPLORE_HANDOFF_PTHREAD || explore_lt)
		return -EINVAL;
	if (opts->scenario && *opts->scenario && strcmp(opts->scenario, sc->name)) {
		r.skipped = true;
		if (res)
			*res = r;
		return 0;
	}

	explore_hooks_install();
	pthread_mutex_lock(&ex->lock);
	if (ex->running) {
		pthread_mutex_unlock(&ex->lock);
		return -EBUSY;
	}
	ex->running = true;
	pthread_mutex_unlock(&ex->lock);

	/* A schedule that cannot be read is an error: running without it would check less. */
	if (parse_schedule(&ex->dec, opts->schedule)) {
		fprintf(stderr, "dcsim-explore: schedule (DCSIM_EXPLORE_SCHEDULE) '%s': want "
			"TID[*COUNT],... with TID 0..%d, COUNT >= 1, at most %lu decisions\n",
			opts->schedule, DCSIM_EXPLORE_MAX_THREADS - 1, SCHEDULE_MAX);
		ex->dec.nforced = 0;
		pthread_mutex_lock(&ex->lock);
		ex->running = false;
		pthread_mutex_unlock(&ex->lock);
		return -EINVAL;
	}
	ex->sc = sc;
	ex->o = *opts;
	ex->handoff = ex->o.handoff;
	if (ex->handoff == DCSIM_EXPLORE_HANDOFF_DEFAULT)
		ex->handoff = __atomic_load_n(&handoff_default, __ATOMIC_RELAXED);
	if (ex->handoff != DCSIM_EXPLORE_HANDOFF_PTHREAD &&
	    fiber_run_begin(ex, ex->handoff == DCSIM_EXPLORE_HANDOFF_FIBER))
		ex->handoff = DCSIM_EXPLORE_HANDOFF_PTHREAD;
	ex->slog.len_shown = ex->o.report_steps;
	wd_set_limit(ex->o.watchdog_secs);
	ex->pct.k = ex->o.pct_steps;
	/* PCT's k: the longest execution seen so far, unless given. */
	bool pct_adapt = !ex->pct.k;
	ex->dfs.n = ex->dfs.replay_len = 0;
	ex->htm.commits = ex->htm.aborts = ex->htm.conflicts = ex->htm.capacity_aborts = 0;
	ex->rcu.cbs_run = ex->wm.stale_loads = 0;
	ex->strict.count = 0;
	lasso_run_begin();
	window_run_begin();
	lockdep_run_begin();
	ex->rcu.n = 0;
	max_iter = single ? 1 : ex->o.iterations;

	dcsim_rcu_set_defer_hook(defer_rcu);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = crash_handler;
	/* A fiber's stack overflow: the report needs a stack of its own (fiber.c). */
	sa.sa_flags = SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGABRT, &sa, &old_abrt);
	/* The kernel code's BUG_ON() traps (kc/dcache.h): a crash with a report too. */
	sigaction(SIGILL, &sa, &old_ill);

	/*
	 * One CPU for the controller and the pool it creates (they inherit
	 * the mask): the baton then moves between threads of one run queue
	 * (pin.c says why that matters).  The watchdog starts first, so that
	 * its thread keeps the caller's mask and can run beside a hang.
	 */
	wd_phase(NULL);
	/* Fibers share the controller's pthread: nothing to place. */
	if (!handoff_fiber(ex))
		explore_pin();
	pool_install(ex, pool_create(ex, sc->nthreads));
	for (unsigned long i = 0; i < max_iter; i++) {
		int first;

		ex->exec_no = i + 1;
		if (single) {
			ex->exec_seed = ex->o.replay_seed;
		} else {
			/*
			 * dfs keeps one seed: injected HTM aborts must then
			 * follow the decisions alone, or a replayed prefix
			 * could diverge.
			 */
			uint64_t s = ex->o.seed +
				(ex->o.mode == DCSIM_EXPLORE_DFS ? 0 : i) * 0xd1342543de82ef95ull;

			ex->exec_seed = splitmix64_next(&s);
		}
		if (!ex->pool)
			pool_install(ex, pool_create(ex, sc->nthreads));
		exec_prepare(ex);
		wd_phase("setup");
		ex->state = sc->setup ? sc->setup(sc->arg) : sc->arg;
		wd_phase(NULL);
		if (sc->setup && !ex->state) {
			snprintf(r.failure, sizeof(r.failure), "scenario setup failed");
			r.failures++;
			fprintf(stderr, "dcsim-explore: '%s': setup failed\n", sc->name);
			break;
		}

		wd_phase("the threads' run");
		pthread_mutex_lock(&ex->lock);
		first = pick(ex, NULL);
		ex->current = first;
		baton_pass(ex, NULL, false);
		pthread_mutex_unlock(&ex->lock);
		wd_phase(NULL);

		r.executions++;
		r.steps += ex->step;
		r.schedule_hash = schedule_hash(ex, r.schedule_hash);
		if (ex->step > r.max_steps_seen)
			r.max_steps_seen = ex->step;
		/* The check walks the cache: it must see freed objects as they were. */
		pthread_mutex_lock(&ex->lock);
		rcu_unpoison_all(&ex->rcu);
		pthread_mutex_unlock(&ex->lock);
		wd_phase("check");
		if (!ex->abandoned && sc->check)
			sc->check(ex->state);
		wd_phase(NULL);
		if (!ex->failed) {
			wd_phase("teardown");
			drain_rcu(ex);
			/*
			 * Teardown keeps the hook: its callbacks run when it
			 * returns.  Real grace periods (an rcu_barrier() in a
			 * cache's destroy) would cost milliseconds for each of
			 * thousands of executions, and at quiescence there is
			 * no reader left to wait for anyway.
			 */
			if (sc->teardown)
				sc->teardown(ex->state);
			drain_rcu(ex);
			wd_phase(NULL);
		} else {
			/*
			 * The state may be inconsistent (a lock left held would
			 * hang teardown, a freed object still linked would be
			 * used after free): leak it, and an abandoned pool.
			 */
			lsan_keep(ex->state);
			discard_rcu(ex);
			if (ex->abandoned) {
				if (handoff_fiber(ex)) {
					/* Its fibers stay parked where they are: keep what they point to. */
					for (unsigned int t = 0; t < ex->pool->n; t++)
						fiber_abandon(ex, &ex->pool->lt[t]);
					lsan_keep(ex->pool);
				}
				pthread_mutex_lock(&ex->lock);
				ex->pool = NULL;
				pthread_mutex_unlock(&ex->lock);
			}
		}
		if (ex->failed) {
			if (!r.failures) {
				r.first_failure = ex->exec_no;
				r.failure_seed = ex->exec_seed;
				r.failure_pct_steps = ex->pct.k_used;
				window_target_name(ex, r.failure_window, sizeof(r.failure_window));
				snprintf(r.failure, sizeof(r.failure), "%s", ex->msg);
			}
			r.failures++;
			if (!ex->o.quiet)
				report_failure(ex, stderr);
			if (!ex->o.keep_going)
				break;
		}
		if (pct_adapt)
			ex->pct.k = r.max_steps_seen;
		if (ex->o.mode == DCSIM_EXPLORE_DFS && !single &&
		    !dfs_next(&ex->dfs, ex->o.preemption_bound)) {
			r.exhausted = true;
			break;
		}
	}
	if (ex->pool)
		pool_destroy(ex, ex->pool);
	ex->pool = NULL;
	/* Parked threads of abandoned pools keep the pin: they never run again. */
	if (!handoff_fiber(ex))
		explore_unpin();
	else
		fiber_run_end(ex);

	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGABRT, &old_abrt, NULL);
	sigaction(SIGILL, &old_ill, NULL);
	dcsim_rcu_set_defer_hook(NULL);
	r.htm_commits = ex->htm.commits;
	r.htm_aborts = ex->htm.aborts;
	r.htm_conflicts = ex->htm.conflicts;
	r.htm_capacity_aborts = ex->htm.capacity_aborts;
	r.rcu_callbacks = ex->rcu.cbs_run;
	r.stale_loads = ex->wm.stale_loads;
	r.preemptions = ex->strict.count;
	lasso_counts(&r.lasso_tries, &r.lasso_demotions);
	window_run_end(ex, &r);
	lockdep_counts(&r);
	pthread_mutex_lock(&ex->lock);
	ex->running = false;
	pthread_mutex_unlock(&ex->lock);
	if (res)
		*res = r;
	return r.failures ? 1 : 0;
}
