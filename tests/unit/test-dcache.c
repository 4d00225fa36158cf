// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of the dentry cache operations, run on every registered dput
 * strategy (and, for HTM strategies, with HTM off and with the environment's
 * policy).  Each test checks the invariants with dcsim_cache_verify() and an
 * exact list of the references it holds.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <dcsim/cache.h>
#include <dcsim/htm.h>
#include <dcsim/namei.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

#include "harness.h"

#define F_REF	DCSIM_DCACHE_REFERENCED
#define F_LRU	DCSIM_DCACHE_LRU_LIST

static void check_cache(struct dcsim_cache *c, const struct dcsim_held_ref *held, size_t n)
{
	char report[4096];
	unsigned int v = dcsim_cache_verify(c, held, n, DCSIM_VERIFY_REFS_EXACT, report, sizeof(report));

	if (v)
		fprintf(stderr, "%s: %u violations:\n%s", dcsim_cache_strategy(c)->name, v, report);
	assert_int_equal(v, 0);
}

static int64_t stat_of(struct dcsim_cache *c, enum dcsim_cache_stat s)
{
	struct dcsim_cache_stats st;

	dcsim_cache_stats_read(c, &st);
	return st.v[s];
}

typedef void (*case_fn)(const struct dcsim_dput_strategy *s);

/* Run @fn for every registered strategy under each policy it needs. */
static void for_each_strategy(case_fn fn)
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

static struct dcsim_cache *mk(const struct dcsim_dput_strategy *s)
{
	struct dcsim_cache_config cfg = { .strategy = s, .hash_bits = 4 };
	struct dcsim_cache *c = dcsim_cache_create(&cfg);

	assert_non_null(c);
	return c;
}

static void destroy(struct dcsim_cache *c)
{
	unsigned long w = dcsim_warn_count();

	dcsim_cache_destroy(c);
	assert_int_equal(dcsim_warn_count(), w);
}

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

static void test_lifecycle(void **state)
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

static void test_kill_chain(void **state)
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

static void test_prune_release(void **state)
{
	(void)state;
	for_each_strategy(case_prune_release);
}

static void test_kill_reasons(void **state)
{
	(void)state;
	for_each_strategy(case_kill_reasons);
}

/* ---- prune, shrink_all, invalidate -------------------------------------- */

static void case_prune(const struct dcsim_dput_strategy *s)
{
	struct dcsim_cache *c = mk(s);
	struct dcsim_dentry *root = dcsim_d_alloc_root(c, "/");
	struct dcsim_dentry *d[4], *busy;
	char name[8];

	/* Four cached dentries; d1 and d3 referenced (second final put). */
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "d%d", i);
		d[i] = dcsim_d_alloc(root, name);
		dcsim_d_add(d[i], true);
		dcsim_dput(d[i]);
	}
	for (int i = 1; i < 4; i += 2)
		dcsim_dput(dcsim_d_lookup(root, dcsim_d_name(d[i])));
	busy = dcsim_d_lookup(root, "d2");	/* in use, still on the LRU */
	if (s->retain_style == DCSIM_RETAIN_ALWAYS_REFERENCED) {
		/* 3.x style: every one of them is referenced; the walk rotates all */
		assert_int_equal(dcsim_prune(c, 4), 0);	/* only d2 leaves (in use) ... */
		assert_int_equal(stat_of(c, DCSIM_CS_KILL), 0);
		assert_int_equal(stat_of(c, DCSIM_CS_NR_LRU), 3);
		assert_int_equal(dcsim_prune(c, 3), 3);	/* ... now unreferenced: killed */
	} else {
		/* d0 killed, d1 rotated, d2 (busy) removed, d3 rotated */
		assert_int_equal(dcsim_prune(c, 4), 1);
		assert_null(dcsim_d_lookup(root, "d0"));
		assert_int_equal(stat_of(c, DCSIM_CS_NR_LRU), 2);
		assert_int_equal(dcsim_d_flags(d[1]) & (F_REF | F_LRU), F_LRU);
		assert_int_equal(dcsim_prune(c, 1), 1);	/* d1 now */
	}
	assert_int_equal(dcsim_d_flags(busy) & F_LRU, 0);
	{
		struct dcsim_held_ref h[] = { { root, 1 }, { busy, 1 } };
		check_cache(c, h, 2);
	}
	dcsim_dput(busy);
	assert_true(dcsim_d_flags(busy) & F_LRU);
	assert_true(dcsim_shrink_all(c) >= 1);
	assert_int_equal(stat_of(c, DCSIM_CS_NR_LRU), 0);
	assert_int_equal(stat_of(c, DCSIM_CS_NR_DENTRY), 1);
	{
		struct dcsim_held_ref h[] = { { root, 1 } };
		check_cache(c, h, 1);
	}
	dcsim_dput(root);
	destroy(c);
}

static void test_prune(void **state)
{
	(void)state;
	for_each_strategy(case_prune);
}

static void case_invalidate(const struct dcsim_dput_strategy *s)
{
	struct dcsim_cache *c = mk(s);
	struct dcsim_dentry *root = dcsim_d_alloc_root(c, "/");
	struct dcsim_dentry *dir = dcsim_d_alloc(root, "dir");
	struct dcsim_dentry *sub, *f, *held;

	dcsim_d_add(dir, true);
	sub = dcsim_d_alloc(dir, "sub");
	dcsim_d_add(sub, true);
	f = dcsim_d_alloc(sub, "f");
	dcsim_d_add(f, true);
	dcsim_dput(f);
	dcsim_dput(sub);
	held = dcsim_d_alloc(dir, "held");
	dcsim_d_add(held, true);
	dcsim_dput(held);
	/*
	 * In use: survives; 6.1's walk takes it off the LRU, 6.8+'s leaves it
	 * there (select_collect() moves only unused ones).
	 */
	held = dcsim_d_lookup(dir, "held");
	dcsim_d_invalidate(dir);
	assert_true(dcsim_d_unhashed(dir));
	assert_int_equal(stat_of(c, DCSIM_CS_KILL), 2);	/* f, then sub */
	assert_int_equal(dcsim_d_count(dir), 2);	/* ours + held's */
	assert_int_equal(dcsim_d_flags(held) & F_LRU,
			 (s->flags & DCSIM_STRATEGY_LOCK_FOR_KILL) ? F_LRU : 0);
	{
		struct dcsim_held_ref h[] = { { root, 1 }, { dir, 1 }, { held, 1 } };
		check_cache(c, h, 3);
	}
	dcsim_dput(held);
	dcsim_dput(dir);			/* unhashed, still pinned by held (cached) */
	assert_int_equal(stat_of(c, DCSIM_CS_KILL), 2);
	dcsim_shrink_all(c);
	assert_int_equal(stat_of(c, DCSIM_CS_KILL), 4);
	{
		struct dcsim_held_ref h[] = { { root, 1 } };
		check_cache(c, h, 1);
	}
	dcsim_dput(root);
	destroy(c);
}

static void test_invalidate(void **state)
{
	(void)state;
	for_each_strategy(case_invalidate);
}

/* ---- references: dget, dget_parent, long names ---------------------------- */

static void case_refs(const struct dcsim_dput_strategy *s)
{
	struct dcsim_cache *c = mk(s);
	struct dcsim_dentry *root = dcsim_d_alloc_root(c, "/");
	char longname[200];
	struct dcsim_dentry *a, *p, *l;

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	a = dcsim_d_alloc(root, "a");
	dcsim_d_add(a, false);
	assert_true(dcsim_d_is_negative(a));
	assert_ptr_equal(dcsim_dget(a), a);
	assert_int_equal(dcsim_d_count(a), 2);
	p = dcsim_dget_parent(a);
	assert_ptr_equal(p, root);
	assert_int_equal(dcsim_d_count(root), 3);
	assert_ptr_equal(dcsim_dget_parent(root), root);
	assert_int_equal(dcsim_d_count(root), 4);
	l = dcsim_d_alloc(a, longname);
	assert_non_null(l);
	assert_string_equal(dcsim_d_name(l), longname);
	dcsim_d_add(l, true);
	dcsim_dput(l);
	assert_ptr_equal(dcsim_d_lookup(a, longname), l);
	{
		struct dcsim_held_ref h[] = { { root, 3 }, { a, 2 }, { l, 1 } };
		check_cache(c, h, 3);
	}
	/* A wrong held count is reported. */
	{
		struct dcsim_held_ref h[] = { { root, 3 }, { a, 1 }, { l, 1 } };
		char rep[256];

		assert_int_equal(dcsim_cache_verify(c, h, 3, DCSIM_VERIFY_REFS_EXACT, rep, sizeof(rep)), 1);
		assert_non_null(strstr(rep, "'a' count 3"));
	}
	dcsim_dput(l);
	dcsim_dput(a);
	dcsim_dput(a);
	dcsim_dput(p);
	dcsim_dput(root);
	{
		struct dcsim_held_ref h[] = { { root, 1 } };
		check_cache(c, h, 1);
	}
	dcsim_dput(root);
	destroy(c);
}

static void test_refs(void **state)
{
	(void)state;
	for_each_strategy(case_refs);
}

/* ---- hard links: two names, one stub inode ------------------------------- */

static void case_link(const struct dcsim_dput_strategy *s)
{
	struct dcsim_cache *c = mk(s);
	struct dcsim_dentry *root = dcsim_d_alloc_root(c, "/");
	struct dcsim_dentry *a, *b, *n, *x;

	a = dcsim_d_alloc(root, "a");
	dcsim_d_add(a, true);
	b = dcsim_d_alloc(root, "b");
	assert_int_equal(dcsim_d_add_link(b, a), 0);
	assert_false(dcsim_d_is_negative(b));
	assert_false(dcsim_d_unhashed(b));
	assert_ptr_equal(dcsim_d_lookup(root, "b"), b);
	dcsim_dput(b);
	dcsim_dput(b);				/* cached, unused */
	/* Refused: hashed already; a negative target. */
	assert_int_equal(dcsim_d_add_link(b, a), -EINVAL);
	n = dcsim_d_alloc(root, "n");
	dcsim_d_add(n, false);
	x = dcsim_d_alloc(root, "x");
	assert_int_equal(dcsim_d_add_link(x, n), -EINVAL);
	assert_true(dcsim_d_is_negative(x));
	dcsim_dput(x);				/* unhashed: killed */
	dcsim_dput(n);
	/* d_delete() of a used name unhashes it; the other name keeps the inode. */
	assert_ptr_equal(dcsim_dget(a), a);
	dcsim_d_delete(a);
	assert_true(dcsim_d_unhashed(a));
	assert_false(dcsim_d_is_negative(a));
	dcsim_dput(a);
	dcsim_dput(a);				/* killed: its inode reference goes */
	assert_null(dcsim_d_lookup(root, "a"));
	/* The last name of the inode: d_delete() makes it negative, still hashed. */
	b = dcsim_d_lookup(root, "b");
	assert_non_null(b);
	assert_false(dcsim_d_is_negative(b));
	dcsim_d_delete(b);
	assert_true(dcsim_d_is_negative(b));
	assert_false(dcsim_d_unhashed(b));
	dcsim_dput(b);
	assert_int_equal(dcsim_d_count(b), 0);
	{
		struct dcsim_held_ref h[] = { { root, 1 } };
		check_cache(c, h, 1);
	}
	assert_int_equal(stat_of(c, DCSIM_CS_KILL), 2);
	dcsim_dput(root);
	destroy(c);
}

static void test_link(void **state)
{
	(void)state;
	for_each_strategy(case_link);
}

/* ---- path walk ----------------------------------------------------------- */

/*
 * root/d/a/{f, n (negative)}, d held as the cwd: RCU-walk finds f with the
 * leaf's reference only; misses and negative components are ENOENT after
 * the ref-walk fallback, with no reference left; --ref-walk gives the same.
 */
static void case_walk(const struct dcsim_dput_strategy *s)
{
	struct dcsim_cache_config cfg = { .strategy = s };
	struct dcsim_cache *c = dcsim_cache_create(&cfg);
	struct dcsim_dentry *root = dcsim_d_alloc_root(c, "/");
	struct dcsim_dentry *d = dcsim_d_alloc(root, "d");
	struct dcsim_dentry *a, *f, *n, *got;
	const char *af[] = { "a", "f" }, *an[] = { "a", "n" }, *nf[] = { "a", "n", "x" };
	const char *ax[] = { "a", "x" }, *bad[] = { "a", NULL };
	int32_t a_count;

	dcsim_d_add(d, true);
	a = dcsim_d_alloc(d, "a");
	dcsim_d_add(a, true);
	f = dcsim_d_alloc(a, "f");
	dcsim_d_add(f, true);
	n = dcsim_d_alloc(a, "n");
	dcsim_d_add(n, false);
	dcsim_dput(f);
	dcsim_dput(n);
	dcsim_dput(a);
	a_count = dcsim_d_count(a);

	for (unsigned int flags = 0; flags <= DCSIM_WALK_REF; flags++) {
		int64_t rcu0 = stat_of(c, DCSIM_CS_WALK_RCU), unlazy0 = stat_of(c, DCSIM_CS_WALK_UNLAZY);

		got = dcsim_path_walk(d, af, 2, flags);
		assert_ptr_equal(got, f);
		assert_int_equal(dcsim_d_count(f), 1);
		assert_int_equal(dcsim_d_count(a), a_count);	/* no reference kept on a */
		assert_int_equal(stat_of(c, DCSIM_CS_WALK_RCU) - rcu0, flags ? 0 : 1);
		{
			struct dcsim_held_ref held[] = { { root, 1 }, { d, 1 }, { f, 1 } };

			check_cache(c, held, 3);
		}
		dcsim_dput(got);

		errno = 0;
		assert_null(dcsim_path_walk(d, ax, 2, flags));	/* missing leaf */
		assert_int_equal(errno, ENOENT);
		errno = 0;
		assert_null(dcsim_path_walk(d, an, 2, flags));	/* negative leaf */
		assert_int_equal(errno, ENOENT);
		errno = 0;
		assert_null(dcsim_path_walk(d, nf, 3, flags));	/* negative directory */
		assert_int_equal(errno, ENOENT);
		/* Each of the three gave up in RCU-walk and was answered by ref-walk. */
		assert_int_equal(stat_of(c, DCSIM_CS_WALK_UNLAZY) - unlazy0, flags ? 0 : 3);
		assert_int_equal(dcsim_d_count(a), a_count);
		assert_int_equal(dcsim_d_count(n), 0);
	}
	got = dcsim_path_walk(d, NULL, 0, 0);		/* no component: the start */
	assert_ptr_equal(got, d);
	dcsim_dput(got);
	errno = 0;
	assert_null(dcsim_path_walk(d, bad, 2, 0));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(dcsim_path_walk(d, af, 2, 0x80));
	assert_int_equal(errno, EINVAL);
	{
		struct dcsim_held_ref held[] = { { root, 1 }, { d, 1 } };

		check_cache(c, held, 2);
	}
	dcsim_dput(d);
	dcsim_dput(root);
	dcsim_cache_destroy(c);
}

static void test_walk(void **state)
{
	(void)state;
	for_each_strategy(case_walk);
}

/* ---- create in place: unlink, then d_instantiate() the negative ---------- */

static void case_create_in_place(const struct dcsim_dput_strategy *s)
{
	struct dcsim_cache *c = mk(s);
	struct dcsim_dentry *root = dcsim_d_alloc_root(c, "/");
	struct dcsim_dentry *dir, *a, *u, *neg;
	int64_t allocs, kills, lru_add, lru_del, hashed;
	unsigned long w;

	dir = dcsim_d_alloc(root, "dir");
	dcsim_d_add(dir, true);
	a = dcsim_d_alloc(dir, "a");
	dcsim_d_add(a, true);
	/* unlink under the directory's create lock: count 1, so it goes negative */
	assert_int_equal(dcsim_inode_lock(dir), 0);
	dcsim_d_delete(a);
	dcsim_inode_unlock(dir);
	assert_true(dcsim_d_is_negative(a));
	assert_false(dcsim_d_unhashed(a));
	dcsim_dput(a);				/* a cached negative, on the LRU */
	allocs = stat_of(c, DCSIM_CS_ALLOC);
	kills = stat_of(c, DCSIM_CS_KILL);
	lru_add = stat_of(c, DCSIM_CS_LRU_ADD);
	lru_del = stat_of(c, DCSIM_CS_LRU_DEL);
	hashed = stat_of(c, DCSIM_CS_NR_HASHED);
	/* create: the lookup finds the negative, instantiate makes it positive */
	assert_int_equal(dcsim_inode_lock(dir), 0);
	neg = dcsim_d_lookup(dir, "a");
	assert_ptr_equal(neg, a);
	assert_true(dcsim_d_is_negative(neg));
	assert_int_equal(dcsim_d_instantiate(neg), 0);
	dcsim_inode_unlock(dir);
	assert_false(dcsim_d_is_negative(a));
	assert_false(dcsim_d_unhashed(a));
	assert_int_equal(dcsim_d_flags(a) & DCSIM_DCACHE_ENTRY_TYPE, DCSIM_DCACHE_REGULAR_TYPE);
	/* in place: nothing allocated, killed, hashed or moved on the LRU */
	assert_int_equal(stat_of(c, DCSIM_CS_ALLOC), allocs);
	assert_int_equal(stat_of(c, DCSIM_CS_KILL), kills);
	assert_int_equal(stat_of(c, DCSIM_CS_LRU_ADD), lru_add);
	assert_int_equal(stat_of(c, DCSIM_CS_LRU_DEL), lru_del);
	assert_int_equal(stat_of(c, DCSIM_CS_NR_HASHED), hashed);
	{
		struct dcsim_held_ref h[] = { { root, 1 }, { dir, 1 }, { a, 1 } };
		check_cache(c, h, 3);
	}

	/* Misuse: each refused with one warning, nothing changed. */
	dcsim_warn_set_quiet(true);
	w = dcsim_warn_count();
	assert_int_equal(dcsim_d_instantiate(a), -EINVAL);	/* lock not held */
	assert_int_equal(dcsim_warn_count(), w + 1);
	assert_int_equal(dcsim_inode_lock(dir), 0);
	assert_int_equal(dcsim_d_instantiate(a), -EINVAL);	/* positive */
	assert_int_equal(dcsim_warn_count(), w + 2);
	u = dcsim_d_alloc(dir, "u");
	assert_int_equal(dcsim_d_instantiate(u), -EINVAL);	/* unhashed */
	assert_int_equal(dcsim_warn_count(), w + 3);
	assert_true(dcsim_d_is_negative(u));
	assert_true(dcsim_d_unhashed(u));
	assert_int_equal(dcsim_d_instantiate(root), -EINVAL);	/* a root */
	assert_int_equal(dcsim_warn_count(), w + 4);
	dcsim_inode_unlock(dir);
	dcsim_inode_unlock(dir);				/* not held */
	assert_int_equal(dcsim_warn_count(), w + 5);
	assert_int_equal(dcsim_inode_lock(dir), 0);		/* the refusal broke nothing */
	dcsim_inode_unlock(dir);
	assert_int_equal(dcsim_warn_count(), w + 5);
	dcsim_d_add(u, false);					/* a hashed negative */
	assert_int_equal(dcsim_inode_lock(u), -EINVAL);	/* negative: no i_rwsem */
	assert_int_equal(dcsim_warn_count(), w + 6);
	dcsim_warn_set_quiet(false);
	assert_false(dcsim_d_is_negative(a));
	assert_int_equal(stat_of(c, DCSIM_CS_ALLOC), allocs + 1);
	dcsim_dput(u);
	dcsim_dput(a);
	{
		struct dcsim_held_ref h[] = { { root, 1 }, { dir, 1 } };
		check_cache(c, h, 2);
	}
	dcsim_dput(dir);
	dcsim_dput(root);
	dcsim_shrink_all(c);
	check_cache(c, NULL, 0);
	destroy(c);
}

static void test_create_in_place(void **state)
{
	(void)state;
	for_each_strategy(case_create_in_place);
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

static void test_snapshot(void **state)
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

static void test_registry(void **state)
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
