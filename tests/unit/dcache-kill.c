// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-dcache: a dentry's end.  Its lifecycle, the kill that walks up
 * the tree, the reasons to kill (d_delete, DISCONNECTED, DONTCACHE), and
 * the prune and release callbacks.
 */

#include "dcache-tests.h"

/* ---- basic lifecycle ---------------------------------------------------- */

static void case_lifecycle(const struct dcsim_dput_strategy *s)
{
	struct dcsim_cache *c = mk(s);
	struct dcsim_dentry *root = dcsim_d_alloc_root(c, "/");
	struct dcsim_dentry *a, *b;

	assert_non_null(root);
	assert_true(dcsim_d_is_root(root));
	a = dcsim_d_alloc(root, "a");
	assert_non_null(a);
	assert_int_equal(dcsim_d_count(root), 2);
	assert_ptr_equal(dcsim_d_parent(a), root);
	assert_true(dcsim_d_unhashed(a));
	assert_true(dcsim_d_is_negative(a));
	assert_null(dcsim_d_lookup(root, "a"));		/* not hashed yet */
	dcsim_d_add(a, true);
	assert_false(dcsim_d_unhashed(a));
	assert_false(dcsim_d_is_negative(a));
	{
		struct dcsim_held_ref h[] = { { root, 1 }, { a, 1 } };
		check_cache(c, h, 2);
	}
	/* Final put of a hashed dentry: retained, unused, on the LRU. */
	dcsim_dput(a);
	assert_int_equal(dcsim_d_count(a), 0);
	assert_true(dcsim_d_flags(a) & F_LRU);
	assert_int_equal(!!(dcsim_d_flags(a) & F_REF),
			 s->retain_style == DCSIM_RETAIN_ALWAYS_REFERENCED);
	/* Lookup resurrects it. */
	b = dcsim_d_lookup(root, "a");
	assert_ptr_equal(b, a);
	assert_int_equal(dcsim_d_count(a), 1);
	assert_null(dcsim_d_lookup(root, "b"));
	dcsim_dput(b);
	/* Second final put: referenced whatever the style. */
	assert_int_equal(dcsim_d_flags(a) & (F_REF | F_LRU), F_REF | F_LRU);
	{
		struct dcsim_held_ref h[] = { { root, 1 } };
		check_cache(c, h, 1);
	}
	assert_int_equal(stat_of(c, DCSIM_CS_NR_DENTRY), 2);
	assert_int_equal(stat_of(c, DCSIM_CS_NR_LRU), 1);
	assert_int_equal(stat_of(c, DCSIM_CS_NR_HASHED), 1);
	/* Unhashed child: final put kills and frees, parent ref dropped. */
	b = dcsim_d_alloc(root, "b");
	assert_int_equal(dcsim_d_count(root), 3);
	dcsim_dput(b);
	assert_int_equal(dcsim_d_count(root), 2);
	assert_int_equal(stat_of(c, DCSIM_CS_KILL), 1);
	assert_int_equal(stat_of(c, DCSIM_CS_FREE), 1);
	{
		struct dcsim_held_ref h[] = { { root, 1 } };
		check_cache(c, h, 1);
	}
	/* The dput counters add up. */
	assert_int_equal(stat_of(c, DCSIM_CS_DPUT),
			 stat_of(c, DCSIM_CS_DPUT_CAS) + stat_of(c, DCSIM_CS_DPUT_HTM) +
			 stat_of(c, DCSIM_CS_DPUT_LOCKED) + stat_of(c, DCSIM_CS_DPUT_WARN));
	assert_int_equal(stat_of(c, DCSIM_CS_DPUT), 3);
	dcsim_dput(root);		/* still pinned by a */
	assert_int_equal(stat_of(c, DCSIM_CS_KILL), 1);
	assert_int_equal(dcsim_d_count(root), 1);
	/* a dies, and the (unhashed) root with it once its count drops to 0 */
	assert_int_equal(dcsim_shrink_all(c), 2);
	assert_int_equal(stat_of(c, DCSIM_CS_NR_DENTRY), 0);
	check_cache(c, NULL, 0);
	destroy(c);
}

void test_lifecycle(void **state)
{
	(void)state;
	for_each_strategy(case_lifecycle);
}

/* ---- kill walks up the tree -------------------------------------------- */

static void case_kill_chain(const struct dcsim_dput_strategy *s)
{
	struct dcsim_cache *c = mk(s);
	struct dcsim_dentry *root = dcsim_d_alloc_root(c, "/");
	struct dcsim_dentry *a = dcsim_d_alloc(root, "a");
	struct dcsim_dentry *b = dcsim_d_alloc(a, "b");
	struct dcsim_dentry *cc = dcsim_d_alloc(b, "c");

	dcsim_d_add(a, true);
	dcsim_d_add(b, true);
	dcsim_d_add(cc, true);
	dcsim_dput(a);
	dcsim_dput(b);		/* a, b still pinned by children */
	assert_int_equal(dcsim_d_count(a), 1);
	assert_int_equal(dcsim_d_count(b), 1);
	dcsim_d_drop(a);
	dcsim_d_drop(b);
	/* c is hashed: retained; nothing dies yet */
	dcsim_dput(cc);
	assert_int_equal(stat_of(c, DCSIM_CS_KILL), 0);
	{
		struct dcsim_held_ref h[] = { { root, 1 } };
		check_cache(c, h, 1);
	}
	/* Killing c drops b to 0 (unhashed: killed), then a; root keeps its ref. */
	dcsim_d_drop(cc);
	cc = dcsim_d_lookup(b, "c");
	assert_null(cc);		/* unhashed: not found */
	/* 3.x style: c is REFERENCED, the first walk only rotates it */
	assert_int_equal(dcsim_prune(c, 10) + dcsim_prune(c, 10), 3);
	assert_int_equal(stat_of(c, DCSIM_CS_KILL), 3);
	assert_int_equal(dcsim_d_count(root), 1);
	{
		struct dcsim_held_ref h[] = { { root, 1 } };
		check_cache(c, h, 1);
	}
	/* Same through dput: chain x/y/z, drop all, put the leaf. */
	{
		struct dcsim_dentry *x = dcsim_d_alloc(root, "x");
		struct dcsim_dentry *y = dcsim_d_alloc(x, "y");
		struct dcsim_dentry *z = dcsim_d_alloc(y, "z");

		dcsim_dput(x);
		dcsim_dput(y);
		assert_int_equal(stat_of(c, DCSIM_CS_KILL), 3);
		dcsim_dput(z);
		assert_int_equal(stat_of(c, DCSIM_CS_KILL), 6);
		assert_int_equal(dcsim_d_count(root), 1);
	}
	{
		struct dcsim_held_ref h[] = { { root, 1 } };
		check_cache(c, h, 1);
	}
	dcsim_dput(root);
	destroy(c);
}

void test_kill_chain(void **state)
{
	(void)state;
	for_each_strategy(case_kill_chain);
}

/* ---- d_delete, OP_DELETE, DISCONNECTED/DONTCACHE ------------------------- */

static int always_delete(const struct dcsim_dentry *d)
{
	(void)d;
	return 1;
}

static int never_delete(const struct dcsim_dentry *d)
{
	(void)d;
	return 0;
}

static const struct dcsim_dentry_operations ops_always = { .d_delete = always_delete };
static const struct dcsim_dentry_operations ops_never = { .d_delete = never_delete };

static void case_kill_reasons(const struct dcsim_dput_strategy *s)
{
	struct dcsim_cache *c = mk(s);
	struct dcsim_dentry *root = dcsim_d_alloc_root(c, "/");
	struct dcsim_dentry *d;
	int64_t k = 0;

	/* d_delete with count 1: negative, still hashed, retained. */
	d = dcsim_d_alloc(root, "del1");
	dcsim_d_add(d, true);
	dcsim_d_delete(d);
	assert_true(dcsim_d_is_negative(d));
	assert_false(dcsim_d_unhashed(d));
	dcsim_dput(d);
	assert_int_equal(stat_of(c, DCSIM_CS_KILL), k);
	/* d_delete with count 2: unhashed; the last put kills. */
	d = dcsim_d_lookup(root, "del1");
	assert_non_null(d);
	dcsim_dget(d);
	dcsim_d_delete(d);
	assert_true(dcsim_d_unhashed(d));
	dcsim_dput(d);
	assert_int_equal(stat_of(c, DCSIM_CS_KILL), k);
	dcsim_dput(d);
	assert_int_equal(stat_of(c, DCSIM_CS_KILL), ++k);
	/* ->d_delete says kill. */
	d = dcsim_d_alloc(root, "opdel");
	dcsim_d_set_op(d, &ops_always);
	assert_true(dcsim_d_flags(d) & DCSIM_DCACHE_OP_DELETE);
	dcsim_d_add(d, true);
	dcsim_dget(d);
	dcsim_dput(d);
	assert_int_equal(dcsim_d_count(d), 1);
	dcsim_dput(d);
	assert_int_equal(stat_of(c, DCSIM_CS_KILL), ++k);
	/* ->d_delete says keep. */
	d = dcsim_d_alloc(root, "opkeep");
	dcsim_d_set_op(d, &ops_never);
	dcsim_d_add(d, true);
	dcsim_dput(d);
	assert_int_equal(stat_of(c, DCSIM_CS_KILL), k);
	assert_int_equal(dcsim_d_count(d), 0);
	/* DISCONNECTED and DONTCACHE: killed on the final put, even when REF|LRU. */
	for (int i = 0; i < 2; i++) {
		uint32_t fl = i ? DCSIM_DCACHE_DONTCACHE : DCSIM_DCACHE_DISCONNECTED;

		d = dcsim_d_alloc(root, i ? "dontcache" : "disconnected");
		dcsim_d_add(d, true);
		dcsim_dput(d);
		d = dcsim_d_lookup(root, i ? "dontcache" : "disconnected");
		dcsim_dput(d);
		d = dcsim_d_lookup(root, i ? "dontcache" : "disconnected");
		assert_int_equal(dcsim_d_flags(d) & (F_REF | F_LRU), F_REF | F_LRU);
		dcsim_d_set_flags(d, fl);
		dcsim_dput(d);
		assert_int_equal(stat_of(c, DCSIM_CS_KILL), ++k);
		assert_null(dcsim_d_lookup(root, i ? "dontcache" : "disconnected"));
	}
	{
		struct dcsim_held_ref h[] = { { root, 1 } };
		check_cache(c, h, 1);
	}
	dcsim_dput(root);
	destroy(c);
}

/* ->d_prune() (dead, before the unhash) and ->d_release() (dead, unhashed), once per kill. */
static unsigned int pruned, released;

static void count_prune(struct dcsim_dentry *d)
{
	assert_true(dcsim_d_count(d) < 0);
	assert_false(dcsim_d_flags(d) & DCSIM_DCACHE_DENTRY_KILLED);
	pruned++;
}

static void count_release(struct dcsim_dentry *d)
{
	assert_true(dcsim_d_count(d) < 0);
	assert_true(dcsim_d_unhashed(d));
	released++;
}

static const struct dcsim_dentry_operations ops_prune_release = {
	.d_prune = count_prune, .d_release = count_release,
};

static void case_prune_release(const struct dcsim_dput_strategy *s)
{
	struct dcsim_cache *c = mk(s);
	struct dcsim_dentry *root = dcsim_d_alloc_root(c, "/");
	struct dcsim_dentry *d;

	pruned = released = 0;
	/* Killed by the shrinker. */
	d = dcsim_d_alloc(root, "shrunk");
	dcsim_d_set_op(d, &ops_prune_release);
	assert_true(dcsim_d_flags(d) & DCSIM_DCACHE_OP_PRUNE);
	dcsim_d_add(d, true);
	dcsim_dput(d);
	assert_int_equal(pruned + released, 0);
	assert_int_equal(dcsim_shrink_all(c), 1);
	assert_int_equal(pruned, 1);
	assert_int_equal(released, 1);
	/* Killed by the final put of an unhashed dentry. */
	d = dcsim_d_alloc(root, "dropped");
	dcsim_d_set_op(d, &ops_prune_release);
	dcsim_d_add(d, false);
	dcsim_d_drop(d);
	dcsim_dput(d);
	assert_int_equal(pruned, 2);
	assert_int_equal(released, 2);
	/* No ->d_prune: no DCACHE_OP_PRUNE. */
	d = dcsim_d_alloc(root, "plain");
	dcsim_d_set_op(d, &ops_never);
	assert_false(dcsim_d_flags(d) & DCSIM_DCACHE_OP_PRUNE);
	dcsim_dput(d);
	dcsim_dput(root);
	dcsim_cache_destroy(c);
}

void test_prune_release(void **state)
{
	(void)state;
	for_each_strategy(case_prune_release);
}

void test_kill_reasons(void **state)
{
	(void)state;
	for_each_strategy(case_kill_reasons);
}
