// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of the dentry cache operations, run on every registered dput
 * strategy (and, for HTM strategies, with HTM off and with the environment's
 * policy).  Each test checks the invariants with dcsim_cache_verify() and an
 * exact list of the references it holds.  This file: the shared checks,
 * snapshots, the strategy registry and main(); a dentry's end is
 * dcache-kill.c's, the operations over the tree dcache-tree.c's.
 */

#include "dcache-tests.h"

void check_cache(struct dcsim_cache *c, const struct dcsim_held_ref *held, size_t n)
{
	char report[4096];
	unsigned int v = dcsim_cache_verify(c, held, n, DCSIM_VERIFY_REFS_EXACT, report, sizeof(report));

	if (v)
		fprintf(stderr, "%s: %u violations:\n%s", dcsim_cache_strategy(c)->name, v, report);
	assert_int_equal(v, 0);
}

int64_t stat_of(struct dcsim_cache *c, enum dcsim_cache_stat s)
{
	struct dcsim_cache_stats st;

	dcsim_cache_stats_read(c, &st);
	return st.v[s];
}

/* Run @fn for every registered strategy under each policy it needs. */
void for_each_strategy(case_fn fn)
{
	enum dcsim_htm_policy env = dcsim_test_env_policy();

	for (size_t i = 0; i < dcsim_strategy_count(); i++) {
		const struct dcsim_dput_strategy *s = dcsim_strategy_get(i);
		enum dcsim_htm_policy pol[2];
		size_t np = dcsim_test_policies(s, pol);

		for (size_t p = 0; p < np; p++) {
			dcsim_htm_set_policy(pol[p]);
			fn(s);
		}
	}
	dcsim_htm_set_policy(env);
}

struct dcsim_cache *mk(const struct dcsim_dput_strategy *s)
{
	struct dcsim_cache_config cfg = { .strategy = s, .hash_bits = 4 };
	struct dcsim_cache *c = dcsim_cache_create(&cfg);

	assert_non_null(c);
	return c;
}

void destroy(struct dcsim_cache *c)
{
	unsigned long w = dcsim_warn_count();

	dcsim_cache_destroy(c);
	assert_int_equal(dcsim_warn_count(), w);
}

/* ---- snapshot ------------------------------------------------------------ */

struct deltas {
	unsigned int dentries, only_a, only_b, counters;
	const char *counter;
	uint64_t id;
};

static void count_delta(const struct dcsim_snapshot_delta *d, void *arg)
{
	struct deltas *n = arg;

	if (d->counter) {
		n->counters++;
		n->counter = d->counter;
		assert_true(d->va != d->vb);
		assert_null(d->a);
		assert_null(d->b);
		return;
	}
	n->dentries++;
	n->only_a += !d->b;
	n->only_b += !d->a;
	n->id = d->a ? d->a->id : d->b->id;
}

void test_snapshot(void **state)
{
	struct dcsim_cache *c = dcsim_cache_create_named("fast");
	struct dcsim_cache_snapshot s1, s2;
	struct dcsim_dentry *root, *a;
	char diff[1024];

	(void)state;
	root = dcsim_d_alloc_root(c, "/");
	a = dcsim_d_alloc(root, "a");
	dcsim_d_add(a, true);
	assert_int_equal(dcsim_cache_snapshot(c, &s1), 0);
	assert_int_equal(s1.nr, 2);
	assert_true(s1.dentries[0].id < s1.dentries[1].id);
	assert_int_equal(s1.dentries[1].count, 1);
	assert_int_equal(s1.dentries[1].lru_pos, -1);
	assert_true(s1.dentries[1].hashed);
	assert_string_equal(s1.dentries[1].name, "a");
	assert_int_equal(s1.counters.allocs, 2);
	dcsim_dput(a);
	assert_int_equal(dcsim_cache_snapshot(c, &s2), 0);
	assert_int_equal(s2.dentries[1].lru_pos, 0);
	assert_int_equal(dcsim_snapshot_diff(&s1, &s1, diff, sizeof(diff)), 0);
	assert_int_equal(dcsim_snapshot_diff(&s1, &s2, diff, sizeof(diff)), 2); /* a + nr_lru */
	assert_non_null(strstr(diff, "differs"));
	{
		struct deltas n = { 0 };
		struct dcsim_dentry_state saved = s2.dentries[1];

		/* the walker and the formatter see the same differences */
		assert_int_equal(dcsim_snapshot_diff_each(&s1, &s2, count_delta, &n), 2);
		assert_int_equal(n.dentries, 1);
		assert_int_equal(n.counters, 1);
		assert_string_equal(n.counter, "nr_lru");
		assert_int_equal(n.id, dcsim_d_id(a));
		assert_int_equal(dcsim_snapshot_diff_each(&s1, &s2, NULL, NULL), 2);
		/* a flag bit alone is a difference; a missing dentry is one too */
		s2.dentries[1] = s1.dentries[1];
		s2.dentries[1].flags ^= DCSIM_DCACHE_OP_DELETE;
		assert_int_equal(dcsim_snapshot_diff(&s1, &s2, diff, sizeof(diff)), 2);
		s2.nr = 1;
		memset(&n, 0, sizeof(n));
		assert_int_equal(dcsim_snapshot_diff_each(&s1, &s2, count_delta, &n), 2);
		assert_int_equal(n.only_a, 1);
		assert_int_equal(n.only_b, 0);
		assert_int_equal(dcsim_snapshot_diff(&s2, &s1, diff, sizeof(diff)), 2);
		assert_non_null(strstr(diff, "only in second"));
		s2.nr = 2;
		s2.dentries[1] = saved;
	}
	dcsim_cache_snapshot_release(&s1);
	dcsim_cache_snapshot_release(&s2);
	dcsim_dput(root);
	destroy(c);
}

/* ---- registry ------------------------------------------------------------- */

static enum dcsim_dput_path dput_user(struct dcsim_dentry *d)
{
	/* A user's strategy: always the locked slow path. */
	dcsim_spin_lock(&dcsim_d_lockref(d)->lock);
	dcsim_dput_locked_final(d, DCSIM_RETAIN_LRU_THEN_REFERENCED);
	return DCSIM_DPUT_PATH_LOCKED;
}

static const struct dcsim_dput_strategy user_strategy = {
	.name = "test-user",
	.description = "registered by test-dcache",
	.dput = dput_user,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
};

void test_registry(void **state)
{
	static const char *const builtin[] = { "locked", "lockref", "rtm", "fast", "retain", "fast-htm" };
	const struct dcsim_dput_strategy *s;

	(void)state;
	for (size_t i = 0; i < DCSIM_ARRAY_SIZE(builtin); i++) {
		s = dcsim_strategy_lookup(builtin[i]);
		assert_non_null(s);
		assert_ptr_equal(dcsim_strategy_get(i), s);
	}
	assert_null(dcsim_strategy_lookup("nope"));
	assert_int_equal(dcsim_strategy_register(&user_strategy), 0);
	assert_int_equal(dcsim_strategy_register(&user_strategy), -EEXIST);
	assert_ptr_equal(dcsim_strategy_lookup("test-user"), &user_strategy);
	assert_null(dcsim_cache_create_named("nope"));
	/* The other tests of this binary now run on it too. */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_lifecycle),
		cmocka_unit_test(test_kill_chain),
		cmocka_unit_test(test_kill_reasons),
		cmocka_unit_test(test_prune_release),
		cmocka_unit_test(test_prune),
		cmocka_unit_test(test_invalidate),
		cmocka_unit_test(test_refs),
		cmocka_unit_test(test_link),
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_create_in_place),
		cmocka_unit_test(test_snapshot),
	};

	dcsim_test_print_htm("test-dcache");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
