// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A planted deadlock, built as a plugin for dcsim-check (instrumented
 * build): strategy "planted-abba" is lockref's dput, except that the first
 * put of each of the first two threads that are not the one that loaded
 * the plugin (the stress suite's tree builder) takes two locks of its own
 * in opposite orders, and each waits until the other holds its first
 * lock: an ABBA deadlock that always happens.  The stress suite must
 * report it with both chains (the lock order validator of real threads)
 * and end, not hang (tests/corpus/check-lockdep-stress.sh).
 *
 * Registered from dcsim_plugin_init(), the documented entry point.
 */

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <dcsim/compiler.h>
#include <dcsim/dentry.h>
#include <dcsim/lockdep.h>
#include <dcsim/lockref.h>
#include <dcsim/spinlock.h>
#include <dcsim/strategy.h>

static const struct dcsim_lock_class class_first = { "abba_first" };
static const struct dcsim_lock_class class_second = { "abba_second" };
static dcsim_spinlock_t lock_first, lock_second;
static pthread_t loader;
static int roles, holding;
static __thread int role;	/* 0: not decided yet; 1, 2: a party; 3: none */

/* Until the other party holds its first lock, or 10 s (then the planted bug misses). */
static void rendezvous(void)
{
	struct timespec t0, t;

	__atomic_fetch_add(&holding, 1, __ATOMIC_SEQ_CST);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		sched_yield();
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (__atomic_load_n(&holding, __ATOMIC_SEQ_CST) < 2 && t.tv_sec - t0.tv_sec < 10);
}

static void abba_first(void)
{
	dcsim_spin_lock(&lock_first);
	rendezvous();
	dcsim_spin_lock(&lock_second);
	dcsim_spin_unlock(&lock_second);
	dcsim_spin_unlock(&lock_first);
}

static void abba_second(void)
{
	dcsim_spin_lock(&lock_second);
	rendezvous();
	dcsim_spin_lock(&lock_first);
	dcsim_spin_unlock(&lock_first);
	dcsim_spin_unlock(&lock_second);
}

static enum dcsim_dput_path planted_dput(struct dcsim_dentry *dentry)
{
	if (!role) {
		role = pthread_equal(pthread_self(), loader) ? 3 :
			__atomic_add_fetch(&roles, 1, __ATOMIC_SEQ_CST);
		if (role == 1 || role == 2) {
			/* The suite's scope began after the plugin loaded: register now. */
			dcsim_lock_set_class(&lock_first, &class_first);
			dcsim_lock_set_class(&lock_second, &class_second);
			if (role == 1)
				abba_first();
			else
				abba_second();
		}
	}
	if (dcsim_lockref_put_or_lock(dcsim_d_lockref(dentry)))
		return DCSIM_DPUT_PATH_CAS;
	dcsim_dput_locked_final(dentry, DCSIM_RETAIN_LRU_THEN_REFERENCED);
	return DCSIM_DPUT_PATH_LOCKED;
}

static const struct dcsim_dput_strategy planted = {
	.name = "planted-abba",
	.description = "planted bug: two threads take two locks in opposite orders, a sure deadlock",
	.dput = planted_dput,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
};

int dcsim_plugin_init(void);

DCSIM_API int dcsim_plugin_init(void)
{
	loader = pthread_self();
	return dcsim_strategy_register(&planted);
}
