// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The spec side of the dentry cache scenarios: the scenario's programs run
 * on the executable spec (spec.c).  When no two calls overlapped, the
 * model's end state must be the spec's after the same calls in the order
 * they ran; else it must be that of some serial order, all of which are
 * enumerated once per exploration, at the first setup (docs/testing.md).
 * The runner is dcache-scenarios.c.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/cache.h>
#include <dcsim/dcache-cover.h>
#include <dcsim/dentry.h>
#include <dcsim/explore-dcache.h>
#include <dcsim/explore.h>

#include "scenario.h"
#include "spec.h"

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

/*
 * One call of a thread's program on the spec, through the one dispatcher
 * (spec_apply()).  A call on an empty slot (the reference it needed was
 * not handed out) does nothing and hands out nothing; a put empties its
 * slot.
 */
static void spec_step(struct spec *sp, uint32_t *slot, const struct sop *op)
{
	uint32_t a = slot[op->a];
	bool needs_a = op->kind != OP_PRUNE && op->kind != OP_SHRINK_ALL;
	unsigned long got = 0;

	if (op->kind == OP_RENAME) {
		/* both references are needed: the dentry's and its new directory's */
		if (a && slot[op->dst])
			spec_apply(sp, OP_RENAME, a, slot[op->dst], NULL);
		return;
	}
	if (a || !needs_a)
		got = spec_apply(sp, (enum spec_op)op->kind, a, op->n, op->name);
	switch (op->kind) {
	case OP_DPUT:
		slot[op->a] = 0;
		break;
	case OP_LOOKUP:
	case OP_LOOKUP_HIT:
	case OP_LOOKUP_MISS:
	case OP_DGET_PARENT:
	case OP_ALLOC_ADD:
	case OP_WALK:
		slot[op->dst] = (uint32_t)got;
		break;
	default:
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

/* One serial outcome, a line per dentry, as the model's state is printed beside it. */
static void routcome_print(const struct routcome *o, size_t k)
{
	for (size_t i = 0; i < o->nr; i++)
		fprintf(stderr, "dcsim-explore:   serial outcome %zu: #%llu parent #%llu count %d "
			"flags %#010x %s%s\n", k, (unsigned long long)o->v[i].id,
			(unsigned long long)o->v[i].parent, o->v[i].count,
			o->v[i].flags, o->v[i].hashed ? "hashed" : "unhashed",
			o->v[i].on_lru ? " lru" : "");
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

		if (pos[t] >= MAXOPS || op->kind == OP_END)
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
void dscn_prepare_spec(struct dscn *s)
{
	struct dscn_arg *arg = s->arg;
	struct dcsim_cache_snapshot snap;
	unsigned int pos[NTHREADS] = { 0 }, nops = 0;
	struct spec *sps;

	arg->ready = true;
	if (s->def->no_spec)
		return;
	for (unsigned int t = 0; t < NTHREADS; t++)
		for (unsigned int i = 0; i < MAXOPS && s->def->prog[t][i].kind != OP_END; i++)
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

void dscn_release_spec(struct dscn_arg *arg)
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

uint64_t dscn_lru_skips(void)
{
	uint64_t v[DCSIM_COVER_NR];

	dcsim_dcache_cover_read(v);
	return v[DCSIM_COVER_LRU_SKIP];
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

void dscn_check_spec(struct dscn *s, const struct dcsim_cache_snapshot *snap)
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
	if (!arg->outcomes_overflow && dscn_lru_skips() == s->skips0) {
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
			for (size_t i = 0; i < arg->nr_outcomes; i++)
				routcome_print(&arg->outcomes[i], i + 1);
		}
		return;
	}
	count_check(DCSIM_SPEC_CHECK_NONE);
}
