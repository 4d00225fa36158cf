// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Differential tests: seeded random traces of cache operations over a
 * small tree run on every registered dput strategy (HTM strategies with HTM
 * off and with the environment's policy) and on the executable spec
 * (spec.c).  After every step the canonical states must be identical and
 * dcsim_cache_check() clean with the exact references the trace holds.
 * A failing trace is shrunk to a minimal one and printed with its seed.
 *
 * Environment: DCSIM_DIFF_TRACES (default 3000), DCSIM_DIFF_STEPS (60),
 * DCSIM_SEED (base seed), DCSIM_HTM (policy for the "live" runs).
 */

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <dcsim/cache.h>
#include <dcsim/htm.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

#include "harness.h"
#include "spec.h"

enum top {
	T_ALLOC, T_ADD, T_REHASH, T_LOOKUP, T_DGET, T_DGET_PARENT, T_DPUT, T_DROP,
	T_DELETE, T_INVALIDATE, T_SETOP, T_SETFLAGS, T_PRUNE, T_SHRINK_ALL, T_NR
};

static const char *const top_names[T_NR] = {
	"alloc", "add", "rehash", "lookup", "dget", "dget_parent", "dput", "drop",
	"delete", "invalidate", "set_op", "set_flags", "prune", "shrink_all",
};

/* Relative frequencies. */
static const unsigned int top_weight[T_NR] = {
	[T_ALLOC] = 14, [T_ADD] = 12, [T_REHASH] = 2, [T_LOOKUP] = 16, [T_DGET] = 6,
	[T_DGET_PARENT] = 4, [T_DPUT] = 24, [T_DROP] = 3, [T_DELETE] = 3,
	[T_INVALIDATE] = 2, [T_SETOP] = 3, [T_SETFLAGS] = 2, [T_PRUNE] = 6, [T_SHRINK_ALL] = 1,
};

static const char *const names[] = {
	"a", "b", "c", "a-name-too-long-to-be-stored-inline-in-the-dentry",
};

struct step {
	uint8_t op;
	uint32_t a, b;
};

struct trace {
	uint64_t seed;
	size_t n;
	struct step *s;
};

/* One run of a trace: the spec, the cache (optional) and the held refs. */
struct run {
	struct spec spec;
	struct dcsim_cache *c;
	struct dcsim_dentry *ptr[SPEC_MAX + 1];
	int32_t held[SPEC_MAX + 1];
	char err[4096];
};

static int depth(const struct spec *s, uint32_t id)
{
	int n = 0;

	while (s->d[id].parent != id) {
		id = s->d[id].parent;
		n++;
	}
	return n;
}

static bool valid(struct run *r, const struct step *st)
{
	const struct spec *s = &r->spec;
	const struct spec_dentry *d = st->a <= SPEC_MAX ? &s->d[st->a] : NULL;
	bool held = d && st->a && r->held[st->a] > 0;

	switch (st->op) {
	case T_ALLOC:
		return held && depth(s, st->a) < 3 && s->next_id < SPEC_MAX - 2;
	case T_ADD:
	case T_REHASH:
		return held && d->parent != st->a && !d->hashed &&
		       (st->op == T_REHASH || !(d->flags & DCSIM_DCACHE_ENTRY_TYPE)) &&
		       !spec_has_hashed(s, d->parent, d->name);
	case T_SETOP:
		return held && !d->hashed;
	case T_LOOKUP:
	case T_DGET:
	case T_DGET_PARENT:
	case T_DPUT:
	case T_DROP:
	case T_DELETE:
	case T_INVALIDATE:
	case T_SETFLAGS:
		return held;
	case T_PRUNE:
	case T_SHRINK_ALL:
		return true;
	}
	return false;
}

static bool mismatch(struct run *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	return false;
}

static bool got_new(struct run *r, uint32_t id, struct dcsim_dentry *d)
{
	if (!r->c)
		return true;
	if (!d)
		return mismatch(r, "allocation failed");
	if (dcsim_d_id(d) != id)
		return mismatch(r, "new dentry has id %" PRIu64 ", spec %u", dcsim_d_id(d), id);
	r->ptr[id] = d;
	return true;
}

static int op_always(const struct dcsim_dentry *x)
{
	(void)x;
	return 1;
}

static int op_never(const struct dcsim_dentry *x)
{
	(void)x;
	return 0;
}

static const struct dcsim_dentry_operations ops[2] = {
	{ .d_delete = op_always }, { .d_delete = op_never },
};

/* Apply @st to the spec and the cache.  Return: false on a mismatch. */
static bool apply(struct run *r, const struct step *st)
{
	struct spec *s = &r->spec;
	struct dcsim_dentry *d = r->c ? r->ptr[st->a] : NULL;
	uint32_t id;
	unsigned long ks, kc;

	switch (st->op) {
	case T_ALLOC:
		id = spec_alloc(s, st->a, names[st->b % DCSIM_ARRAY_SIZE(names)]);
		r->held[id]++;
		return got_new(r, id, r->c ? dcsim_d_alloc(d, names[st->b % DCSIM_ARRAY_SIZE(names)]) : NULL);
	case T_ADD:
		spec_add(s, st->a, st->b & 1);
		if (r->c)
			dcsim_d_add(d, st->b & 1);
		return true;
	case T_REHASH:
		spec_rehash(s, st->a);
		if (r->c)
			dcsim_d_rehash(d);
		return true;
	case T_LOOKUP: {
		const char *nm = names[st->b % DCSIM_ARRAY_SIZE(names)];
		struct dcsim_dentry *got = r->c ? dcsim_d_lookup(d, nm) : NULL;

		id = spec_lookup(s, st->a, nm);
		if (id)
			r->held[id]++;
		if (!r->c)
			return true;
		if ((got ? dcsim_d_id(got) : 0) != id)
			return mismatch(r, "lookup returned #%" PRIu64 ", spec #%u",
					got ? dcsim_d_id(got) : 0, id);
		return true;
	}
	case T_DGET:
		spec_dget(s, st->a);
		r->held[st->a]++;
		if (r->c)
			dcsim_dget(d);
		return true;
	case T_DGET_PARENT: {
		struct dcsim_dentry *p = r->c ? dcsim_dget_parent(d) : NULL;

		id = spec_dget_parent(s, st->a);
		r->held[id]++;
		if (r->c && (!p || dcsim_d_id(p) != id))
			return mismatch(r, "dget_parent returned #%" PRIu64 ", spec #%u",
					p ? dcsim_d_id(p) : 0, id);
		return true;
	}
	case T_DPUT:
		r->held[st->a]--;
		spec_dput(s, st->a);
		if (r->c)
			dcsim_dput(d);
		return true;
	case T_DROP:
		spec_drop(s, st->a);
		if (r->c)
			dcsim_d_drop(d);
		return true;
	case T_DELETE:
		spec_delete(s, st->a);
		if (r->c)
			dcsim_d_delete(d);
		return true;
	case T_INVALIDATE:
		spec_invalidate(s, st->a);
		if (r->c)
			dcsim_d_invalidate(d);
		return true;
	case T_SETOP: {
		spec_set_op(s, st->a, st->b & 1 ? SPEC_OP_NEVER : SPEC_OP_ALWAYS);
		if (r->c)
			dcsim_d_set_op(d, &ops[st->b & 1]);
		return true;
	}
	case T_SETFLAGS: {
		uint32_t f = st->b & 1 ? DCSIM_DCACHE_DONTCACHE : DCSIM_DCACHE_DISCONNECTED;

		spec_set_flags(s, st->a, f);
		if (r->c)
			dcsim_d_set_flags(d, f);
		return true;
	}
	case T_PRUNE:
		ks = spec_prune(s, st->b % 8 + 1);
		if (!r->c)
			return true;
		kc = dcsim_prune(r->c, st->b % 8 + 1);
		if (ks != kc)
			return mismatch(r, "prune killed %lu, spec %lu", kc, ks);
		return true;
	case T_SHRINK_ALL:
		ks = spec_shrink_all(s);
		if (!r->c)
			return true;
		kc = dcsim_shrink_all(r->c);
		if (ks != kc)
			return mismatch(r, "shrink_all killed %lu, spec %lu", kc, ks);
		return true;
	}
	return mismatch(r, "bad op");
}

/* Compare the cache with the spec and run the invariant checker. */
static bool compare(struct run *r)
{
	struct dcsim_cache_snapshot a, b;
	struct dcsim_held_ref held[SPEC_MAX];
	size_t nh = 0;
	unsigned int n;

	if (dcsim_cache_snapshot(r->c, &a) || spec_snapshot(&r->spec, &b))
		return mismatch(r, "snapshot failed");
	n = dcsim_snapshot_diff(&a, &b, r->err, sizeof(r->err));
	dcsim_cache_snapshot_release(&a);
	dcsim_cache_snapshot_release(&b);
	if (n)
		return false;
	for (uint32_t i = 1; i < r->spec.next_id; i++)
		if (r->held[i])
			held[nh++] = (struct dcsim_held_ref){ r->ptr[i], r->held[i] };
	if (dcsim_cache_check(r->c, held, nh, DCSIM_CHECK_REFS_EXACT, r->err, sizeof(r->err)))
		return false;
	return true;
}

struct config {
	const struct dcsim_dput_strategy *s;
	enum dcsim_htm_policy policy;
	enum dcsim_retain_style spec_style;	/* normally s->retain_style */
};

/*
 * Replay @t (steps that are invalid in the current state are skipped, which
 * is what makes shrinking possible), then drop every held reference and
 * shrink everything.  Return: true if spec and cache agreed throughout;
 * *@failed_at is the failing step (t->n for the epilogue).
 */
static bool replay(const struct config *cfg, const struct trace *t, size_t *failed_at, char *err,
		   size_t errlen)
{
	struct dcsim_cache_config cc = { .strategy = cfg->s, .hash_bits = 3 };
	struct run *r = calloc(1, sizeof(*r));
	unsigned long w = dcsim_warn_count();
	bool ok = true;
	uint32_t root;

	spec_init(&r->spec, cfg->spec_style);
	dcsim_htm_set_policy(cfg->policy);
	r->c = dcsim_cache_create(&cc);
	root = spec_alloc_root(&r->spec, "/");
	r->held[root] = 1;
	ok = got_new(r, root, dcsim_d_alloc_root(r->c, "/"));
	for (size_t i = 0; ok && i < t->n; i++) {
		if (!valid(r, &t->s[i]))
			continue;
		ok = apply(r, &t->s[i]) && compare(r);
		if (!ok)
			*failed_at = i;
	}
	/* Epilogue: put everything, then everything unused must go. */
	for (uint32_t i = r->spec.next_id - 1; ok && i >= 1; i--) {
		while (ok && r->held[i] > 0) {
			struct step st = { .op = T_DPUT, .a = i };

			ok = apply(r, &st) && compare(r);
		}
	}
	if (ok) {
		struct step st = { .op = T_SHRINK_ALL };

		ok = apply(r, &st) && compare(r);
		if (ok && r->spec.allocs != r->spec.frees)
			ok = mismatch(r, "%" PRId64 " dentries left after the epilogue",
				      r->spec.allocs - r->spec.frees);
	}
	if (!ok && *failed_at == SIZE_MAX)
		*failed_at = t->n;
	if (ok && dcsim_warn_count() != w)
		ok = mismatch(r, "%lu warnings", dcsim_warn_count() - w);
	if (!ok)
		snprintf(err, errlen, "%s", r->err);
	/* On a mismatch the cache may hold references: destroy reports, quietly. */
	if (!ok)
		dcsim_warn_set_quiet(true);
	dcsim_cache_destroy(r->c);
	if (!ok)
		dcsim_warn_set_quiet(false);
	free(r);
	return ok;
}

static void generate(struct trace *t, uint64_t seed, size_t steps)
{
	struct dcsim_rng rng;
	struct run *r = calloc(1, sizeof(*r));
	unsigned int total = 0;
	uint32_t root;

	for (int i = 0; i < T_NR; i++)
		total += top_weight[i];
	dcsim_rng_seed(&rng, seed);
	t->seed = seed;
	t->n = 0;
	t->s = calloc(steps, sizeof(*t->s));
	spec_init(&r->spec, DCSIM_RETAIN_LRU_THEN_REFERENCED);
	root = spec_alloc_root(&r->spec, "/");
	r->held[root] = 1;
	for (size_t tries = 0; t->n < steps && tries < steps * 50; tries++) {
		struct step st = { 0 };
		unsigned int x = dcsim_rng_below(&rng, total);
		uint32_t cand[SPEC_MAX], nc = 0;

		while (x >= top_weight[st.op])
			x -= top_weight[st.op++];
		for (uint32_t i = 1; i < r->spec.next_id; i++)
			if (r->held[i] > 0)
				cand[nc++] = i;
		st.a = nc ? cand[dcsim_rng_below(&rng, nc)] : 0;
		st.b = dcsim_rng_below(&rng, 64);
		/* Keep the root's own reference most of the time. */
		if (st.op == T_DPUT && st.a == root && r->held[root] == 1 && dcsim_rng_below(&rng, 8))
			continue;
		if (!valid(r, &st))
			continue;
		apply(r, &st);
		t->s[t->n++] = st;
	}
	free(r);
}

static void print_trace(const struct config *cfg, const struct trace *t)
{
	fprintf(stderr, "trace (seed %" PRIu64 ", strategy %s, HTM %s), %zu steps:\n", t->seed,
		cfg->s->name, dcsim_htm_policy_name(cfg->policy), t->n);
	for (size_t i = 0; i < t->n; i++)
		fprintf(stderr, "  %2zu: %-11s #%u b=%u\n", i, top_names[t->s[i].op], t->s[i].a,
			t->s[i].b);
}

/* Greedy shrinking: drop steps while the trace still fails. */
static void shrink(const struct config *cfg, struct trace *t)
{
	char err[4096];
	bool progress = true;

	while (progress) {
		progress = false;
		for (size_t i = t->n; i-- > 0;) {
			struct step saved = t->s[i];
			size_t at = SIZE_MAX;

			memmove(&t->s[i], &t->s[i + 1], (t->n - i - 1) * sizeof(*t->s));
			t->n--;
			if (!replay(cfg, t, &at, err, sizeof(err))) {
				progress = true;
				continue;
			}
			memmove(&t->s[i + 1], &t->s[i], (t->n - i) * sizeof(*t->s));
			t->s[i] = saved;
			t->n++;
		}
	}
}

/* Run one trace on one config; on failure shrink, print, return false. */
static bool run_one(const struct config *cfg, struct trace *t, bool quiet)
{
	char err[4096];
	size_t at = SIZE_MAX;

	if (replay(cfg, t, &at, err, sizeof(err)))
		return true;
	if (!quiet)
		fprintf(stderr, "MISMATCH at step %zu of seed %" PRIu64 " (%s, HTM %s):\n%s\n", at,
			t->seed, cfg->s->name, dcsim_htm_policy_name(cfg->policy), err);
	shrink(cfg, t);
	at = SIZE_MAX;
	replay(cfg, t, &at, err, sizeof(err));
	if (!quiet) {
		fprintf(stderr, "minimal failing trace:\n");
		print_trace(cfg, t);
		fprintf(stderr, "fails at step %zu:\n%s\nreproduce: DCSIM_SEED=%" PRIu64
			" DCSIM_DIFF_TRACES=1\n", at, err, t->seed);
	}
	return false;
}

static void test_differential(void **state)
{
	uint64_t base = dcsim_test_seed(20130930);
	uint64_t ntraces = dcsim_test_env_u64("DCSIM_DIFF_TRACES", 3000);
	uint64_t steps = dcsim_test_env_u64("DCSIM_DIFF_STEPS", 60);
	enum dcsim_htm_policy env = dcsim_test_env_policy();
	struct config cfgs[2 * DCSIM_MAX_STRATEGIES];
	size_t ncfg = 0, failures = 0;
	struct timespec t0, t1;

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; i < dcsim_strategy_count(); i++) {
		const struct dcsim_dput_strategy *s = dcsim_strategy_get(i);
		enum dcsim_htm_policy pol[2];
		size_t np = dcsim_test_policies(s, pol);

		for (size_t p = 0; p < np; p++)
			cfgs[ncfg++] = (struct config){ s, pol[p], s->retain_style };
	}
	for (uint64_t i = 0; i < ntraces && failures < 3; i++) {
		struct trace t;

		generate(&t, base + i, steps);
		for (size_t k = 0; k < ncfg; k++) {
			if (!run_one(&cfgs[k], &t, false)) {
				failures++;
				break;
			}
		}
		free(t.s);
	}
	dcsim_htm_set_policy(env);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(stderr, "differential: %" PRIu64 " traces x %zu configs (env HTM %s) in %.1f s\n",
		ntraces, ncfg, dcsim_htm_policy_name(env),
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	assert_int_equal(failures, 0);
}

/*
 * The harness must be able to fail: run "fast" against a spec with the
 * wrong retain style; some trace must mismatch, and shrink to a few steps.
 */
static void test_harness_detects(void **state)
{
	const struct config cfg = { dcsim_strategy_lookup("fast"), DCSIM_HTM_OFF,
				    DCSIM_RETAIN_ALWAYS_REFERENCED };
	bool detected = false;

	(void)state;
	for (uint64_t i = 0; i < 50 && !detected; i++) {
		struct trace t;

		generate(&t, 777 + i, 40);
		if (!run_one(&cfg, &t, true)) {
			detected = true;
			fprintf(stderr, "self-test: wrong spec detected, shrunk to %zu steps\n", t.n);
			assert_true(t.n <= 4);	/* alloc, add, dput is enough */
		}
		free(t.s);
	}
	dcsim_htm_set_policy(dcsim_test_env_policy());
	assert_true(detected);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_harness_detects),
		cmocka_unit_test(test_differential),
	};

	dcsim_test_print_htm("test-differential");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
