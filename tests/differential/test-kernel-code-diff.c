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
 * The executable spec (spec.c) decides which steps are valid (which
 * references the trace holds) and checks each side's step results, as
 * test-differential does.
 *
 * Without the linux-source-6.1 and -6.12 tarballs the kernel-code
 * strategies do not exist: exit 77 (skip), naming the packages.
 *
 * The traces are the checker's trace language (src/checker/diff.h), drawn
 * with its dput-heavy weights; a failure is shrunk and printed as a trace
 * file with a replay line, and "test-kernel-code-diff FILE" runs that file
 * on every pair instead of the random traces.
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
#include "diff.h"
#include "spec.h"

/* Counters that must agree step by step (the HTM ones are the model's own). */
static const enum dcsim_cache_stat compared[] = {
	DCSIM_CS_DPUT, DCSIM_CS_DPUT_LOCKED, DCSIM_CS_DPUT_CAS, DCSIM_CS_DPUT_HTM,
	DCSIM_CS_DPUT_WARN, DCSIM_CS_PARENT_PUT, DCSIM_CS_KILL_RETRY, DCSIM_CS_KILL,
	DCSIM_CS_FREE, DCSIM_CS_LRU_ADD, DCSIM_CS_LRU_DEL,
};

struct pair {
	const struct dcsim_dput_strategy *s[2];	/* model, kernel code */
	enum dcsim_htm_policy policy;
};

/*
 * Each side runs the trace language's own step (diff_apply()) against its
 * own copy of the spec: the spec decides validity and held references, and
 * the results of a step (a returned dentry, a kill count) agree on both
 * sides when both agree with it.  compare() then holds the two caches to
 * each other, which the spec cannot: dput paths, counters, LRU moves.
 */
static bool compare(struct run *r[2], const struct pair *p)
{
	struct dcsim_cache_snapshot a, b;
	struct dcsim_cache_stats sa, sb;
	struct dcsim_held_ref held[2][SPEC_MAX];
	size_t nh = 0;
	unsigned int n;

	if (dcsim_cache_snapshot(r[0]->c, &a) || dcsim_cache_snapshot(r[1]->c, &b))
		return diff_mismatch(r[0], "snapshot failed");
	n = dcsim_snapshot_diff(&a, &b, r[0]->err, sizeof(r[0]->err));
	dcsim_cache_snapshot_release(&a);
	dcsim_cache_snapshot_release(&b);
	if (n)
		return false;
	dcsim_cache_stats_read(r[0]->c, &sa);
	dcsim_cache_stats_read(r[1]->c, &sb);
	for (size_t i = 0; i < DCSIM_ARRAY_SIZE(compared); i++)
		if (sa.v[compared[i]] != sb.v[compared[i]])
			return diff_mismatch(r[0], "stat %s: %s %" PRId64 ", %s %" PRId64,
					     dcsim_cache_stat_name(compared[i]), p->s[0]->name,
					     sa.v[compared[i]], p->s[1]->name, sb.v[compared[i]]);
	for (uint32_t i = 1; i < r[0]->spec.next_id; i++) {
		if (!r[0]->held[i])
			continue;
		held[0][nh] = (struct dcsim_held_ref){ r[0]->ptr[i], r[0]->held[i] };
		held[1][nh++] = (struct dcsim_held_ref){ r[1]->ptr[i], r[1]->held[i] };
	}
	for (int i = 0; i < 2; i++)
		if (dcsim_cache_verify(r[i]->c, held[i], nh, DCSIM_VERIFY_REFS_EXACT, r[0]->err,
				       sizeof(r[0]->err)))
			return false;
	return true;
}

/* @st on both sides, then compare().  Return: false with the reason in r[0]->err. */
static bool step_both(struct run *r[2], const struct pair *p, const struct step *st)
{
	for (int i = 0; i < 2; i++) {
		if (!diff_apply(r[i], st)) {
			if (i)
				memcpy(r[0]->err, r[1]->err, sizeof(r[0]->err));
			return diff_mismatch(r[0], "%s (%s) against the spec: %.3900s",
					     p->s[i]->name, i ? "kernel code" : "model",
					     r[i]->err);
		}
	}
	return compare(r, p);
}

/*
 * Run @t on both strategies of @p.  Return: true if they agreed throughout;
 * otherwise *@at is the failing step (t->n: the final drain).
 */
static bool replay(const struct pair *p, const struct trace *t, size_t *at, char *err,
		   size_t errlen)
{
	struct run *r[2] = { calloc(1, sizeof(*r[0])), calloc(1, sizeof(*r[1])) };
	unsigned long w = dcsim_warn_count();
	bool ok = true;

	if (!r[0] || !r[1]) {
		free(r[0]);
		free(r[1]);
		snprintf(err, errlen, "out of memory");
		*at = 0;
		return false;
	}
	dcsim_htm_set_policy(p->policy);
	for (int i = 0; i < 2; i++) {
		struct dcsim_cache_config cc = { .strategy = p->s[i], .hash_bits = 3 };
		uint32_t root;

		spec_init_for(&r[i]->spec, p->s[i]);
		root = spec_alloc_root(&r[i]->spec, "/");
		r[i]->held[root] = 1;
		r[i]->c = dcsim_cache_create(&cc);
		r[i]->ptr[root] = dcsim_d_alloc_root(r[i]->c, "/");
	}
	*at = SIZE_MAX;
	for (size_t i = 0; ok && i < t->n; i++) {
		if (!diff_valid(r[0], &t->s[i]))
			continue;
		ok = step_both(r, p, &t->s[i]);
		if (!ok)
			*at = i;
	}
	for (uint32_t i = r[0]->spec.next_id - 1; ok && i >= 1; i--) {
		while (ok && r[0]->held[i] > 0) {
			struct step st = { .op = OP_DPUT, .a = i };

			ok = step_both(r, p, &st);
		}
	}
	if (ok) {
		struct step st = { .op = OP_SHRINK_ALL };

		ok = step_both(r, p, &st);
	}
	if (!ok && *at == SIZE_MAX)
		*at = t->n;
	if (ok && dcsim_warn_count() != w)
		ok = diff_mismatch(r[0], "%lu warnings", dcsim_warn_count() - w);
	if (!ok)
		snprintf(err, errlen, "%s", r[0]->err);
	dcsim_warn_set_quiet(!ok);
	for (int i = 0; i < 2; i++) {
		dcsim_cache_destroy(r[i]->c);
		free(r[i]);
	}
	dcsim_warn_set_quiet(false);
	return ok;
}

/*
 * Greedy shrinking, then the minimal trace in the trace format
 * (docs/trace-format.md) and a replay line.
 */
static void report(const struct pair *p, struct trace *t, size_t steps, const char *file)
{
	char err[4096], comment[256];
	size_t at;
	bool progress = true;

	while (progress) {
		progress = false;
		for (size_t i = t->n; i-- > 0;) {
			struct step saved = t->s[i];

			memmove(&t->s[i], &t->s[i + 1], (t->n - i - 1) * sizeof(*t->s));
			t->n--;
			if (!replay(p, t, &at, err, sizeof(err))) {
				progress = true;
				continue;
			}
			t->n++;
			memmove(&t->s[i + 1], &t->s[i], (t->n - i - 1) * sizeof(*t->s));
			t->s[i] = saved;
		}
	}
	replay(p, t, &at, err, sizeof(err));
	fprintf(stderr, "%s vs %s (HTM %s) differ; minimal trace of seed %" PRIu64 ":\n",
		p->s[0]->name, p->s[1]->name, dcsim_htm_policy_name(p->policy), t->seed);
	snprintf(comment, sizeof(comment), "%s vs %s, HTM %s, seed %" PRIu64, p->s[0]->name,
		 p->s[1]->name, dcsim_htm_policy_name(p->policy), t->seed);
	trace_print(stderr, t, comment);
	/* Shrinking removed the invalid steps: @at counts the lines above. */
	fprintf(stderr, "at step %zu of %zu (%zu: the final puts): %s\n", at, t->n, t->n, err);
	if (file) {
		fprintf(stderr, "replay: DCSIM_HTM=%s test-kernel-code-diff %s\n",
			dcsim_htm_policy_name(p->policy), file);
		return;
	}
	fprintf(stderr, "replay: DCSIM_SEED=%" PRIu64 " DCSIM_DIFF_TRACES=1 DCSIM_DIFF_STEPS=%zu "
		"DCSIM_HTM=%s test-kernel-code-diff, or the trace above saved to FILE: "
		"test-kernel-code-diff FILE\n", t->seed, steps, dcsim_htm_policy_name(p->policy));
}

/*
 * The comparison must be able to fail: "lockref" (3.12, REFERENCED on
 * every final put, d_lock on every final put) against "fast" must differ
 * within a few traces.
 */
static bool detects(size_t steps, const char *a, const char *b)
{
	struct pair p = { { dcsim_strategy_lookup(a), dcsim_strategy_lookup(b) }, DCSIM_HTM_OFF };
	char err[4096];
	size_t at;

	for (uint64_t i = 0; i < 50; i++) {
		struct trace t;
		bool same;

		diff_generate(&t, 777 + i, steps, diff_dput_weights);
		same = replay(&p, &t, &at, err, sizeof(err));
		trace_release(&t);
		if (!same) {
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

int main(int argc, char **argv)
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
	struct trace file = { 0 };
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
	/* A trace file (a failure's report, saved) replaces the random ones. */
	if (argc > 1) {
		char err[512];

		if (trace_parse(argv[1], &file, err, sizeof(err)))
			return fprintf(stderr, "%s\n", err[0] ? err : argv[1]), 1;
		ntraces = 1;
		steps = file.n;
	}
	dcsim_test_print_htm("test-kernel-code-diff");
	if (!detects(steps ? steps : 1, "fast", "lockref"))
		failures++;
	if (!detects(steps ? steps : 1, "retain", kc_strategy_example_bug.name))
		failures++;
	for (uint64_t i = 0; i < ntraces && !failures; i++) {
		struct trace t;

		if (argc > 1)
			t = file;
		else
			diff_generate(&t, base + i, steps, diff_dput_weights);
		for (size_t c = 0; c < ncfg && !failures; c++) {
			char err[4096];
			size_t at;

			if (!replay(&cfg[c], &t, &at, err, sizeof(err))) {
				report(&cfg[c], &t, steps, argc > 1 ? argv[1] : NULL);
				failures++;
			}
		}
		if (argc > 1)
			file = t;
		else
			trace_release(&t);
	}
	dcsim_htm_set_policy(env);
	for (size_t c = 0; c < ncfg; c++)
		printf("kernel-code-diff: %s vs %s, HTM %s: %" PRIu64 " traces of %zu steps, %s\n",
		       cfg[c].s[0]->name, cfg[c].s[1]->name, dcsim_htm_policy_name(cfg[c].policy),
		       ntraces, steps, failures ? "FAILED" : "identical after every step");
	trace_release(&file);
	return failures ? 1 : 0;
}
