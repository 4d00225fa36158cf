// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-explore: strict priorities and fair cycles.  Strict priorities
 * turn a busy wait on a preempted thread into a livelock, while
 * cond_resched() and waits on lock holders stay correct; a livelock in
 * which both threads keep running is a fair cycle, while a retry loop that
 * a hidden bound ends is not.
 */

#include "explore-tests.h"

/* ---- strict priorities: spinning does not yield ---- */

/*
 * T0 waits for T1's flag: variant 0 with cpu_relax(), 1 with
 * cond_resched(), 2 retries with a write of its own and no pause at all,
 * 3 waits for the flag under the lock that T1 sets it under.
 */
static void flag_wait(void *state, unsigned int tid)
{
	struct shared *s = state;

	if (tid == 1) {
		dcsim_spin_lock(&s->lock);
		DCSIM_WRITE_ONCE(s->x, 1);
		dcsim_spin_unlock(&s->lock);
		return;
	}
	for (;;) {
		int x;

		if (s->variant == 3)
			dcsim_spin_lock(&s->lock);
		x = DCSIM_READ_ONCE(s->x);
		if (s->variant == 3)
			dcsim_spin_unlock(&s->lock);
		if (x)
			break;
		if (s->variant == 0 || s->variant == 3)
			dcsim_cpu_relax();
		else if (s->variant == 1)
			dcsim_cond_resched();
		else
			DCSIM_WRITE_ONCE(s->y, s->y + 1);
	}
}

static struct dcsim_explore_result run_flag(int variant, enum dcsim_explore_sched sched,
					    int want)
{
	const struct dcsim_scenario sc = {
		.name = "flag-wait", .nthreads = 2, .setup = setup_shared,
		.thread = flag_wait, .teardown = teardown_shared,
		.arg = (void *)(intptr_t)variant,
	};
	struct dcsim_explore_opts o = opts_for(DCSIM_EXPLORE_RANDOM, 300);
	struct dcsim_explore_result r;

	o.sched = sched;
	o.strict_window = 20;
	o.strict_steps = 2000;
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), want);
	return r;
}

void test_strict_priorities(void **unused)
{
	const struct dcsim_scenario locked = {
		.name = "spinlock-3", .nthreads = 3, .setup = setup_shared,
		.thread = locked_inc, .check = check_three, .teardown = teardown_shared,
	};
	struct dcsim_explore_opts o;
	struct dcsim_explore_result r, again;
	(void)unused;

	/* Fair: every wait ends. */
	for (int v = 0; v < 4; v++)
		run_flag(v, DCSIM_EXPLORE_SCHED_FAIR, 0);
	/* Strict: a pause that is not cond_resched() gives nothing back. */
	r = run_flag(0, DCSIM_EXPLORE_SCHED_STRICT, 1);
	assert_non_null(strstr(r.failure, "livelock (strict priorities): T0 preempted T1"));
	assert_non_null(strstr(r.failure, "spins on their CPU"));
	printf("# flag-wait, cpu_relax(): strict caught it after %lu executions\n",
	       r.first_failure);
	r = run_flag(2, DCSIM_EXPLORE_SCHED_STRICT, 1);
	assert_non_null(strstr(r.failure, "has run 2000 schedule points since"));
	/* The lock is free when T0 waits, and T1 is off its CPU before taking it. */
	r = run_flag(3, DCSIM_EXPLORE_SCHED_STRICT, 1);
	assert_non_null(strstr(r.failure, "livelock (strict priorities)"));
	/* The seed replays the preemption too. */
	o = opts_for(DCSIM_EXPLORE_RANDOM, 1);
	o.sched = DCSIM_EXPLORE_SCHED_STRICT;
	o.strict_window = 20;
	o.replay = true;
	o.replay_seed = r.failure_seed;
	{
		const struct dcsim_scenario sc = {
			.name = "flag-wait", .nthreads = 2, .setup = setup_shared,
			.thread = flag_wait, .teardown = teardown_shared, .arg = (void *)3,
		};

		/* Up to the addresses, which each run allocates afresh. */
		assert_int_equal(dcsim_explore_run(&sc, &o, &again), 1);
		assert_non_null(strstr(r.failure, " last spun on "));
		assert_memory_equal(again.failure, r.failure,
				    (size_t)(strstr(r.failure, " last spun on ") - r.failure));
	}
	/* cond_resched() lets the victim run: no livelock, and it was preempted. */
	r = run_flag(1, DCSIM_EXPLORE_SCHED_STRICT, 0);
	assert_true(r.preemptions > 0);
	/* rt: a real-time preemptor's cond_resched() gives nothing back. */
	r = run_flag(1, DCSIM_EXPLORE_SCHED_RT, 1);
	assert_non_null(strstr(r.failure, "livelock (real-time priorities)"));
	/* A lock holder (or a waiter with a ticket) is never preempted. */
	o = opts_for(DCSIM_EXPLORE_RANDOM, 500);
	o.sched = DCSIM_EXPLORE_SCHED_STRICT;
	o.strict_window = 30;
	assert_int_equal(dcsim_explore_run(&locked, &o, &r), 0);
	assert_true(r.preemptions > 0);
	printf("# spinlock-3 strict: %lu of %lu executions preempted a thread, no livelock\n",
	       r.preemptions, r.executions);
}

/* ---- fair cycles: livelocks in which everyone runs ---- */

/*
 * Each thread takes its own lock, trylocks the other's, and on failure
 * backs off and retries: in step, both fail for ever ("after you").
 * variant: 0 retries for ever; N > 0 retries N times (a local count the
 * explorer cannot see), then takes the locks in order.
 */
static void polite(void *state, unsigned int tid)
{
	struct shared *s = state;
	dcsim_spinlock_t *mine = tid ? &s->lock2 : &s->lock;
	dcsim_spinlock_t *other = tid ? &s->lock : &s->lock2;

	for (int tries = 0; !s->variant || tries < s->variant; tries++) {
		dcsim_spin_lock(mine);
		if (dcsim_spin_trylock(other)) {
			DCSIM_WRITE_ONCE(s->x, s->x + 1);
			dcsim_spin_unlock(other);
			dcsim_spin_unlock(mine);
			return;
		}
		dcsim_spin_unlock(mine);
		dcsim_cpu_relax();
	}
	dcsim_spin_lock(&s->lock);
	dcsim_spin_lock(&s->lock2);
	DCSIM_WRITE_ONCE(s->x, s->x + 1);
	dcsim_spin_unlock(&s->lock2);
	dcsim_spin_unlock(&s->lock);
}

/* T0 waits for T1's flag with no pause at all; T1 sets it. */
static void no_pause_wait(void *state, unsigned int tid)
{
	struct shared *s = state;

	if (tid)
		DCSIM_WRITE_ONCE(s->x, 1);
	else
		while (!DCSIM_READ_ONCE(s->x))
			;
}

static struct dcsim_explore_result run_polite(int variant, enum dcsim_explore_mode mode,
					      unsigned long repeats, int want)
{
	const struct dcsim_scenario sc = {
		.name = "polite", .nthreads = 2, .setup = setup_shared,
		.thread = polite, .teardown = teardown_shared,
		.arg = (void *)(intptr_t)variant,
	};
	struct dcsim_explore_opts o = opts_for(mode, 300);
	struct dcsim_explore_result r;

	o.lasso_repeats = repeats;
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), want);
	return r;
}

void test_fair_cycles(void **unused)
{
	const struct dcsim_scenario wait = {
		.name = "no-pause-wait", .nthreads = 2, .setup = setup_shared,
		.thread = no_pause_wait, .teardown = teardown_shared,
	};
	struct dcsim_explore_opts o;
	struct dcsim_explore_result r, again;
	(void)unused;

	/* Both keep running and nobody gets anywhere. */
	r = run_polite(0, DCSIM_EXPLORE_RANDOM, 128, 1);
	assert_non_null(strstr(r.failure, "livelock (fair cycle)"));
	assert_non_null(strstr(r.failure, "128 times in a row"));
	printf("# polite: random caught the fair cycle after %lu executions\n", r.first_failure);
	/* The seed replays it. */
	o = opts_for(DCSIM_EXPLORE_RANDOM, 1);
	o.replay = true;
	o.replay_seed = r.failure_seed;
	{
		const struct dcsim_scenario sc = {
			.name = "polite", .nthreads = 2, .setup = setup_shared,
			.thread = polite, .teardown = teardown_shared, .arg = (void *)0,
		};

		assert_int_equal(dcsim_explore_run(&sc, &o, &again), 1);
		assert_string_equal(again.failure, r.failure);
	}
	/* The detector off: every random execution ends by luck, none fails. */
	run_polite(0, DCSIM_EXPLORE_RANDOM, 0, 0);
	/* A bound of 50 retries ends the loop before 128 rounds: no report. */
	run_polite(50, DCSIM_EXPLORE_RANDOM, 128, 0);
	run_polite(50, DCSIM_EXPLORE_PCT, 128, 0);
	/* One above what the cycle must repeat is taken for a livelock (docs/testing.md). */
	r = run_polite(200, DCSIM_EXPLORE_RANDOM, 128, 1);
	assert_non_null(strstr(r.failure, "livelock (fair cycle)"));

	/*
	 * PCT would run a waiter with no pause for ever above the thread it
	 * waits for; a state that comes back with only it running demotes it.
	 */
	o = opts_for(DCSIM_EXPLORE_PCT, 200);
	o.max_steps = 20000;
	assert_int_equal(dcsim_explore_run(&wait, &o, &r), 0);
	o.lasso_repeats = 0;
	assert_int_equal(dcsim_explore_run(&wait, &o, &r), 1);
	assert_non_null(strstr(r.failure, "no end after 20000 schedule points"));
}
