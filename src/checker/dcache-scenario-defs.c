// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The dentry cache scenarios, one struct scn_def each: the tree it builds,
 * the references each thread starts with, the threads' programs, and what
 * the end state must show beyond the invariants and the spec.  Adding a
 * scenario is one entry here and its name in <dcsim/explore-dcache.h>.
 * The runner (setup, threads, the spec comparison) is dcache-scenarios.c.
 */

#include <inttypes.h>

#include <dcsim/cache.h>
#include <dcsim/dentry.h>
#include <dcsim/explore.h>

#include "scenario.h"

/* ---- building the tree (controller thread; helpers in dcache-scenario-build.c) ---- */

/* d/f, warm; T0 holds f.  Return: false if setup failed. */
static bool warm_f(struct dscn *s)
{
	struct dcsim_dentry *f = dscn_mk(s, s->dir, "f", NULL);

	if (!f)
		return false;
	s->id_f = dcsim_d_id(f);
	dscn_warm(s, s->dir, f, "f");
	s->slot[0][1] = dscn_lookup(s, s->dir, "f");
	return true;
}


/* d/p/{f,g}, both warm and rotated (not REFERENCED); p held.  Return: p or NULL. */
static struct dcsim_dentry *p_fg(struct dscn *s)
{
	struct dcsim_dentry *p = dscn_mk(s, s->dir, "p", NULL);
	struct dcsim_dentry *f = dscn_mk(s, p, "f", NULL);
	struct dcsim_dentry *g = dscn_mk(s, p, "g", NULL);

	if (!f || !g)
		return NULL;
	s->id_f = dcsim_d_id(f);
	s->id_g = dcsim_d_id(g);
	dscn_warm(s, p, f, "f");
	dscn_warm(s, p, g, "g");
	dcsim_prune(s->cache, 2);	/* neither REFERENCED now */
	return p;
}

/* ---- the scenarios ---- */

static void build_final_dputs(struct dscn *s)
{
	if (warm_f(s))
		s->slot[1][1] = dscn_lookup(s, s->dir, "f");
}

static void check_final_dputs(const struct dscn *s, const struct dcsim_cache_snapshot *snap)
{
	const struct dcsim_dentry_state *f = dscn_find(snap, s->id_f);
	int64_t kills = snap->counters.kills;

	if (!f || !f->hashed || f->count != 0 || kills)
		dcsim_explore_fail("f should be cached and unused: %s, %" PRId64 " kills",
				   f ? "present" : "gone", kills);
}

static void build_final_dputs_cold(struct dscn *s)
{
	struct dcsim_dentry *f = dscn_mk(s, s->dir, "f", NULL);

	if (!f)
		return;
	s->id_f = dcsim_d_id(f);
	s->slot[0][1] = f;
	s->slot[1][1] = dcsim_dget(f);
}

static void build_warm_f(struct dscn *s)
{
	warm_f(s);
}

static void check_dput_vs_drop(const struct dscn *s, const struct dcsim_cache_snapshot *snap)
{
	const struct dcsim_dentry_state *f = dscn_find(snap, s->id_f);
	int64_t kills = snap->counters.kills;

	if (f || kills != 1)
		dcsim_explore_fail("dropped f should be killed exactly once: %s, %" PRId64
				   " kills", f ? "still reachable" : "gone", kills);
}

static void check_dput_vs_delete(const struct dscn *s, const struct dcsim_cache_snapshot *snap)
{
	const struct dcsim_dentry_state *f = dscn_find(snap, s->id_f);
	int64_t kills = snap->counters.kills;

	/* d_delete() with count 1 keeps it (negative), else unhashes it. */
	if (f ? (kills != 0 || !f->hashed || f->count) : kills != 1)
		dcsim_explore_fail("deleted f: %s, %" PRId64 " kills",
				   f ? "still reachable" : "gone", kills);
}

static void build_lookup_shrink(struct dscn *s)
{
	struct dcsim_dentry *f = dscn_mk(s, s->dir, "f", NULL);
	struct dcsim_dentry *g = dscn_mk(s, s->dir, "g", NULL);

	dscn_warm(s, s->dir, f, "f");
	dscn_warm(s, s->dir, g, "g");
	s->slot[0][1] = dscn_lookup(s, s->dir, "f");
}

static void build_op_delete(struct dscn *s)
{
	struct dcsim_dentry *f = dscn_mk(s, s->dir, "f", &dscn_keep_ops);
	struct dcsim_dentry *g = dscn_mk(s, s->dir, "g", &dscn_discard_ops);

	if (!f || !g)
		return;
	s->id_f = dcsim_d_id(f);
	s->id_g = dcsim_d_id(g);
	s->slot[0][1] = f;
	s->slot[1][1] = dcsim_dget(f);
	s->slot[0][2] = g;
	s->slot[1][2] = dcsim_dget(g);
}

static void check_op_delete(const struct dscn *s, const struct dcsim_cache_snapshot *snap)
{
	const struct dcsim_dentry_state *f = dscn_find(snap, s->id_f);
	const struct dcsim_dentry_state *g = dscn_find(snap, s->id_g);
	int64_t kills = snap->counters.kills;

	if (!f || f->count || g || kills != 1)
		dcsim_explore_fail("d_delete() keeps f and discards g exactly once: f %s, "
				   "g %s, %" PRId64 " kills", f ? "present" : "gone",
				   g ? "present" : "gone", kills);
}

/* d/a/{b/c, b2}: b unhashed, held only by c; a held by T1. */
static void build_cascade(struct dscn *s)
{
	struct dcsim_dentry *a = dscn_mk(s, s->dir, "a", NULL);
	struct dcsim_dentry *b = dscn_mk(s, a, "b", NULL);
	struct dcsim_dentry *b2 = dscn_mk(s, a, "b2", NULL);
	struct dcsim_dentry *c = dscn_mk(s, b, "c", NULL);

	if (!c || !b2)
		return;
	dscn_warm(s, a, b2, "b2");
	s->id_b = dcsim_d_id(b);
	s->id_c = dcsim_d_id(c);
	dcsim_d_drop(b);
	dcsim_dput(b);
	s->slot[0][1] = c;
	s->slot[1][1] = a;
}

static void check_cascade(const struct dscn *s, const struct dcsim_cache_snapshot *snap)
{
	if (dscn_find(snap, s->id_b) || dscn_find(snap, s->id_c))
		dcsim_explore_fail("the cascade must kill c and its unhashed parent b");
}

static void build_prune_vs_drop(struct dscn *s)
{
	struct dcsim_dentry *f = dscn_mk(s, s->dir, "f", NULL);
	struct dcsim_dentry *e = dscn_mk(s, s->dir, "e", NULL);
	struct dcsim_dentry *g = dscn_mk(s, s->dir, "g", NULL);

	if (!f || !e || !g)
		return;
	s->id_f = dcsim_d_id(f);
	s->id_g = dcsim_d_id(g);
	/* LRU order is first-put order: f, e, g. */
	dscn_warm(s, s->dir, f, "f");
	dscn_warm(s, s->dir, e, "e");
	dscn_warm(s, s->dir, g, "g");
	/* All rotate once, in order, and lose REFERENCED. */
	dcsim_prune(s->cache, 3);
}

static void build_prune_siblings(struct dscn *s)
{
	struct dcsim_dentry *p = p_fg(s);

	if (p)
		dcsim_dput(p);	/* held by its children only */
}

static void build_invalidate(struct dscn *s)
{
	struct dcsim_dentry *p = p_fg(s);

	if (!p)
		return;
	s->slot[0][1] = dcsim_dget(p);
	s->slot[2][1] = dscn_lookup(s, p, "f");
	s->slot[2][2] = dcsim_dget(p);
	dcsim_dput(p);		/* held by its children and the threads */
}

static void build_shrink_all(struct dscn *s)
{
	if (dscn_warm_fg(s))
		s->slot[1][1] = dscn_lookup(s, s->dir, "f");
}

static void build_dontcache(struct dscn *s)
{
	if (!dscn_warm_fg(s))
		return;
	s->slot[0][1] = dscn_lookup(s, s->dir, "f");
	s->slot[0][2] = dscn_lookup(s, s->dir, "g");
}

static void check_dontcache(const struct dscn *s, const struct dcsim_cache_snapshot *snap)
{
	const struct dcsim_dentry_state *f = dscn_find(snap, s->id_f);
	const struct dcsim_dentry_state *g = dscn_find(snap, s->id_g);

	if (f || g || snap->counters.kills != 2)
		dcsim_explore_fail("DONTCACHE f and DISCONNECTED g die on their final put: "
				   "f %s, g %s", f ? "present" : "gone", g ? "present" : "gone");
}

/* d/a/b/c: b unhashed, held only by c; T0 and T1 hold c. */
static void build_dget_parent(struct dscn *s)
{
	struct dcsim_dentry *a = dscn_mk(s, s->dir, "a", NULL);
	struct dcsim_dentry *b = dscn_mk(s, a, "b", NULL);
	struct dcsim_dentry *c = dscn_mk(s, b, "c", NULL);

	if (!c)
		return;
	s->id_b = dcsim_d_id(b);
	s->id_c = dcsim_d_id(c);
	dcsim_dput(a);
	dcsim_d_drop(b);
	dcsim_dput(b);
	s->slot[0][1] = c;
	s->slot[1][1] = dcsim_dget(c);
}

/* f and f2 name one inode; f is DONTCACHE. */
static void build_unlink_alias(struct dscn *s)
{
	struct dcsim_dentry *f = dscn_mk(s, s->dir, "f", NULL);
	struct dcsim_dentry *f2 = f ? dcsim_d_alloc(s->dir, "f2") : NULL;

	if (!f2 || dcsim_d_add_link(f2, f)) {
		s->broken = true;
		return;
	}
	s->id_f = dcsim_d_id(f);
	s->id_g = dcsim_d_id(f2);
	dcsim_d_set_flags(f, DCSIM_DCACHE_DONTCACHE);
	s->slot[0][1] = f;
	s->slot[1][1] = f2;
}

static void check_unlink_alias(const struct dscn *s, const struct dcsim_cache_snapshot *snap)
{
	const struct dcsim_dentry_state *f = dscn_find(snap, s->id_f);
	const struct dcsim_dentry_state *g = dscn_find(snap, s->id_g);

	if (f || !g || (g->flags & DCSIM_DCACHE_ENTRY_TYPE) || g->count)
		dcsim_explore_fail("DONTCACHE f dies, the unlinked alias stays negative");
}

/*
 * f and f2 name one inode in d; f cached, unused, on the LRU and not
 * REFERENCED (a prune takes it).  Return: f2, held, or NULL.
 */
static struct dcsim_dentry *prunable_alias(struct dscn *s)
{
	struct dcsim_dentry *f = dscn_mk(s, s->dir, "f", NULL);
	struct dcsim_dentry *f2 = f ? dcsim_d_alloc(s->dir, "f2") : NULL;

	if (!f2 || dcsim_d_add_link(f2, f)) {
		s->broken = true;
		return NULL;
	}
	s->id_f = dcsim_d_id(f);
	s->id_g = dcsim_d_id(f2);
	dscn_warm(s, s->dir, f, "f");
	dcsim_prune(s->cache, 1);	/* rotated: no longer REFERENCED */
	return f2;
}

/* f and f2 as above; T2 holds f2. */
static void build_prune_delete_alias(struct dscn *s)
{
	s->slot[2][1] = prunable_alias(s);
}

/* p cached, unused, childless, not REFERENCED. */
static void build_prune_create(struct dscn *s)
{
	struct dcsim_dentry *p = dscn_mk(s, s->dir, "p", NULL);

	dscn_warm(s, s->dir, p, "p");
	dcsim_prune(s->cache, 1);	/* rotated: no longer REFERENCED */
}

/* f cached and unused; T0 borrows it without a reference. */
static void build_misuse(struct dscn *s)
{
	struct dcsim_dentry *f = dscn_mk(s, s->dir, "f", NULL);
	struct dcsim_dentry *g = dscn_mk(s, s->dir, "g", NULL);

	if (!f || !g)
		return;
	s->id_f = dcsim_d_id(f);
	s->id_g = dcsim_d_id(g);
	dscn_warm(s, s->dir, f, "f");
	dscn_warm(s, s->dir, g, "g");
	s->slot[0][1] = f;	/* borrowed: no reference */
}

/*
 * d/a/{f,g}, f and g warm, a held by its children only: an RCU-walk's
 * ref-walk fallback never makes the last put of a (g pins it), so the
 * walk's end state is the spec's whichever way it went.
 */
static void build_walk_afg(struct dscn *s)
{
	struct dcsim_dentry *a = dscn_mk(s, s->dir, "a", NULL);
	struct dcsim_dentry *f = dscn_mk(s, a, "f", NULL);
	struct dcsim_dentry *g = dscn_mk(s, a, "g", NULL);

	if (!f || !g)
		return;
	s->id_b = dcsim_d_id(a);
	s->id_f = dcsim_d_id(f);
	s->id_g = dcsim_d_id(g);
	dscn_warm(s, a, f, "f");
	dscn_warm(s, a, g, "g");
	dcsim_dput(a);
}

/* d/f warm and unused: only T1's lookup will hold it when it unlinks. */
static void build_unlink(struct dscn *s)
{
	struct dcsim_dentry *f = dscn_mk(s, s->dir, "f", NULL);

	if (!f)
		return;
	s->id_f = dcsim_d_id(f);
	dscn_warm(s, s->dir, f, "f");
}

static void check_walk_vs_drop(const struct dscn *s, const struct dcsim_cache_snapshot *snap)
{
	const struct dcsim_dentry_state *a = dscn_find(snap, s->id_b);

	if (!a || a->hashed || snap->counters.kills)
		dcsim_explore_fail("dropped a stays, unhashed, pinned by f and g: %s, %" PRId64
				   " kills", a ? (a->hashed ? "hashed" : "unhashed") : "gone",
				   snap->counters.kills);
}

/*
 * The setup two scenarios share: f and g made in the directory (their ids
 * noted), f then unlinked while held, so it is negative and still hashed
 * at count 1.  Return: false when a dentry could not be made (the
 * scenario is not built).
 */
static bool mk_f_unlinked_g(struct dscn *s, struct dcsim_dentry **f, struct dcsim_dentry **g)
{
	*f = dscn_mk(s, s->dir, "f", NULL);
	*g = dscn_mk(s, s->dir, "g", NULL);
	if (!*f || !*g)
		return false;
	s->id_f = dcsim_d_id(*f);
	s->id_g = dcsim_d_id(*g);
	dcsim_d_delete(*f);		/* count 1: negative, still hashed */
	return true;
}

/*
 * f a cached negative (an unlink left it), REFERENCED; g cached.  T0 creates
 * f in place if its lookup finds it before the prunes kill it.
 */
static void build_create_in_place(struct dscn *s)
{
	struct dcsim_dentry *f, *g;

	if (!mk_f_unlinked_g(s, &f, &g))
		return;
	dscn_warm(s, s->dir, f, "f");
	dscn_warm(s, s->dir, g, "g");
}

/* f is the same dentry or gone: a create in place neither kills nor allocates. */
static void check_create_in_place(const struct dscn *s, const struct dcsim_cache_snapshot *snap)
{
	const struct dcsim_dentry_state *f = dscn_find(snap, s->id_f);

	if (snap->counters.allocs != (int64_t)s->id_g || (f && (f->count || !f->hashed)))
		dcsim_explore_fail("f created in place: %" PRId64 " allocations, f %s",
				   snap->counters.allocs, f ? "unused and hashed?" : "gone");
}

/*
 * d/a/f: a unhashed, held by T1 and by its child f; f cached, unused, on
 * the LRU and not REFERENCED (the prune takes it).
 */
static void build_prune_parent_dies(struct dscn *s)
{
	struct dcsim_dentry *a = dscn_mk(s, s->dir, "a", NULL);
	struct dcsim_dentry *f = a ? dscn_mk(s, a, "f", NULL) : NULL;

	if (!f)
		return;
	s->id_b = dcsim_d_id(a);
	s->id_c = dcsim_d_id(f);
	dscn_warm(s, a, f, "f");
	dcsim_prune(s->cache, 1);	/* rotated: no longer REFERENCED */
	dcsim_d_drop(a);
	s->slot[1][1] = a;
}

/* d/q/{p/{f}, e}: f and e unused, not REFERENCED, f first; p held by f only; T0 holds q. */
static void build_invalidate_cascade(struct dscn *s)
{
	struct dcsim_dentry *q = dscn_mk(s, s->dir, "q", NULL);
	struct dcsim_dentry *p = q ? dscn_mk(s, q, "p", NULL) : NULL;
	struct dcsim_dentry *f = p ? dscn_mk(s, p, "f", NULL) : NULL;
	struct dcsim_dentry *e = f ? dscn_mk(s, q, "e", NULL) : NULL;

	if (!e)
		return;
	s->id_f = dcsim_d_id(f);
	s->id_g = dcsim_d_id(e);
	dscn_warm(s, p, f, "f");
	dscn_warm(s, q, e, "e");
	dcsim_prune(s->cache, 2);	/* neither REFERENCED now */
	dcsim_dput(p);			/* held by f only */
	s->slot[0][1] = q;
}

/*
 * f and f2 as for prune-delete-alias; f2 unhashed (its final put kills
 * it in every era), held by T1.
 */
static void build_prune_put_alias(struct dscn *s)
{
	struct dcsim_dentry *f2 = prunable_alias(s);

	if (!f2)
		return;
	dcsim_d_drop(f2);
	s->slot[1][1] = f2;
}

/*
 * prune-negative-create: d/f a cached negative (created, unlinked, put),
 * unused, on the LRU and not REFERENCED, alone there; d/g positive and
 * held by T1, whose drop and final put kill it under d's d_lock.
 */
static void build_prune_negative_create(struct dscn *s)
{
	struct dcsim_dentry *f = dscn_mk(s, s->dir, "f", NULL);
	struct dcsim_dentry *g;

	if (!f)
		return;
	s->id_f = dcsim_d_id(f);
	dcsim_d_delete(f);		/* count 1: negative, still hashed */
	dscn_warm(s, s->dir, f, "f");
	dcsim_prune(s->cache, 1);	/* rotated: no longer REFERENCED */
	g = dscn_mk(s, s->dir, "g", NULL);
	if (!g)
		return;
	s->id_g = dcsim_d_id(g);
	s->slot[1][1] = g;
}

/*
 * g is gone (dropped, then its last put); f is gone (the prune killed it,
 * negative before T2's lookup, or positive after T2's put, holding its new
 * inode's i_lock: __dentry_detach_inode() asserts that) or was created in
 * place and kept: positive, unused, hashed and on the LRU.  A prune that
 * gave it up while T2 held it leaves it to T2's put, which puts it back on
 * the LRU; one that gave it up after that put would leave it on no list.
 */
static void check_prune_negative_create(const struct dscn *s,
					const struct dcsim_cache_snapshot *snap)
{
	const struct dcsim_dentry_state *f = dscn_find(snap, s->id_f);

	if (dscn_find(snap, s->id_g))
		dcsim_explore_fail("g was dropped and put: it must be gone");
	if (f && ((f->flags & DCSIM_DCACHE_ENTRY_TYPE) == DCSIM_DCACHE_MISS_TYPE || f->count ||
		  !f->hashed || f->lru_pos < 0))
		dcsim_explore_fail("f kept after its create in place must be positive, unused, hashed "
				   "and on the LRU: %s, count %" PRId32 ", %s, %s",
				   (f->flags & DCSIM_DCACHE_ENTRY_TYPE) == DCSIM_DCACHE_MISS_TYPE ?
				   "negative" : "positive", f->count,
				   f->hashed ? "hashed" : "unhashed",
				   f->lru_pos < 0 ? "on no list" : "on the LRU");
}

/*
 * f negative (an unlink left it), hashed and DONTCACHE, held by T0 alone:
 * its final put kills it.  g positive, held by T1, whose kill of it holds
 * the directory's lock for a while.
 */
static void build_put_negative_create(struct dscn *s)
{
	struct dcsim_dentry *f, *g;

	if (!mk_f_unlinked_g(s, &f, &g))
		return;
	dcsim_d_set_flags(f, DCSIM_DCACHE_DONTCACHE);
	s->slot[0][1] = f;
	s->slot[1][1] = g;
}

/* The table: see struct scn_def. */
const struct scn_def scn_defs[DCSIM_DSCN_NR] = {
	[DCSIM_DSCN_FINAL_DPUTS] = { "final-dputs", build_final_dputs, {
		{ DPUT(1) },
		{ DPUT(1) },
		{ LOOKUP(0, "f", 1), DPUT(1) } },
		.check = check_final_dputs },
	[DCSIM_DSCN_FINAL_DPUTS_COLD] = { "final-dputs-cold", build_final_dputs_cold, {
		{ DPUT(1) },
		{ DPUT(1) },
		{ LOOKUP(0, "f", 1), DPUT(1) } },
		.check = check_final_dputs },
	[DCSIM_DSCN_DPUT_VS_DROP] = { "dput-vs-drop", build_warm_f, {
		{ DPUT(1) },
		/* f is hashed until we unhash it: the lookup cannot fail. */
		{ LOOKUP_HIT(0, "f", 1), DROP(1), DPUT(1) },
		{ LOOKUP(0, "f", 1), DPUT(1) } },
		.check = check_dput_vs_drop },
	[DCSIM_DSCN_DPUT_VS_DELETE] = { "dput-vs-delete", build_warm_f, {
		{ DPUT(1) },
		{ LOOKUP_HIT(0, "f", 1), DELETE(1), DPUT(1) },
		{ LOOKUP(0, "f", 1), DPUT(1) } },
		.check = check_dput_vs_delete },
	[DCSIM_DSCN_LOOKUP_SHRINK] = { "lookup-shrink", build_lookup_shrink, {
		{ DPUT(1), LOOKUP(0, "g", 2), DPUT(2) },
		{ PRUNE(3), PRUNE(3) },
		{ LOOKUP(0, "f", 1), DPUT(1) } } },
	[DCSIM_DSCN_OP_DELETE] = { "op-delete", build_op_delete, {
		{ DPUT(1), DPUT(2) },
		{ DPUT(2), DPUT(1) },
		{ LOOKUP(0, "g", 1), DPUT(1) } },
		.check = check_op_delete },
	[DCSIM_DSCN_CASCADE] = { "cascade", build_cascade, {
		{ DROP(1), DPUT(1) },
		{ LOOKUP(1, "b2", 2), DPUT(2), LOOKUP_MISS(1, "b", 3), DPUT(1) },
		{ PRUNE(8) } },
		.check = check_cascade },
	/*
	 * LRU [f, e, g], none REFERENCED: T0's prune scans f (or e, if f is
	 * gone) and never reaches g, so g's final put always sets REFERENCED.
	 */
	[DCSIM_DSCN_PRUNE_VS_DROP] = { "prune-vs-drop", build_prune_vs_drop, {
		{ PRUNE(1) },
		{ LOOKUP(0, "f", 1), DROP(1), DPUT(1) },
		{ LOOKUP_HIT(0, "g", 1), DPUT(1) } } },
	/* d/p/{f,g}, p held only by its children: the last kill cascades to p. */
	[DCSIM_DSCN_PRUNE_SIBLINGS] = { "prune-siblings", build_prune_siblings, {
		{ PRUNE(1) },
		{ PRUNE(1) },
		{ LOOKUP(0, "p", 1), LOOKUP(1, "f", 2), DPUT(2), DPUT(1) } } },
	/* d/p/{f,g}; T0 and T2 hold p, T2 holds f. */
	[DCSIM_DSCN_INVALIDATE] = { "invalidate", build_invalidate, {
		{ INVALIDATE(1), DPUT(1) },
		{ PRUNE(2) },
		{ DPUT(1), LOOKUP(2, "g", 3), DPUT(3), DPUT(2) } } },
	[DCSIM_DSCN_SHRINK_ALL] = { "shrink-all", build_shrink_all, {
		{ SHRINK_ALL() },
		{ DPUT(1), LOOKUP(0, "g", 2), DPUT(2) },
		{ LOOKUP(0, "f", 1), DPUT(1) } } },
	[DCSIM_DSCN_DONTCACHE] = { "dontcache", build_dontcache, {
		{ DPUT(1), DPUT(2) },
		{ LOOKUP_HIT(0, "f", 1), SET_FLAGS(1, DCSIM_DCACHE_DONTCACHE), DPUT(1) },
		{ LOOKUP_HIT(0, "g", 1), SET_FLAGS(1, DCSIM_DCACHE_DISCONNECTED), DPUT(1) } },
		.check = check_dontcache },
	/* d/a/b/c, b unhashed and held by c only; T0 and T1 hold c. */
	[DCSIM_DSCN_DGET_PARENT] = { "dget-parent", build_dget_parent, {
		{ DGET_PARENT(1, 2), DPUT(1), DPUT(2) },
		{ DROP(1), DPUT(1) },
		{ LOOKUP_HIT(0, "a", 1), LOOKUP_MISS(1, "b", 2), DPUT(1) } },
		.check = check_cascade },
	/* f and f2 name one inode; f is DONTCACHE: its final put kills it. */
	[DCSIM_DSCN_UNLINK_ALIAS] = { "unlink-alias", build_unlink_alias, {
		{ DPUT(1) },
		{ DELETE(1), DPUT(1) },
		{ LOOKUP(0, "f", 1), DPUT(1) } },
		.check = check_unlink_alias },
	/*
	 * p cached, unused, childless, not REFERENCED.  T0's prune may take p
	 * onto its list, T2 then gives it a child c, and T1's prunes kill c
	 * while p is still on T0's list (__dput_to_list() leaves p to T0).
	 */
	[DCSIM_DSCN_PRUNE_CREATE] = { "prune-create", build_prune_create, {
		{ PRUNE(1) },
		{ PRUNE(1), PRUNE(1) },
		{ LOOKUP(0, "p", 1), CREATE(1, "c", 2), DPUT(2), DPUT(1) } } },
	/*
	 * 339e9e13530b: T0's prune takes f onto its list; T2's d_delete() of
	 * the alias f2 holds the inode's i_lock, so the prune's trylock fails
	 * and it relocks; meanwhile T1 looks f up, d_delete()s it (negative:
	 * T1 is its only user) and puts it back to T0's list.  After the
	 * relock f is unused but has no inode: 6.1 takes that for "somebody
	 * grabbed it" and drops f from its list, on no list at all.
	 */
	[DCSIM_DSCN_PRUNE_DELETE_ALIAS] = { "prune-delete-alias", build_prune_delete_alias, {
		{ PRUNE(1) },
		{ LOOKUP(0, "f", 1), DELETE(1), DPUT(1) },
		{ DELETE(1), DPUT(1) } },
		.latent_unless = DCSIM_STRATEGY_LOCK_FOR_KILL },
	/* f cached and unused; T0 puts it without a reference. */
	[DCSIM_DSCN_MISUSE] = { "misuse-put", build_misuse, {
		{ DPUT_UNOWNED(1) },
		{ LOOKUP_HIT(0, "f", 1), DPUT(1) },
		{ LOOKUP(0, "g", 1), DPUT(1) } },
		.warns = 1, .no_spec = true },
	/*
	 * The RCU-walk scenarios (src/model/namei.c).  Each WALK asserts
	 * that what it returns is positive; its fallbacks are labelled
	 * walk_rcu_* (dcache-cover.h).  None renames under a walk.
	 */
	/* d/a/{f,g}: T1 kills f (drop + final put) while T0 walks to it. */
	[DCSIM_DSCN_WALK_VS_KILL] = { "walk-vs-kill", build_walk_afg, {
		{ WALK(0, "a/f", 1), DPUT(1) },
		{ LOOKUP_HIT(0, "a", 1), LOOKUP_HIT(1, "f", 2), DROP(2), DPUT(2), DPUT(1) },
		{ WALK(0, "a/g", 1), DPUT(1) } },
		.check = check_dput_vs_drop },
	/* d/a/{f,g}: T1 unhashes a, which its children keep alive, under the walks. */
	[DCSIM_DSCN_WALK_VS_DROP] = { "walk-vs-drop", build_walk_afg, {
		{ WALK(0, "a/f", 1), DPUT(1) },
		{ LOOKUP_HIT(0, "a", 1), DROP(1), DPUT(1) },
		{ WALK(0, "a/g", 1), DPUT(1) } },
		.check = check_walk_vs_drop },
	/*
	 * LRU [f, e, g], none REFERENCED: the prunes kill what they scan
	 * unless a walk's reference got there first.
	 */
	[DCSIM_DSCN_WALK_VS_PRUNE] = { "walk-vs-prune", build_prune_vs_drop, {
		{ WALK(0, "f", 1), DPUT(1) },
		{ PRUNE(1), PRUNE(1) },
		{ WALK(0, "g", 1), DPUT(1) } } },
	/*
	 * d/f warm; T1 unlinks f: negative if T0 holds no reference yet, else
	 * unhashed (and killed by the last put).  T0's walk must never return
	 * the negative f (the planted walk fault does).
	 */
	[DCSIM_DSCN_WALK_VS_UNLINK] = { "walk-vs-unlink", build_unlink, {
		{ WALK(0, "f", 1), DPUT(1) },
		{ LOOKUP_HIT(0, "f", 1), DELETE(1), DPUT(1) },
		{ { SOP_END, 0, 0, 0, NULL } } },
		.check = check_dput_vs_delete },
	/* T2's lookup may race the d_seq write section of T0's instantiate. */
	[DCSIM_DSCN_CREATE_IN_PLACE] = { "create-in-place", build_create_in_place, {
		{ LOOKUP(0, "f", 1), INSTANTIATE(1), DPUT(1) },
		{ PRUNE(1), PRUNE(1) },
		{ LOOKUP(0, "f", 1), DPUT(1) } },
		.check = check_create_in_place },
	/*
	 * T0's prune takes f onto its list; T1 looks f up, drops and kills it
	 * (a husk left to T0) and then kills a with its last put, so that a
	 * may be freed before T0 deals with the husk (c2338f2dc7c1: the
	 * husk's d_parent is stale); or T0's trylock of a fails while T1's
	 * put holds it, and T0 relocks a as both die.
	 */
	[DCSIM_DSCN_PRUNE_PARENT_DIES] = { "prune-parent-dies", build_prune_parent_dies, {
		{ PRUNE(1) },
		{ LOOKUP(1, "f", 2), DROP(2), DPUT(2), DPUT(1) },
		{ { SOP_END, 0, 0, 0, NULL } } },
		.check = check_cascade },
	/*
	 * T1's prune takes f and e onto its list; killing f drops p's last
	 * reference, so p dies too, which needs the lock of q, the directory
	 * T0's d_invalidate() walks under that lock while e (on T1's list)
	 * makes it walk again (b2b80195d882, 046b961b45f9: the livelocks of
	 * a shrinker that only trylocked against such a walker).
	 */
	[DCSIM_DSCN_INVALIDATE_CASCADE] = { "invalidate-cascade", build_invalidate_cascade, {
		{ INVALIDATE(1), DPUT(1) },
		{ PRUNE(2) },
		{ { SOP_END, 0, 0, 0, NULL } } } },
	/*
	 * T0's prune takes f, whose inode's i_lock T1's put holds to kill f2,
	 * while that kill wants the directory's lock, which the prune may
	 * hold (3b3f09f48ba7: a shrinker that held the parent and only
	 * trylocked i_lock, against 4.16's kill that held i_lock and only
	 * trylocked the parent).
	 */
	[DCSIM_DSCN_PRUNE_PUT_ALIAS] = { "prune-put-alias", build_prune_put_alias, {
		{ PRUNE(1) },
		{ DPUT(1) },
		{ { SOP_END, 0, 0, 0, NULL } } } },
	/*
	 * T0's prune takes the negative f and, as T1's kill of g holds d,
	 * fails its trylock of d: it drops f's d_lock to take d in order.
	 * Meanwhile T2 looks f up, creates it in place (d_instantiate()) and
	 * puts it: count 0, still on T0's list.  After the relock 6.1's own
	 * shrink_lock_dentry() sees count 0 and returns true without
	 * rechecking d_inode, and T0 kills a positive f whose inode's i_lock
	 * it never took (docs/findings/6.1-shrink-lock-dentry.md).
	 */
	[DCSIM_DSCN_PRUNE_NEGATIVE_CREATE] = { "prune-negative-create",
		build_prune_negative_create, {
		{ PRUNE(2) },
		{ DROP(1), DPUT(1) },
		{ LOOKUP(0, "f", 1), INSTANTIATE(1), DPUT(1) } },
		.check = check_prune_negative_create,
		.latent_if = DCSIM_STRATEGY_SHRINK_LOCK_DENTRY },
	/*
	 * T0's put kills the negative f; its trylock of the directory fails
	 * while T1's kill of g holds it, so it drops f's lock to take the
	 * directory's in order.  In that window T2 looks f up and creates the
	 * file in it: 4.17+'s dentry_kill() (6.1's, kernel-code/'s k61) sees
	 * "a negative that became positive" and takes the new inode's i_lock
	 * first (docs/windows.md: dentry_kill:parent-d_lock:3).
	 */
	[DCSIM_DSCN_PUT_NEGATIVE_CREATE] = { "put-negative-create", build_put_negative_create, {
		{ DPUT(1) },
		{ DROP(1), DPUT(1) },
		{ LOOKUP(0, "f", 1), INSTANTIATE(1), DPUT(1) } } },
	/*
	 * The rename scenarios (src/model/rename.c): a rename changes
	 * d_parent under code that dropped d_lock to take the parent's in
	 * order.  T0's put of the DONTCACHE f kills it; its trylock of d
	 * fails while T2's kill of g (or T1's rename) holds d, so it drops
	 * f's lock to take d's (__lock_parent()).  Meanwhile T1 looks f up
	 * and moves it to e: d is no longer f's parent when T0 gets it, and
	 * T0 must let d go and lock e (docs/windows.md:
	 * __lock_parent:parent-d_lock:2).
	 */
	[DCSIM_DSCN_RENAME_VS_PUT] = { "rename-vs-put", dscn_build_rename_vs_put, {
		{ DPUT(1) },
		{ LOOKUP(0, "f", 1), RENAME(1, 2), DPUT(1), DPUT(2) },
		{ DROP(1), DPUT(1) } } },
	/*
	 * T0's prune takes f; its trylock of d fails while T2's kill of g
	 * (or T1's rename) holds d, and it drops f's lock to take d's in
	 * order (shrink_lock_dentry()).  Meanwhile T1 looks f up and moves
	 * it to e: after the relock d is not f's parent (6.1 gives f up:
	 * shrink_lock_dentry:parent-d_lock:3).
	 */
	[DCSIM_DSCN_RENAME_VS_PRUNE] = { "rename-vs-prune", dscn_build_rename_vs_prune, {
		{ PRUNE(1) },
		{ LOOKUP(0, "f", 1), RENAME(1, 2), DPUT(1), DPUT(2) },
		{ DROP(1), DPUT(1) } } },
	/*
	 * T1 moves f to e and T2 moves it back to d while T0 takes a
	 * reference on f's parent: a rename's d_seq write sends dget_parent()
	 * to its locked path, where the parent it read may no longer be f's
	 * once it has its lock, after the other rename (dget_parent:d_lock:2).
	 */
	[DCSIM_DSCN_RENAME_VS_DGET_PARENT] = { "rename-vs-dget-parent",
		dscn_build_rename_vs_dget_parent, {
		{ DGET_PARENT(1, 2), DPUT(2), DPUT(1) },
		{ RENAME(1, 2), DPUT(1), DPUT(2) },
		{ RENAME(1, 0), DPUT(1), DPUT(2) } } },
	/*
	 * T0's d_invalidate() of p walks p's subtree (d_walk()) while T1
	 * moves the directory f out of p to e: the walk sees rename_lock's
	 * sequence move and walks again with rename_lock held
	 * (d_walk:parent-d_lock:5).  When the move comes while the walk is
	 * inside f/x, only that recheck keeps the walk from climbing out of
	 * f into e and collecting e's z (dscn_build_rename_vs_invalidate()).
	 */
	[DCSIM_DSCN_RENAME_VS_INVALIDATE] = { "rename-vs-invalidate",
		dscn_build_rename_vs_invalidate, {
		{ INVALIDATE(1), DPUT(2), DPUT(1) },
		{ RENAME(1, 2), DPUT(1), DPUT(2), DPUT(3) },
		{ PRUNE(1) } } },
	/*
	 * The teardown of a filesystem that pins its dentries
	 * (src/model/genocide.c): T0's d_genocide() of d drops the pins of
	 * g and f while T1 puts the unhashed u (its final put kills it) and
	 * its own reference on g, and T2's prune kills the negative n.
	 * The walk skips u and n while they live (D_WALK_SKIP: no pin; the
	 * release of the child's d_lock is docs/windows.md's
	 * d_walk:d_lock:3), then kills what is unused.
	 */
	[DCSIM_DSCN_GENOCIDE_VS_PUT_PRUNE] = { "genocide-vs-put-prune", dscn_build_genocide, {
		{ GENOCIDE(0) },
		{ DPUT(1), DPUT(2) },
		{ PRUNE(2) } } },
};

_Static_assert(sizeof(scn_defs) / sizeof(scn_defs[0]) == DCSIM_DSCN_NR,
	       "one definition per scenario of <dcsim/explore-dcache.h>");
