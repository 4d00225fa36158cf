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

#include <cmocka.h>

#include <dcsim/cache.h>
#include <dcsim/lockref.h>
#include <dcsim/rcu.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

#include "harness.h"

static void check_clean(struct dcsim_cache *c, struct dcsim_dentry *root)
{
	struct dcsim_held_ref h[] = { { root, 1 } };
	char rep[2048];
	unsigned int v = dcsim_cache_check(c, h, 1, DCSIM_CHECK_REFS_EXACT, rep, sizeof(rep));

	if (v)
		fprintf(stderr, "%s", rep);
	assert_int_equal(v, 0);
}

static int never_delete(const struct dcsim_dentry *d)
{
	(void)d;
	return 0;
}

/* ->d_delete() sends fast and fast-htm down lockref_put_or_lock(). */
static const struct dcsim_dentry_operations ops_never = { .d_delete = never_delete };

/*
 * Two bad puts, on a cached unused dentry (count 0) and on a dead one, with
 * or without ->d_delete(): each must warn and change nothing.
 */
static void bad_puts(struct dcsim_cache *c, struct dcsim_dentry *root,
		     const struct dcsim_dentry_operations *op, const char *a, const char *b)
{
	struct dcsim_dentry *d;
	unsigned long w;

	/* A put on a cached, unused dentry (count 0). */
	d = dcsim_d_alloc(root, a);
	if (op)
		dcsim_d_set_op(d, op);
	dcsim_d_add(d, true);
	dcsim_dput(d);
	dcsim_dput(dcsim_d_lookup(root, a));
	w = dcsim_warn_count();
	dcsim_dput(d);
	assert_int_equal(dcsim_warn_count(), w + 1);
	assert_int_equal(dcsim_d_count(d), 0);
	check_clean(c, root);
	/* A put on a dead dentry, inside a grace period so it is not freed. */
	dcsim_rcu_read_lock();
	d = dcsim_d_alloc(root, b);
	if (op)
		dcsim_d_set_op(d, op);
	dcsim_dput(d);			/* unhashed: killed */
	w = dcsim_warn_count();
	dcsim_dput(d);
	assert_int_equal(dcsim_warn_count(), w + 1);
	assert_true(dcsim_d_count(d) < 0);
	dcsim_rcu_read_unlock();
	check_clean(c, root);
}

static void test_bad_puts(void **state)
{
	enum dcsim_htm_policy env = dcsim_test_env_policy();

	(void)state;
	dcsim_warn_set_quiet(true);
	for (size_t i = 0; i < dcsim_strategy_count(); i++) {
		const struct dcsim_dput_strategy *s = dcsim_strategy_get(i);
		enum dcsim_htm_policy pol[2];
		size_t np = dcsim_test_policies(s, pol);

		for (size_t p = 0; p < np; p++) {
			struct dcsim_cache_config cfg = { .strategy = s };
			struct dcsim_cache *c;
			struct dcsim_dentry *root;
			unsigned long w;

			dcsim_htm_set_policy(pol[p]);
			c = dcsim_cache_create(&cfg);
			root = dcsim_d_alloc_root(c, "/");
			dcsim_dput(NULL);		/* no-op, no warning */
			bad_puts(c, root, NULL, "a", "b");
			bad_puts(c, root, &ops_never, "op-a", "op-b");
			{
				struct dcsim_cache_stats st;

				dcsim_cache_stats_read(c, &st);
				assert_int_equal(st.v[DCSIM_CS_DPUT_WARN], 4);
				assert_int_equal(st.v[DCSIM_CS_KILL], 2);
				assert_int_equal(st.v[DCSIM_CS_FREE], 2);
			}
			dcsim_dput(root);
			w = dcsim_warn_count();
			dcsim_cache_destroy(c);
			assert_int_equal(dcsim_warn_count(), w);
		}
	}
	dcsim_htm_set_policy(env);
	dcsim_warn_set_quiet(false);
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
	assert_true(dcsim_cache_check(c, NULL, 0, 0, NULL, 0) > 0);
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
