// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Misuse gets a kernel-style warning and no corruption: puts on zero-count
 * and dead dentries (with and without ->d_delete()), operations on a destroyed cache, dput(NULL).  Run on
 * every registered strategy.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <dcsim/cache.h>
#include <dcsim/checker.h>
#include <dcsim/htm.h>
#include <dcsim/lockref.h>
#include <dcsim/rcu.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

#include "harness.h"

/*
 * Two bad puts, on a cached unused dentry (count 0) and on a dead one, with
 * or without ->d_delete(), on every strategy: each must warn once and change
 * nothing.  The expectations are the misuse suite (dcsim_checker_misuse(),
 * src/checker/misuse.c), which dcsim-check runs on user strategies too;
 * normal builds compile it into this program.
 */
static void test_bad_puts(void **state)
{
	struct dcsim_checker_opts o;

	(void)state;
	dcsim_checker_opts_init(&o);
	o.report = stderr;
	for (size_t i = 0; i < dcsim_strategy_count(); i++)
		assert_int_equal(dcsim_checker_misuse(dcsim_strategy_get(i), &o, NULL), 0);
	dcsim_htm_set_policy(dcsim_test_env_policy());
}

static void test_destroyed_cache(void **state)
{
	struct dcsim_cache *c = dcsim_cache_create_named(NULL);
	struct dcsim_dentry *root = dcsim_d_alloc_root(c, "/");
	struct dcsim_dentry *leak = dcsim_d_alloc(root, "leak");
	unsigned long w;

	(void)state;
	dcsim_warn_set_quiet(true);
	dcsim_dput(root);
	w = dcsim_warn_count();
	dcsim_cache_destroy(c);			/* "leak" still referenced */
	assert_true(dcsim_warn_count() > w);
	assert_false(dcsim_cache_alive(c));
	w = dcsim_warn_count();
	dcsim_dput(leak);
	assert_int_equal(dcsim_warn_count(), w + 1);
	assert_int_equal(dcsim_d_count(leak), 1);	/* refused, untouched */
	assert_null(dcsim_d_alloc_root(c, "x"));
	assert_int_equal(dcsim_prune(c, 10), 0);
	dcsim_cache_destroy(c);
	{
		struct dcsim_cache_snapshot snap;

		assert_int_equal(dcsim_cache_snapshot(c, &snap), -EINVAL);
	}
	assert_true(dcsim_cache_verify(c, NULL, 0, 0, NULL, 0) > 0);
	assert_true(dcsim_warn_count() >= w + 5);
	dcsim_warn_set_quiet(false);
}

/*
 * dcsim_dput_locked_final() without d_lock: a warning, and nothing changed
 * (it used to unlock the unheld lock, leaving a ticket that is never
 * served, and every later d_lock hung).
 */
static void test_locked_final_unlocked(void **state)
{
	struct dcsim_cache *c = dcsim_cache_create_named("locked");
	struct dcsim_dentry *root = dcsim_d_alloc_root(c, "/");
	struct dcsim_dentry *a = dcsim_d_alloc(root, "a");
	struct dcsim_lockref *lr = dcsim_d_lockref(a);
	unsigned long w;

	(void)state;
	dcsim_d_add(a, true);
	dcsim_dget(a);
	assert_int_equal(dcsim_d_count(a), 2);
	dcsim_warn_set_quiet(true);
	w = dcsim_warn_count();
	dcsim_dput_locked_final(a, DCSIM_RETAIN_LRU_THEN_REFERENCED);
	assert_int_equal(dcsim_warn_count(), w + 1);
	assert_int_equal(dcsim_d_count(a), 2);
	assert_false(dcsim_spin_is_locked(&lr->lock));
	/* A quiet warning is still there for the reports to name. */
	{
		char last[200];

		assert_true(dcsim_warn_last(last, sizeof(last)));
		assert_non_null(strstr(last, "dcsim_dput_locked_final()"));
	}
	dcsim_warn_set_quiet(false);
	/* The lock still works: both puts complete, the dentry is retained. */
	dcsim_dput(a);
	dcsim_dput(a);
	assert_int_equal(dcsim_d_count(a), 0);
	assert_int_equal(dcsim_warn_count(), w + 1);
	/* With the lock held, as the contract says, it drops the reference. */
	dcsim_dget(a);
	dcsim_spin_lock(&lr->lock);
	dcsim_dput_locked_final(a, DCSIM_RETAIN_LRU_THEN_REFERENCED);
	assert_int_equal(dcsim_d_count(a), 0);
	assert_false(dcsim_spin_is_locked(&lr->lock));
	dcsim_dput(root);
	dcsim_cache_destroy(c);
	assert_int_equal(dcsim_warn_count(), w + 1);
}

static void test_env_strategy(void **state)
{
	const struct dcsim_dput_strategy *s;

	(void)state;
	setenv("DCSIM_DPUT", "no-such-strategy", 1);
	assert_int_equal(dcsim_strategy_from_env(&s), -EINVAL);
	assert_null(s);
	assert_null(dcsim_cache_create(NULL));
	setenv("DCSIM_DPUT", "retain", 1);
	assert_int_equal(dcsim_strategy_from_env(&s), 0);
	assert_ptr_equal(s, dcsim_strategy_lookup("retain"));
	{
		/* create_named(NULL) honours DCSIM_DPUT as create(NULL) does. */
		struct dcsim_cache *c = dcsim_cache_create_named(NULL);

		assert_non_null(c);
		assert_ptr_equal(dcsim_cache_strategy(c), s);
		dcsim_cache_destroy(c);
		setenv("DCSIM_DPUT", "no-such-strategy", 1);
		assert_null(dcsim_cache_create_named(NULL));
		assert_int_equal(errno, EINVAL);
	}
	unsetenv("DCSIM_DPUT");
	assert_int_equal(dcsim_strategy_from_env(&s), 0);
	assert_ptr_equal(s, dcsim_strategy_lookup(DCSIM_DEFAULT_STRATEGY));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_puts),
		cmocka_unit_test(test_destroyed_cache),
		cmocka_unit_test(test_locked_final_unlocked),
		cmocka_unit_test(test_env_strategy),
	};

	dcsim_test_print_htm("test-dcache-misuse");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
