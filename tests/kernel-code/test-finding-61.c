// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The 6.1 finding (docs/findings/6.1-shrink-lock-dentry.md) pinned: the
 * scenario prune-negative-create on the kernel's own 6.1 code (k61,
 * k61-htm) and on everything else, at dcsim-check's default explore budget
 * (60 executions per scenario and mode).
 *
 *  - k61 and k61-htm: unnamed, the scenario is skipped (a bug the tree
 *    has); named, PCT must catch it for at least MIN_CAUGHT of the seeds
 *    1..NSEEDS, each time with the explorer's i_lock assertion (not some
 *    later symptom such as the unlock of a lock that is not held), and
 *    random walk and PCT must both report the execution that caught it;
 *  - every other registered strategy (the eight model strategies, k612,
 *    k612-htm): the scenario runs unnamed and passes, random and PCT, for
 *    seeds 1..NSEEDS, HTM off and, for HTM strategies, with simulated
 *    transactions that commit.
 *
 * Measured on 2026-12-05: PCT caught it on k61 and on k61-htm for 8 of
 * the seeds 1..16, each within 60 executions (the first at 16); MIN_CAUGHT
 * leaves room for a change of the model that moves schedules around, not
 * for a checker that no longer sees the unlocked kill.
 */

#include <stdio.h>
#include <string.h>

#include <dcsim/explore-dcache.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

#define DEFAULT_BUDGET	60	/* src/checker/suite-explore.c, iters[] for "default" */
#define NSEEDS		16
#define MIN_CAUGHT	5

static const char *const assertion = "without holding its inode's i_lock";

static int run(const struct dcsim_dput_strategy *s, enum dcsim_explore_mode mode,
	       enum dcsim_explore_htm htm, uint64_t seed, bool named,
	       struct dcsim_explore_result *r)
{
	struct dcsim_explore_opts o;
	char name[160];

	dcsim_explore_opts_init(&o);
	o.mode = mode;
	o.seed = seed;
	o.iterations = DEFAULT_BUDGET;
	o.htm = htm;
	o.abort_permille = 60;
	o.quiet = true;
	if (named) {
		snprintf(name, sizeof(name), "%s/%s/%s",
			 dcsim_dcache_scenario_name(DCSIM_DSCN_PRUNE_NEGATIVE_CREATE), s->name,
			 dcsim_explore_htm_name(htm));
		o.scenario = name;
	}
	return dcsim_explore_dcache(s, DCSIM_DSCN_PRUNE_NEGATIVE_CREATE, &o, r);
}

/* k61, k61-htm: skipped unnamed, caught named.  Return: failures. */
static int check_buggy(const struct dcsim_dput_strategy *s)
{
	struct dcsim_explore_result r;
	unsigned int caught = 0;
	int failed = 0, rc;

	rc = run(s, DCSIM_EXPLORE_PCT, DCSIM_EXPLORE_HTM_OFF, 1, false, &r);
	if (rc || !r.skipped) {
		printf("FAIL: %s: prune-negative-create ran unnamed (rc %d)\n", s->name, rc);
		failed++;
	}
	for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
		rc = run(s, DCSIM_EXPLORE_PCT, DCSIM_EXPLORE_HTM_OFF, seed, true, &r);
		if (rc < 0 || r.skipped) {
			printf("FAIL: %s seed %lu: rc %d%s\n", s->name, (unsigned long)seed, rc,
			       r.skipped ? ", skipped though named" : "");
			failed++;
			continue;
		}
		if (rc == 0) {
			printf("  %s seed %2lu: not caught in %lu executions\n", s->name,
			       (unsigned long)seed, r.executions);
			continue;
		}
		printf("  %s seed %2lu: caught at execution %lu: %s\n", s->name, (unsigned long)seed,
		       r.first_failure, r.failure);
		if (!strstr(r.failure, assertion)) {
			printf("FAIL: %s seed %lu: caught, but not by the i_lock assertion\n", s->name,
			       (unsigned long)seed);
			failed++;
			continue;
		}
		caught++;
	}
	printf("%s: caught by the i_lock assertion for %u of %d seeds (want >= %d)\n", s->name,
	       caught, NSEEDS, MIN_CAUGHT);
	if (caught < MIN_CAUGHT)
		failed++;
	return failed;
}

/* Everything else: runs unnamed and passes.  Return: failures. */
static int check_fixed(const struct dcsim_dput_strategy *s)
{
	static const enum dcsim_explore_mode modes[] = { DCSIM_EXPLORE_RANDOM, DCSIM_EXPLORE_PCT };
	static const enum dcsim_explore_htm htms[] = { DCSIM_EXPLORE_HTM_OFF,
						       DCSIM_EXPLORE_HTM_COMMIT };
	unsigned long execs = 0;
	int failed = 0;

	for (size_t h = 0; h < DCSIM_ARRAY_SIZE(htms); h++) {
		if (htms[h] != DCSIM_EXPLORE_HTM_OFF && !(s->flags & DCSIM_STRATEGY_USES_HTM))
			continue;
		for (size_t m = 0; m < DCSIM_ARRAY_SIZE(modes); m++) {
			for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
				struct dcsim_explore_result r;
				int rc = run(s, modes[m], htms[h], seed, false, &r);

				if (rc || r.skipped) {
					printf("FAIL: %s %s %s seed %lu: %s\n", s->name,
					       dcsim_explore_htm_name(htms[h]),
					       dcsim_explore_mode_name(modes[m]), (unsigned long)seed,
					       r.skipped ? "skipped" : r.failure);
					failed++;
				}
				execs += r.executions;
			}
		}
	}
	printf("  %-10s passed (%lu executions)\n", s->name, execs);
	return failed;
}

int main(void)
{
	unsigned int buggy = 0, fixed = 0;
	int failed = 0;

	dcsim_warn_set_quiet(true);
	for (size_t i = 0; i < dcsim_strategy_count(); i++) {
		const struct dcsim_dput_strategy *s = dcsim_strategy_get(i);

		if (s->flags & DCSIM_STRATEGY_SHRINK_LOCK_DENTRY) {
			failed += check_buggy(s);
			buggy++;
		} else {
			failed += check_fixed(s);
			fixed++;
		}
	}
	/* k61 and k61-htm; the eight model strategies, k612 (and k612-htm if built). */
	if (buggy != 2 || fixed < 9) {
		printf("FAIL: %u strategies with 6.1's shrinker, %u others: want 2 and >= 9\n", buggy,
		       fixed);
		failed++;
	}
	printf("test-finding-61: %s\n", failed ? "FAILED" : "ok");
	return failed ? 1 : 0;
}
