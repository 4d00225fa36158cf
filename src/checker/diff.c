// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The differential runner: traces of cache operations over a small tree,
 * run step by step on a strategy and on the executable spec
 * (src/checker/spec.c).  After every step the canonical states must
 * be identical and dcsim_cache_verify() clean with the exact references the
 * trace holds; at the end every reference is dropped and shrink_all must
 * free everything.  A failing random trace is shrunk (greedy step deletion)
 * and printed in the trace format, with one replay line.
 *
 * Configs: HTM off always; for a strategy with DCSIM_STRATEGY_USES_HTM, in
 * an instrumented build, also inside a one-thread explorer execution with simulated
 * transactions that commit, and with injected aborts (a simulated
 * transaction refuses to run outside the explorer, and one logical thread
 * keeps the run deterministic: the abort injection is seeded by the
 * trace's seed).  In a normal build, where this file is compiled into
 * tests/differential directly, the second config is the environment's HTM
 * policy, if it is live.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/cache.h>
#include <dcsim/checker.h>
#include <dcsim/config.h>
#include <dcsim/htm.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>
#if DCSIM_INSTRUMENT
#include <dcsim/explore.h>
#endif

#include "diff.h"
#include "postcond.h"
#include "../base/rng.h"

/*
 * Steps per random trace unless opts->diff_steps says otherwise: the same
 * in every budget, so that a seed names one trace (a replay line names
 * --diff-steps when it differs).
 */
#define DIFF_STEPS	60

/* ---- reports -------------------------------------------------------------- */

/* The documented fields of one dentry state (docs/trace-format.md, "Reports"). */
static void state_fields(const struct dcsim_dentry_state *st, char *buf, size_t len)
{
	static const struct {
		uint32_t flag;
		const char *name;
	} fl[] = {
		{ DCSIM_DCACHE_REFERENCED, "REFERENCED" }, { DCSIM_DCACHE_LRU_LIST, "LRU_LIST" },
		{ DCSIM_DCACHE_SHRINK_LIST, "SHRINK_LIST" }, { DCSIM_DCACHE_OP_DELETE, "OP_DELETE" },
		{ DCSIM_DCACHE_DISCONNECTED, "DISCONNECTED" }, { DCSIM_DCACHE_DONTCACHE, "DONTCACHE" },
		{ DCSIM_DCACHE_DENTRY_KILLED, "DENTRY_KILLED" }, { DCSIM_DCACHE_FREED, "FREED" },
	};
	char f[160] = "", lru[16];
	size_t n = 0;

	for (size_t i = 0; i < DCSIM_ARRAY_SIZE(fl); i++)
		if (st->flags & fl[i].flag)
			n += (size_t)snprintf(f + n, sizeof(f) - n, "%s%s", n ? "|" : "", fl[i].name);
	if (!n)
		snprintf(f, sizeof(f), "-");
	if (st->lru_pos < 0)
		snprintf(lru, sizeof(lru), "-");
	else
		snprintf(lru, sizeof(lru), "%" PRId32, st->lru_pos);
	snprintf(buf, len, "count=%" PRId32 " flags=%s type=%s %s lru=%s%s", st->count, f,
		 (st->flags & DCSIM_DCACHE_ENTRY_TYPE) ? "positive" : "negative",
		 st->hashed ? "hashed" : "unhashed", lru, st->dead ? " dead" : "");
}

static size_t appendf(char *buf, size_t len, size_t used, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static size_t appendf(char *buf, size_t len, size_t used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (used + 1 >= len)
		return used;
	va_start(ap, fmt);
	n = vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
	if (n < 0)
		return used;
	used += (size_t)n;
	return used < len ? used : len - 1;
}

struct state_diff_ctx {
	struct run *r;
	size_t used;
};

static void state_delta(const struct dcsim_snapshot_delta *d, void *arg)
{
	struct state_diff_ctx *ctx = arg;
	char *b = ctx->r->err, x[256] = "(gone)", y[256] = "(gone)", p[128];
	size_t len = sizeof(ctx->r->err);

	if (d->counter) {
		ctx->used = appendf(b, len, ctx->used, "\n  counter %s\n    model: %" PRId64
				    "\n    spec:  %" PRId64, d->counter, d->va, d->vb);
		return;
	}
	if (d->a)
		state_fields(d->a, x, sizeof(x));
	if (d->b)
		state_fields(d->b, y, sizeof(y));
	diff_id_path(ctx->r, d->a ? d->a->id : d->b->id, p, sizeof(p));
	ctx->used = appendf(b, len, ctx->used, "\n  %s\n    model: %s\n    spec:  %s", p, x, y);
	/* state_fields() names the flags the spec models; say if others differ */
	if (d->a && d->b && !strcmp(x, y))
		ctx->used = appendf(b, len, ctx->used, "\n    (parent #%" PRIu64 " vs #%" PRIu64
				    ", flags 0x%08" PRIx32 " vs 0x%08" PRIx32 ")",
				    d->a->parent_id, d->b->parent_id, d->a->flags, d->b->flags);
}

/* model vs spec, one labelled pair per difference, dentries by path. */
static void state_diff(struct run *r, const struct dcsim_cache_snapshot *m,
		       const struct dcsim_cache_snapshot *sp)
{
	struct state_diff_ctx ctx = { .r = r };

	ctx.used = appendf(r->err, sizeof(r->err), 0, "state differs from the spec:");
	dcsim_snapshot_diff_each(m, sp, state_delta, &ctx);
}

/*
 * The invariant checker names dentries "#ID 'name'"; rewrite each as its
 * path, which is what a trace file says.
 */
static void ids_to_paths(struct run *r, const char *in, char *out, size_t len)
{
	size_t used = 0;

	while (*in && used + 1 < len) {
		if (*in == '#' && in[1] >= '0' && in[1] <= '9') {
			char *end, p[128];
			unsigned long long id = strtoull(in + 1, &end, 10);

			diff_id_path(r, id, p, sizeof(p));
			used = appendf(out, len, used, "%s", p);
			in = end;
			if (in[0] == ' ' && in[1] == '\'') {
				const char *q = strchr(in + 2, '\'');

				if (q)
					in = q + 1;
			}
			continue;
		}
		out[used++] = *in++;
	}
	out[used < len ? used : len - 1] = '\0';
}

/* Compare the cache with the spec and run the invariant checker. */
static bool compare(struct run *r)
{
	struct dcsim_cache_snapshot a, b;
	struct dcsim_held_ref held[SPEC_MAX];
	char rep[2048];
	size_t nh = 0;
	unsigned int n;

	if (dcsim_cache_snapshot(r->c, &a))
		return diff_mismatch(r, "model: snapshot failed");
	if (spec_snapshot(&r->spec, &b)) {
		dcsim_cache_snapshot_release(&a);
		return diff_mismatch(r, "spec: snapshot failed");
	}
	n = dcsim_snapshot_diff_each(&a, &b, NULL, NULL);
	if (n)
		state_diff(r, &a, &b);
	dcsim_cache_snapshot_release(&a);
	dcsim_cache_snapshot_release(&b);
	if (n)
		return false;
	for (uint32_t i = 1; i < r->spec.next_id; i++)
		if (r->held[i])
			held[nh++] = (struct dcsim_held_ref){ r->ptr[i], r->held[i] };
	if (dcsim_cache_verify(r->c, held, nh, DCSIM_VERIFY_REFS_EXACT, rep, sizeof(rep))) {
		size_t used = appendf(r->err, sizeof(r->err), 0,
				      "model: invariants broken (dcsim_cache_verify(), exact references):\n");

		ids_to_paths(r, rep, r->err + used, sizeof(r->err) - used);
		return false;
	}
	return true;
}

/*
 * A step, and for d_invalidate() and shrink_all() their post-conditions
 * (postcond.h), exact here: nothing else runs.
 */
static bool apply_checked(struct run *r, const struct step *st)
{
	struct dcsim_held_ref held[SPEC_MAX];
	struct postcond pc;
	char rep[2048];
	size_t nh = 0;
	bool ok;

	if (!r->c || (st->op != OP_INVALIDATE && st->op != OP_SHRINK_ALL))
		return diff_apply(r, st);
	postcond_begin(&pc, st->op == OP_INVALIDATE ? POSTCOND_INVALIDATE : POSTCOND_SHRINK_ALL,
		       st->op == OP_INVALIDATE ? r->ptr[st->a] : NULL);
	ok = diff_apply(r, st);
	for (uint32_t i = 1; ok && i < r->spec.next_id; i++)
		if (r->held[i])
			held[nh++] = (struct dcsim_held_ref){ r->ptr[i], r->held[i] };
	if (ok && postcond_check(&pc, r->c, held, nh, rep, sizeof(rep))) {
		size_t used = appendf(r->err, sizeof(r->err), 0,
				      "model: post-condition of %s broken at its return:\n",
				      postcond_call_name(pc.call));

		ids_to_paths(r, rep, r->err + used, sizeof(r->err) - used);
		ok = false;
	}
	postcond_release(&pc);
	return ok;
}

/* ---- configs and replay --------------------------------------------------- */

struct config {
	const struct dcsim_dput_strategy *s;
	enum dcsim_htm_policy policy;	/* outside the explorer */
	int sim;			/* 0, or the enum dcsim_explore_htm to run under */
};

static const char *config_name(const struct config *cfg)
{
#if DCSIM_INSTRUMENT
	if (cfg->sim)
		return dcsim_explore_htm_name((enum dcsim_explore_htm)cfg->sim);
#endif
	return cfg->policy == DCSIM_HTM_OFF ? "off" : dcsim_htm_policy_name(cfg->policy);
}

struct replay_ctx {
	const struct config *cfg;
	const struct trace *t;
	size_t failed_at;	/* step index; t->n for the epilogue */
	bool ok;
	unsigned long htm_commits;	/* simulated transactions committed */
	unsigned long lock_acq, lock_try, lock_edges;	/* the lock order validator's work */
	bool lock_order;	/* the failure is the validator's, not a mismatch */
	char step_line[2 * TRACE_REF_MAX];	/* the failing step as a trace line */
	char err[4096];
};

static void replay_body(struct replay_ctx *x)
{
	const struct config *cfg = x->cfg;
	const struct trace *t = x->t;
	struct dcsim_cache_config cc = { .strategy = cfg->s, .hash_bits = 3 };
	struct run *r = calloc(1, sizeof(*r));
	unsigned long w = dcsim_warn_count();
	bool ok = true;
	uint32_t root;

	if (!r) {
		snprintf(x->err, sizeof(x->err), "out of memory");
		x->ok = false;
		return;
	}
	spec_init_for(&r->spec, cfg->s);
	r->c = dcsim_cache_create(&cc);
	root = spec_alloc_root(&r->spec, "/");
	r->held[root] = 1;
	ok = diff_got_new(r, root, dcsim_d_alloc_root(r->c, "/"));
	for (size_t i = 0; ok && i < t->n; i++) {
		if (!diff_valid(r, &t->s[i]))
			continue;
		diff_format_step(&r->spec, &t->s[i], x->step_line, sizeof(x->step_line));
		ok = apply_checked(r, &t->s[i]) && compare(r);
		if (!ok)
			x->failed_at = i;
	}
	/* Epilogue: put everything, then everything unused must go. */
	for (uint32_t i = r->spec.next_id - 1; ok && i >= 1; i--) {
		while (ok && r->held[i] > 0) {
			struct step st = { .op = OP_DPUT, .a = i };

			diff_format_step(&r->spec, &st, x->step_line, sizeof(x->step_line));
			ok = diff_apply(r, &st) && compare(r);
		}
	}
	if (ok) {
		struct step st = { .op = OP_SHRINK_ALL };

		diff_format_step(&r->spec, &st, x->step_line, sizeof(x->step_line));
		ok = apply_checked(r, &st) && compare(r);
		if (ok && r->spec.allocs != r->spec.frees)
			ok = diff_mismatch(r, "%" PRId64 " dentries left after the epilogue",
					   r->spec.allocs - r->spec.frees);
	}
	if (ok && dcsim_warn_count() != w) {
		char last[200];

		dcsim_warn_last(last, sizeof(last));
		ok = diff_mismatch(r, "model: %lu misuse warnings (the last: %s)\nspec:  0",
				   dcsim_warn_count() - w, last);
	}
	if (!ok)
		snprintf(x->err, sizeof(x->err), "%s", r->err);
	/* On a mismatch the cache may hold references: destroy reports, quietly. */
	if (!ok)
		dcsim_warn_set_quiet(true);
	dcsim_cache_destroy(r->c);
	if (!ok)
		dcsim_warn_set_quiet(false);
	free(r);
	x->ok = ok;
}

#if DCSIM_INSTRUMENT
static void *replay_setup(void *arg)
{
	return arg;
}

static void replay_thread(void *state, unsigned int tid)
{
	(void)tid;
	replay_body(state);
}
#endif

/*
 * Replay @t on @cfg.  Return: true if spec and cache agreed throughout;
 * else x->failed_at, x->step_line and x->err say where and how.
 */
static bool replay(const struct config *cfg, const struct trace *t, struct replay_ctx *x)
{
	memset(x, 0, sizeof(*x));
	x->cfg = cfg;
	x->t = t;
	x->failed_at = t->n;
#if DCSIM_INSTRUMENT
	if (cfg->sim) {
		struct dcsim_scenario sc = {
			.name = "dcsim-check-diff", .nthreads = 1,
			.setup = replay_setup, .thread = replay_thread, .arg = x,
		};
		struct dcsim_explore_opts o;
		struct dcsim_explore_result res;
		int rc;

		dcsim_explore_opts_init(&o);
		o.iterations = 1;
		o.seed = t->seed;
		o.htm = (enum dcsim_explore_htm)cfg->sim;
		o.abort_permille = 100;
		o.max_steps = 100000000ul;
		o.quiet = true;
		x->ok = true;
		memset(&res, 0, sizeof(res));
		rc = dcsim_explore_run(&sc, &o, &res);
		if (rc < 0) {
			snprintf(x->err, sizeof(x->err), "explorer: %s", strerror(-rc));
			x->ok = false;
			return false;
		}
		if (rc == 1 && x->ok) {
			x->ok = false;
			snprintf(x->err, sizeof(x->err), "explorer: %s", res.failure);
		}
		/* DCSIM_EXPLORE_SCENARIO names another scenario: never a silent pass. */
		if (res.skipped && x->ok) {
			x->ok = false;
			snprintf(x->err, sizeof(x->err), "not run: DCSIM_EXPLORE_SCENARIO is set "
				 "(unset it for the diff suite)");
		}
		x->htm_commits = res.htm_commits;
		x->lock_acq = res.lock_acquisitions;
		x->lock_try = res.lock_trylocks;
		x->lock_edges = res.lock_edges;
		return x->ok;
	}
#endif
	dcsim_htm_set_policy(cfg->policy);
#if DCSIM_INSTRUMENT
	{
		/*
		 * The lock order validator of real threads, one graph per
		 * trace, so that the trace's seed (and the shrinker's
		 * replays) reproduce a report alone.  The summary carries
		 * both chains; the report's other lines are not printed, as
		 * the shrinker replays the trace many times.
		 */
		struct dcsim_lockdep_counts lc;
		char what[128];

		snprintf(what, sizeof(what), "diff, strategy %s, trace seed %" PRIu64, cfg->s->name,
			 t->seed);
		dcsim_lockdep_begin(what, NULL, NULL);
		replay_body(x);
		dcsim_lockdep_end(&lc);
		x->lock_acq = lc.acquisitions;
		x->lock_try = lc.trylocks;
		x->lock_edges = lc.edges;
		if (x->ok && lc.cycles + lc.recursions) {
			x->ok = false;
			x->lock_order = true;
			snprintf(x->err, sizeof(x->err), "lock order: %s", lc.first);
		}
		return x->ok;
	}
#endif
	replay_body(x);
	return x->ok;
}

/* ---- random traces and shrinking ------------------------------------------ */

/* The id step @i of @t allocates, or 0 if it is no alloc or is skipped. */
static uint32_t alloc_id(const struct trace *t, size_t i)
{
	struct run *r = calloc(1, sizeof(*r));
	uint32_t id = 0;

	if (!r)
		return 0;
	spec_init(&r->spec, DCSIM_RETAIN_LRU_THEN_REFERENCED);
	r->held[spec_alloc_root(&r->spec, "/")] = 1;
	for (size_t j = 0; j < i; j++)
		if (diff_valid(r, &t->s[j]))
			diff_apply(r, &t->s[j]);
	if (t->s[i].op == OP_ALLOC && diff_valid(r, &t->s[i]))
		id = r->spec.next_id;
	free(r);
	return id;
}

/*
 * Greedy shrinking: drop steps while the trace still fails.  Steps name
 * dentries by id, and ids are allocation order, so dropping an alloc
 * renumbers the later steps (those on the dropped dentry become invalid,
 * and are skipped), or else no alloc could ever be dropped.
 */
static void shrink(const struct config *cfg, struct trace *t, struct replay_ctx *x)
{
	struct step *saved = malloc(t->n * sizeof(*saved));
	bool progress = true;

	if (!saved)
		return;
	while (progress) {
		progress = false;
		for (size_t i = t->n; i-- > 0;) {
			uint32_t id = alloc_id(t, i);
			size_t n = t->n;

			memcpy(saved, t->s, n * sizeof(*saved));
			memmove(&t->s[i], &t->s[i + 1], (n - i - 1) * sizeof(*t->s));
			t->n--;
			for (size_t j = i; id && j < t->n; j++) {
				if (t->s[j].a == id)
					t->s[j].a = SPEC_MAX + 1;	/* never valid */
				else if (t->s[j].a > id && t->s[j].a <= SPEC_MAX)
					t->s[j].a--;
			}
			if (!replay(cfg, t, x)) {
				progress = true;
				continue;
			}
			memcpy(t->s, saved, n * sizeof(*saved));
			t->n = n;
		}
	}
	free(saved);
}

/* res->failure: the first line only, cut to fit. */
static void __attribute__((format(printf, 3, 4))) one_line(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	char *nl;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
}

static FILE *report_file(const struct dcsim_checker_opts *o)
{
	return o->report ? o->report : stdout;
}

static FILE *progress_file(const struct dcsim_checker_opts *o)
{
	return o->progress ? o->progress : stderr;
}

/* Count the valid steps of @t before @upto (what a trace file of it numbers). */
static size_t valid_steps(const struct trace *t, size_t upto)
{
	struct run *r = calloc(1, sizeof(*r));
	size_t n = 0;

	if (!r)
		return 0;
	spec_init(&r->spec, DCSIM_RETAIN_LRU_THEN_REFERENCED);
	r->held[spec_alloc_root(&r->spec, "/")] = 1;
	for (size_t i = 0; i < t->n && i < upto; i++) {
		if (!diff_valid(r, &t->s[i]))
			continue;
		diff_apply(r, &t->s[i]);
		n++;
	}
	free(r);
	return n;
}

static void report_failure(const struct dcsim_checker_opts *o, const struct config *cfg,
			   const struct trace *t, const struct replay_ctx *x, const char *what,
			   const char *replay_args)
{
	FILE *f = report_file(o);
	char comment[256];
	size_t line = valid_steps(t, x->failed_at);

	fprintf(f, "dcsim-check: FAIL: %s, strategy %s, HTM %s\n", what, cfg->s->name,
		config_name(cfg));
	if (x->lock_order)
		fprintf(f, "check: the lock order validator, over the whole trace below (one "
			"graph per trace; the line below has both chains)\n");
	else if (x->failed_at < t->n)
		fprintf(f, "check: model vs spec after step %zu of the trace below: %s\n", line + 1,
			x->step_line);
	else
		fprintf(f, "check: model vs spec in the epilogue (every reference dropped, then "
			"shrink_all), at: %s\n", x->step_line);
	fprintf(f, "%s\n", x->err);
	fprintf(f, "trace (save it to a file to keep it as a regression test):\n");
	snprintf(comment, sizeof(comment), "%s; strategy %s, HTM %s", what, cfg->s->name,
		 config_name(cfg));
	trace_print(f, t, comment);
	if (o->replay_prefix)
		fprintf(f, "replay: %s %s\n", o->replay_prefix, replay_args);
	else
		fprintf(f, "replay: dcsim-check --strategy %s %s\n", cfg->s->name, replay_args);
	fflush(f);
}

/* The sim-commit config's ->sim, or 0 in a normal build (which has none). */
#if DCSIM_INSTRUMENT
#define COMMIT_CONFIG	DCSIM_EXPLORE_HTM_COMMIT
#else
#define COMMIT_CONFIG	0
#endif

/* The configs of @s (at most 3). */
static size_t configs(const struct dcsim_dput_strategy *s, struct config *out)
{
	size_t n = 0;

	out[n++] = (struct config){ s, DCSIM_HTM_OFF, 0 };
	if (!(s->flags & DCSIM_STRATEGY_USES_HTM))
		return n;
#if DCSIM_INSTRUMENT
	out[n++] = (struct config){ s, DCSIM_HTM_OFF, DCSIM_EXPLORE_HTM_COMMIT };
	out[n++] = (struct config){ s, DCSIM_HTM_OFF, DCSIM_EXPLORE_HTM_ABORTS };
#else
	{
		struct dcsim_htm_info info;
		enum dcsim_htm_policy env = DCSIM_HTM_AUTO;
		const char *e = getenv("DCSIM_HTM");

		if (e && *e)
			dcsim_htm_policy_parse(e, &env);
		dcsim_htm_set_policy(env);
		dcsim_htm_get_info(&info);
		if (info.live)
			out[n++] = (struct config){ s, env, 0 };
	}
#endif
	return n;
}

static void restore_policy(void)
{
	enum dcsim_htm_policy env = DCSIM_HTM_AUTO;
	const char *e = getenv("DCSIM_HTM");

	if (e && *e)
		dcsim_htm_policy_parse(e, &env);
	dcsim_htm_set_policy(env);
}

int dcsim_checker_diff(const struct dcsim_dput_strategy *s, const struct dcsim_checker_opts *o,
		     struct dcsim_checker_result *res)
{
	static const unsigned long ntraces[] = { 300, 3000, 30000 };
	struct dcsim_checker_result local;
	struct config cfgs[3];
	size_t ncfg;
	unsigned long n, commits = 0;
	unsigned int steps;

	if (!res)
		res = &local;
	memset(res, 0, sizeof(*res));
	if (!s || !o || (unsigned int)o->budget > DCSIM_BUDGET_SOAK)
		return -EINVAL;
	ncfg = configs(s, cfgs);
	n = o->diff_traces ? o->diff_traces : ntraces[o->budget];
	steps = o->diff_steps ? o->diff_steps : DIFF_STEPS;
	if (steps > 1000)
		return -EINVAL;
	fprintf(progress_file(o), "dcsim-check: diff: %s: %lu traces of %u steps x %zu HTM configs, "
		"seeds %" PRIu64 "..\n", s->name, n, steps, ncfg, o->seed);
	for (unsigned long i = 0; i < n && !res->failures; i++) {
		struct dcsim_checker_unit u = { .index = i };
		char args[128];
		struct trace t;

		if (!dcsim_checker_in_shard(o, i))
			continue;
		diff_generate(&t, o->seed + i, steps, NULL);
		if (!t.s) {
			restore_policy();
			return -ENOMEM;
		}
		u.seed = t.seed;
		for (size_t k = 0; k < ncfg; k++) {
			struct replay_ctx x;
			char what[128];
			size_t before = t.n;
			bool ok;

			res->runs++;
			u.executions++;
			ok = replay(&cfgs[k], &t, &x);
			res->lock_acquisitions += x.lock_acq;
			res->lock_trylocks += x.lock_try;
			res->lock_edges += x.lock_edges;
			if (ok) {
				if (cfgs[k].sim == COMMIT_CONFIG)
					commits += x.htm_commits;
				continue;
			}
			res->failures++;
			res->failed_unit = i;
			res->first_failure = res->runs;
			one_line(res->failure, sizeof(res->failure), "diff: seed %" PRIu64 ", HTM %s: %s",
				 t.seed, config_name(&cfgs[k]), x.err);
			shrink(&cfgs[k], &t, &x);
			replay(&cfgs[k], &t, &x);
			res->shrunk_steps = valid_steps(&t, t.n);
			if (steps == DIFF_STEPS)
				snprintf(args, sizeof(args), "--suites diff --seed %" PRIu64, t.seed);
			else
				snprintf(args, sizeof(args), "--suites diff --seed %" PRIu64
					 " --diff-steps %u", t.seed, steps);
			u.failed = true;
			u.failure = res->failure;
			u.replay = args;
			if (!o->quiet) {
				snprintf(what, sizeof(what), "diff, random trace seed %" PRIu64
					 " shrunk from %zu to %zu steps", t.seed, before,
					 res->shrunk_steps);
				report_failure(o, &cfgs[k], &t, &x, what, args);
			}
			break;
		}
		free(t.s);
		if (o->unit_done)
			o->unit_done(o->unit_arg, &u);
	}
	restore_policy();
	/*
	 * A strategy whose transactions never commit passes every trace on its
	 * fallback alone, and its HTM path was never checked: say so (the
	 * classic cause is a strategy built against a normal build's headers,
	 * whose dcsim_htm_begin() cannot start a simulated transaction).
	 */
	res->htm_commits = commits;
	if (!res->failures && COMMIT_CONFIG && ncfg > 1 && !commits && dcsim_checker_whole_run(o)) {
		res->failures++;
		snprintf(res->failure, sizeof(res->failure),
			 "diff: no simulated transaction of %s committed", s->name);
		if (!o->quiet) {
			fprintf(report_file(o), "dcsim-check: FAIL: diff, strategy %s, HTM sim-commit\n"
				"check: the strategy says DCSIM_STRATEGY_USES_HTM, but none of its "
				"transactions committed in %lu traces with simulated HTM committing: "
				"its HTM path was not checked (built against a normal build's "
				"headers?)\n", s->name, n);
			if (o->replay_prefix)
				fprintf(report_file(o), "replay: %s --suites diff --seed %" PRIu64 "\n",
					o->replay_prefix, o->seed);
			else
				fprintf(report_file(o), "replay: dcsim-check --strategy %s --suites diff "
					"--seed %" PRIu64 "\n", s->name, o->seed);
		}
	}
	fprintf(progress_file(o), "dcsim-check: diff: %s: %lu runs", s->name, res->runs);
	if (COMMIT_CONFIG && ncfg > 1)
		fprintf(progress_file(o), ", %lu simulated transactions committed", commits);
	if (res->lock_acquisitions)
		fprintf(progress_file(o), ", lock order: %lu validated acquisitions, %lu trylocks, "
			"%lu edges summed over traces", res->lock_acquisitions, res->lock_trylocks,
			res->lock_edges);
	fprintf(progress_file(o), ", %s\n", res->failures ? "FAILED" : "ok");
	return res->failures ? 1 : 0;
}

int dcsim_checker_trace_file(const struct dcsim_dput_strategy *s, const char *path,
			   const struct dcsim_checker_opts *o, struct dcsim_checker_result *res)
{
	struct dcsim_checker_result local;
	struct config cfgs[3];
	struct trace t;
	char err[512];
	size_t ncfg;
	int rc;

	if (!res)
		res = &local;
	memset(res, 0, sizeof(*res));
	if (!s || !o || !path)
		return -EINVAL;
	rc = trace_parse(path, &t, err, sizeof(err));
	if (rc) {
		fprintf(progress_file(o), "dcsim-check: %s\n", err);
		return rc;
	}
	t.seed = o->seed;
	ncfg = configs(s, cfgs);
	fprintf(progress_file(o), "dcsim-check: trace %s: %s: %zu steps x %zu HTM configs\n", path,
		s->name, t.n, ncfg);
	for (size_t k = 0; k < ncfg; k++) {
		struct replay_ctx x;
		char what[1024], args[1024];

		res->runs++;
		if (replay(&cfgs[k], &t, &x))
			continue;
		res->failures++;
		res->shrunk_steps = t.n;
		one_line(res->failure, sizeof(res->failure), "trace %s, HTM %s: %s", path,
			 config_name(&cfgs[k]), x.err);
		if (!o->quiet) {
			snprintf(what, sizeof(what), "trace file %s", path);
			snprintf(args, sizeof(args), "--trace %s --seed %" PRIu64, path, o->seed);
			report_failure(o, &cfgs[k], &t, &x, what, args);
		}
		break;
	}
	restore_policy();
	trace_release(&t);
	fprintf(progress_file(o), "dcsim-check: trace %s: %s: %s\n", path, s->name,
		res->failures ? "FAILED" : "ok");
	return res->failures ? 1 : 0;
}
