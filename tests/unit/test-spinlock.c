// SPDX-License-Identifier: LGPL-2.1-or-later
/* Unit tests for the 32-bit ticket spinlock. */

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dcsim/spinlock.h>
#include <dcsim/warn.h>

static void test_init_unlocked(void **state)
{
	dcsim_spinlock_t lock;

	(void)state;
	dcsim_spin_lock_init(&lock);
	assert_int_equal(lock.val, 0);
	assert_false(dcsim_spin_is_locked(&lock));
	assert_true(dcsim_spin_value_unlocked(lock));
	assert_int_equal(sizeof(lock), 4);
}

static void test_lock_unlock(void **state)
{
	dcsim_spinlock_t lock = DCSIM_SPINLOCK_UNLOCKED;

	(void)state;
	dcsim_spin_lock(&lock);
	assert_true(dcsim_spin_is_locked(&lock));
	assert_false(dcsim_spin_value_unlocked(lock));
	/* head 0, tail 1 */
	assert_int_equal(lock.val & DCSIM_TICKET_MASK, 0);
	assert_int_equal(lock.val >> DCSIM_TICKET_SHIFT, 1);
	dcsim_spin_unlock(&lock);
	assert_false(dcsim_spin_is_locked(&lock));
	assert_true(dcsim_spin_value_unlocked(lock));
}

static void test_trylock(void **state)
{
	dcsim_spinlock_t lock = DCSIM_SPINLOCK_UNLOCKED;

	(void)state;
	assert_true(dcsim_spin_trylock(&lock));
	assert_true(dcsim_spin_is_locked(&lock));
	assert_false(dcsim_spin_trylock(&lock));
	dcsim_spin_unlock(&lock);
	assert_true(dcsim_spin_trylock(&lock));
	dcsim_spin_unlock(&lock);
	assert_false(dcsim_spin_is_locked(&lock));
}

/* Raw values: unlocked exactly when head == tail, whatever the ticket. */
static void test_value_unlocked_raw(void **state)
{
	static const struct { uint32_t val; bool unlocked; } cases[] = {
		{ 0x00000000u, true },
		{ 0x00010000u, false },		/* head 0, tail 1 */
		{ 0x00050005u, true },
		{ 0x00070005u, false },		/* two waiters */
		{ 0xffffffffu, true },
		{ 0x0000ffffu, false },		/* tail wrapped to 0 */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		dcsim_spinlock_t l = { .val = cases[i].val };

		assert_int_equal(dcsim_spin_value_unlocked(l), cases[i].unlocked);
	}
}

/* Tickets wrap at 16 bits: head and tail must stay independent. */
static void test_ticket_wrap(void **state)
{
	dcsim_spinlock_t lock = { .val = 0xfffefffeu };

	(void)state;
	for (int i = 0; i < 4; i++) {
		assert_false(dcsim_spin_is_locked(&lock));
		dcsim_spin_lock(&lock);
		assert_true(dcsim_spin_is_locked(&lock));
		assert_false(dcsim_spin_trylock(&lock));
		dcsim_spin_unlock(&lock);
	}
	assert_int_equal(lock.val, 0x00020002u);
}

#define NR_THREADS	4
#define NR_ITERS	100000

static dcsim_spinlock_t shared_lock;
static unsigned long shared_counter;	/* protected by shared_lock */

static void *hammer(void *arg)
{
	(void)arg;
	for (int i = 0; i < NR_ITERS; i++) {
		if (i & 1) {
			dcsim_spin_lock(&shared_lock);
		} else {
			while (!dcsim_spin_trylock(&shared_lock))
				dcsim_cpu_relax();
		}
		/* Non-atomic on purpose: a broken lock loses updates. */
		unsigned long v = __atomic_load_n(&shared_counter, __ATOMIC_RELAXED);
		__atomic_store_n(&shared_counter, v + 1, __ATOMIC_RELAXED);
		dcsim_spin_unlock(&shared_lock);
	}
	return NULL;
}

static void test_mutual_exclusion(void **state)
{
	pthread_t t[NR_THREADS];

	(void)state;
	dcsim_spin_lock_init(&shared_lock);
	shared_counter = 0;
	for (int i = 0; i < NR_THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, hammer, NULL), 0);
	for (int i = 0; i < NR_THREADS; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(shared_counter, (unsigned long)NR_THREADS * NR_ITERS);
	assert_false(dcsim_spin_is_locked(&shared_lock));
}

/* An unlock of a lock nobody holds warns and writes nothing. */
static void test_unlock_unheld(void **state)
{
	dcsim_spinlock_t l;
	unsigned long w;

	(void)state;
	dcsim_spin_lock_init(&l);
	dcsim_warn_set_quiet(true);
	w = dcsim_warn_count();
	dcsim_spin_unlock(&l);
	assert_int_equal(dcsim_warn_count(), w + 1);
	assert_int_equal(l.val, 0);
	/* Still a working lock: nobody waits for a ticket that never comes. */
	dcsim_spin_lock(&l);
	assert_false(dcsim_spin_trylock(&l));
	dcsim_spin_unlock(&l);
	assert_true(dcsim_spin_trylock(&l));
	dcsim_spin_unlock(&l);
	/* A second unlock after a balanced pair is refused too. */
	dcsim_spin_unlock(&l);
	assert_int_equal(dcsim_warn_count(), w + 2);
	assert_false(dcsim_spin_is_locked(&l));
	dcsim_spin_lock(&l);
	dcsim_spin_unlock(&l);
	assert_int_equal(dcsim_warn_count(), w + 2);
	dcsim_warn_set_quiet(false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_unlocked),
		cmocka_unit_test(test_lock_unlock),
		cmocka_unit_test(test_trylock),
		cmocka_unit_test(test_value_unlocked_raw),
		cmocka_unit_test(test_ticket_wrap),
		cmocka_unit_test(test_mutual_exclusion),
		cmocka_unit_test(test_unlock_unheld),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
