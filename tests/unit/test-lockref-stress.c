// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Multi-threaded lockref stress: N threads x M get/put pairs leave the
 * count exact, whichever path (cmpxchg or lock) each operation took; and
 * while a thread holds the lock, the others' fallbacks are counted.
 * DCSIM_STRESS_THREADS / DCSIM_STRESS_OPS scale it for soak runs.
 *
 * Workers: 4, but no more than the CPUs online (at least 2).  The lock is
 * a ticket lock: with more spinning threads than CPUs, a waiter whose
 * turn has come but who is off its CPU stalls every other waiter behind
 * it, and each stall costs a scheduler quantum.  Four workers on a
 * loaded 2-CPU host took 9 min 48 s (two: 0.04 s), which says nothing
 * about lockref and everything about the host; oversubscription is the
 * job of the time-bounded dcsim-stress runs (scripts/sanitizers.sh).
 */

#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <dcsim/lockref.h>
#include <dcsim/stats.h>

static struct dcsim_lockref ref;
static long nr_threads = 4, nr_ops = 50000;
static int stop_holder;
static bool lockref_only;	/* workers never take the spinlock themselves */
static int gate;		/* lockref_only: workers start once the lock is held */
static unsigned long errors;	/* cmocka asserts are not thread-safe */

#define check(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond);	\
		__atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);		\
	}								\
} while (0)

static long env_long(const char *name, long def)
{
	const char *s = getenv(name);

	return s ? strtol(s, NULL, 10) : def;
}

/* Mixes every way of taking and dropping a reference. */
static void *worker(void *arg)
{
	long id = (long)arg;

	while (lockref_only && !__atomic_load_n(&gate, __ATOMIC_ACQUIRE))
		sched_yield();
	for (long i = 0; i < nr_ops; i++) {
		switch ((i + id) % (lockref_only ? 3 : 4)) {
		case 0:
			dcsim_lockref_get(&ref);
			break;
		case 1:
			check(dcsim_lockref_get_not_zero(&ref) == 1);
			break;
		case 2:
			check(dcsim_lockref_get_not_dead(&ref) == 1);
			break;
		default:
			dcsim_spin_lock(&ref.lock);
			DCSIM_WRITE_ONCE(ref.count, DCSIM_READ_ONCE(ref.count) + 1);
			dcsim_spin_unlock(&ref.lock);
			break;
		}
		switch ((i + id) % 3) {
		case 0:
			check(dcsim_lockref_put_not_zero(&ref) == 1);
			break;
		case 1:
			/* Our reference plus the base one: never reaches 0. */
			check(dcsim_lockref_put_or_lock(&ref) == 1);
			break;
		default: {
			int r = dcsim_lockref_put_return(&ref);

			if (r < 0)	/* lock held or contended: take the lock */
				check(dcsim_lockref_put_not_zero(&ref) == 1);
			else
				check(r >= 1);
			break;
		}
		}
	}
	return NULL;
}

static void test_count_exact(void **state)
{
	pthread_t t[64];
	struct dcsim_stats st;

	(void)state;
	dcsim_lockref_init(&ref, 1);
	dcsim_stats_reset();
	for (long i = 0; i < nr_threads; i++)
		assert_int_equal(pthread_create(&t[i], NULL, worker, (void *)i), 0);
	for (long i = 0; i < nr_threads; i++)
		pthread_join(t[i], NULL);
	dcsim_stats_read(&st);
	print_message("%ld threads x %ld pairs: count %d, cmpxchg retries %llu, fallbacks %llu\n",
		      nr_threads, nr_ops, ref.count,
		      (unsigned long long)st.v[DCSIM_STAT_LOCKREF_RETRIES],
		      (unsigned long long)st.v[DCSIM_STAT_LOCKREF_FALLBACKS]);
	assert_int_equal(errors, 0);
	assert_int_equal(ref.count, 1);
	assert_false(dcsim_spin_is_locked(&ref.lock));
}

static uint64_t total_fallbacks(void)
{
	struct dcsim_stats st;

	dcsim_stats_read(&st);
	return st.v[DCSIM_STAT_LOCKREF_FALLBACKS];
}

/*
 * The holder keeps the lock until some worker has counted a fallback, so
 * fallbacks are observed, not hoped for.  The workers use lockref
 * operations only, so while any of them still runs, its next operation
 * meets the held lock and must fall back; a round can only wait long when
 * every worker has finished, and then the stop flag ends it.  The holder
 * yields while it waits: on two cores a spinning holder would starve the
 * very workers it waits for.
 */
static void *holder(void *arg)
{
	uint64_t *seen = arg;
	struct timespec pause = { 0, 1000 * 1000 };

	/* A few rounds, with pauses: the workers must mostly run unhindered. */
	for (int round = 0; round < 20 && !__atomic_load_n(&stop_holder, __ATOMIC_ACQUIRE);
	     round++) {
		uint64_t before = total_fallbacks();

		dcsim_spin_lock(&ref.lock);
		/* The first round starts the workers: they meet the held lock. */
		__atomic_store_n(&gate, 1, __ATOMIC_RELEASE);
		while (total_fallbacks() == before &&
		       !__atomic_load_n(&stop_holder, __ATOMIC_ACQUIRE))
			sched_yield();
		if (total_fallbacks() > before)
			(*seen)++;
		dcsim_spin_unlock(&ref.lock);
		nanosleep(&pause, NULL);
	}
	return NULL;
}

static void test_fallbacks_counted(void **state)
{
	pthread_t t[64], h;
	uint64_t seen = 0;

	(void)state;
	dcsim_lockref_init(&ref, 1);
	dcsim_stats_reset();
	stop_holder = 0;
	gate = 0;
	lockref_only = true;
	assert_int_equal(pthread_create(&h, NULL, holder, &seen), 0);
	for (long i = 0; i < nr_threads; i++)
		assert_int_equal(pthread_create(&t[i], NULL, worker, (void *)i), 0);
	for (long i = 0; i < nr_threads; i++)
		pthread_join(t[i], NULL);
	__atomic_store_n(&stop_holder, 1, __ATOMIC_RELEASE);
	pthread_join(h, NULL);
	lockref_only = false;
	print_message("lock-holder rounds that saw a fallback: %llu, total fallbacks %llu\n",
		      (unsigned long long)seen, (unsigned long long)total_fallbacks());
	assert_int_equal(errors, 0);
	assert_int_equal(ref.count, 1);
	assert_true(seen >= 1);
	assert_true(total_fallbacks() >= seen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count_exact),
		cmocka_unit_test(test_fallbacks_counted),
	};

	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (cpus < nr_threads)
		nr_threads = cpus < 2 ? 2 : cpus;
	nr_threads = env_long("DCSIM_STRESS_THREADS", nr_threads);
	nr_ops = env_long("DCSIM_STRESS_OPS", nr_ops);
	if (nr_threads < 1 || nr_threads > 64 || nr_ops < 1) {
		fprintf(stderr, "DCSIM_STRESS_THREADS must be 1..64 and DCSIM_STRESS_OPS >= 1\n");
		return 2;
	}
	printf("lockref-stress: %ld workers (%ld CPUs online), %ld operations each\n",
	       nr_threads, cpus, nr_ops);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
