// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-dcache: operations over the tree.  Prune, shrink and invalidate;
 * references (dget, dget_parent, long names); hard links; the path walk;
 * create in place.
 */

#include "dcache-tests.h"

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

void test_prune(void **state)
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

void test_invalidate(void **state)
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

void test_refs(void **state)
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

void test_link(void **state)
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

void test_walk(void **state)
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

void test_create_in_place(void **state)
{
	(void)state;
	for_each_strategy(case_create_in_place);
}
