// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The explorer and the simulated HTM on primitives (instrumented build).
 * This file: the scheduler finds textbook races, deadlocks and lost
 * updates in each mode; a failure replays from its seed; correct lock and
 * lockref code survives exhaustive bounded search.  Transactions are
 * explore-htm.c's, RCU explore-rcu.c's, strict priorities and fair cycles
 * explore-fairness.c's; main() runs them all.
 */

#include "explore-tests.h"

void *setup_shared(void *arg)
{
	struct shared *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	s->variant = (int)(intptr_t)arg;
	return s;
}

void teardown_shared(void *state)
{
	free(state);
}

struct dcsim_explore_opts opts_for(enum dcsim_explore_mode mode, unsigned long iters)
{
	struct dcsim_explore_opts o;

	dcsim_explore_opts_init(&o);

	dcsim_explore_opts_from_env(&o);
	o.mode = mode;
	o.iterations = iters;
	o.quiet = getenv("DCSIM_TEST_VERBOSE") == NULL;
	return o;
}

/* ---- a lost update: the explorer must find it in every mode ---- */

static void racy_inc(void *state, unsigned int tid)
{
	struct shared *s = state;
	int v = DCSIM_READ_ONCE(s->x);

	(void)tid;
	DCSIM_WRITE_ONCE(s->x, v + 1);
}

static void check_two(void *state)
{
	struct shared *s = state;

	if (s->x != 2)
		dcsim_explore_fail("lost update: x = %d, want 2", s->x);
}

static const struct dcsim_scenario racy = {
	.name = "racy-increment", .nthreads = 2, .setup = setup_shared,
	.thread = racy_inc, .check = check_two, .teardown = teardown_shared,
};

void test_finds_lost_update(void **unused)
{
	static const enum dcsim_explore_mode modes[] = {
		DCSIM_EXPLORE_RANDOM, DCSIM_EXPLORE_PCT, DCSIM_EXPLORE_DFS,
	};
	(void)unused;

	for (size_t i = 0; i < DCSIM_ARRAY_SIZE(modes); i++) {
		struct dcsim_explore_opts o = opts_for(modes[i], 200);
		struct dcsim_explore_result r;

		o.preemption_bound = 1;
		assert_int_equal(dcsim_explore_run(&racy, &o, &r), 1);
		assert_int_equal(r.failures, 1);
		assert_non_null(strstr(r.failure, "lost update"));
		printf("# racy-increment: %s caught it after %lu executions\n",
		       dcsim_explore_mode_name(modes[i]), r.first_failure);
	}
}

/* The seed printed for a failure replays exactly that failure. */
void test_replay_from_seed(void **unused)
{
	struct dcsim_explore_opts o = opts_for(DCSIM_EXPLORE_RANDOM, 200);
	struct dcsim_explore_result r, again;
	(void)unused;

	assert_int_equal(dcsim_explore_run(&racy, &o, &r), 1);
	o.replay = true;
	o.replay_seed = r.failure_seed;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(dcsim_explore_run(&racy, &o, &again), 1);
		assert_int_equal(again.executions, 1);
		assert_int_equal(again.failure_seed, r.failure_seed);
	}
	o.replay = false;
	/* And a forced schedule that serialises the threads passes. */
	o.schedule = "0*3,1*3";
	o.iterations = 1;
	assert_int_equal(dcsim_explore_run(&racy, &o, &again), 0);
}

/* ---- correct code: exhaustive bounded search finds nothing ---- */

void locked_inc(void *state, unsigned int tid)
{
	struct shared *s = state;

	(void)tid;
	dcsim_spin_lock(&s->lock);
	DCSIM_WRITE_ONCE(s->x, DCSIM_READ_ONCE(s->x) + 1);
	dcsim_spin_unlock(&s->lock);
}

void check_three(void *state)
{
	struct shared *s = state;

	if (s->x != 3)
		dcsim_explore_fail("x = %d, want 3", s->x);
	if (!dcsim_spin_value_unlocked(s->lock))
		dcsim_explore_fail("lock left held");
}

void test_spinlock_exhaustive(void **unused)
{
	const struct dcsim_scenario sc = {
		.name = "spinlock-3", .nthreads = 3, .setup = setup_shared,
		.thread = locked_inc, .check = check_three, .teardown = teardown_shared,
	};
	struct dcsim_explore_opts o = opts_for(DCSIM_EXPLORE_DFS, 1000000);
	struct dcsim_explore_result r;
	(void)unused;

	o.preemption_bound = 2;
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 0);
	assert_true(r.exhausted);
	printf("# spinlock-3: dfs bound 2 exhausted %lu schedules\n", r.executions);
	o = opts_for(DCSIM_EXPLORE_PCT, 300);
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 0);
}

/* ---- deadlocks ---- */

static void leak_lock(void *state, unsigned int tid)
{
	struct shared *s = state;

	dcsim_spin_lock(&s->lock);
	if (tid == 1)
		dcsim_spin_unlock(&s->lock);
}

static void abba(void *state, unsigned int tid)
{
	struct shared *s = state;
	dcsim_spinlock_t *a = tid ? &s->lock2 : &s->lock;
	dcsim_spinlock_t *b = tid ? &s->lock : &s->lock2;

	dcsim_spin_lock(a);
	dcsim_spin_lock(b);
	dcsim_spin_unlock(b);
	dcsim_spin_unlock(a);
}

void test_deadlocks(void **unused)
{
	const struct dcsim_scenario leak = {
		.name = "leaked-lock", .nthreads = 2, .setup = setup_shared,
		.thread = leak_lock, .teardown = teardown_shared,
	};
	const struct dcsim_scenario ab = {
		.name = "abba", .nthreads = 2, .setup = setup_shared,
		.thread = abba, .teardown = teardown_shared,
	};
	struct dcsim_explore_opts o = opts_for(DCSIM_EXPLORE_RANDOM, 500);
	struct dcsim_explore_result r;
	(void)unused;

	assert_int_equal(dcsim_explore_run(&leak, &o, &r), 1);
	assert_non_null(strstr(r.failure, "deadlock"));
	o.mode = DCSIM_EXPLORE_PCT;
	assert_int_equal(dcsim_explore_run(&ab, &o, &r), 1);
	assert_non_null(strstr(r.failure, "deadlock"));
	printf("# abba: pct caught it after %lu executions\n", r.first_failure);
	o.mode = DCSIM_EXPLORE_DFS;
	o.preemption_bound = 1;
	assert_int_equal(dcsim_explore_run(&ab, &o, &r), 1);
	printf("# abba: dfs caught it after %lu executions\n", r.first_failure);
}

/* ---- lockref: final put vs get_not_dead vs get ---- */

/*
 * T0 drops the last reference and kills the object under the lock; T1 tries
 * to revive it; T2 takes and drops a reference it got from T0 beforehand.
 * At the end the count is dead exactly when T0 killed it, and a reviver
 * never got a reference to a dead object.
 */
static void *setup_lockref(void *arg)
{
	struct shared *s = setup_shared(arg);

	dcsim_lockref_init(&s->ref, 2);
	return s;
}

static void lockref_thread(void *state, unsigned int tid)
{
	struct shared *s = state;

	switch (tid) {
	case 0:
		if (!dcsim_lockref_put_or_lock(&s->ref)) {
			dcsim_lockref_mark_dead(&s->ref);
			DCSIM_WRITE_ONCE(s->killed, 1);
			dcsim_spin_unlock(&s->ref.lock);
		}
		break;
	case 1:
		if (dcsim_lockref_get_not_dead(&s->ref)) {
			DCSIM_WRITE_ONCE(s->got, 1);
			if (DCSIM_READ_ONCE(s->killed))
				dcsim_explore_fail("got a reference to a killed object");
			if (!dcsim_lockref_put_or_lock(&s->ref)) {
				dcsim_lockref_mark_dead(&s->ref);
				DCSIM_WRITE_ONCE(s->killed, 1);
				dcsim_spin_unlock(&s->ref.lock);
			}
		}
		break;
	case 2:
		if (!dcsim_lockref_put_or_lock(&s->ref)) {
			dcsim_lockref_mark_dead(&s->ref);
			DCSIM_WRITE_ONCE(s->killed, 1);
			dcsim_spin_unlock(&s->ref.lock);
		}
		break;
	}
}

static void lockref_check(void *state)
{
	struct shared *s = state;

	if (!s->killed || s->ref.count != DCSIM_LOCKREF_DEAD)
		dcsim_explore_fail("killed=%d count=%d: every reference was dropped",
				   s->killed, s->ref.count);
	if (!dcsim_spin_value_unlocked(s->ref.lock))
		dcsim_explore_fail("lock left held");
}

void test_lockref_kill(void **unused)
{
	const struct dcsim_scenario sc = {
		.name = "lockref-kill", .nthreads = 3, .setup = setup_lockref,
		.thread = lockref_thread, .check = lockref_check, .teardown = teardown_shared,
	};
	struct dcsim_explore_opts o = opts_for(DCSIM_EXPLORE_DFS, 200000);
	struct dcsim_explore_result r;
	(void)unused;

	o.preemption_bound = 2;
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 0);
	printf("# lockref-kill: dfs bound 2 ran %lu schedules, exhausted=%d\n",
	       r.executions, r.exhausted);
	o = opts_for(DCSIM_EXPLORE_RANDOM, 2000);
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_finds_lost_update),
		cmocka_unit_test(test_replay_from_seed),
		cmocka_unit_test(test_spinlock_exhaustive),
		cmocka_unit_test(test_deadlocks),
		cmocka_unit_test(test_lockref_kill),
		cmocka_unit_test(test_txn_counter),
		cmocka_unit_test(test_sim_semantics),
		cmocka_unit_test(test_sim_refuses_outside),
		cmocka_unit_test(test_rcu_grace_period),
		cmocka_unit_test(test_htm_conflicts),
		cmocka_unit_test(test_strict_priorities),
		cmocka_unit_test(test_fair_cycles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
