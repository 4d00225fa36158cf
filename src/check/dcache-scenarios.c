// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Dentry cache scenarios for the explorer: dput() against every operation
 * that can race with it in fs/dcache.c, on a tree small enough that random
 * walk and PCT cover it in a few hundred executions.
 *
 * Setup and check run on the controller thread, outside the explorer, so
 * they can use the cache freely.  The threads hand references to each other
 * only through the scenario state, set up before the threads start; a
 * thread drops exactly the references it was given or got itself, so at
 * quiescence the only reference outside the cache is the root's.
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

struct dscn {
	enum dcsim_dcache_scenario kind;
	const struct dcsim_dput_strategy *strategy;
	struct dcsim_cache *cache;
	struct dcsim_dentry *root, *dir, *a;
	struct dcsim_dentry *ref[DCSIM_EXPLORE_MAX_THREADS][2];
	/* each thread's own reference on dir, so that it may look up in it */
	struct dcsim_dentry *dref[DCSIM_EXPLORE_MAX_THREADS];
	uint64_t id_f, id_g, id_b, id_c;
	unsigned long warn0;
	bool broken;		/* setup failed */
};

struct dscn_arg {
	enum dcsim_dcache_scenario kind;
	const struct dcsim_dput_strategy *strategy;
};

static const char *const scn_names[DCSIM_DSCN_NR] = {
	[DCSIM_DSCN_FINAL_DPUTS]	= "final-dputs",
	[DCSIM_DSCN_FINAL_DPUTS_COLD]	= "final-dputs-cold",
	[DCSIM_DSCN_DPUT_VS_DROP]	= "dput-vs-drop",
	[DCSIM_DSCN_DPUT_VS_DELETE]	= "dput-vs-delete",
	[DCSIM_DSCN_LOOKUP_SHRINK]	= "lookup-shrink",
	[DCSIM_DSCN_OP_DELETE]		= "op-delete",
	[DCSIM_DSCN_CASCADE]		= "cascade",
};

const char *dcsim_dcache_scenario_name(enum dcsim_dcache_scenario scn)
{
	if ((unsigned int)scn >= DCSIM_DSCN_NR)
		return NULL;
	return scn_names[scn];
}

unsigned int dcsim_explore_check_cache(struct dcsim_cache *cache, const struct dcsim_held_ref *held,
				       size_t nr_held, unsigned int flags)
{
	char report[1536];
	unsigned int n;

	report[0] = '\0';
	n = dcsim_cache_check(cache, held, nr_held, flags, report, sizeof(report));
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
	struct dcsim_dentry *d = dcsim_d_alloc(parent, name);

	if (!d) {
		s->broken = true;
		return NULL;
	}
	if (ops)
		dcsim_d_set_op(d, ops);
	dcsim_d_add(d, true);
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
	struct dcsim_dentry *again;

	dcsim_dput(d);
	again = dcsim_d_lookup(parent, name);
	if (again != d)
		s->broken = true;
	dcsim_dput(again);
}

static struct dcsim_dentry *lookup(struct dscn *s, struct dcsim_dentry *parent, const char *name)
{
	struct dcsim_dentry *d = dcsim_d_lookup(parent, name);

	if (!d)
		s->broken = true;
	return d;
}

static void *dscn_setup(void *argp)
{
	const struct dscn_arg *arg = argp;
	struct dcsim_cache_config cfg = { .strategy = arg->strategy };
	struct dscn *s = calloc(1, sizeof(*s));
	struct dcsim_dentry *f, *g, *b, *c, *b2;

	if (!s)
		return NULL;
	s->kind = arg->kind;
	s->strategy = arg->strategy;
	s->cache = dcsim_cache_create(&cfg);
	if (!s->cache) {
		free(s);
		return NULL;
	}
	s->root = dcsim_d_alloc_root(s->cache, "root");
	s->dir = mk(s, s->root, "d", NULL);
	if (!s->root || !s->dir) {
		s->broken = true;
		return s;
	}

	switch (s->kind) {
	case DCSIM_DSCN_FINAL_DPUTS:
	case DCSIM_DSCN_DPUT_VS_DROP:
	case DCSIM_DSCN_DPUT_VS_DELETE:
		f = mk(s, s->dir, "f", NULL);
		if (!f)
			break;
		s->id_f = dcsim_d_id(f);
		warm(s, s->dir, f, "f");
		s->ref[0][0] = lookup(s, s->dir, "f");
		if (s->kind == DCSIM_DSCN_FINAL_DPUTS)
			s->ref[1][0] = lookup(s, s->dir, "f");
		break;
	case DCSIM_DSCN_FINAL_DPUTS_COLD:
		f = mk(s, s->dir, "f", NULL);
		if (!f)
			break;
		s->id_f = dcsim_d_id(f);
		s->ref[0][0] = f;
		s->ref[1][0] = dcsim_dget(f);
		break;
	case DCSIM_DSCN_LOOKUP_SHRINK:
		f = mk(s, s->dir, "f", NULL);
		g = mk(s, s->dir, "g", NULL);
		if (!f || !g)
			break;
		warm(s, s->dir, f, "f");
		warm(s, s->dir, g, "g");
		s->ref[0][0] = lookup(s, s->dir, "f");
		break;
	case DCSIM_DSCN_OP_DELETE:
		f = mk(s, s->dir, "f", &keep_ops);
		g = mk(s, s->dir, "g", &discard_ops);
		if (!f || !g)
			break;
		s->id_f = dcsim_d_id(f);
		s->id_g = dcsim_d_id(g);
		s->ref[0][0] = f;
		s->ref[1][0] = dcsim_dget(f);
		s->ref[0][1] = g;
		s->ref[1][1] = dcsim_dget(g);
		break;
	case DCSIM_DSCN_CASCADE:
		/* root/d/a/{b/c, b2}: b unhashed, held only by c; a held by T1. */
		s->a = mk(s, s->dir, "a", NULL);
		if (!s->a)
			break;
		b = mk(s, s->a, "b", NULL);
		b2 = mk(s, s->a, "b2", NULL);
		if (!b || !b2)
			break;
		c = mk(s, b, "c", NULL);
		if (!c)
			break;
		warm(s, s->a, b2, "b2");
		s->id_b = dcsim_d_id(b);
		s->id_c = dcsim_d_id(c);
		dcsim_d_drop(b);
		dcsim_dput(b);
		s->ref[0][0] = c;
		s->ref[1][0] = s->a;
		break;
	case DCSIM_DSCN_NR:
		break;
	}
	for (unsigned int t = 0; t < 3; t++)
		s->dref[t] = dcsim_dget(s->dir);
	/* dir's own allocation reference: the threads hold theirs now. */
	dcsim_dput(s->dir);
	s->warn0 = dcsim_warn_count();
	return s;
}

/* ---- the threads ---- */

static void lookup_put(struct dcsim_dentry *parent, const char *name)
{
	dcsim_dput(dcsim_d_lookup(parent, name));
}

static void dscn_thread(void *state, unsigned int tid)
{
	struct dscn *s = state;
	struct dcsim_dentry *r;

	if (s->broken)
		return;
	switch (s->kind) {
	case DCSIM_DSCN_FINAL_DPUTS:
	case DCSIM_DSCN_FINAL_DPUTS_COLD:
		if (tid < 2)
			dcsim_dput(s->ref[tid][0]);
		else
			lookup_put(s->dir, "f");
		break;
	case DCSIM_DSCN_DPUT_VS_DROP:
	case DCSIM_DSCN_DPUT_VS_DELETE:
		if (tid == 0) {
			dcsim_dput(s->ref[0][0]);
		} else if (tid == 1) {
			/* f is hashed until we unhash it: the lookup cannot fail. */
			r = dcsim_d_lookup(s->dir, "f");
			dcsim_explore_assert(r != NULL);
			if (s->kind == DCSIM_DSCN_DPUT_VS_DROP)
				dcsim_d_drop(r);
			else
				dcsim_d_delete(r);
			dcsim_dput(r);
		} else {
			lookup_put(s->dir, "f");
		}
		break;
	case DCSIM_DSCN_LOOKUP_SHRINK:
		if (tid == 0) {
			dcsim_dput(s->ref[0][0]);
			lookup_put(s->dir, "g");
		} else if (tid == 1) {
			dcsim_prune(s->cache, 3);
			dcsim_prune(s->cache, 3);
		} else {
			lookup_put(s->dir, "f");
		}
		break;
	case DCSIM_DSCN_OP_DELETE:
		if (tid == 0) {
			dcsim_dput(s->ref[0][0]);
			dcsim_dput(s->ref[0][1]);
		} else if (tid == 1) {
			dcsim_dput(s->ref[1][1]);
			dcsim_dput(s->ref[1][0]);
		} else {
			lookup_put(s->dir, "g");
		}
		break;
	case DCSIM_DSCN_CASCADE:
		if (tid == 0) {
			dcsim_d_drop(s->ref[0][0]);
			dcsim_dput(s->ref[0][0]);
		} else if (tid == 1) {
			lookup_put(s->a, "b2");
			r = dcsim_d_lookup(s->a, "b");
			dcsim_explore_assert(r == NULL);	/* unhashed since setup */
			dcsim_dput(s->ref[1][0]);
		} else {
			dcsim_prune(s->cache, 8);
		}
		break;
	case DCSIM_DSCN_NR:
		break;
	}
	dcsim_dput(s->dref[tid]);
}

/* ---- the check at quiescence ---- */

static const struct dcsim_dentry_state *find(const struct dcsim_cache_snapshot *snap, uint64_t id)
{
	for (size_t i = 0; i < snap->nr; i++)
		if (snap->dentries[i].id == id)
			return &snap->dentries[i];
	return NULL;
}

static void dscn_check(void *state)
{
	struct dscn *s = state;
	struct dcsim_held_ref held = { .dentry = s->root, .refs = 1 };
	struct dcsim_cache_snapshot snap;
	const struct dcsim_dentry_state *f, *g;
	unsigned long warns;
	int64_t kills;

	if (s->broken) {
		dcsim_explore_fail("scenario setup failed");
		return;
	}
	warns = dcsim_warn_count() - s->warn0;
	if (warns)
		dcsim_explore_fail("%lu misuse warning%s (a dput of a dead or unused dentry?)",
				   warns, warns == 1 ? "" : "s");
	if (dcsim_explore_check_cache(s->cache, &held, 1, DCSIM_CHECK_REFS_EXACT))
		return;
	if (dcsim_cache_snapshot(s->cache, &snap)) {
		dcsim_explore_fail("snapshot failed");
		return;
	}
	kills = snap.counters.kills;
	f = find(&snap, s->id_f);
	g = find(&snap, s->id_g);
	switch (s->kind) {
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
		if (find(&snap, s->id_b) || find(&snap, s->id_c))
			dcsim_explore_fail("the cascade must kill c and its unhashed parent b");
		break;
	case DCSIM_DSCN_LOOKUP_SHRINK:
	case DCSIM_DSCN_NR:
		break;
	}
	dcsim_cache_snapshot_release(&snap);
}

static void dscn_teardown(void *state)
{
	struct dscn *s = state;

	if (!s)
		return;
	if (s->cache) {
		dcsim_dput(s->root);
		dcsim_cache_destroy(s->cache);
	}
	free(s);
}

int dcsim_explore_dcache(const struct dcsim_dput_strategy *strategy, enum dcsim_dcache_scenario scn,
			 const struct dcsim_explore_opts *opts, struct dcsim_explore_result *res)
{
	struct dscn_arg arg = { .kind = scn, .strategy = strategy };
	struct dcsim_scenario sc = {
		.nthreads = 3,
		.setup = dscn_setup,
		.thread = dscn_thread,
		.check = dscn_check,
		.teardown = dscn_teardown,
		.arg = &arg,
	};
	char name[128];

	if (!strategy || (unsigned int)scn >= DCSIM_DSCN_NR || !opts)
		return -EINVAL;
	snprintf(name, sizeof(name), "%s/%s/%s", scn_names[scn], strategy->name,
		 opts->htm == DCSIM_EXPLORE_HTM_OFF ? "off" :
		 opts->htm == DCSIM_EXPLORE_HTM_COMMIT ? "sim-commit" : "sim-aborts");
	sc.name = name;
	return dcsim_explore_run(&sc, opts, res);
}
