// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Differential tests: the differential suite (dcsim_checker_diff(),
 * src/checker/diff.c) on every registered dput strategy.  Seeded random
 * traces of cache operations over a small tree run on the strategy (HTM
 * strategies with HTM off, and with simulated transactions committing and
 * aborting in instrumented builds, or the environment's live policy in normal
 * ones) and on the executable spec (spec.c); after every step the
 * canonical states must be identical and dcsim_cache_verify() clean with
 * the exact references the trace holds.  A failing trace is shrunk and
 * printed in the trace format (docs/trace-format.md) with a replay line.
 *
 * The runner is library code of the instrumented build (and what dcsim-check
 * runs); normal builds compile it into this program.
 *
 * Environment: DCSIM_CHECKER_BUDGET (quick|default|soak; default "default":
 * 3000 traces per strategy), DCSIM_DIFF_TRACES and DCSIM_DIFF_STEPS (trace
 * count and length, overriding the budget), DCSIM_SEED (base seed),
 * DCSIM_HTM.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dcsim/checker.h>
#include <dcsim/htm.h>
#include <dcsim/strategy.h>

#include "harness.h"

static void opts_from_env(struct dcsim_checker_opts *o)
{
	const char *b = getenv("DCSIM_CHECKER_BUDGET");

	dcsim_checker_opts_init(o);
	o->budget = DCSIM_BUDGET_DEFAULT;
	if (b && *b && dcsim_checker_budget_parse(b, &o->budget))
		fprintf(stderr, "DCSIM_CHECKER_BUDGET=%s: want quick, default or soak\n", b);
	o->seed = dcsim_test_seed(20130930);
	o->diff_traces = dcsim_test_env_u64("DCSIM_DIFF_TRACES", 0);
	o->diff_steps = (unsigned int)dcsim_test_env_u64("DCSIM_DIFF_STEPS", 0);
	o->report = stderr;
}

static void test_differential(void **state)
{
	struct dcsim_checker_opts o;
	size_t failures = 0;

	(void)state;
	opts_from_env(&o);
	for (size_t i = 0; i < dcsim_strategy_count(); i++) {
		const struct dcsim_dput_strategy *s = dcsim_strategy_get(i);
		struct dcsim_checker_result r;

		if (dcsim_checker_diff(s, &o, &r))
			failures++;
	}
	assert_int_equal(failures, 0);
}

/*
 * The harness must be able to fail: "fast"'s dput declared with the 3.x
 * retain style makes the spec expect REFERENCED on the first final put;
 * some trace must mismatch, and shrink to a few steps.
 */
static struct dcsim_dput_strategy wrong_style;

static void test_harness_detects(void **state)
{
	const struct dcsim_dput_strategy *fast = dcsim_strategy_lookup("fast");
	struct dcsim_checker_opts o;
	struct dcsim_checker_result r;

	(void)state;
	assert_non_null(fast);
	wrong_style = *fast;
	wrong_style.name = "fast-declared-3x";
	wrong_style.retain_style = DCSIM_RETAIN_ALWAYS_REFERENCED;
	dcsim_checker_opts_init(&o);
	o.seed = 777;
	o.quiet = true;
	assert_int_equal(dcsim_checker_diff(&wrong_style, &o, &r), 1);
	fprintf(stderr, "self-test: wrong spec detected, shrunk to %zu steps (%s)\n",
		r.shrunk_steps, r.failure);
	assert_true(r.shrunk_steps <= 4);	/* alloc, add, dput is enough */
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
