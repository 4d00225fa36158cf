// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Dentry cache scenarios for the explorer: dput() against every operation
 * that can race with it in fs/dcache.c, on a tree small enough that random
 * walk and PCT cover it in a few hundred executions.
 *
 * A scenario is a setup (a tree, and the references each thread starts
 * with) and one short program per logical thread: a list of cache calls on
 * the thread's slots.  Slot 0 is the directory "d", borrowed (the
 * controller holds a reference until teardown); the other slots hold
 * references the thread owns and must drop.  Setup and check run on the
 * controller thread, outside the explorer, so they can use the cache
 * freely.
 *
 * Because the programs are data, the check can run them on the executable
 * spec too (tests/differential/spec.c, compiled into the check library):
 * exactly, in the order they ran, when no two calls overlapped; else it
 * requires the final state to be that of some serial order (docs/testing.md).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/cache.h>
#include <dcsim/dentry.h>
#include <dcsim/explore-dcache.h>
#include <dcsim/explore.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

#include "../../tests/differential/spec.h"

#define NTHREADS	3
#define NSLOTS		6
#define MAXOPS		6
#define MAX_OUTCOMES	512

enum sop_kind {
	SOP_END,
	SOP_DPUT,		/* dput(slot a); the slot is emptied */
	SOP_LOOKUP,		/* slot dst = d_lookup(slot a, name) */
	SOP_LOOKUP_HIT,		/* ... which must find it */
	SOP_LOOKUP_MISS,	/* ... which must not */
	SOP_DROP,		/* d_drop(slot a) */
	SOP_DELETE,		/* d_delete(slot a) */
	SOP_INVALIDATE,		/* d_invalidate(slot a) */
	SOP_PRUNE,		/* prune(n) */
	SOP_SHRINK_ALL,
	SOP_DGET_PARENT,	/* slot dst = dget_parent(slot a) */
	SOP_SET_FLAGS,		/* d_set_flags(slot a, n) */
	SOP_DPUT_UNOWNED,	/* misuse: dput(slot a) without owning a reference */
	SOP_CREATE,		/* slot dst = d_alloc(slot a, name) + d_add(positive) */
};

struct sop {
	uint8_t kind, a, dst;
	uint32_t n;
	const char *name;
};

#define DPUT(s)			{ SOP_DPUT, s, 0, 0, NULL }
#define LOOKUP(p, nm, d)	{ SOP_LOOKUP, p, d, 0, nm }
#define LOOKUP_HIT(p, nm, d)	{ SOP_LOOKUP_HIT, p, d, 0, nm }
#define LOOKUP_MISS(p, nm, d)	{ SOP_LOOKUP_MISS, p, d, 0, nm }
#define DROP(s)			{ SOP_DROP, s, 0, 0, NULL }
#define DELETE(s)		{ SOP_DELETE, s, 0, 0, NULL }
#define INVALIDATE(s)		{ SOP_INVALIDATE, s, 0, 0, NULL }
#define PRUNE(k)		{ SOP_PRUNE, 0, 0, k, NULL }
#define SHRINK_ALL()		{ SOP_SHRINK_ALL, 0, 0, 0, NULL }
#define DGET_PARENT(s, d)	{ SOP_DGET_PARENT, s, d, 0, NULL }
#define SET_FLAGS(s, f)		{ SOP_SET_FLAGS, s, 0, f, NULL }
#define DPUT_UNOWNED(s)		{ SOP_DPUT_UNOWNED, s, 0, 0, NULL }
#define CREATE(p, nm, d)	{ SOP_CREATE, p, d, 0, nm }

/* What a scenario is: its programs and how its end state is judged. */
struct scn_def {
	const char *name;
	struct sop prog[NTHREADS][MAXOPS];
	unsigned int warns;		/* misuse warnings expected */
	bool no_spec;			/* not comparable with the spec (misuse) */
};

static const struct scn_def scn_defs[DCSIM_DSCN_NR] = {
	[DCSIM_DSCN_FINAL_DPUTS] = { "final-dputs", {
		{ DPUT(1) },
		{ DPUT(1) },
		{ LOOKUP(0, "f", 1), DPUT(1) } } },
	[DCSIM_DSCN_FINAL_DPUTS_COLD] = { "final-dputs-cold", {
		{ DPUT(1) },
		{ DPUT(1) },
		{ LOOKUP(0, "f", 1), DPUT(1) } } },
	[DCSIM_DSCN_DPUT_VS_DROP] = { "dput-vs-drop", {
		{ DPUT(1) },
		/* f is hashed until we unhash it: the lookup cannot fail. */
		{ LOOKUP_HIT(0, "f", 1), DROP(1), DPUT(1) },
		{ LOOKUP(0, "f", 1), DPUT(1) } } },
	[DCSIM_DSCN_DPUT_VS_DELETE] = { "dput-vs-delete", {
		{ DPUT(1) },
		{ LOOKUP_HIT(0, "f", 1), DELETE(1), DPUT(1) },
		{ LOOKUP(0, "f", 1), DPUT(1) } } },
	[DCSIM_DSCN_LOOKUP_SHRINK] = { "lookup-shrink", {
		{ DPUT(1), LOOKUP(0, "g", 2), DPUT(2) },
		{ PRUNE(3), PRUNE(3) },
		{ LOOKUP(0, "f", 1), DPUT(1) } } },
	[DCSIM_DSCN_OP_DELETE] = { "op-delete", {
		{ DPUT(1), DPUT(2) },
		{ DPUT(2), DPUT(1) },
		{ LOOKUP(0, "g", 1), DPUT(1) } } },
	[DCSIM_DSCN_CASCADE] = { "cascade", {
		{ DROP(1), DPUT(1) },
		{ LOOKUP(1, "b2", 2), DPUT(2), LOOKUP_MISS(1, "b", 3), DPUT(1) },
		{ PRUNE(8) } } },
	/*
	 * LRU [f, e, g], none REFERENCED: T0's prune scans f (or e, if f is
	 * gone) and never reaches g, so g's final put always sets REFERENCED.
	 */
	[DCSIM_DSCN_PRUNE_VS_DROP] = { "prune-vs-drop", {
		{ PRUNE(1) },
		{ LOOKUP(0, "f", 1), DROP(1), DPUT(1) },
		{ LOOKUP_HIT(0, "g", 1), DPUT(1) } } },
	/* d/p/{f,g}, p held only by its children: the last kill cascades to p. */
	[DCSIM_DSCN_PRUNE_SIBLINGS] = { "prune-siblings", {
		{ PRUNE(1) },
		{ PRUNE(1) },
		{ LOOKUP(0, "p", 1), LOOKUP(1, "f", 2), DPUT(2), DPUT(1) } } },
	/* d/p/{f,g}; T0 and T2 hold p, T2 holds f. */
	[DCSIM_DSCN_INVALIDATE] = { "invalidate", {
		{ INVALIDATE(1), DPUT(1) },
		{ PRUNE(2) },
		{ DPUT(1), LOOKUP(2, "g", 3), DPUT(3), DPUT(2) } } },
	[DCSIM_DSCN_SHRINK_ALL] = { "shrink-all", {
		{ SHRINK_ALL() },
		{ DPUT(1), LOOKUP(0, "g", 2), DPUT(2) },
		{ LOOKUP(0, "f", 1), DPUT(1) } } },
	[DCSIM_DSCN_DONTCACHE] = { "dontcache", {
		{ DPUT(1), DPUT(2) },
		{ LOOKUP_HIT(0, "f", 1), SET_FLAGS(1, DCSIM_DCACHE_DONTCACHE), DPUT(1) },
		{ LOOKUP_HIT(0, "g", 1), SET_FLAGS(1, DCSIM_DCACHE_DISCONNECTED), DPUT(1) } } },
	/* d/a/b/c, b unhashed and held by c only; T0 and T1 hold c. */
	[DCSIM_DSCN_DGET_PARENT] = { "dget-parent", {
		{ DGET_PARENT(1, 2), DPUT(1), DPUT(2) },
		{ DROP(1), DPUT(1) },
		{ LOOKUP_HIT(0, "a", 1), LOOKUP_MISS(1, "b", 2), DPUT(1) } } },
	/* f and f2 name one inode; f is DONTCACHE: its final put kills it. */
	[DCSIM_DSCN_UNLINK_ALIAS] = { "unlink-alias", {
		{ DPUT(1) },
		{ DELETE(1), DPUT(1) },
		{ LOOKUP(0, "f", 1), DPUT(1) } } },
	/*
	 * p cached, unused, childless, not REFERENCED.  T0's prune may take p
	 * onto its list, T2 then gives it a child c, and T1's prunes kill c
	 * while p is still on T0's list (__dput_to_list() leaves p to T0).
	 */
	[DCSIM_DSCN_PRUNE_CREATE] = { "prune-create", {
		{ PRUNE(1) },
		{ PRUNE(1), PRUNE(1) },
		{ LOOKUP(0, "p", 1), CREATE(1, "c", 2), DPUT(2), DPUT(1) } } },
	/* f cached and unused; T0 puts it without a reference. */
	[DCSIM_DSCN_MISUSE] = { "misuse-put", {
		{ DPUT_UNOWNED(1) },
		{ LOOKUP_HIT(0, "f", 1), DPUT(1) },
		{ LOOKUP(0, "g", 1), DPUT(1) } }, .warns = 1, .no_spec = true },
};

/* A compact end state for "some serial order" comparisons (no LRU order). */
struct rstate {
	uint64_t id, parent;
	int32_t count;
	uint32_t flags;
	bool hashed, on_lru;
};

struct routcome {
	size_t nr;
	struct rstate *v;
};

/* Per exploration: the spec of the setup state and every serial outcome. */
struct dscn_arg {
	enum dcsim_dcache_scenario kind;
	const struct dcsim_dput_strategy *strategy;
	bool ready;
	struct spec *init;			/* the spec at the end of setup */
	uint32_t init_slot[NTHREADS][NSLOTS];	/* spec ids in the slots */
	struct routcome outcomes[MAX_OUTCOMES];
	size_t nr_outcomes;
	bool outcomes_overflow;			/* too many: the any-order check is off */
};

struct dscn {
	struct dscn_arg *arg;
	const struct scn_def *def;
	struct dcsim_cache *cache;
	struct dcsim_dentry *root, *dir;
	struct dcsim_dentry *slot[NTHREADS][NSLOTS];
	enum spec_op_kind op_kind[SPEC_MAX + 1];	/* by dentry id */
	uint64_t id_f, id_g, id_b, id_c;
	unsigned long warn0;
	uint64_t skips0;	/* shrinker trylock failures before the threads ran */
	/* when each call began and ended, in a clock only the running thread ticks */
	unsigned long clock;
	unsigned long t_begin[NTHREADS][MAXOPS], t_end[NTHREADS][MAXOPS];
	unsigned int nr_ran[NTHREADS];
	bool broken;		/* setup failed */
};

const char *dcsim_dcache_scenario_name(enum dcsim_dcache_scenario scn)
{
	if ((unsigned int)scn >= DCSIM_DSCN_NR)
		return NULL;
	return scn_defs[scn].name;
}

unsigned int dcsim_explore_verify_cache(struct dcsim_cache *cache, const struct dcsim_held_ref *held,
				       size_t nr_held, unsigned int flags)
{
	char report[1536];
	unsigned int n;

	report[0] = '\0';
	n = dcsim_cache_verify(cache, held, nr_held, flags, report, sizeof(report));
	if (n)
		dcsim_explore_fail("%u cache invariant violation%s: %s", n, n == 1 ? "" : "s", report);
	return n;
}

/* ---- building the tree (controller thread) ---- */

static int keep(const struct dcsim_dentry *d)
{
	(void)d;
	return 0;
}

static int discard(const struct dcsim_dentry *d)
{
	(void)d;
	return 1;
}

static const struct dcsim_dentry_operations keep_ops = { .d_delete = keep };
static const struct dcsim_dentry_operations discard_ops = { .d_delete = discard };

/* A new hashed positive child, with one reference. */
static struct dcsim_dentry *mk(struct dscn *s, struct dcsim_dentry *parent, const char *name,
			       const struct dcsim_dentry_operations *ops)
{
	struct dcsim_dentry *d = parent ? dcsim_d_alloc(parent, name) : NULL;

	if (!d || dcsim_d_id(d) > SPEC_MAX) {
		s->broken = true;
		return NULL;
	}
	if (ops) {
		dcsim_d_set_op(d, ops);
		s->op_kind[dcsim_d_id(d)] = ops == &keep_ops ? SPEC_OP_NEVER : SPEC_OP_ALWAYS;
	}
	dcsim_d_add(d, true);
	return d;
}

static struct dcsim_dentry *lookup(struct dscn *s, struct dcsim_dentry *parent, const char *name)
{
	struct dcsim_dentry *d = parent ? dcsim_d_lookup(parent, name) : NULL;

	if (!d)
		s->broken = true;
	return d;
}

/*
 * Drop the reference, then look it up and drop it again: in every retain
 * style the dentry is then unused, on the LRU and REFERENCED, the state in
 * which the rtm and fast-htm transactions commit.
 */
static void warm(struct dscn *s, struct dcsim_dentry *parent, struct dcsim_dentry *d,
		 const char *name)
{
	if (!d)
		return;
	dcsim_dput(d);
	dcsim_dput(lookup(s, parent, name));
}

/* Build the scenario's tree and hand out the threads' starting references. */
static void build(struct dscn *s)
{
	struct dcsim_dentry *f, *g, *p, *a, *b, *c, *b2, *f2;

	switch (s->arg->kind) {
	case DCSIM_DSCN_FINAL_DPUTS:
	case DCSIM_DSCN_DPUT_VS_DROP:
	case DCSIM_DSCN_DPUT_VS_DELETE:
		f = mk(s, s->dir, "f", NULL);
		if (!f)
			break;
		s->id_f = dcsim_d_id(f);
		warm(s, s->dir, f, "f");
		s->slot[0][1] = lookup(s, s->dir, "f");
		if (s->arg->kind == DCSIM_DSCN_FINAL_DPUTS)
			s->slot[1][1] = lookup(s, s->dir, "f");
		break;
	case DCSIM_DSCN_FINAL_DPUTS_COLD:
		f = mk(s, s->dir, "f", NULL);
		if (!f)
			break;
		s->id_f = dcsim_d_id(f);
		s->slot[0][1] = f;
		s->slot[1][1] = dcsim_dget(f);
		break;
	case DCSIM_DSCN_LOOKUP_SHRINK:
		f = mk(s, s->dir, "f", NULL);
		g = mk(s, s->dir, "g", NULL);
		warm(s, s->dir, f, "f");
		warm(s, s->dir, g, "g");
		s->slot[0][1] = lookup(s, s->dir, "f");
		break;
	case DCSIM_DSCN_OP_DELETE:
		f = mk(s, s->dir, "f", &keep_ops);
		g = mk(s, s->dir, "g", &discard_ops);
		if (!f || !g)
			break;
		s->id_f = dcsim_d_id(f);
		s->id_g = dcsim_d_id(g);
		s->slot[0][1] = f;
		s->slot[1][1] = dcsim_dget(f);
		s->slot[0][2] = g;
		s->slot[1][2] = dcsim_dget(g);
		break;
	case DCSIM_DSCN_CASCADE:
		/* d/a/{b/c, b2}: b unhashed, held only by c; a held by T1. */
		a = mk(s, s->dir, "a", NULL);
		b = mk(s, a, "b", NULL);
		b2 = mk(s, a, "b2", NULL);
		c = mk(s, b, "c", NULL);
		if (!c || !b2)
			break;
		warm(s, a, b2, "b2");
		s->id_b = dcsim_d_id(b);
		s->id_c = dcsim_d_id(c);
		dcsim_d_drop(b);
		dcsim_dput(b);
		s->slot[0][1] = c;
		s->slot[1][1] = a;
		break;
	case DCSIM_DSCN_PRUNE_VS_DROP: {
		struct dcsim_dentry *e;

		f = mk(s, s->dir, "f", NULL);
		e = mk(s, s->dir, "e", NULL);
		g = mk(s, s->dir, "g", NULL);
		if (!f || !e || !g)
			break;
		s->id_f = dcsim_d_id(f);
		s->id_g = dcsim_d_id(g);
		/* LRU order is first-put order: f, e, g. */
		warm(s, s->dir, f, "f");
		warm(s, s->dir, e, "e");
		warm(s, s->dir, g, "g");
		/* All rotate once, in order, and lose REFERENCED. */
		dcsim_prune(s->cache, 3);
		break;
	}
	case DCSIM_DSCN_SHRINK_ALL:
	case DCSIM_DSCN_DONTCACHE:
	case DCSIM_DSCN_MISUSE:
		f = mk(s, s->dir, "f", NULL);
		g = mk(s, s->dir, "g", NULL);
		if (!f || !g)
			break;
		s->id_f = dcsim_d_id(f);
		s->id_g = dcsim_d_id(g);
		warm(s, s->dir, f, "f");
		warm(s, s->dir, g, "g");
		if (s->arg->kind == DCSIM_DSCN_SHRINK_ALL) {
			s->slot[1][1] = lookup(s, s->dir, "f");
		} else if (s->arg->kind == DCSIM_DSCN_DONTCACHE) {
			s->slot[0][1] = lookup(s, s->dir, "f");
			s->slot[0][2] = lookup(s, s->dir, "g");
		} else {
			s->slot[0][1] = f;	/* borrowed: no reference */
		}
		break;
	case DCSIM_DSCN_PRUNE_SIBLINGS:
	case DCSIM_DSCN_INVALIDATE:
		p = mk(s, s->dir, "p", NULL);
		f = mk(s, p, "f", NULL);
		g = mk(s, p, "g", NULL);
		if (!f || !g)
			break;
		s->id_f = dcsim_d_id(f);
		s->id_g = dcsim_d_id(g);
		warm(s, p, f, "f");
		warm(s, p, g, "g");
		dcsim_prune(s->cache, 2);	/* neither REFERENCED now */
		if (s->arg->kind == DCSIM_DSCN_INVALIDATE) {
			s->slot[0][1] = dcsim_dget(p);
			s->slot[2][1] = lookup(s, p, "f");
			s->slot[2][2] = dcsim_dget(p);
		}
		dcsim_dput(p);		/* held by its children (and the threads) */
		break;
	case DCSIM_DSCN_DGET_PARENT:
		/* d/a/b/c: b unhashed, held only by c. */
		a = mk(s, s->dir, "a", NULL);
		b = mk(s, a, "b", NULL);
		c = mk(s, b, "c", NULL);
		if (!c)
			break;
		s->id_b = dcsim_d_id(b);
		s->id_c = dcsim_d_id(c);
		dcsim_dput(a);
		dcsim_d_drop(b);
		dcsim_dput(b);
		s->slot[0][1] = c;
		s->slot[1][1] = dcsim_dget(c);
		break;
	case DCSIM_DSCN_PRUNE_CREATE:
		p = mk(s, s->dir, "p", NULL);
		warm(s, s->dir, p, "p");
		dcsim_prune(s->cache, 1);	/* rotated: no longer REFERENCED */
		break;
	case DCSIM_DSCN_UNLINK_ALIAS:
		f = mk(s, s->dir, "f", NULL);
		f2 = f ? dcsim_d_alloc(s->dir, "f2") : NULL;
		if (!f2 || dcsim_d_add_link(f2, f)) {
			s->broken = true;
			break;
		}
		s->id_f = dcsim_d_id(f);
		s->id_g = dcsim_d_id(f2);
		dcsim_d_set_flags(f, DCSIM_DCACHE_DONTCACHE);
		s->slot[0][1] = f;
		s->slot[1][1] = f2;
		break;
	case DCSIM_DSCN_NR:
		break;
	}
}

/* ---- the spec side ---- */

/* Only the used part: an exploration copies the spec thousands of times. */
static void spec_copy(struct spec *dst, const struct spec *src)
{
	dst->style = src->style;
	dst->next_id = src->next_id;
	memcpy(dst->d, src->d, sizeof(src->d[0]) * src->next_id);
	dst->nlru = src->nlru;
	memcpy(dst->lru, src->lru, sizeof(src->lru[0]) * src->nlru);
	dst->allocs = src->allocs;
	dst->kills = src->kills;
	dst->frees = src->frees;
}

static int spec_from_snapshot(struct spec *sp, const struct dcsim_cache_snapshot *snap,
			      enum dcsim_retain_style style, const enum spec_op_kind *op_kind)
{
	uint32_t max = 0;

	spec_init(sp, style);
	for (size_t i = 0; i < snap->nr; i++) {
		const struct dcsim_dentry_state *st = &snap->dentries[i];
		struct spec_dentry *d;

		if (st->id > SPEC_MAX || st->dead)
			return -1;
		d = &sp->d[st->id];
		d->exists = true;
		d->parent = (uint32_t)st->parent_id;
		snprintf(d->name, sizeof(d->name), "%s", st->name);
		d->count = st->count;
		d->flags = st->flags;
		d->hashed = st->hashed;
		d->op = (st->flags & DCSIM_DCACHE_OP_DELETE) ? op_kind[st->id] : SPEC_OP_NONE;
		if (st->lru_pos >= 0) {
			if (st->lru_pos >= SPEC_MAX)
				return -1;
			sp->lru[st->lru_pos] = (uint32_t)st->id;
			sp->nlru++;
		}
		if (st->id > max)
			max = (uint32_t)st->id;
	}
	if ((int64_t)sp->nlru != snap->counters.nr_lru || snap->counters.allocs > SPEC_MAX)
		return -1;
	sp->next_id = (uint32_t)snap->counters.allocs + 1;
	if (sp->next_id <= max)
		return -1;
	sp->allocs = snap->counters.allocs;
	sp->kills = snap->counters.kills;
	sp->frees = snap->counters.frees;
	return 0;
}

/* One call of thread @t's program on the spec. */
static void spec_step(struct spec *sp, uint32_t *slot, const struct sop *op)
{
	uint32_t a = slot[op->a];

	switch (op->kind) {
	case SOP_DPUT:
		if (a)
			spec_dput(sp, a);
		slot[op->a] = 0;
		break;
	case SOP_LOOKUP:
	case SOP_LOOKUP_HIT:
	case SOP_LOOKUP_MISS:
		slot[op->dst] = a ? spec_lookup(sp, a, op->name) : 0;
		break;
	case SOP_DROP:
		if (a)
			spec_drop(sp, a);
		break;
	case SOP_DELETE:
		if (a)
			spec_delete(sp, a);
		break;
	case SOP_INVALIDATE:
		if (a)
			spec_invalidate(sp, a);
		break;
	case SOP_PRUNE:
		spec_prune(sp, op->n);
		break;
	case SOP_SHRINK_ALL:
		spec_shrink_all(sp);
		break;
	case SOP_DGET_PARENT:
		slot[op->dst] = a ? spec_dget_parent(sp, a) : 0;
		break;
	case SOP_SET_FLAGS:
		if (a)
			spec_set_flags(sp, a, op->n);
		break;
	case SOP_CREATE:
		slot[op->dst] = 0;
		if (a) {
			slot[op->dst] = spec_alloc(sp, a, op->name);
			spec_add(sp, slot[op->dst], true);
		}
		break;
	case SOP_DPUT_UNOWNED:
	case SOP_END:
		break;
	}
}

static int rstate_from_snapshot(const struct dcsim_cache_snapshot *snap, struct routcome *out)
{
	out->nr = snap->nr;
	out->v = calloc(snap->nr ? snap->nr : 1, sizeof(*out->v));
	if (!out->v)
		return -1;
	for (size_t i = 0; i < snap->nr; i++) {
		const struct dcsim_dentry_state *st = &snap->dentries[i];

		out->v[i] = (struct rstate){
			.id = st->id, .parent = st->parent_id, .count = st->count,
			.flags = st->flags, .hashed = st->hashed, .on_lru = st->lru_pos >= 0,
		};
	}
	return 0;
}

static bool routcome_equal(const struct routcome *a, const struct routcome *b)
{
	return a->nr == b->nr && !memcmp(a->v, b->v, a->nr * sizeof(a->v[0]));
}

static void add_outcome(struct dscn_arg *arg, const struct spec *sp)
{
	struct dcsim_cache_snapshot snap;
	struct routcome o;

	if (arg->outcomes_overflow || spec_snapshot(sp, &snap))
		goto overflow;
	if (rstate_from_snapshot(&snap, &o)) {
		free(snap.dentries);
		goto overflow;
	}
	free(snap.dentries);
	for (size_t i = 0; i < arg->nr_outcomes; i++) {
		if (routcome_equal(&arg->outcomes[i], &o)) {
			free(o.v);
			return;
		}
	}
	if (arg->nr_outcomes == MAX_OUTCOMES) {
		free(o.v);
		goto overflow;
	}
	arg->outcomes[arg->nr_outcomes++] = o;
	return;
overflow:
	arg->outcomes_overflow = true;
}

/* Every interleaving of whole calls, depth first; @sps[depth] is scratch. */
static void enumerate(struct dscn_arg *arg, const struct scn_def *def, struct spec *sps,
		      unsigned int depth, const unsigned int *pos, uint32_t (*slots)[NSLOTS])
{
	bool any = false;

	for (unsigned int t = 0; t < NTHREADS; t++) {
		const struct sop *op = &def->prog[t][pos[t]];
		unsigned int npos[NTHREADS];
		uint32_t nslots[NTHREADS][NSLOTS];

		if (pos[t] >= MAXOPS || op->kind == SOP_END)
			continue;
		any = true;
		memcpy(npos, pos, sizeof(npos));
		memcpy(nslots, slots, sizeof(nslots));
		spec_copy(&sps[depth + 1], &sps[depth]);
		spec_step(&sps[depth + 1], nslots[t], op);
		npos[t]++;
		enumerate(arg, def, sps, depth + 1, npos, nslots);
	}
	if (!any)
		add_outcome(arg, &sps[depth]);
}

/* First setup of an exploration: the spec of the start state, and its outcomes. */
static void prepare_spec(struct dscn *s)
{
	struct dscn_arg *arg = s->arg;
	struct dcsim_cache_snapshot snap;
	unsigned int pos[NTHREADS] = { 0 }, nops = 0;
	struct spec *sps;

	arg->ready = true;
	if (s->def->no_spec)
		return;
	for (unsigned int t = 0; t < NTHREADS; t++)
		for (unsigned int i = 0; i < MAXOPS && s->def->prog[t][i].kind != SOP_END; i++)
			nops++;
	sps = calloc(nops + 1, sizeof(*sps));
	arg->init = calloc(1, sizeof(*arg->init));
	if (!sps || !arg->init || dcsim_cache_snapshot(s->cache, &snap)) {
		free(sps);
		free(arg->init);
		arg->init = NULL;
		return;
	}
	if (spec_from_snapshot(arg->init, &snap, s->arg->strategy->retain_style, s->op_kind)) {
		free(arg->init);
		arg->init = NULL;
	}
	dcsim_cache_snapshot_release(&snap);
	if (!arg->init) {
		free(sps);
		return;
	}
	for (unsigned int t = 0; t < NTHREADS; t++)
		for (unsigned int i = 0; i < NSLOTS; i++)
			arg->init_slot[t][i] = s->slot[t][i] ? (uint32_t)dcsim_d_id(s->slot[t][i]) : 0;
	spec_copy(&sps[0], arg->init);
	enumerate(arg, s->def, sps, 0, pos, arg->init_slot);
	free(sps);
}

static void release_spec(struct dscn_arg *arg)
{
	for (size_t i = 0; i < arg->nr_outcomes; i++)
		free(arg->outcomes[i].v);
	free(arg->init);
}

/* How the end states were judged, process-wide (dcsim_dcache_spec_checks()). */
static unsigned long spec_checks[DCSIM_SPEC_CHECK_NR];

void dcsim_dcache_spec_checks(unsigned long *out)
{
	for (unsigned int i = 0; i < DCSIM_SPEC_CHECK_NR; i++)
		out[i] = __atomic_load_n(&spec_checks[i], __ATOMIC_RELAXED);
}

static void count_check(enum dcsim_spec_check kind)
{
	__atomic_fetch_add(&spec_checks[kind], 1, __ATOMIC_RELAXED);
}

static uint64_t lru_skips(void)
{
	uint64_t v[DCSIM_COVER_NR];

	dcsim_dcache_cover_read(v);
	return v[DCSIM_COVER_LRU_SKIP];
}

static void *dscn_setup(void *argp)
{
	struct dscn_arg *arg = argp;
	struct dcsim_cache_config cfg = { .strategy = arg->strategy };
	struct dscn *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->arg = arg;
	s->def = &scn_defs[arg->kind];
	s->cache = dcsim_cache_create(&cfg);
	if (!s->cache) {
		free(s);
		return NULL;
	}
	s->root = dcsim_d_alloc_root(s->cache, "root");
	s->dir = s->root ? mk(s, s->root, "d", NULL) : NULL;
	if (!s->root || !s->dir) {
		s->broken = true;
		return s;
	}
	build(s);
	/* Slot 0 of every thread: the directory, borrowed (we keep our reference). */
	for (unsigned int t = 0; t < NTHREADS; t++)
		s->slot[t][0] = s->dir;
	if (!s->broken && !arg->ready)
		prepare_spec(s);
	s->warn0 = dcsim_warn_count();
	s->skips0 = lru_skips();
	return s;
}

/* ---- the threads ---- */

static void run_op(struct dscn *s, unsigned int tid, const struct sop *op)
{
	struct dcsim_dentry **slot = s->slot[tid], *a = slot[op->a];

	switch (op->kind) {
	case SOP_DPUT:
		dcsim_dput(a);
		slot[op->a] = NULL;
		break;
	case SOP_LOOKUP:
	case SOP_LOOKUP_HIT:
	case SOP_LOOKUP_MISS:
		slot[op->dst] = a ? dcsim_d_lookup(a, op->name) : NULL;
		if (op->kind == SOP_LOOKUP_HIT)
			dcsim_explore_assert(slot[op->dst] != NULL);
		if (op->kind == SOP_LOOKUP_MISS)
			dcsim_explore_assert(slot[op->dst] == NULL);
		break;
	case SOP_DROP:
		if (a)
			dcsim_d_drop(a);
		break;
	case SOP_DELETE:
		if (a)
			dcsim_d_delete(a);
		break;
	case SOP_INVALIDATE:
		if (a)
			dcsim_d_invalidate(a);
		break;
	case SOP_PRUNE:
		dcsim_prune(s->cache, op->n);
		break;
	case SOP_SHRINK_ALL:
		dcsim_shrink_all(s->cache);
		break;
	case SOP_DGET_PARENT:
		slot[op->dst] = a ? dcsim_dget_parent(a) : NULL;
		break;
	case SOP_SET_FLAGS:
		if (a)
			dcsim_d_set_flags(a, op->n);
		break;
	case SOP_DPUT_UNOWNED:
		dcsim_dput(a);
		slot[op->a] = NULL;
		break;
	case SOP_CREATE:
		slot[op->dst] = a ? dcsim_d_alloc(a, op->name) : NULL;
		dcsim_explore_assert(!a || slot[op->dst]);
		if (slot[op->dst])
			dcsim_d_add(slot[op->dst], true);
		break;
	case SOP_END:
		break;
	}
}

static void dscn_thread(void *state, unsigned int tid)
{
	struct dscn *s = state;

	if (s->broken)
		return;
	for (unsigned int i = 0; i < MAXOPS && s->def->prog[tid][i].kind != SOP_END; i++) {
		/* Only the running logical thread ticks the clock: no schedule point. */
		s->t_begin[tid][i] = ++s->clock;
		run_op(s, tid, &s->def->prog[tid][i]);
		s->t_end[tid][i] = ++s->clock;
		s->nr_ran[tid] = i + 1;
	}
	/* A program drops every reference it owns. */
	for (unsigned int i = 1; i < NSLOTS; i++)
		dcsim_explore_assert(s->slot[tid][i] == NULL);
}

/* ---- the check at quiescence ---- */

static const struct dcsim_dentry_state *find(const struct dcsim_cache_snapshot *snap, uint64_t id)
{
	if (!id)
		return NULL;
	for (size_t i = 0; i < snap->nr; i++)
		if (snap->dentries[i].id == id)
			return &snap->dentries[i];
	return NULL;
}

/*
 * Serial: no call began while another was running.  Then *@order lists the
 * calls as (thread << 8 | index) in the order they ran.
 */
static bool serial_order(const struct dscn *s, unsigned int *order, unsigned int *n)
{
	unsigned long last_end = 0;

	*n = 0;
	for (;;) {
		unsigned int best = ~0u;
		unsigned long best_t = ~0ul;

		for (unsigned int t = 0; t < NTHREADS; t++) {
			unsigned int i = 0;

			/* The next call of t not yet placed. */
			for (unsigned int k = 0; k < *n; k++)
				if ((order[k] >> 8) == t)
					i++;
			if (i < s->nr_ran[t] && s->t_begin[t][i] < best_t) {
				best_t = s->t_begin[t][i];
				best = t << 8 | i;
			}
		}
		if (best == ~0u)
			return true;
		if (best_t < last_end)
			return false;
		last_end = s->t_end[best >> 8][best & 0xff];
		order[(*n)++] = best;
	}
}

static void check_spec(struct dscn *s, const struct dcsim_cache_snapshot *snap)
{
	struct dscn_arg *arg = s->arg;
	unsigned int order[NTHREADS * MAXOPS], n;
	char diff[1024];

	if (!arg->init) {
		dcsim_explore_fail("no spec for this scenario (setup state not representable)");
		return;
	}
	if (serial_order(s, order, &n)) {
		struct spec *sp = calloc(1, sizeof(*sp));
		uint32_t slots[NTHREADS][NSLOTS];
		struct dcsim_cache_snapshot want;

		if (!sp)
			return;
		count_check(DCSIM_SPEC_CHECK_SERIAL);
		spec_copy(sp, arg->init);
		memcpy(slots, arg->init_slot, sizeof(slots));
		for (unsigned int k = 0; k < n; k++)
			spec_step(sp, slots[order[k] >> 8], &s->def->prog[order[k] >> 8][order[k] & 0xff]);
		if (!spec_snapshot(sp, &want)) {
			if (dcsim_snapshot_diff(snap, &want, diff, sizeof(diff)))
				dcsim_explore_fail("serial execution differs from the spec run in the "
						   "same order (first: model, second: spec): %s", diff);
			free(want.dentries);
		}
		free(sp);
		return;
	}
	/*
	 * A shrinker that trylocks a busy d_lock and skips the dentry has no
	 * serial equivalent (a serial prune finds every lock free): such an
	 * execution gets the invariants and the scenario's own checks only.
	 */
	if (!arg->outcomes_overflow && lru_skips() == s->skips0) {
		struct routcome got;

		if (rstate_from_snapshot(snap, &got))
			return;
		count_check(DCSIM_SPEC_CHECK_ANY_ORDER);
		for (size_t i = 0; i < arg->nr_outcomes; i++) {
			if (routcome_equal(&got, &arg->outcomes[i])) {
				free(got.v);
				return;
			}
		}
		free(got.v);
		dcsim_explore_fail("end state is that of no serial order of the calls (%zu serial "
				   "outcomes); DCSIM_TEST_VERBOSE=1 prints it", arg->nr_outcomes);
		if (getenv("DCSIM_TEST_VERBOSE")) {
			char line[256];

			for (size_t i = 0; i < snap->nr; i++) {
				dcsim_dentry_state_format(&snap->dentries[i], line, sizeof(line));
				fprintf(stderr, "dcsim-explore:   model %s\n", line);
			}
		}
		return;
	}
	count_check(DCSIM_SPEC_CHECK_NONE);
}

static void dscn_check(void *state)
{
	struct dscn *s = state;
	struct dcsim_held_ref held[2] = {
		{ .dentry = s->root, .refs = 1 }, { .dentry = s->dir, .refs = 1 },
	};
	struct dcsim_cache_snapshot snap;
	const struct dcsim_dentry_state *f, *g;
	unsigned long warns;
	int64_t kills;

	if (s->broken) {
		dcsim_explore_fail("scenario setup failed");
		return;
	}
	warns = dcsim_warn_count() - s->warn0;
	if (warns != s->def->warns) {
		char last[200];

		dcsim_warn_last(last, sizeof(last));
		dcsim_explore_fail("%lu misuse warning%s, %u expected; the last: %s", warns,
				   warns == 1 ? "" : "s", s->def->warns, warns ? last : "-");
	}
	if (dcsim_explore_verify_cache(s->cache, held, 2, DCSIM_VERIFY_REFS_EXACT))
		return;
	if (dcsim_cache_snapshot(s->cache, &snap)) {
		dcsim_explore_fail("snapshot failed");
		return;
	}
	kills = snap.counters.kills;
	f = find(&snap, s->id_f);
	g = find(&snap, s->id_g);
	switch (s->arg->kind) {
	case DCSIM_DSCN_FINAL_DPUTS:
	case DCSIM_DSCN_FINAL_DPUTS_COLD:
		if (!f || !f->hashed || f->count != 0 || kills)
			dcsim_explore_fail("f should be cached and unused: %s, %" PRId64 " kills",
					   f ? "present" : "gone", kills);
		break;
	case DCSIM_DSCN_DPUT_VS_DROP:
		if (f || kills != 1)
			dcsim_explore_fail("dropped f should be killed exactly once: %s, %" PRId64
					   " kills", f ? "still reachable" : "gone", kills);
		break;
	case DCSIM_DSCN_DPUT_VS_DELETE:
		/* d_delete() with count 1 keeps it (negative), else unhashes it. */
		if (f ? (kills != 0 || !f->hashed || f->count) : kills != 1)
			dcsim_explore_fail("deleted f: %s, %" PRId64 " kills",
					   f ? "still reachable" : "gone", kills);
		break;
	case DCSIM_DSCN_OP_DELETE:
		if (!f || f->count || g || kills != 1)
			dcsim_explore_fail("d_delete() keeps f and discards g exactly once: f %s, "
					   "g %s, %" PRId64 " kills", f ? "present" : "gone",
					   g ? "present" : "gone", kills);
		break;
	case DCSIM_DSCN_CASCADE:
	case DCSIM_DSCN_DGET_PARENT:
		if (find(&snap, s->id_b) || find(&snap, s->id_c))
			dcsim_explore_fail("the cascade must kill c and its unhashed parent b");
		break;
	case DCSIM_DSCN_DONTCACHE:
		if (f || g || kills != 2)
			dcsim_explore_fail("DONTCACHE f and DISCONNECTED g die on their final put: "
					   "f %s, g %s", f ? "present" : "gone", g ? "present" : "gone");
		break;
	case DCSIM_DSCN_UNLINK_ALIAS:
		if (f || !g || (g->flags & DCSIM_DCACHE_ENTRY_TYPE) || g->count)
			dcsim_explore_fail("DONTCACHE f dies, the unlinked alias stays negative");
		break;
	default:
		break;
	}
	if (!s->def->no_spec)
		check_spec(s, &snap);
	dcsim_cache_snapshot_release(&snap);
}

static void dscn_teardown(void *state)
{
	struct dscn *s = state;

	if (!s)
		return;
	if (s->cache) {
		dcsim_dput(s->dir);
		dcsim_dput(s->root);
		dcsim_cache_destroy(s->cache);
	}
	free(s);
}

int dcsim_explore_dcache(const struct dcsim_dput_strategy *strategy, enum dcsim_dcache_scenario scn,
			 const struct dcsim_explore_opts *opts, struct dcsim_explore_result *res)
{
	struct dscn_arg *arg;
	struct dcsim_scenario sc = {
		.nthreads = NTHREADS,
		.setup = dscn_setup,
		.thread = dscn_thread,
		.check = dscn_check,
		.teardown = dscn_teardown,
	};
	char name[128];
	int rc;

	if (!strategy || (unsigned int)scn >= DCSIM_DSCN_NR || !opts)
		return -EINVAL;
	arg = calloc(1, sizeof(*arg));
	if (!arg)
		return -ENOMEM;
	arg->kind = scn;
	arg->strategy = strategy;
	sc.arg = arg;
	snprintf(name, sizeof(name), "%s/%s/%s", scn_defs[scn].name, strategy->name,
		 dcsim_explore_htm_name(opts->htm));
	sc.name = name;
	rc = dcsim_explore_run(&sc, opts, res);
	release_spec(arg);
	free(arg);
	return rc;
}
