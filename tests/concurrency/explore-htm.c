// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-explore: transactions under the explorer.  A transactional put
 * against the lock, right and wrong; simulated transactions roll back every
 * store on any abort and resume at begin with an RTM status; conflicts
 * abort the transactions they hit; the simulated backend refuses to run
 * outside the explorer.
 */

#include "explore-tests.h"

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

void test_txn_counter(void **unused)
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

void test_sim_semantics(void **unused)
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

void test_htm_conflicts(void **unused)
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
void test_sim_refuses_outside(void **unused)
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
