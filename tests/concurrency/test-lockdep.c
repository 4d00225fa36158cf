// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The explorer's lock order validator (<dcsim/lockdep.h>, src/engine/
 * lockdep.c) on locks of the test's own classes: an ABBA order is a
 * possible circular locking dependency, reported with both chains, even
 * when the two orders come from different executions and none deadlocks;
 * a chain through a third class is a cycle too; a trylock adds no edge;
 * a class taken under itself is recursive locking unless the inner lock
 * is nested (a subclass), and d_walk()'s hand-over annotations make a
 * held lock count as subclass 0 again; an unregistered lock is not
 * validated; dcsim_explore_lockdep_print() shows the graph.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dcsim/atomic.h>
#include <dcsim/explore.h>
#include <dcsim/lockdep.h>
#include <dcsim/spinlock.h>

static const struct dcsim_lock_class class_a = { "A" }, class_b = { "B" }, class_c = { "C" },
	class_t = { "T" };

struct shared {
	dcsim_spinlock_t a, b, c;
	dcsim_spinlock_t tree[4];	/* one class; [0] the root, each the next one's parent */
	unsigned long exec;		/* which execution of the run this is, from 1 */
	bool registered;
};

static unsigned long executions_set_up;

/* @arg: false, to leave the locks without a class */
static void *setup(void *arg)
{
	struct shared *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	s->exec = ++executions_set_up;
	s->registered = arg != NULL;
	if (s->registered) {
		dcsim_lock_set_class(&s->a, &class_a);
		dcsim_lock_set_class(&s->b, &class_b);
		dcsim_lock_set_class(&s->c, &class_c);
		dcsim_lock_set_class_array(&s->tree[0], 4, sizeof(s->tree[0]), &class_t);
	}
	return s;
}

static void teardown(void *state)
{
	free(state);
}

static struct dcsim_explore_opts opts(unsigned long iters)
{
	struct dcsim_explore_opts o;

	dcsim_explore_opts_init(&o);
	dcsim_explore_opts_from_env(&o);
	o.mode = DCSIM_EXPLORE_RANDOM;
	o.iterations = iters;
	o.quiet = getenv("DCSIM_TEST_VERBOSE") == NULL;
	return o;
}

static void lock2(dcsim_spinlock_t *x, dcsim_spinlock_t *y)
{
	dcsim_spin_lock(x);
	dcsim_spin_lock(y);
	dcsim_spin_unlock(y);
	dcsim_spin_unlock(x);
}

/* ---- ABBA, two threads: the textbook inversion ---- */

/* Not through lock2(): the chains name the function of each acquisition. */
static void abba_thread0(struct shared *s)
{
	dcsim_spin_lock(&s->a);
	dcsim_spin_lock(&s->b);
	dcsim_spin_unlock(&s->b);
	dcsim_spin_unlock(&s->a);
}

static void abba_thread1(struct shared *s)
{
	dcsim_spin_lock(&s->b);
	dcsim_spin_lock(&s->a);
	dcsim_spin_unlock(&s->a);
	dcsim_spin_unlock(&s->b);
}

static void abba(void *state, unsigned int tid)
{
	if (tid)
		abba_thread1(state);
	else
		abba_thread0(state);
}

static void test_abba(void **unused)
{
	const struct dcsim_scenario sc = {
		.name = "lockdep-abba", .nthreads = 2, .setup = setup, .thread = abba,
		.teardown = teardown, .arg = (void *)1,
	};
	struct dcsim_explore_opts o = opts(200);
	struct dcsim_explore_result r;
	(void)unused;

	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 1);
	printf("# abba: %s\n", r.failure);
	/* A diagnosis, before any deadlock: the first execution has both orders. */
	assert_non_null(strstr(r.failure, "possible circular locking dependency"));
	assert_int_equal(r.first_failure, 1);
	/* Both chains, each with the function that took each lock. */
	assert_non_null(strstr(r.failure, "abba_thread0"));
	assert_non_null(strstr(r.failure, "abba_thread1"));
	assert_non_null(strstr(r.failure, "existing chain: "));
	assert_true(r.lock_edges >= 1);
}

/* ---- the two orders in different executions: nothing ever deadlocks ---- */

static void split(void *state, unsigned int tid)
{
	struct shared *s = state;

	(void)tid;
	/* One thread: no execution can deadlock; the graph spans executions. */
	if (s->exec % 2)
		abba_thread0(s);
	else
		abba_thread1(s);
}

static void test_across_executions(void **unused)
{
	const struct dcsim_scenario sc = {
		.name = "lockdep-split", .nthreads = 1, .setup = setup, .thread = split,
		.teardown = teardown, .arg = (void *)1,
	};
	struct dcsim_explore_opts o = opts(10);
	struct dcsim_explore_result r;
	(void)unused;

	executions_set_up = 0;
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 1);
	printf("# split: execution %lu: %s\n", r.first_failure, r.failure);
	assert_int_equal(r.first_failure, 2);
	assert_non_null(strstr(r.failure, "possible circular locking dependency"));
	/* The older chain names its execution, and the new one its sites. */
	assert_non_null(strstr(r.failure, "(execution 1, seed"));
	assert_non_null(strstr(r.failure, "abba_thread0"));
	assert_non_null(strstr(r.failure, "abba_thread1"));

	/* A new run starts a new graph: one execution has one order only. */
	executions_set_up = 0;
	o.iterations = 1;
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 0);
	executions_set_up = 1;
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 0);
}

/* ---- A -> B -> C in one thread, C -> A in another: a cycle of three ---- */

static void chain3(void *state, unsigned int tid)
{
	struct shared *s = state;

	if (tid == 0) {
		dcsim_spin_lock(&s->a);
		dcsim_spin_lock(&s->b);
		dcsim_spin_unlock(&s->a);
		dcsim_spin_lock(&s->c);
		dcsim_spin_unlock(&s->c);
		dcsim_spin_unlock(&s->b);
	} else if (s->exec > 1) {
		lock2(&s->c, &s->a);
	}
}

static void test_three_classes(void **unused)
{
	const struct dcsim_scenario sc = {
		.name = "lockdep-three", .nthreads = 2, .setup = setup, .thread = chain3,
		.teardown = teardown, .arg = (void *)1,
	};
	struct dcsim_explore_opts o = opts(20);
	struct dcsim_explore_result r;
	(void)unused;

	executions_set_up = 0;
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 1);
	printf("# three: %s\n", r.failure);
	assert_non_null(strstr(r.failure, "possible circular locking dependency"));
	/* The existing chain has both of its edges: A -> B and B -> C. */
	assert_non_null(strstr(r.failure, "A (taken at chain3:"));
	assert_non_null(strstr(r.failure, "B (taken at chain3:"));
}

/* ---- a trylock cannot deadlock: no edge to what it takes ---- */

static void try_inverse(void *state, unsigned int tid)
{
	struct shared *s = state;

	if (tid == 0) {
		lock2(&s->a, &s->b);
	} else {
		dcsim_spin_lock(&s->b);
		if (dcsim_spin_trylock(&s->a))
			dcsim_spin_unlock(&s->a);
		dcsim_spin_unlock(&s->b);
	}
}

static void test_trylock(void **unused)
{
	const struct dcsim_scenario sc = {
		.name = "lockdep-trylock", .nthreads = 2, .setup = setup, .thread = try_inverse,
		.teardown = teardown, .arg = (void *)1,
	};
	struct dcsim_explore_opts o = opts(300);
	struct dcsim_explore_result r;
	FILE *f = tmpfile();
	char buf[2048];
	size_t n;
	(void)unused;

	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 0);
	assert_int_equal(r.lock_edges, 1);	/* A -> B only */
	assert_true(r.lock_trylocks > 0);
	/* The graph, for people: the edge, and the inverse pair seen as a trylock. */
	assert_non_null(f);
	dcsim_explore_lockdep_print(f);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	printf("%s", buf);
	assert_non_null(strstr(buf, "A -> B (lock2:"));
	assert_non_null(strstr(buf, "B -> A trylock only"));
	assert_null(strstr(buf, "B -> A ("));
}

/* ---- nesting: one class under itself ---- */

/* tree[0] then tree[1]: nested (variant 1) or not (variant 0). */
static void nest(void *state, unsigned int tid)
{
	struct shared *s = state;

	dcsim_spin_lock(&s->tree[tid]);
	if (s->exec % 2)
		dcsim_spin_lock_nested(&s->tree[tid + 1], 1);
	else
		dcsim_spin_lock(&s->tree[tid + 1]);
	dcsim_spin_unlock(&s->tree[tid + 1]);
	dcsim_spin_unlock(&s->tree[tid]);
}

static void test_nested(void **unused)
{
	const struct dcsim_scenario sc = {
		.name = "lockdep-nested", .nthreads = 2, .setup = setup, .thread = nest,
		.teardown = teardown, .arg = (void *)1,
	};
	struct dcsim_explore_opts o = opts(1);
	struct dcsim_explore_result r;
	(void)unused;

	/* Execution 1 nests: parent and child of each pair, T0 and T1 overlapping. */
	executions_set_up = 0;
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 0);
	assert_int_equal(r.lock_edges, 1);	/* T -> T/1 */
	/* Without the subclass, the same code is recursive locking. */
	executions_set_up = 1;
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 1);
	printf("# nested: %s\n", r.failure);
	assert_non_null(strstr(r.failure, "possible recursive locking"));
	assert_non_null(strstr(r.failure, "nest:"));
}

/*
 * d_walk()'s hand-over (the kernel code's spin_release()/spin_acquire()):
 * holding a directory, take its child nested, unlock the directory, and
 * let the validator see the child as held at subclass 0 (a trylock: no
 * edge), so that the grandchild is nested again rather than under its
 * own subclass.
 */
static void walk(void *state, unsigned int tid)
{
	struct shared *s = state;

	(void)tid;
	dcsim_spin_lock(&s->tree[0]);
	for (unsigned int i = 1; i < 4; i++) {
		dcsim_spin_lock_nested(&s->tree[i], 1);
		dcsim_spin_unlock(&s->tree[i - 1]);
		if (s->exec % 2) {
			dcsim_spin_note(DCSIM_SPIN_ANNOTATE_RELEASE, &s->tree[i], 0, __func__, __LINE__);
			dcsim_spin_note(DCSIM_SPIN_ANNOTATE_TRYACQUIRE, &s->tree[i], 0, __func__,
					__LINE__);
		}
	}
	dcsim_spin_unlock(&s->tree[3]);
}

static void test_hand_over(void **unused)
{
	const struct dcsim_scenario sc = {
		.name = "lockdep-walk", .nthreads = 1, .setup = setup, .thread = walk,
		.teardown = teardown, .arg = (void *)1,
	};
	struct dcsim_explore_opts o = opts(1);
	struct dcsim_explore_result r;
	(void)unused;

	executions_set_up = 0;
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 0);
	/* Without the hand-over the second level is T/1 under T/1. */
	executions_set_up = 1;
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 1);
	assert_non_null(strstr(r.failure, "possible recursive locking"));
}

/* ---- a lock nobody registered is not validated ---- */

static void test_unregistered(void **unused)
{
	const struct dcsim_scenario sc = {
		.name = "lockdep-unregistered", .nthreads = 1, .setup = setup, .thread = split,
		.teardown = teardown, .arg = NULL,
	};
	struct dcsim_explore_opts o = opts(10);
	struct dcsim_explore_result r;
	(void)unused;

	executions_set_up = 0;
	assert_int_equal(dcsim_explore_run(&sc, &o, &r), 0);
	assert_int_equal(r.lock_edges, 0);
	assert_int_equal(r.lock_acquisitions, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_abba),
		cmocka_unit_test(test_across_executions),
		cmocka_unit_test(test_three_classes),
		cmocka_unit_test(test_trylock),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_hand_over),
		cmocka_unit_test(test_unregistered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
