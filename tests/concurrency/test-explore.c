// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The explorer and the simulated HTM on primitives (instrumented build): the
 * scheduler finds textbook races, deadlocks and lost updates in each mode;
 * a failure replays from its seed; correct lock, lockref and transactional
 * code survives exhaustive bounded search; simulated transactions are
 * atomic, roll back every store on any abort and resume at begin with an
 * RTM status; the simulated backend refuses to run outside the explorer;
 * strict priorities turn a busy wait on a preempted thread into a
 * livelock, while cond_resched() and waits on lock holders stay correct;
 * and a livelock in which both threads keep running is a fair cycle, while
 * a retry loop that a hidden bound ends is not.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <dcsim/atomic.h>
#include <dcsim/explore.h>
#include <dcsim/htm.h>
#include <dcsim/lockref.h>
#include <dcsim/rcu.h>
#include <dcsim/sched.h>
#include <dcsim/spinlock.h>
#include <dcsim/stats.h>

struct shared {
	dcsim_spinlock_t lock, lock2;
	struct dcsim_lockref ref;
	int x, y;
	int killed, got;
	int variant;
	int pv[DCSIM_EXPLORE_MAX_THREADS][2];	/* private to each thread */
};

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

static struct dcsim_explore_opts opts_for(enum dcsim_explore_mode mode, unsigned long iters)
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

static void test_finds_lost_update(void **unused)
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
static void test_replay_from_seed(void **unused)
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

static void locked_inc(void *state, unsigned int tid)
{
	struct shared *s = state;

	(void)tid;
	dcsim_spin_lock(&s->lock);
	DCSIM_WRITE_ONCE(s->x, DCSIM_READ_ONCE(s->x) + 1);
	dcsim_spin_unlock(&s->lock);
}

static void check_three(void *state)
{
	struct shared *s = state;

	if (s->x != 3)
		dcsim_explore_fail("x = %d, want 3", s->x);
	if (!dcsim_spin_value_unlocked(s->lock))
		dcsim_explore_fail("lock left held");
}

static void test_spinlock_exhaustive(void **unused)
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

static void test_deadlocks(void **unused)
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

static void test_lockref_kill(void **unused)
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

/* ---- a transactional put vs the lock, right and wrong ---- */

/*
 * Like the 2013 dput patch in miniature: a transaction decrements the count
 * only if the lock is free (variant 0); the broken variant 1 skips that
 * check, so its decrement can land inside a lock holder's read-modify-write.
 */
static void txn_put(struct shared *s)
{
	dcsim_htm_status_t st = dcsim_htm_begin();
	int c;

	if (st == DCSIM_HTM_STARTED) {
		if (s->variant == 0 && !dcsim_spin_value_unlocked(s->ref.lock))
			dcsim_htm_abort(0x11);
		c = DCSIM_READ_ONCE(s->ref.count);
		DCSIM_WRITE_ONCE(s->ref.count, c - 1);
		dcsim_htm_end();
		return;
	}
	dcsim_spin_lock(&s->ref.lock);
	c = DCSIM_READ_ONCE(s->ref.count);
	DCSIM_WRITE_ONCE(s->ref.count, c - 1);
	dcsim_spin_unlock(&s->ref.lock);
}

static void *setup_txn(void *arg)
{
	struct shared *s = setup_shared(arg);

	dcsim_lockref_init(&s->ref, 10);
	return s;
}

static void txn_thread(void *state, unsigned int tid)
{
	struct shared *s = state;

	if (tid == 0) {
		/* Read the lock value inside the transaction, as the patch does. */
		txn_put(s);
		txn_put(s);
	} else {
		dcsim_spin_lock(&s->ref.lock);
		int c = DCSIM_READ_ONCE(s->ref.count);

		DCSIM_WRITE_ONCE(s->ref.count, c - 1);
		dcsim_spin_unlock(&s->ref.lock);
	}
}

static void txn_check(void *state)
{
	struct shared *s = state;

	if (s->ref.count != 7)
		dcsim_explore_fail("count %d, want 7: a decrement was lost", s->ref.count);
}

static void test_txn_counter(void **unused)
{
	static const enum dcsim_explore_htm htms[] = {
		DCSIM_EXPLORE_HTM_OFF, DCSIM_EXPLORE_HTM_COMMIT, DCSIM_EXPLORE_HTM_ABORTS,
	};
	struct dcsim_scenario sc = {
		.name = "txn-counter", .nthreads = 2, .setup = setup_txn,
		.thread = txn_thread, .check = txn_check, .teardown = teardown_shared,
		.arg = (void *)0,
	};
	struct dcsim_explore_result r;
	(void)unused;

	for (size_t i = 0; i < DCSIM_ARRAY_SIZE(htms); i++) {
		struct dcsim_explore_opts o = opts_for(DCSIM_EXPLORE_RANDOM, 2000);

		o.htm = htms[i];
		o.abort_permille = 100;
		assert_int_equal(dcsim_explore_run(&sc, &o, &r), 0);
		if (htms[i] != DCSIM_EXPLORE_HTM_OFF)
			assert_true(r.htm_commits > 0);
		if (htms[i] == DCSIM_EXPLORE_HTM_ABORTS)
			assert_true(r.htm_aborts > 0);
		o.mode = DCSIM_EXPLORE_DFS;
		o.preemption_bound = 2;
		o.iterations = 100000;
		assert_int_equal(dcsim_explore_run(&sc, &o, &r), 0);
		assert_true(r.exhausted);
	}

	/* The broken variant: caught in every mode once transactions commit. */
	sc.name = "txn-counter-no-lock-check";
	sc.arg = (void *)1;
	for (int mode = DCSIM_EXPLORE_RANDOM; mode <= DCSIM_EXPLORE_DFS; mode++) {
		struct dcsim_explore_opts o = opts_for((enum dcsim_explore_mode)mode, 20000);

		o.htm = DCSIM_EXPLORE_HTM_COMMIT;
		assert_int_equal(dcsim_explore_run(&sc, &o, &r), 1);
		printf("# txn-counter-no-lock-check: %s caught it after %lu executions\n",
		       dcsim_explore_mode_name(o.mode), r.first_failure);
	}
}

/* ---- simulated transactions: rollback, status, nesting, statistics ---- */

static void sim_semantics(void *state, unsigned int tid)
{
	struct shared *s = state;
	volatile int attempts = 0;
	dcsim_htm_status_t st;
	struct dcsim_htm_abort a;
	struct dcsim_stats before, after;

	(void)tid;
	dcsim_stats_read_thread(&before);
	DCSIM_WRITE_ONCE(s->x, 1);
	dcsim_explore_assert(dcsim_htm_live());
	st = dcsim_htm_begin();
	attempts++;
	if (st == DCSIM_HTM_STARTED) {
		dcsim_explore_assert(dcsim_htm_test());
		DCSIM_WRITE_ONCE(s->x, 5);
		(void)dcsim_fetch_add(&s->y, 3);
		/* A nested transaction flattens into this one. */
		dcsim_explore_assert(dcsim_htm_begin() == DCSIM_HTM_STARTED);
		DCSIM_WRITE_ONCE(s->x, 6);
		dcsim_htm_end();
		dcsim_htm_abort(0x42);
		dcsim_explore_fail("execution continued after an explicit abort");
	}
	dcsim_explore_assert(attempts == 2);
	dcsim_explore_assert(!dcsim_htm_test());
	a = dcsim_htm_decode(st);
	dcsim_explore_assert(a.cause == DCSIM_HTM_CAUSE_EXPLICIT && a.code == 0x42 && !a.retry);
	dcsim_explore_assert((st & DCSIM_HTM_X86_EXPLICIT) && DCSIM_HTM_X86_CODE(st) == 0x42);
	/* Every store inside was undone. */
	dcsim_explore_assert(DCSIM_READ_ONCE(s->x) == 1 && DCSIM_READ_ONCE(s->y) == 0);

	/* A committed transaction keeps its stores. */
	st = dcsim_htm_begin();
	if (st == DCSIM_HTM_STARTED) {
		DCSIM_WRITE_ONCE(s->x, 9);
		dcsim_htm_end();
	}
	dcsim_explore_assert(st == DCSIM_HTM_STARTED && DCSIM_READ_ONCE(s->x) == 9);
	dcsim_stats_read_thread(&after);
	dcsim_explore_assert(after.v[DCSIM_STAT_HTM_ATTEMPTS] - before.v[DCSIM_STAT_HTM_ATTEMPTS] == 2);
	dcsim_explore_assert(after.v[DCSIM_STAT_HTM_COMMITS] - before.v[DCSIM_STAT_HTM_COMMITS] == 1);
	dcsim_explore_assert(after.v[DCSIM_STAT_HTM_ABORTS] - before.v[DCSIM_STAT_HTM_ABORTS] == 1);
	dcsim_explore_assert(after.htm_explicit_code[0x42] - before.htm_explicit_code[0x42] == 1);
}

static void sim_injected(void *state, unsigned int tid)
{
	struct shared *s = state;
	int *x = &s->pv[tid][0], *y = &s->pv[tid][1];

	for (int i = 0; i < 20; i++) {
		int x0 = DCSIM_READ_ONCE(*x), y0 = DCSIM_READ_ONCE(*y);
		dcsim_htm_status_t st = dcsim_htm_begin();

		if (st == DCSIM_HTM_STARTED) {
			DCSIM_WRITE_ONCE(*x, x0 + 1);
			DCSIM_WRITE_ONCE(*y, y0 + 1);
			(void)dcsim_fetch_add(&s->x, 1);	/* shared, atomic */
			DCSIM_WRITE_ONCE(*x, x0 + 2);
			dcsim_htm_end();
			dcsim_explore_assert(DCSIM_READ_ONCE(*x) == x0 + 2);
			dcsim_explore_assert(DCSIM_READ_ONCE(*y) == y0 + 1);
		} else {
			struct dcsim_htm_abort a = dcsim_htm_decode(st);

			dcsim_explore_assert(a.cause != DCSIM_HTM_CAUSE_DISABLED);
			dcsim_explore_assert(a.cause != DCSIM_HTM_CAUSE_EXPLICIT);
			/* All or nothing. */
			dcsim_explore_assert(DCSIM_READ_ONCE(*x) == x0 && DCSIM_READ_ONCE(*y) == y0);
		}
	}
}

/* The shared counter counts exactly the committed transactions. */
static void sim_injected_check(void *state)
{
	struct shared *s = state;
	int commits = s->pv[0][1] + s->pv[1][1];

	if (s->x != commits)
		dcsim_explore_fail("shared counter %d, but %d transactions committed", s->x, commits);
}

static void sim_off(void *state, unsigned int tid)
{
	(void)state;
	(void)tid;
	dcsim_explore_assert(!dcsim_htm_live());
	dcsim_explore_assert(dcsim_htm_begin() == DCSIM_HTM_DISABLED);
}

static void test_sim_semantics(void **unused)
{
	struct dcsim_scenario sc = {
		.name = "sim-semantics", .nthreads = 1, .setup = setup_shared,
		.thread = sim_semantics, .teardown = teardown_shared,
	};
	struct dcsim_explore_opts o = opts_for(DCSIM_EXPLORE_RANDOM, 3);
	struct dcsim_explore_result r;
	(void)unused;

	o.htm = DCSIM_EXPLORE_HTM_COMMIT;
	o.quiet = false;
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 0);

	sc.name = "sim-injected";
	sc.thread = sim_injected;
	sc.nthreads = 2;
	sc.check = sim_injected_check;
	o.htm = DCSIM_EXPLORE_HTM_ABORTS;
	o.abort_permille = 150;
	o.iterations = 200;
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 0);
	assert_true(r.htm_aborts > 0 && r.htm_commits > 0);
	printf("# sim-injected: %lu commits, %lu aborts\n", r.htm_commits, r.htm_aborts);

	/* HTM off in the explorer: never hardware, even where RTM is live. */
	sc.name = "sim-off";
	sc.thread = sim_off;
	sc.check = NULL;
	o.htm = DCSIM_EXPLORE_HTM_OFF;
	o.iterations = 2;
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 0);
}

/* ---- RCU: grace periods chosen by the explorer ---- */

struct robj {
	struct dcsim_rcu_head head;	/* at offset 0: not mistaken for a dentry */
	int freed;
};

struct rcu_state {
	struct robj *p;
	struct robj *obj;		/* for teardown */
	int variant;			/* 0: reader in a section, 1: reader outside */
	int saw_freed, got;
};

static void robj_cb(struct dcsim_rcu_head *head)
{
	struct robj *o = (struct robj *)(void *)head;

	/* Stands for the free: the reader must never see it inside its section. */
	DCSIM_WRITE_ONCE(o->freed, 1);
}

static void *setup_rcu(void *arg)
{
	struct rcu_state *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	s->obj = calloc(1, sizeof(*s->obj));
	assert_non_null(s->obj);
	s->p = s->obj;
	s->variant = (int)(intptr_t)arg;
	return s;
}

static void teardown_rcu(void *state)
{
	struct rcu_state *s = state;

	free(s->obj);
	free(s);
}

static void rcu_thread(void *state, unsigned int tid)
{
	struct rcu_state *s = state;

	if (tid == 0) {
		struct robj *o;

		if (s->variant == 2)
			dcsim_rcu_read_unlock();	/* misuse: never locked */
		if (s->variant != 1)
			dcsim_rcu_read_lock();
		o = dcsim_load_acquire(&s->p);
		if (o) {
			s->got = 1;
			dcsim_explore_yield();
			dcsim_explore_yield();
			if (DCSIM_READ_ONCE(o->freed))
				s->saw_freed = 1;
		}
		if (s->variant != 1 && s->variant != 3)	/* 3: returns inside the section */
			dcsim_rcu_read_unlock();
	} else {
		struct robj *o = dcsim_xchg(&s->p, NULL);

		dcsim_call_rcu(&o->head, robj_cb);
		dcsim_explore_yield();
		dcsim_explore_yield();
	}
}

static void rcu_check(void *state)
{
	struct rcu_state *s = state;

	if (s->saw_freed)
		dcsim_explore_fail("the reader saw its object freed after %s",
				   s->variant ? "reading it outside a section" : "a grace period");
}

static struct dcsim_explore_result run_rcu(int variant, unsigned long iters)
{
	struct dcsim_scenario sc = {
		.name = "rcu-grace-period", .nthreads = 2, .setup = setup_rcu,
		.thread = rcu_thread, .check = rcu_check, .teardown = teardown_rcu,
		.arg = (void *)(intptr_t)variant,
	};
	struct dcsim_explore_opts o = opts_for(DCSIM_EXPLORE_RANDOM, iters);
	struct dcsim_explore_result r;

	o.quiet = true;
	(void)dcsim_explore_run(&sc, &o, &r);
	return r;
}

static void test_rcu_grace_period(void **unused)
{
	struct dcsim_explore_result r;
	(void)unused;

	/* A reader inside its section never sees the callback run... */
	r = run_rcu(0, 2000);
	assert_int_equal(r.failures, 0);
	/* ...though callbacks do run inside executions, not only at quiescence. */
	assert_true(r.rcu_callbacks > 0);
	/* A reader outside any section is not waited for: the free overtakes it. */
	r = run_rcu(1, 2000);
	assert_int_equal(r.failures, 1);
	assert_non_null(strstr(r.failure, "outside a section"));
	/* Unbalanced sections fail the execution. */
	r = run_rcu(2, 10);
	assert_int_equal(r.failures, 1);
	assert_non_null(strstr(r.failure, "without rcu_read_lock()"));
	r = run_rcu(3, 10);
	assert_int_equal(r.failures, 1);
	assert_non_null(strstr(r.failure, "inside an RCU read-side section"));
}

/* ---- conflict-driven simulated HTM ---- */

struct cf {
	_Alignas(64) int x;		/* read by the transaction */
	_Alignas(64) int w;		/* written by the transaction */
	_Alignas(64) int z;		/* nobody's business */
	_Alignas(64) int lines[16][16];	/* one int per cache line read */
	int variant, committed, aborts, nonconflict, capacity, seen99;
};

enum { CF_WRITE_X, CF_READ_X, CF_WRITE_Z, CF_READ_W, CF_WIDE };

static void *setup_cf(void *arg)
{
	struct cf *s = aligned_alloc(64, sizeof(struct cf));

	assert_non_null(s);
	memset(s, 0, sizeof(*s));
	s->variant = (int)(intptr_t)arg;
	return s;
}

static void cf_thread(void *state, unsigned int tid)
{
	struct cf *s = state;

	if (tid == 0) {
		for (int i = 0; i < 8; i++) {
			dcsim_htm_status_t st = dcsim_htm_begin();

			if (st == DCSIM_HTM_STARTED) {
				int a = DCSIM_READ_ONCE(s->x);

				if (s->variant == CF_WIDE)
					for (int l = 0; l < 8; l++)
						a += DCSIM_READ_ONCE(s->lines[l][0]);
				/* A speculative value nobody may ever read. */
				DCSIM_WRITE_ONCE(s->w, 99);
				dcsim_explore_yield();
				DCSIM_WRITE_ONCE(s->w, a + 1);
				dcsim_htm_end();
				s->committed = 1;
				return;
			}
			s->aborts++;
			if (!(st & DCSIM_HTM_X86_CONFLICT))
				s->nonconflict++;
			if (st & DCSIM_HTM_X86_CAPACITY)
				s->capacity++;
		}
		return;
	}
	switch (s->variant) {
	case CF_WRITE_X:
		DCSIM_WRITE_ONCE(s->x, 5);
		break;
	case CF_READ_X:
		(void)DCSIM_READ_ONCE(s->x);
		break;
	case CF_WRITE_Z:
		DCSIM_WRITE_ONCE(s->z, 5);
		break;
	case CF_READ_W:
		if (DCSIM_READ_ONCE(s->w) == 99)
			s->seen99 = 1;
		break;
	default:
		break;
	}
}

static void cf_check(void *state)
{
	struct cf *s = state;

	if (s->seen99)
		dcsim_explore_fail("a plain read saw a speculative store (no strong isolation)");
	if (s->variant != CF_WIDE && s->nonconflict)
		dcsim_explore_fail("%d aborts without a conflict cause", s->nonconflict);
	if (s->committed && DCSIM_READ_ONCE(s->w) != DCSIM_READ_ONCE(s->x) + 1 &&
	    !(s->variant == CF_WRITE_X && DCSIM_READ_ONCE(s->w) == 1))
		dcsim_explore_fail("w %d after a commit that read x %d", s->w, s->x);
	if (s->variant == CF_WIDE && s->capacity != s->aborts)
		dcsim_explore_fail("%d of %d aborts not for capacity", s->aborts - s->capacity, s->aborts);
}

static struct dcsim_explore_result run_cf(int variant, enum dcsim_explore_htm htm, unsigned int cap)
{
	struct dcsim_scenario sc = {
		.name = "htm-conflicts", .nthreads = 2, .setup = setup_cf,
		.thread = cf_thread, .check = cf_check, .teardown = teardown_shared,
		.arg = (void *)(intptr_t)variant,
	};
	struct dcsim_explore_opts o = opts_for(DCSIM_EXPLORE_RANDOM, 500);
	struct dcsim_explore_result r;

	o.htm = htm;
	o.abort_permille = 0;
	o.htm_capacity = cap;
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 0);
	return r;
}

static void test_htm_conflicts(void **unused)
{
	struct dcsim_explore_result r;
	(void)unused;

	/* A write to a line the transaction read aborts it, with a conflict cause. */
	r = run_cf(CF_WRITE_X, DCSIM_EXPLORE_HTM_CONFLICTS, 0);
	assert_true(r.htm_conflicts > 0);
	assert_true(r.htm_aborts >= r.htm_conflicts);
	assert_true(r.htm_commits > 0);
	/* The same scenario in "commit" mode: atomic, so never a conflict. */
	r = run_cf(CF_WRITE_X, DCSIM_EXPLORE_HTM_COMMIT, 0);
	assert_int_equal(r.htm_conflicts, 0);
	assert_int_equal(r.htm_aborts, 0);
	/* Read/read and disjoint lines do not conflict. */
	r = run_cf(CF_READ_X, DCSIM_EXPLORE_HTM_CONFLICTS, 0);
	assert_int_equal(r.htm_aborts, 0);
	r = run_cf(CF_WRITE_Z, DCSIM_EXPLORE_HTM_CONFLICTS, 0);
	assert_int_equal(r.htm_aborts, 0);
	/* A read of a written line aborts it first: the speculative 99 is never seen. */
	r = run_cf(CF_READ_W, DCSIM_EXPLORE_HTM_CONFLICTS, 0);
	assert_true(r.htm_conflicts > 0);
	/* Capacity: 10 lines do not fit in 4, and fit in 16 (and the default). */
	r = run_cf(CF_WIDE, DCSIM_EXPLORE_HTM_CONFLICTS, 4);
	assert_int_equal(r.htm_commits, 0);
	assert_true(r.htm_capacity_aborts > 0);
	r = run_cf(CF_WIDE, DCSIM_EXPLORE_HTM_COMMIT, 4);
	assert_int_equal(r.htm_commits, 0);
	r = run_cf(CF_WIDE, DCSIM_EXPLORE_HTM_CONFLICTS, 16);
	assert_int_equal(r.htm_capacity_aborts, 0);
	assert_true(r.htm_commits > 0);
}

/* Outside the explorer the simulated backend refuses, loudly. */
static void test_sim_refuses_outside(void **unused)
{
	int pipefd[2], status;
	char buf[1024] = "";
	ssize_t n, off = 0;
	pid_t pid;
	(void)unused;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(pipefd[1], 2);
		dcsim_htm_sim_select(true);
		(void)dcsim_htm_begin();
		_exit(0);
	}
	close(pipefd[1]);
	while ((n = read(pipefd[0], buf + off, sizeof(buf) - 1 - (size_t)off)) > 0)
		off += n;
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	assert_non_null(strstr(buf, "runs only on threads of the deterministic explorer"));
	/* And ordinary threads of this process are unaffected. */
	assert_false(dcsim_htm_sim_selected());
}

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

static void test_strict_priorities(void **unused)
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

static void test_fair_cycles(void **unused)
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
