// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Window-directed exploration (--sched window, src/engine/window.c), on
 * primitives: a recheck missing after a lock-drop window that only a whole
 * operation of another thread inside the window shows is found at once by
 * the mode and never by the fair random walk; the per-window counts name
 * the window by the site its code gave; two trylock loops are kept in step
 * until the fair-cycle detector confirms the livelock, while a bounded
 * retry is not reported; a parked thread that another thread waits for is
 * let go (no false deadlock); a replay with the failure's target repeats
 * the failure.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <dcsim/atomic.h>
#include <dcsim/explore.h>
#include <dcsim/spinlock.h>

/* The long operation of the other thread: schedule points before its write. */
#define LONG_OP		200

struct shared {
	dcsim_spinlock_t lock, lock2;
	int x, scratch, flag;
	int variant;
};

static int window_line;		/* the line T0's window opens at (its named site) */

static void *setup_shared(void *arg)
{
	struct shared *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	s->variant = (int)(intptr_t)arg;
	return s;
}

static void teardown_shared(void *state)
{
	free(state);
}

/*
 * T0 reads x under the lock, drops the lock and takes it again, and
 * trusts what it read: the missing recheck.  T1 runs a long operation
 * that ends in a write of x under the lock.  Only T1's whole operation
 * inside T0's two-point window shows it.
 */
static void stale_after_window(void *state, unsigned int tid)
{
	struct shared *s = state;

	if (tid == 0) {
		int v;

		dcsim_spin_lock(&s->lock);
		v = DCSIM_READ_ONCE(s->x);
		window_line = __LINE__ + 1;
		dcsim_spin_site(__func__, __LINE__);
		dcsim_spin_unlock(&s->lock);
		dcsim_spin_lock(&s->lock);
		if (DCSIM_READ_ONCE(s->x) != v)
			dcsim_explore_fail("x changed in the window: %d, was %d",
					   DCSIM_READ_ONCE(s->x), v);
		dcsim_spin_unlock(&s->lock);
		return;
	}
	for (int i = 0; i < LONG_OP; i++)
		DCSIM_WRITE_ONCE(s->scratch, i);
	dcsim_spin_lock(&s->lock);
	DCSIM_WRITE_ONCE(s->x, 1);
	dcsim_spin_unlock(&s->lock);
	dcsim_explore_progress();
}

static struct dcsim_explore_opts opts(enum dcsim_explore_sched sched, unsigned long iters)
{
	struct dcsim_explore_opts o;

	dcsim_explore_opts_init(&o);
	o.sched = sched;
	o.iterations = iters;
	o.quiet = true;
	return o;
}

static void test_window_reaches(void **unused)
{
	const struct dcsim_scenario sc = {
		.name = "stale-after-window", .nthreads = 2, .setup = setup_shared,
		.thread = stale_after_window, .teardown = teardown_shared,
	};
	struct dcsim_explore_opts o;
	struct dcsim_explore_result r, again;
	char dump[] = "/tmp/dcsim-window-XXXXXX", line[256], want[128];
	bool found = false;
	FILE *f;
	int fd;
	(void)unused;

	/*
	 * The fair random walk never runs 200 points of T1 inside the window
	 * (PCT does, now and then: a change point in the window is its depth 2).
	 */
	o = opts(DCSIM_EXPLORE_SCHED_FAIR, 300);
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 0);

	/* Parked in it while T1 runs its operation: found at once. */
	fd = mkstemp(dump);
	assert_true(fd >= 0);
	close(fd);
	o = opts(DCSIM_EXPLORE_SCHED_WINDOW, 300);
	o.window_dump = dump;
	o.keep_going = true;
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 1);
	assert_non_null(strstr(r.failure, "x changed in the window"));
	assert_true(r.first_failure <= 3);
	assert_true(r.windows_reached >= 1 && r.windows_parked >= 1);
	printf("# window: caught at execution %lu, %lu of %lu executions failed\n",
	       r.first_failure, r.failures, r.executions);

	/* The counts name the window by its site, with T1's operation inside. */
	snprintf(want, sizeof(want), "window stale_after_window %d ", window_line);
	f = fopen(dump, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long reached, parked, ops;

		if (strncmp(line, want, strlen(want)))
			continue;
		assert_int_equal(sscanf(line + strlen(want), "%lu %lu %lu", &reached, &parked,
					&ops), 3);
		assert_true(reached >= 1 && parked >= 1 && ops >= 1);
		found = true;
	}
	fclose(f);
	unlink(dump);
	assert_true(found);

	/* The failure replays from its seed and target. */
	o = opts(DCSIM_EXPLORE_SCHED_WINDOW, 1);
	o.replay = true;
	o.replay_seed = r.failure_seed;
	o.window_target = r.failure_window[0] ? r.failure_window : NULL;
	assert_int_equal(dcsim_explore_run(&sc, &o, &again), 1);
	assert_string_equal(again.failure, r.failure);
}

/*
 * Each thread takes its own lock, then only trylocks the other's; on
 * failure it drops its own and retries (variant 0: for ever, N: N times,
 * then both in order).  The two hold windows are two schedule points
 * wide: the 3b3f09f48ba7 shape.
 */
static void polite(void *state, unsigned int tid)
{
	struct shared *s = state;
	dcsim_spinlock_t *mine = tid ? &s->lock2 : &s->lock;
	dcsim_spinlock_t *other = tid ? &s->lock : &s->lock2;

	for (int tries = 0; !s->variant || tries < s->variant; tries++) {
		dcsim_spin_site(__func__, __LINE__);
		dcsim_spin_lock(mine);
		dcsim_spin_site(__func__, __LINE__);
		if (dcsim_spin_trylock(other)) {
			DCSIM_WRITE_ONCE(s->x, s->x + 1);
			dcsim_spin_unlock(other);
			dcsim_spin_unlock(mine);
			return;
		}
		dcsim_spin_site(__func__, __LINE__);
		dcsim_spin_unlock(mine);
		dcsim_cpu_relax();
	}
	dcsim_spin_lock(&s->lock);
	dcsim_spin_lock(&s->lock2);
	DCSIM_WRITE_ONCE(s->x, s->x + 1);
	dcsim_spin_unlock(&s->lock2);
	dcsim_spin_unlock(&s->lock);
}

static void test_window_in_step(void **unused)
{
	struct dcsim_scenario sc = {
		.name = "polite", .nthreads = 2, .setup = setup_shared,
		.thread = polite, .teardown = teardown_shared,
	};
	struct dcsim_explore_opts o = opts(DCSIM_EXPLORE_SCHED_WINDOW, 50);
	struct dcsim_explore_result r;
	(void)unused;

	/* In step from the first execution that targets a hold window. */
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 1);
	assert_non_null(strstr(r.failure, "livelock (fair cycle)"));
	assert_true(r.first_failure <= 5);
	printf("# polite: window caught the fair cycle at execution %lu\n", r.first_failure);
	/* A retry bound the signature cannot see ends it: nothing to report. */
	sc.arg = (void *)(intptr_t)50;
	o.iterations = 300;
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 0);
	o.mode = DCSIM_EXPLORE_PCT;
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 0);
}

/* T0 drops a lock and then sets the flag T1 waits for: parking T0 must end. */
static void waits_for_parked(void *state, unsigned int tid)
{
	struct shared *s = state;

	if (tid == 0) {
		dcsim_spin_lock(&s->lock);
		dcsim_spin_unlock(&s->lock);
		DCSIM_WRITE_ONCE(s->flag, 1);
		dcsim_spin_lock(&s->lock2);
		dcsim_spin_unlock(&s->lock2);
		return;
	}
	while (!DCSIM_READ_ONCE(s->flag))
		dcsim_cpu_relax();
	dcsim_explore_progress();
}

static void test_window_no_false_hang(void **unused)
{
	const struct dcsim_scenario sc = {
		.name = "waits-for-parked", .nthreads = 2, .setup = setup_shared,
		.thread = waits_for_parked, .teardown = teardown_shared,
	};
	struct dcsim_explore_opts o = opts(DCSIM_EXPLORE_SCHED_WINDOW, 200);
	struct dcsim_explore_result r;
	(void)unused;

	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 0);
	assert_true(r.windows_parked >= 1);
	o.mode = DCSIM_EXPLORE_PCT;
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 0);
}

static void test_window_names(void **unused)
{
	enum dcsim_explore_sched s;
	(void)unused;

	assert_int_equal(dcsim_explore_sched_parse("window", &s), 0);
	assert_int_equal(s, DCSIM_EXPLORE_SCHED_WINDOW);
	assert_string_equal(dcsim_explore_sched_name(DCSIM_EXPLORE_SCHED_WINDOW), "window");
	assert_int_equal(dcsim_explore_sched_parse("windows", &s), -22);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_reaches),
		cmocka_unit_test(test_window_in_step),
		cmocka_unit_test(test_window_no_false_hang),
		cmocka_unit_test(test_window_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
