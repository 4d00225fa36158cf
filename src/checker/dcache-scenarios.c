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
 * spec too (src/checker/spec.c, compiled into the instrumented library):
 * exactly, in the order they ran, when no two calls overlapped; else it
 * requires the final state to be that of some serial order (docs/testing.md).
 *
 * This file is the runner (setup, the threads, the checks at quiescence);
 * the spec side (what the spec says a scenario may end in, and the
 * comparison) is dcache-scenario-spec.c; the scenarios themselves, one
 * struct scn_def each, are the table of dcache-scenario-defs.c.
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
#include <dcsim/namei.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

#include "scenario.h"
#include "spec.h"

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
	s->dir = s->root ? dscn_mk(s, s->root, "d", NULL) : NULL;
	if (!s->root || !s->dir) {
		s->broken = true;
		return s;
	}
	s->def->build(s);
	/* Slot 0 of every thread: the directory, borrowed (we keep our reference). */
	for (unsigned int t = 0; t < NTHREADS; t++)
		s->slot[t][0] = s->dir;
	if (!s->broken && !arg->ready)
		dscn_prepare_spec(s);
	s->warn0 = dcsim_warn_count();
	s->skips0 = dscn_lru_skips();
	return s;
}

/* ---- the threads ---- */

static void run_op(struct dscn *s, unsigned int tid, const struct sop *op)
{
	struct dcsim_dentry **slot = s->slot[tid], *a = slot[op->a];

	switch (op->kind) {
	case OP_DPUT:
		dcsim_dput(a);
		slot[op->a] = NULL;
		break;
	case OP_LOOKUP:
	case OP_LOOKUP_HIT:
	case OP_LOOKUP_MISS:
		slot[op->dst] = a ? dcsim_d_lookup(a, op->name) : NULL;
		if (op->kind == OP_LOOKUP_HIT)
			dcsim_explore_assert(slot[op->dst] != NULL);
		if (op->kind == OP_LOOKUP_MISS)
			dcsim_explore_assert(slot[op->dst] == NULL);
		break;
	case OP_DROP:
		if (a)
			dcsim_d_drop(a);
		break;
	case OP_DELETE:
		if (a)
			dcsim_d_delete(a);
		break;
	case OP_INVALIDATE:
		if (a)
			dcsim_d_invalidate(a);
		break;
	case OP_GENOCIDE:
		if (a)
			dcsim_d_genocide(a);
		break;
	case OP_PRUNE:
		dcsim_prune(s->cache, op->n);
		break;
	case OP_SHRINK_ALL:
		dcsim_shrink_all(s->cache);
		break;
	case OP_DGET_PARENT:
		slot[op->dst] = a ? dcsim_dget_parent(a) : NULL;
		break;
	case OP_SET_FLAGS:
		if (a)
			dcsim_d_set_flags(a, op->n);
		break;
	case OP_RENAME:
		/* a scenario renames only what it may: it must work */
		if (a && slot[op->dst])
			dcsim_explore_assert(dcsim_d_move(a, slot[op->dst]) == 0);
		break;
	case OP_DPUT_UNOWNED:
		dcsim_dput(a);
		slot[op->a] = NULL;
		break;
	case OP_ALLOC_ADD:
		slot[op->dst] = a ? dcsim_d_alloc(a, op->name) : NULL;
		dcsim_explore_assert(!a || slot[op->dst]);
		if (slot[op->dst])
			dcsim_d_add(slot[op->dst], true);
		break;
	case OP_WALK: {
		char buf[WALK_MAX][16];
		const char *names[WALK_MAX];
		unsigned int n = spec_split_path(op->name, buf, names);

		slot[op->dst] = a ? dcsim_path_walk(a, names, n, 0) : NULL;
		/*
		 * A walk returns a positive leaf: the reference it holds keeps
		 * d_delete() from making it negative (count > 1 unhashes), so
		 * a negative one was unlinked before the reference was taken
		 * and legitimised without its d_seq recheck.
		 */
		dcsim_explore_assert(!slot[op->dst] || !dcsim_d_is_negative(slot[op->dst]));
		break;
	}
	case OP_CREATE:
		/* a scenario instantiates only a negative it holds: it must work */
		if (a) {
			struct dcsim_dentry *p = dcsim_d_parent(a);

			dcsim_explore_assert(dcsim_inode_lock(p) == 0);
			dcsim_explore_assert(dcsim_d_instantiate(a) == 0);
			dcsim_inode_unlock(p);
		}
		break;
	case OP_END:
		break;
	}
}

/*
 * ---- post-conditions at the return of INVALIDATE and SHRINK_ALL ----
 *
 * postcond.h says what is checked.  Here: when each call begins and
 * returns, on its thread, the cache is read with every other thread held
 * where it is parked (dcsim_explore_run_alone()).  The check at the
 * return is made only when it is exact: no other thread is inside a call
 * then (so none holds a lock or a private shrink list, and each holds
 * exactly the references in its slots), no path walk overlapped the call
 * (its ref-walk takes references this runner does not see), and, for
 * d_invalidate(), nobody else unhashed the target meanwhile.  Every
 * dentry another thread held during the call (in its slots at the start,
 * or got by a call that returned during it) is excused, with its
 * ancestors: that thread's later put may leave them unused after the
 * walk passed.
 */

static unsigned long post_counts[2];	/* checked, skipped */

void dcsim_dcache_post_checks(unsigned long *checked, unsigned long *skipped)
{
	*checked = __atomic_load_n(&post_counts[0], __ATOMIC_RELAXED);
	*skipped = __atomic_load_n(&post_counts[1], __ATOMIC_RELAXED);
}

/* Whether thread @u has begun a call that has not returned. */
static bool in_call(const struct dscn *s, unsigned int u)
{
	unsigned int i = s->nr_ran[u];

	return i < MAXOPS && s->t_begin[u][i] && !s->t_end[u][i];
}

/* @op of another thread (its slots @slot) overlaps the call watched by @p. */
static void post_overlap(struct dscn_post *p, const struct sop *op, struct dcsim_dentry **slot)
{
	switch (op->kind) {
	case OP_WALK:
		postcond_skip(&p->pc, "a path walk overlapped it");
		break;
	case OP_DPUT_UNOWNED:
		postcond_skip(&p->pc, "a put without a reference overlapped it");
		break;
	case OP_RENAME:
		/* what the walk had to cover changed under it */
		postcond_skip(&p->pc, "a rename overlapped it");
		break;
	case OP_DROP:
	case OP_DELETE:
	case OP_INVALIDATE:
		if (p->target && slot[op->a] == p->target)
			postcond_skip(&p->pc, "another thread unhashed the target meanwhile");
		break;
	default:
		break;
	}
}

struct post_arg {
	struct dscn *s;
	unsigned int tid;
	unsigned int nr;
	char report[1536];
};

static void post_begin_alone(void *argp)
{
	struct post_arg *a = argp;
	struct dscn *s = a->s;
	struct dscn_post *p = &s->post[a->tid];
	const struct sop *op = &s->def->prog[a->tid][s->nr_ran[a->tid]];

	postcond_begin(&p->pc, op->kind == OP_INVALIDATE ? POSTCOND_INVALIDATE : POSTCOND_SHRINK_ALL,
		       p->target);
	for (unsigned int u = 0; u < NTHREADS; u++) {
		if (u == a->tid)
			continue;
		for (unsigned int i = 1; i < NSLOTS; i++)
			if (s->slot[u][i])
				postcond_excuse(&p->pc, s->slot[u][i]);
		if (in_call(s, u))
			post_overlap(p, &s->def->prog[u][s->nr_ran[u]], s->slot[u]);
	}
}

static void post_begin(struct dscn *s, unsigned int tid, const struct sop *op)
{
	struct post_arg a = { .s = s, .tid = tid };
	struct dscn_post *p = &s->post[tid];

	p->on = true;
	p->target = op->kind == OP_INVALIDATE ? s->slot[tid][op->a] : NULL;
	if (op->kind == OP_INVALIDATE && !p->target) {
		p->on = false;
		return;
	}
	dcsim_explore_run_alone(post_begin_alone, &a);
}

static void post_check_alone(void *argp)
{
	struct post_arg *a = argp;
	struct dscn *s = a->s;
	struct dcsim_held_ref held[2 + NTHREADS * NSLOTS] = {
		{ .dentry = s->root, .refs = 1 }, { .dentry = s->dir, .refs = 1 },
	};
	size_t nh = 2;

	for (unsigned int u = 0; u < NTHREADS; u++)
		for (unsigned int i = 1; i < NSLOTS; i++)
			if (s->slot[u][i])
				held[nh++] = (struct dcsim_held_ref){ s->slot[u][i], 1 };
	a->nr = postcond_check(&s->post[a->tid].pc, s->cache, held, nh, a->report,
			       sizeof(a->report));
}

static void post_end(struct dscn *s, unsigned int tid)
{
	struct dscn_post *p = &s->post[tid];
	struct post_arg *a;

	if (!p->on)
		return;
	p->on = false;
	for (unsigned int u = 0; u < NTHREADS; u++)
		if (u != tid && in_call(s, u))
			postcond_skip(&p->pc, "another thread was inside a call at the return");
	if (p->pc.off) {
		__atomic_fetch_add(&post_counts[1], 1, __ATOMIC_RELAXED);
		postcond_release(&p->pc);
		return;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		postcond_release(&p->pc);
		return;
	}
	a->s = s;
	a->tid = tid;
	__atomic_fetch_add(&post_counts[0], 1, __ATOMIC_RELAXED);
	dcsim_explore_run_alone(post_check_alone, a);
	postcond_release(&p->pc);
	if (a->nr) {
		char msg[sizeof(a->report)];

		snprintf(msg, sizeof(msg), "%s", a->report);
		free(a);
		dcsim_explore_fail("T%u: post-condition of %s broken at its return (%s): %s", tid,
				   postcond_call_name(p->pc.call), "docs/testing.md, post-conditions",
				   msg);
		return;
	}
	free(a);
}

struct excuse_arg {
	struct postcond *pc;
	const struct dcsim_dentry *d;
};

static void excuse_alone(void *argp)
{
	struct excuse_arg *a = argp;

	postcond_excuse(a->pc, a->d);
}

/* Another thread's call @op, about to run on @tid's slots, or its result. */
static void post_note(struct dscn *s, unsigned int tid, const struct sop *op, bool returned)
{
	for (unsigned int t = 0; t < NTHREADS; t++) {
		struct dscn_post *p = &s->post[t];
		struct excuse_arg a = { .pc = &p->pc };

		if (t == tid || !p->on)
			continue;
		if (!returned) {
			post_overlap(p, op, s->slot[tid]);
			continue;
		}
		switch (op->kind) {
		case OP_LOOKUP:
		case OP_LOOKUP_HIT:
		case OP_LOOKUP_MISS:
		case OP_ALLOC_ADD:
		case OP_DGET_PARENT:
		case OP_WALK:
			/* a reference this thread now holds */
			a.d = s->slot[tid][op->dst];
			if (a.d)
				dcsim_explore_run_alone(excuse_alone, &a);
			break;
		default:
			break;
		}
	}
}

static void dscn_thread(void *state, unsigned int tid)
{
	struct dscn *s = state;
	int last_rename = -1;	/* the program's last rename step, or -1 */

	if (s->broken)
		return;
	for (unsigned int i = 0; i < MAXOPS && s->def->prog[tid][i].kind != OP_END; i++)
		if (s->def->prog[tid][i].kind == OP_RENAME)
			last_rename = (int)i;
	for (unsigned int i = 0; i < MAXOPS && s->def->prog[tid][i].kind != OP_END; i++) {
		const struct sop *op = &s->def->prog[tid][i];
		bool post = op->kind == OP_INVALIDATE || op->kind == OP_SHRINK_ALL;

		dcsim_explore_rename_ahead((int)i <= last_rename);
		/* Only the running logical thread ticks the clock: no schedule point. */
		s->t_begin[tid][i] = ++s->clock;
		post_note(s, tid, op, false);
		if (post)
			post_begin(s, tid, op);
		run_op(s, tid, op);
		post_note(s, tid, op, true);
		if (post)
			post_end(s, tid);
		s->t_end[tid][i] = ++s->clock;
		s->nr_ran[tid] = i + 1;
		dcsim_explore_progress();
	}
	dcsim_explore_rename_ahead(false);
	/* A program drops every reference it owns. */
	for (unsigned int i = 1; i < NSLOTS; i++)
		dcsim_explore_assert(s->slot[tid][i] == NULL);
}

/* ---- the check at quiescence ---- */

static void dscn_check(void *state)
{
	struct dscn *s = state;
	struct dcsim_held_ref held[2] = {
		{ .dentry = s->root, .refs = 1 }, { .dentry = s->dir, .refs = 1 },
	};
	struct dcsim_cache_snapshot snap;
	unsigned long warns;

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
	if (s->def->check)
		s->def->check(s, &snap);
	if (!s->def->no_spec)
		dscn_check_spec(s, &snap);
	dcsim_cache_snapshot_release(&snap);
}

static void dscn_teardown(void *state)
{
	struct dscn *s = state;

	if (!s)
		return;
	for (unsigned int t = 0; t < NTHREADS; t++)
		if (s->post[t].on)
			postcond_release(&s->post[t].pc);	/* abandoned inside the call */
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
	if (((scn_defs[scn].latent_unless && !(strategy->flags & scn_defs[scn].latent_unless)) ||
	     (strategy->flags & scn_defs[scn].latent_if)) &&
	    (!opts->scenario || strcmp(opts->scenario, name))) {
		/* A bug the modelled kernel has: run only when asked for by name. */
		dscn_release_spec(arg);
		free(arg);
		if (res) {
			memset(res, 0, sizeof(*res));
			res->skipped = true;
		}
		return 0;
	}
	rc = dcsim_explore_run(&sc, opts, res);
	dscn_release_spec(arg);
	free(arg);
	return rc;
}
