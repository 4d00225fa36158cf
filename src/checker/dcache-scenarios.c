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
 * This file is the runner (setup, the threads, the checks at quiescence,
 * the spec comparison); the scenarios themselves, one struct scn_def each,
 * are the table of dcache-scenario-defs.c.
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

#include "dcache-scenarios.h"
#include "spec.h"

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

unsigned int dscn_split_path(const char *path, char (*buf)[16], const char **names)
{
	unsigned int n = 0;

	while (*path && n < WALK_MAX) {
		size_t len = strcspn(path, "/");

		snprintf(buf[n], sizeof(buf[n]), "%.*s", (int)len, path);
		names[n] = buf[n];
		n++;
		path += len;
		path += *path == '/';
	}
	return n;
}

/* ---- the spec side ---- */

/* Only the used part: an exploration copies the spec thousands of times. */
static void spec_copy(struct spec *dst, const struct spec *src)
{
	dst->style = src->style;
	dst->busy_stays_on_lru = src->busy_stays_on_lru;
	dst->next_id = src->next_id;
	memcpy(dst->d, src->d, sizeof(src->d[0]) * src->next_id);
	dst->nlru = src->nlru;
	memcpy(dst->lru, src->lru, sizeof(src->lru[0]) * src->nlru);
	dst->allocs = src->allocs;
	dst->kills = src->kills;
	dst->frees = src->frees;
}

static int spec_from_snapshot(struct spec *sp, const struct dcsim_cache_snapshot *snap,
			      const struct dcsim_dput_strategy *strategy,
			      const enum spec_op_kind *op_kind)
{
	uint32_t max = 0;

	spec_init_for(sp, strategy);
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
	case SOP_WALK: {
		char buf[WALK_MAX][16];
		const char *names[WALK_MAX];
		unsigned int n = dscn_split_path(op->name, buf, names);

		slot[op->dst] = a ? spec_walk(sp, a, names, n) : 0;
		break;
	}
	case SOP_INSTANTIATE:
		if (a)
			spec_create(sp, a);
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
	if (spec_from_snapshot(arg->init, &snap, s->arg->strategy, s->op_kind)) {
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
	case SOP_WALK: {
		char buf[WALK_MAX][16];
		const char *names[WALK_MAX];
		unsigned int n = dscn_split_path(op->name, buf, names);

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
	case SOP_INSTANTIATE:
		/* a scenario instantiates only a negative it holds: it must work */
		if (a) {
			struct dcsim_dentry *p = dcsim_d_parent(a);

			dcsim_explore_assert(dcsim_inode_lock(p) == 0);
			dcsim_explore_assert(dcsim_d_instantiate(a) == 0);
			dcsim_inode_unlock(p);
		}
		break;
	case SOP_END:
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
	case SOP_WALK:
		postcond_skip(&p->pc, "a path walk overlapped it");
		break;
	case SOP_DPUT_UNOWNED:
		postcond_skip(&p->pc, "a put without a reference overlapped it");
		break;
	case SOP_DROP:
	case SOP_DELETE:
	case SOP_INVALIDATE:
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

	postcond_begin(&p->pc, op->kind == SOP_INVALIDATE ? POSTCOND_INVALIDATE : POSTCOND_SHRINK_ALL,
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
	p->target = op->kind == SOP_INVALIDATE ? s->slot[tid][op->a] : NULL;
	if (op->kind == SOP_INVALIDATE && !p->target) {
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
		case SOP_LOOKUP:
		case SOP_LOOKUP_HIT:
		case SOP_LOOKUP_MISS:
		case SOP_CREATE:
		case SOP_DGET_PARENT:
		case SOP_WALK:
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

	if (s->broken)
		return;
	for (unsigned int i = 0; i < MAXOPS && s->def->prog[tid][i].kind != SOP_END; i++) {
		const struct sop *op = &s->def->prog[tid][i];
		bool post = op->kind == SOP_INVALIDATE || op->kind == SOP_SHRINK_ALL;

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
	/* A program drops every reference it owns. */
	for (unsigned int i = 1; i < NSLOTS; i++)
		dcsim_explore_assert(s->slot[tid][i] == NULL);
}

/* ---- the check at quiescence ---- */

const struct dcsim_dentry_state *dscn_find(const struct dcsim_cache_snapshot *snap, uint64_t id)
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
		check_spec(s, &snap);
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
		release_spec(arg);
		free(arg);
		if (res) {
			memset(res, 0, sizeof(*res));
			res->skipped = true;
		}
		return 0;
	}
	rc = dcsim_explore_run(&sc, opts, res);
	release_spec(arg);
	free(arg);
	return rc;
}
