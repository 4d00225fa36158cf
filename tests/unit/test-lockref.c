// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests for every lockref operation in every state: unlocked and
 * locked (by another thread), count 0, 1, n and dead.
 */

#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <cmocka.h>

#include <dcsim/lockref.h>
#include <dcsim/stats.h>
#include <dcsim/warn.h>

enum op { GET, GET_NOT_ZERO, PUT_NOT_ZERO, PUT_RETURN, PUT_OR_LOCK, GET_NOT_DEAD, NR_OPS };

static const char *const op_names[NR_OPS] = {
	"get", "get_not_zero", "put_not_zero", "put_return", "put_or_lock", "get_not_dead",
};

struct expect {
	int ret;
	int32_t count;
	bool locked_after;	/* put_or_lock returns 0 with the lock held */
};

/* The kernel's contract for each operation, written out independently. */
static struct expect expected(enum op op, int32_t c)
{
	switch (op) {
	case GET:
		return (struct expect){ 0, c + 1, false };
	case GET_NOT_ZERO:
		return c > 0 ? (struct expect){ 1, c + 1, false } : (struct expect){ 0, c, false };
	case PUT_NOT_ZERO:
		return c > 1 ? (struct expect){ 1, c - 1, false } : (struct expect){ 0, c, false };
	case PUT_RETURN:
		return c > 0 ? (struct expect){ c - 1, c - 1, false } : (struct expect){ -1, c, false };
	case PUT_OR_LOCK:
		return c > 1 ? (struct expect){ 1, c - 1, false } : (struct expect){ 0, c, true };
	case GET_NOT_DEAD:
		return c >= 0 ? (struct expect){ 1, c + 1, false } : (struct expect){ 0, c, false };
	default:
		fail();
	}
	return (struct expect){ 0, 0, false };
}

static int run_op(enum op op, struct dcsim_lockref *ref)
{
	switch (op) {
	case GET:		dcsim_lockref_get(ref); return 0;
	case GET_NOT_ZERO:	return dcsim_lockref_get_not_zero(ref);
	case PUT_NOT_ZERO:	return dcsim_lockref_put_not_zero(ref);
	case PUT_RETURN:	return dcsim_lockref_put_return(ref);
	case PUT_OR_LOCK:	return dcsim_lockref_put_or_lock(ref);
	case GET_NOT_DEAD:	return dcsim_lockref_get_not_dead(ref);
	default:		fail();
	}
	return 0;
}

static const int32_t counts[] = { 0, 1, 2, 7, DCSIM_LOCKREF_DEAD };

static uint64_t my_stat(enum dcsim_stat s)
{
	struct dcsim_stats st;

	dcsim_stats_read_thread(&st);
	return st.v[s];
}

static void test_unlocked_states(void **state)
{
	(void)state;
	for (int op = 0; op < NR_OPS; op++) {
		for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
			struct dcsim_lockref ref;
			struct expect e = expected(op, counts[i]);
			uint64_t fb0 = my_stat(DCSIM_STAT_LOCKREF_FALLBACKS);
			int ret;

			dcsim_lockref_init(&ref, counts[i]);
			ret = run_op(op, &ref);
			print_message("%s count=%d -> ret=%d count=%d\n", op_names[op],
				      counts[i], ret, ref.count);
			assert_int_equal(ret, e.ret);
			assert_int_equal(ref.count, e.count);
			assert_int_equal(dcsim_spin_is_locked(&ref.lock), e.locked_after);
			if (e.locked_after)
				dcsim_spin_unlock(&ref.lock);
			/* Uncontended: only put_or_lock's final put takes the lock. */
			assert_int_equal(my_stat(DCSIM_STAT_LOCKREF_FALLBACKS) - fb0,
					 e.locked_after ? 1 : 0);
		}
	}
}

static uint64_t all_fallbacks(void)
{
	struct dcsim_stats st;

	dcsim_stats_read(&st);
	return st.v[DCSIM_STAT_LOCKREF_FALLBACKS];
}

/*
 * A second thread holds the lock until the operation under test has fallen
 * back (its fallback is counted before it waits for the lock), so the
 * outcome does not depend on timing.  10 s without a fallback: give up and
 * let the assertions fail.
 */
struct holder {
	struct dcsim_lockref *ref;
	pthread_t tid;
	volatile int locked;
};

static void *hold_lock(void *arg)
{
	struct holder *h = arg;
	uint64_t before = all_fallbacks();
	struct timespec t0, now;

	dcsim_spin_lock(&h->ref->lock);
	__atomic_store_n(&h->locked, 1, __ATOMIC_RELEASE);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		sched_yield();
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (all_fallbacks() == before && now.tv_sec - t0.tv_sec < 10);
	dcsim_spin_unlock(&h->ref->lock);
	return NULL;
}

static void start_holder(struct holder *h, struct dcsim_lockref *ref)
{
	h->ref = ref;
	h->locked = 0;
	assert_int_equal(pthread_create(&h->tid, NULL, hold_lock, h), 0);
	while (!__atomic_load_n(&h->locked, __ATOMIC_ACQUIRE))
		;
}

/*
 * With the lock held elsewhere the cmpxchg path must not succeed: each
 * operation falls back (waits for the lock, or fails for put_return) and
 * still gives the same result as unlocked.
 */
static void test_locked_states(void **state)
{
	(void)state;
	for (int op = 0; op < NR_OPS; op++) {
		for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
			struct dcsim_lockref ref;
			struct holder h;
			struct expect e = expected(op, counts[i]);
			uint64_t fb0 = my_stat(DCSIM_STAT_LOCKREF_FALLBACKS);
			int ret;

			dcsim_lockref_init(&ref, counts[i]);
			start_holder(&h, &ref);
			ret = run_op(op, &ref);
			if (op == PUT_RETURN) {
				/* Never waits: reports failure, count untouched. */
				e = (struct expect){ -1, counts[i], false };
			}
			pthread_join(h.tid, NULL);
			assert_int_equal(ret, e.ret);
			assert_int_equal(ref.count, e.count);
			assert_int_equal(dcsim_spin_is_locked(&ref.lock), e.locked_after);
			if (e.locked_after)
				dcsim_spin_unlock(&ref.lock);
			/* Lock seen held: the loop never runs, one fallback. */
			assert_int_equal(my_stat(DCSIM_STAT_LOCKREF_FALLBACKS) - fb0, 1);
		}
	}
}

static void test_mark_dead(void **state)
{
	struct dcsim_lockref ref;
	unsigned long w0;

	(void)state;
	dcsim_lockref_init(&ref, 3);
	dcsim_spin_lock(&ref.lock);
	dcsim_lockref_mark_dead(&ref);
	assert_true(__dcsim_lockref_is_dead(&ref));
	dcsim_spin_unlock(&ref.lock);
	assert_int_equal(ref.count, DCSIM_LOCKREF_DEAD);
	assert_int_equal(dcsim_lockref_get_not_dead(&ref), 0);
	assert_int_equal(dcsim_lockref_get_not_zero(&ref), 0);
	assert_int_equal(dcsim_lockref_put_return(&ref), -1);
	assert_int_equal(ref.count, DCSIM_LOCKREF_DEAD);

	/* Misuse: marking dead without the lock warns (and still marks). */
	dcsim_warn_set_quiet(true);
	w0 = dcsim_warn_count();
	dcsim_lockref_init(&ref, 1);
	dcsim_lockref_mark_dead(&ref);
	assert_int_equal(dcsim_warn_count() - w0, 1);
	dcsim_warn_set_quiet(false);
}

static void test_layout(void **state)
{
	struct dcsim_lockref ref;

	(void)state;
	assert_int_equal(sizeof(ref), 8);
	assert_int_equal(_Alignof(struct dcsim_lockref), 8);
	dcsim_lockref_init(&ref, 5);
	/* The lock comes first in the shared word, as in the kernel. */
	assert_ptr_equal((char *)&ref.lock, (char *)&ref.lock_count);
	assert_int_equal(ref.count, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_unlocked_states),
		cmocka_unit_test(test_locked_states),
		cmocka_unit_test(test_mark_dead),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
