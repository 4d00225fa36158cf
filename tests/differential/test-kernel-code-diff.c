// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The library's models against the kernel's own code (kernel-code/):
 * the same seeded random traces run on "fast" and "k61", on "fast-htm"
 * and "k61-htm" (HTM off, and with the environment's policy), on
 * "retain" (the hand-written 6.8+ dput()) and "k612", and on "retain" and
 * k612 with examples/kernel-patches/retain-dontcache-first.patch, side by
 * side, and after every step the two caches must be in the same canonical
 * state (dcsim_snapshot_diff()), have counted the same dput paths, kills
 * and LRU moves, return the same results, and pass dcsim_cache_verify().
 * A drift of either the model or the patch fails here, whichever changed.
 * The executable spec (spec.c) only decides which steps are valid (which
 * references the trace holds); test-differential checks both against it.
 *
 * Without the linux-source-6.1 and -6.12 tarballs the kernel-code
 * strategies do not exist: exit 77 (skip), naming the packages.
 *
 * Environment: DCSIM_DIFF_TRACES (default 5000), DCSIM_DIFF_STEPS (60),
 * DCSIM_SEED, DCSIM_HTM.
 */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/cache.h>
#include <dcsim/htm.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

#include "harness.h"
#include "spec.h"

enum top {
	T_ALLOC, T_ADD, T_LOOKUP, T_DGET, T_DGET_PARENT, T_DPUT, T_DROP, T_DELETE,
	T_INVALIDATE, T_SETOP, T_SETFLAGS, T_PRUNE, T_SHRINK_ALL, T_NR
};

static const char *const top_names[T_NR] = {
	"alloc", "add", "lookup", "dget", "dget_parent", "dput", "drop", "delete",
	"invalidate", "set_op", "set_flags", "prune", "shrink_all",
};

/* dput-heavy: the code under comparison is the put path. */
static const unsigned int top_weight[T_NR] = {
	[T_ALLOC] = 14, [T_ADD] = 12, [T_LOOKUP] = 16, [T_DGET] = 6, [T_DGET_PARENT] = 4,
	[T_DPUT] = 30, [T_DROP] = 3, [T_DELETE] = 3, [T_INVALIDATE] = 2, [T_SETOP] = 3,
	[T_SETFLAGS] = 3, [T_PRUNE] = 6, [T_SHRINK_ALL] = 1,
};

static const char *const names[] = { "a", "b", "c" };

/* Counters that must agree step by step (the HTM ones are the model's own). */
static const enum dcsim_cache_stat compared[] = {
	DCSIM_CS_DPUT, DCSIM_CS_DPUT_LOCKED, DCSIM_CS_DPUT_CAS, DCSIM_CS_DPUT_HTM,
	DCSIM_CS_DPUT_WARN, DCSIM_CS_PARENT_PUT, DCSIM_CS_KILL_RETRY, DCSIM_CS_KILL,
	DCSIM_CS_FREE, DCSIM_CS_LRU_ADD, DCSIM_CS_LRU_DEL,
};

struct step {
	uint8_t op;
	uint32_t a, b;
};

struct pair {
	const struct dcsim_dput_strategy *s[2];	/* model, kernel code */
	enum dcsim_htm_policy policy;
};

struct run {
	struct spec spec;			/* validity and held references */
	struct dcsim_cache *c[2];
	struct dcsim_dentry *ptr[2][SPEC_MAX + 1];
	int32_t held[SPEC_MAX + 1];
	char err[4096];
};

static bool fail(struct run *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	return false;
}

static int depth(const struct spec *s, uint32_t id)
{
	int n = 0;

	for (; s->d[id].parent != id; id = s->d[id].parent)
		n++;
	return n;
}

static bool valid(const struct run *r, const struct step *st)
{
	const struct spec *s = &r->spec;
	const struct spec_dentry *d = &s->d[st->a];
	bool held = st->a && st->a <= SPEC_MAX && r->held[st->a] > 0;

	switch (st->op) {
	case T_ALLOC:
		return held && depth(s, st->a) < 3 && s->next_id < SPEC_MAX - 2;
	case T_ADD:
		return held && d->parent != st->a && !d->hashed &&
		       !(d->flags & DCSIM_DCACHE_ENTRY_TYPE) &&
		       !spec_has_hashed(s, d->parent, d->name);
	case T_SETOP:
		return held && !d->hashed;
	case T_PRUNE:
	case T_SHRINK_ALL:
		return true;
	default:
		return held;
	}
}

static uint64_t id_of(const struct dcsim_dentry *d)
{
	return d ? dcsim_d_id(d) : 0;
}

/* Apply @st to the spec and to both caches; results must agree. */
static bool apply(struct run *r, const struct step *st)
{
	const char *nm = names[st->b % DCSIM_ARRAY_SIZE(names)];
	struct dcsim_dentry *got[2] = { NULL, NULL };
	unsigned long k[2] = { 0, 0 };
	uint32_t id;

	switch (st->op) {
	case T_ALLOC:
		id = spec_alloc(&r->spec, st->a, nm);
		r->held[id]++;
		break;
	case T_ADD:
		spec_add(&r->spec, st->a, st->b & 1);
		break;
	case T_LOOKUP:
		id = spec_lookup(&r->spec, st->a, nm);
		if (id)
			r->held[id]++;
		break;
	case T_DGET:
		spec_dget(&r->spec, st->a);
		r->held[st->a]++;
		break;
	case T_DGET_PARENT:
		id = spec_dget_parent(&r->spec, st->a);
		r->held[id]++;
		break;
	case T_DPUT:
		spec_dput(&r->spec, st->a);
		r->held[st->a]--;
		break;
	case T_DROP:
		spec_drop(&r->spec, st->a);
		break;
	case T_DELETE:
		spec_delete(&r->spec, st->a);
		break;
	case T_INVALIDATE:
		spec_invalidate(&r->spec, st->a);
		break;
	case T_SETOP:
		spec_set_op(&r->spec, st->a, st->b & 1 ? SPEC_OP_NEVER : SPEC_OP_ALWAYS);
		break;
	case T_SETFLAGS:
		spec_set_flags(&r->spec, st->a, st->b & 1 ? DCSIM_DCACHE_DONTCACHE :
							     DCSIM_DCACHE_DISCONNECTED);
		break;
	case T_PRUNE:
		spec_prune(&r->spec, st->b % 8 + 1);
		break;
	case T_SHRINK_ALL:
		spec_shrink_all(&r->spec);
		break;
	}
	for (int i = 0; i < 2; i++) {
		struct dcsim_dentry *d = r->ptr[i][st->a];

		switch (st->op) {
		case T_ALLOC:
			got[i] = dcsim_d_alloc(d, nm);
			if (got[i])
				r->ptr[i][dcsim_d_id(got[i])] = got[i];
			break;
		case T_ADD:		dcsim_d_add(d, st->b & 1); break;
		case T_LOOKUP:		got[i] = dcsim_d_lookup(d, nm); break;
		case T_DGET:		dcsim_dget(d); break;
		case T_DGET_PARENT:	got[i] = dcsim_dget_parent(d); break;
		case T_DPUT:		dcsim_dput(d); break;
		case T_DROP:		dcsim_d_drop(d); break;
		case T_DELETE:		dcsim_d_delete(d); break;
		case T_INVALIDATE:	dcsim_d_invalidate(d); break;
		case T_SETOP:
			dcsim_d_set_op(d, spec_d_op(st->b & 1 ? SPEC_OP_NEVER : SPEC_OP_ALWAYS));
			break;
		case T_SETFLAGS:
			dcsim_d_set_flags(d, st->b & 1 ? DCSIM_DCACHE_DONTCACHE :
							 DCSIM_DCACHE_DISCONNECTED);
			break;
		case T_PRUNE:		k[i] = dcsim_prune(r->c[i], st->b % 8 + 1); break;
		case T_SHRINK_ALL:	k[i] = dcsim_shrink_all(r->c[i]); break;
		}
	}
	if (id_of(got[0]) != id_of(got[1]))
		return fail(r, "%s returned #%" PRIu64 " vs #%" PRIu64, top_names[st->op],
			    id_of(got[0]), id_of(got[1]));
	if (k[0] != k[1])
		return fail(r, "%s killed %lu vs %lu", top_names[st->op], k[0], k[1]);
	return true;
}

static bool compare(struct run *r, const struct pair *p)
{
	struct dcsim_cache_snapshot a, b;
	struct dcsim_cache_stats sa, sb;
	struct dcsim_held_ref held[2][SPEC_MAX];
	size_t nh = 0;
	unsigned int n;

	if (dcsim_cache_snapshot(r->c[0], &a) || dcsim_cache_snapshot(r->c[1], &b))
		return fail(r, "snapshot failed");
	n = dcsim_snapshot_diff(&a, &b, r->err, sizeof(r->err));
	dcsim_cache_snapshot_release(&a);
	dcsim_cache_snapshot_release(&b);
	if (n)
		return false;
	dcsim_cache_stats_read(r->c[0], &sa);
	dcsim_cache_stats_read(r->c[1], &sb);
	for (size_t i = 0; i < DCSIM_ARRAY_SIZE(compared); i++)
		if (sa.v[compared[i]] != sb.v[compared[i]])
			return fail(r, "stat %s: %s %" PRId64 ", %s %" PRId64,
				    dcsim_cache_stat_name(compared[i]), p->s[0]->name,
				    sa.v[compared[i]], p->s[1]->name, sb.v[compared[i]]);
	for (uint32_t i = 1; i < r->spec.next_id; i++) {
		if (!r->held[i])
			continue;
		held[0][nh] = (struct dcsim_held_ref){ r->ptr[0][i], r->held[i] };
		held[1][nh++] = (struct dcsim_held_ref){ r->ptr[1][i], r->held[i] };
	}
	for (int i = 0; i < 2; i++)
		if (dcsim_cache_verify(r->c[i], held[i], nh, DCSIM_VERIFY_REFS_EXACT, r->err,
				      sizeof(r->err)))
			return false;
	return true;
}

/* Run @t on both strategies of @p.  Return: true if they agreed throughout. */
static bool replay(const struct pair *p, const struct step *t, size_t n, size_t *at, char *err,
		   size_t errlen)
{
	struct run *r = calloc(1, sizeof(*r));
	unsigned long w = dcsim_warn_count();
	uint32_t root;
	bool ok = true;

	spec_init(&r->spec, p->s[0]->retain_style);
	dcsim_htm_set_policy(p->policy);
	root = spec_alloc_root(&r->spec, "/");
	r->held[root] = 1;
	for (int i = 0; i < 2; i++) {
		struct dcsim_cache_config cc = { .strategy = p->s[i], .hash_bits = 3 };

		r->c[i] = dcsim_cache_create(&cc);
		r->ptr[i][root] = dcsim_d_alloc_root(r->c[i], "/");
	}
	*at = SIZE_MAX;
	for (size_t i = 0; ok && i < n; i++) {
		if (!valid(r, &t[i]))
			continue;
		ok = apply(r, &t[i]) && compare(r, p);
		if (!ok)
			*at = i;
	}
	for (uint32_t i = r->spec.next_id - 1; ok && i >= 1; i--) {
		while (ok && r->held[i] > 0) {
			struct step st = { .op = T_DPUT, .a = i };

			ok = apply(r, &st) && compare(r, p);
		}
	}
	if (ok) {
		struct step st = { .op = T_SHRINK_ALL };

		ok = apply(r, &st) && compare(r, p);
	}
	if (!ok && *at == SIZE_MAX)
		*at = n;
	if (ok && dcsim_warn_count() != w)
		ok = fail(r, "%lu warnings", dcsim_warn_count() - w);
	if (!ok)
		snprintf(err, errlen, "%s", r->err);
	dcsim_warn_set_quiet(!ok);
	for (int i = 0; i < 2; i++)
		dcsim_cache_destroy(r->c[i]);
	dcsim_warn_set_quiet(false);
	free(r);
	return ok;
}

static size_t generate(struct step *t, uint64_t seed, size_t steps)
{
	struct dcsim_rng rng;
	struct run *r = calloc(1, sizeof(*r));
	unsigned int total = 0;
	size_t n = 0;

	for (int i = 0; i < T_NR; i++)
		total += top_weight[i];
	dcsim_rng_seed(&rng, seed);
	spec_init(&r->spec, DCSIM_RETAIN_LRU_THEN_REFERENCED);
	r->held[spec_alloc_root(&r->spec, "/")] = 1;
	for (size_t tries = 0; n < steps && tries < steps * 50; tries++) {
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
		if (st.op == T_DPUT && st.a == 1 && r->held[1] == 1 && dcsim_rng_below(&rng, 8))
			continue;	/* keep the root's reference most of the time */
		if (!valid(r, &st))
			continue;
		/* apply() on the spec only: no caches in this run */
		switch (st.op) {
		case T_ALLOC:	r->held[spec_alloc(&r->spec, st.a, names[st.b % 3])]++; break;
		case T_ADD:	spec_add(&r->spec, st.a, st.b & 1); break;
		case T_LOOKUP: {
			uint32_t id = spec_lookup(&r->spec, st.a, names[st.b % 3]);

			if (id)
				r->held[id]++;
			break;
		}
		case T_DGET:	spec_dget(&r->spec, st.a); r->held[st.a]++; break;
		case T_DGET_PARENT: r->held[spec_dget_parent(&r->spec, st.a)]++; break;
		case T_DPUT:	spec_dput(&r->spec, st.a); r->held[st.a]--; break;
		case T_DROP:	spec_drop(&r->spec, st.a); break;
		case T_DELETE:	spec_delete(&r->spec, st.a); break;
		case T_INVALIDATE: spec_invalidate(&r->spec, st.a); break;
		case T_SETOP:
			spec_set_op(&r->spec, st.a, st.b & 1 ? SPEC_OP_NEVER : SPEC_OP_ALWAYS);
			break;
		case T_SETFLAGS:
			spec_set_flags(&r->spec, st.a, st.b & 1 ? DCSIM_DCACHE_DONTCACHE :
								   DCSIM_DCACHE_DISCONNECTED);
			break;
		case T_PRUNE:	spec_prune(&r->spec, st.b % 8 + 1); break;
		case T_SHRINK_ALL: spec_shrink_all(&r->spec); break;
		}
		t[n++] = st;
	}
	free(r);
	return n;
}

/* Greedy shrinking, then print the minimal trace. */
static void report(const struct pair *p, struct step *t, size_t n, uint64_t seed)
{
	char err[4096];
	size_t at;
	bool progress = true;

	while (progress) {
		progress = false;
		for (size_t i = n; i-- > 0;) {
			struct step saved = t[i];

			memmove(&t[i], &t[i + 1], (n - i - 1) * sizeof(*t));
			if (!replay(p, t, n - 1, &at, err, sizeof(err))) {
				n--;
				progress = true;
				continue;
			}
			memmove(&t[i + 1], &t[i], (n - i - 1) * sizeof(*t));
			t[i] = saved;
		}
	}
	replay(p, t, n, &at, err, sizeof(err));
	fprintf(stderr, "%s vs %s (HTM %s) differ; minimal trace of seed %" PRIu64 ":\n",
		p->s[0]->name, p->s[1]->name, dcsim_htm_policy_name(p->policy), seed);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "  %2zu: %-11s #%u b=%u\n", i, top_names[t[i].op], t[i].a, t[i].b);
	fprintf(stderr, "at step %zu: %s\nreproduce: DCSIM_SEED=%" PRIu64 " DCSIM_DIFF_TRACES=1\n",
		at, err, seed);
}

/*
 * The comparison must be able to fail: "lockref" (3.12, REFERENCED on
 * every final put, d_lock on every final put) against "fast" must differ
 * within a few traces.
 */
static bool detects(struct step *t, size_t steps, const char *a, const char *b)
{
	struct pair p = { { dcsim_strategy_lookup(a), dcsim_strategy_lookup(b) }, DCSIM_HTM_OFF };
	char err[4096];
	size_t at;

	for (uint64_t i = 0; i < 50; i++) {
		size_t n = generate(t, 777 + i, steps);

		if (!replay(&p, t, n, &at, err, sizeof(err))) {
			printf("kernel-code-diff: self-test: %s vs %s differ at step %zu of "
			       "seed %" PRIu64 ": %.80s\n", a, b, at, 777 + i, err);
			return true;
		}
	}
	printf("kernel-code-diff: self-test FAILED: %s vs %s never differed\n", a, b);
	return false;
}

/* The example patches (kernel-code/glue.c); weak: absent without the tarballs. */
extern const struct dcsim_dput_strategy kc_strategy_example __attribute__((weak));
extern const struct dcsim_dput_strategy kc_strategy_example_bug __attribute__((weak));

int main(void)
{
	/*
	 * Model, kernel code, and whether the pair is optional: k612-htm
	 * exists only with kernel/patches-6.12/, retain-htm (its model) only
	 * where the library has it.  k612-htm with HTM off is 6.12's dput
	 * with the series' fallback: retain's states exactly.
	 */
	static const struct {
		const char *model, *kernel;
		bool optional, htm_off_only;
	} pairs[] = {
		{ "fast", "k61" }, { "fast-htm", "k61-htm" }, { "retain", "k612" },
		{ "retain", "k612+retain-dontcache-first" },
		{ "retain", "k612-htm", true, true }, { "retain-htm", "k612-htm", true },
	};
	uint64_t base = dcsim_test_seed(20261203);
	uint64_t ntraces = dcsim_test_env_u64("DCSIM_DIFF_TRACES", 5000);
	size_t steps = dcsim_test_env_u64("DCSIM_DIFF_STEPS", 60);
	enum dcsim_htm_policy env = dcsim_test_env_policy();
	struct pair cfg[16];
	struct step *t;
	size_t ncfg = 0;
	int failures = 0;

	/*
	 * examples/kernel-patches/retain-dontcache-first.patch keeps 6.12's
	 * states: retain = k612 with it.  Its planted-bug twin takes the
	 * lockless path where k612 locks (the dput path counters differ).
	 */
	if (&kc_strategy_example && (dcsim_strategy_register(&kc_strategy_example) ||
				     dcsim_strategy_register(&kc_strategy_example_bug)))
		return fprintf(stderr, "cannot register the example patches' strategies\n"), 1;
	for (size_t i = 0; i < DCSIM_ARRAY_SIZE(pairs); i++) {
		const struct dcsim_dput_strategy *m = dcsim_strategy_lookup(pairs[i].model);
		const struct dcsim_dput_strategy *k = dcsim_strategy_lookup(pairs[i].kernel);
		enum dcsim_htm_policy pol[2];
		size_t np;

		if (pairs[i].optional && (!k || !m)) {
			printf("kernel-code-diff: %s vs %s: not compared (%s is not built here)\n",
			       pairs[i].model, pairs[i].kernel, !k ? pairs[i].kernel : pairs[i].model);
			continue;
		}
		if (!k) {
			/* meson passes the reason kernel-code/meson.build found. */
			const char *why = getenv("DCSIM_KC_WHY");

			printf("kernel-code: strategy %s not built (%s); skipped\n", pairs[i].kernel,
			       why && *why ? why : "no linux-source-6.1/6.12 tarballs at configure "
			       "time: apt-get install linux-source-6.1 linux-source-6.12, reconfigure");
			return 77;
		}
		if (!m)
			return fprintf(stderr, "no strategy %s\n", pairs[i].model), 1;
		np = dcsim_test_policies(k, pol);
		if (pairs[i].htm_off_only) {
			pol[0] = DCSIM_HTM_OFF;
			np = 1;
		}
		for (size_t j = 0; j < np; j++)
			cfg[ncfg++] = (struct pair){ { m, k }, pol[j] };
	}
	/* Only now: a skip above must not leak it (LeakSanitizer builds). */
	t = calloc(steps, sizeof(*t));
	if (!t)
		return fprintf(stderr, "out of memory\n"), 1;
	dcsim_test_print_htm("test-kernel-code-diff");
	if (!detects(t, steps, "fast", "lockref"))
		failures++;
	if (!detects(t, steps, "retain", kc_strategy_example_bug.name))
		failures++;
	for (uint64_t i = 0; i < ntraces && !failures; i++) {
		size_t n = generate(t, base + i, steps);

		for (size_t c = 0; c < ncfg && !failures; c++) {
			char err[4096];
			size_t at;

			if (!replay(&cfg[c], t, n, &at, err, sizeof(err))) {
				report(&cfg[c], t, n, base + i);
				failures++;
			}
		}
	}
	dcsim_htm_set_policy(env);
	for (size_t c = 0; c < ncfg; c++)
		printf("kernel-code-diff: %s vs %s, HTM %s: %" PRIu64 " traces of %zu steps, %s\n",
		       cfg[c].s[0]->name, cfg[c].s[1]->name, dcsim_htm_policy_name(cfg[c].policy),
		       ntraces, steps, failures ? "FAILED" : "identical after every step");
	free(t);
	return failures ? 1 : 0;
}
