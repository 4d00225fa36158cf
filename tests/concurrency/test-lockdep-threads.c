// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The lock order validator on real threads (src/engine/lockdep-threads.c,
 * <dcsim/explore.h>), outside the explorer, on locks of the test's own
 * classes:
 *  - ABBA between two threads, one order after the other (nothing
 *    deadlocks): a possible circular locking dependency, both chains with
 *    the function of each acquisition, the scope and its reproduce line;
 *  - ABBA where both threads really deadlock (in a child process): the
 *    report is made before either waits, so a hang is a diagnosis;
 *  - many threads in one order at once: no report, one edge, every
 *    acquisition counted;
 *  - a chain through a third class is a cycle; a trylock adds no edge;
 *    a class under itself is recursive unless nested (a subclass);
 *  - orders of two scopes are never combined; unregistered locks are not
 *    validated; DCSIM_LOCKDEP_THREADS=off turns it off.
 */

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <dcsim/atomic.h>
#include <dcsim/explore.h>
#include <dcsim/lockdep.h>
#include <dcsim/spinlock.h>

static const struct dcsim_lock_class class_a = { "A" }, class_b = { "B" }, class_c = { "C" },
	class_t = { "T" };

static dcsim_spinlock_t lock_a, lock_b, lock_c, lock_t[2], lock_free;

/* A new scope, reports into a temporary file; the locks registered in it. */
static FILE *scope(const char *what)
{
	FILE *f = tmpfile();

	assert_non_null(f);
	dcsim_lockdep_begin(what, "test-lockdep-threads (this test)", f);
	dcsim_lock_set_class(&lock_a, &class_a);
	dcsim_lock_set_class(&lock_b, &class_b);
	dcsim_lock_set_class(&lock_c, &class_c);
	dcsim_lock_set_class_array(&lock_t[0], 2, sizeof(lock_t[0]), &class_t);
	return f;
}

/* The report file's text (the caller frees it). */
static char *slurp(FILE *f)
{
	long n;
	char *s;

	fflush(f);
	n = ftell(f);
	assert_true(n >= 0);
	s = calloc(1, (size_t)n + 1);
	assert_non_null(s);
	rewind(f);
	assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return s;
}

static void *run_on_thread(void *(*fn)(void *), void *arg)
{
	pthread_t t;
	void *ret;

	assert_int_equal(pthread_create(&t, NULL, fn, arg), 0);
	assert_int_equal(pthread_join(t, &ret), 0);
	return ret;
}

/* ---- ABBA, one order after the other ---- */

static void *abba_first(void *arg)
{
	(void)arg;
	dcsim_spin_lock(&lock_a);
	dcsim_spin_lock(&lock_b);
	dcsim_spin_unlock(&lock_b);
	dcsim_spin_unlock(&lock_a);
	return NULL;
}

static void *abba_second(void *arg)
{
	(void)arg;
	dcsim_spin_lock(&lock_b);
	dcsim_spin_lock(&lock_a);
	dcsim_spin_unlock(&lock_a);
	dcsim_spin_unlock(&lock_b);
	return NULL;
}

static void test_abba(void **unused)
{
	FILE *f = scope("abba, two threads");
	struct dcsim_lockdep_counts c;
	char *rep;
	(void)unused;

	run_on_thread(abba_first, NULL);
	assert_int_equal(dcsim_lockdep_reports(), 0);
	run_on_thread(abba_second, NULL);
	dcsim_lockdep_end(&c);
	rep = slurp(f);
	printf("# abba: %s\n", c.first);
	assert_int_equal(c.cycles, 1);
	assert_int_equal(c.recursions, 0);
	assert_int_equal(c.edges, 2);			/* A -> B, and B -> A that closed it */
	assert_int_equal(c.acquisitions, 4);
	/* The summary: both chains, each acquisition with its function. */
	assert_non_null(strstr(c.first, "possible circular locking dependency"));
	assert_non_null(strstr(c.first, "takes A at abba_second:"));
	assert_non_null(strstr(c.first, "holding B (taken at abba_second:"));
	assert_non_null(strstr(c.first, "existing chain: A (taken at abba_first:"));
	assert_non_null(strstr(c.first, "-> B at abba_first:"));
	/* The report: both chains, the scope, and how to reproduce it. */
	assert_non_null(strstr(rep, "chain 1, the new dependency"));
	assert_non_null(strstr(rep, "chain 2, the existing dependency"));
	/* Chain 2 itself, not just its heading: the older order, from the other thread. */
	assert_non_null(strstr(rep, "-> B taken at abba_first:"));
	assert_non_null(strstr(rep, "seen in abba, two threads"));
	assert_non_null(strstr(rep, "reproduce: test-lockdep-threads (this test)"));
	free(rep);
}

/* ---- ABBA that really deadlocks ---- */

static volatile int holding;

static void *deadlock_ab(void *arg)
{
	(void)arg;
	dcsim_spin_lock(&lock_a);
	__atomic_fetch_add(&holding, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&holding, __ATOMIC_SEQ_CST) < 2)
		sched_yield();
	dcsim_spin_lock(&lock_b);		/* never returns */
	return NULL;
}

static void *deadlock_ba(void *arg)
{
	(void)arg;
	dcsim_spin_lock(&lock_b);
	__atomic_fetch_add(&holding, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&holding, __ATOMIC_SEQ_CST) < 2)
		sched_yield();
	dcsim_spin_lock(&lock_a);		/* never returns */
	return NULL;
}

/* In a child: both threads deadlock; the report must be there within 60 s. */
static void __attribute__((noreturn)) deadlock_child(void)
{
	pthread_t t1, t2;
	struct dcsim_lockdep_counts c;

	scope("a real deadlock");
	if (pthread_create(&t1, NULL, deadlock_ab, NULL) ||
	    pthread_create(&t2, NULL, deadlock_ba, NULL))
		_exit(3);
	for (int i = 0; i < 6000 && !dcsim_lockdep_reports(); i++)
		usleep(10000);
	dcsim_lockdep_read(&c);
	printf("# deadlock: %s\n", c.first);
	fflush(stdout);
	/* Both threads spin for good: leave without waiting for them. */
	_exit(c.cycles == 1 && strstr(c.first, "deadlock_ab") && strstr(c.first, "deadlock_ba") ?
	      0 : 1);
}

static void test_real_deadlock(void **unused)
{
	pid_t pid;
	int status;
	(void)unused;

	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		deadlock_child();
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* ---- one order, many threads at once: no report ---- */

#define SAME_THREADS	4
#define SAME_ROUNDS	5000

static void *same_order(void *arg)
{
	(void)arg;
	for (int i = 0; i < SAME_ROUNDS; i++) {
		dcsim_spin_lock(&lock_a);
		dcsim_spin_lock(&lock_b);
		dcsim_spin_unlock(&lock_b);
		dcsim_spin_unlock(&lock_a);
	}
	return NULL;
}

static void test_same_order(void **unused)
{
	FILE *f = scope("one order");
	pthread_t t[SAME_THREADS];
	struct dcsim_lockdep_counts c;
	(void)unused;

	for (int i = 0; i < SAME_THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, same_order, NULL), 0);
	for (int i = 0; i < SAME_THREADS; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	dcsim_lockdep_end(&c);
	free(slurp(f));
	assert_int_equal(c.cycles + c.recursions, 0);
	assert_int_equal(c.edges, 1);
	/* Counted exactly, from threads that exited. */
	assert_int_equal(c.acquisitions, 2ul * SAME_THREADS * SAME_ROUNDS);
}

/* ---- three classes, trylock, nesting ---- */

static void *chain_ab(void *arg)
{
	(void)arg;
	dcsim_spin_lock(&lock_a);
	dcsim_spin_lock(&lock_b);
	dcsim_spin_unlock(&lock_b);
	dcsim_spin_unlock(&lock_a);
	return NULL;
}

static void *chain_bc(void *arg)
{
	(void)arg;
	dcsim_spin_lock(&lock_b);
	dcsim_spin_lock(&lock_c);
	dcsim_spin_unlock(&lock_c);
	dcsim_spin_unlock(&lock_b);
	return NULL;
}

static void *chain_ca(void *arg)
{
	(void)arg;
	dcsim_spin_lock(&lock_c);
	dcsim_spin_lock(&lock_a);
	dcsim_spin_unlock(&lock_a);
	dcsim_spin_unlock(&lock_c);
	return NULL;
}

static void test_three(void **unused)
{
	FILE *f = scope("three classes");
	struct dcsim_lockdep_counts c;
	(void)unused;

	run_on_thread(chain_ab, NULL);
	run_on_thread(chain_bc, NULL);
	assert_int_equal(dcsim_lockdep_reports(), 0);
	run_on_thread(chain_ca, NULL);
	dcsim_lockdep_end(&c);
	free(slurp(f));
	printf("# three: %s\n", c.first);
	assert_int_equal(c.cycles, 1);
	/* The existing chain has both edges: A -> B -> C. */
	assert_non_null(strstr(c.first, "A (taken at chain_ab:"));
	assert_non_null(strstr(c.first, "B (taken at chain_bc:"));
}

static void *try_ba(void *arg)
{
	(void)arg;
	dcsim_spin_lock(&lock_b);
	assert_true(dcsim_spin_trylock(&lock_a));
	dcsim_spin_unlock(&lock_a);
	dcsim_spin_unlock(&lock_b);
	return NULL;
}

static void test_trylock(void **unused)
{
	FILE *f = scope("trylock");
	struct dcsim_lockdep_counts c;
	(void)unused;

	run_on_thread(chain_ab, NULL);
	run_on_thread(try_ba, NULL);
	dcsim_lockdep_end(&c);
	free(slurp(f));
	assert_int_equal(c.cycles + c.recursions, 0);
	assert_int_equal(c.edges, 1);
	assert_int_equal(c.trylocks, 1);
}

static void *nest_plain(void *arg)
{
	(void)arg;
	dcsim_spin_lock(&lock_t[0]);
	dcsim_spin_lock(&lock_t[1]);
	dcsim_spin_unlock(&lock_t[1]);
	dcsim_spin_unlock(&lock_t[0]);
	return NULL;
}

static void *nest_sub(void *arg)
{
	(void)arg;
	dcsim_spin_lock(&lock_t[0]);
	dcsim_spin_lock_nested(&lock_t[1], 1);
	dcsim_spin_unlock(&lock_t[1]);
	dcsim_spin_unlock(&lock_t[0]);
	return NULL;
}

static void test_nesting(void **unused)
{
	FILE *f = scope("nesting");
	struct dcsim_lockdep_counts c;
	(void)unused;

	run_on_thread(nest_sub, NULL);
	dcsim_lockdep_read(&c);
	assert_int_equal(c.cycles + c.recursions, 0);
	assert_int_equal(c.edges, 1);			/* T -> T/1 */
	run_on_thread(nest_plain, NULL);
	dcsim_lockdep_end(&c);
	free(slurp(f));
	printf("# nesting: %s\n", c.first);
	assert_int_equal(c.recursions, 1);
	assert_non_null(strstr(c.first, "possible recursive locking"));
	assert_non_null(strstr(c.first, "nest_plain"));
}

/* ---- scopes; unregistered locks ---- */

static void test_scopes(void **unused)
{
	FILE *f = scope("first half");
	struct dcsim_lockdep_counts c;
	(void)unused;

	run_on_thread(abba_first, NULL);
	dcsim_lockdep_end(&c);
	free(slurp(f));
	assert_int_equal(c.edges, 1);
	f = scope("second half");
	run_on_thread(abba_second, NULL);
	dcsim_lockdep_end(&c);
	free(slurp(f));
	assert_int_equal(c.cycles, 0);
	assert_int_equal(c.edges, 1);
}

static void *unregistered(void *arg)
{
	(void)arg;
	dcsim_spin_lock(&lock_free);
	dcsim_spin_lock(&lock_a);
	dcsim_spin_unlock(&lock_a);
	dcsim_spin_unlock(&lock_free);
	return NULL;
}

static void test_unregistered(void **unused)
{
	FILE *f;
	struct dcsim_lockdep_counts c;
	(void)unused;

	f = tmpfile();
	assert_non_null(f);
	/* A scope in which only A has a class: lock_free is not validated. */
	dcsim_lockdep_begin("unregistered", NULL, f);
	dcsim_lock_set_class(&lock_a, &class_a);
	run_on_thread(unregistered, NULL);
	dcsim_lockdep_end(&c);
	free(slurp(f));
	assert_int_equal(c.acquisitions, 1);
	assert_int_equal(c.edges, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_abba),
		cmocka_unit_test(test_real_deadlock),
		cmocka_unit_test(test_same_order),
		cmocka_unit_test(test_three),
		cmocka_unit_test(test_trylock),
		cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_scopes),
		cmocka_unit_test(test_unregistered),
	};

	if (!dcsim_lockdep_enabled()) {
		fprintf(stderr, "DCSIM_LOCKDEP_THREADS is off: unset it to run this test\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
