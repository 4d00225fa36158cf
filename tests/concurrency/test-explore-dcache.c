// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Every dentry cache scenario on every registered dput strategy (check
 * build): random walk and PCT, with HTM off, and for strategies that use
 * HTM also with simulated transactions that commit and with injected
 * aborts.  Quick settings here; DCSIM_EXPLORE_SCALE=N multiplies the
 * executions for soak runs (docs/testing.md).
 *
 * Coverage gate: at the end it prints, per strategy, how often each
 * labelled slow path of src/model/ ran (<dcsim/explore-dcache.h>), and
 * fails if a label was never reached by any strategy, or if a label that
 * a strategy's code contains was never reached with that strategy (the
 * "expected" table below), or if the spec comparison never ran.
 *
 *   test-explore-dcache [strategy-name]
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dcsim/explore-dcache.h>
#include <stdint.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

/*
 * Which labels each built-in strategy's own code can reach: the shrinker,
 * husk, lookup and RCU-walk paths are common; the kill differs by era (3.x retry,
 * 4.17+ __lock_parent(), 6.8 lock_for_kill()), and the abort codes by
 * transaction.  A registered user strategy is gated on the union only.
 */
/* relock_fail and parent_on_shrink are rare (tens per run): gated on the union only. */
#define COMMON	(1ull << DCSIM_COVER_HUSK_LEFT | 1ull << DCSIM_COVER_HUSK_FREED |		\
		 1ull << DCSIM_COVER_SHRINK_BUSY | 1ull << DCSIM_COVER_RELOCK |			\
		 1ull << DCSIM_COVER_LRU_SKIP | 1ull << DCSIM_COVER_LRU_BUSY |			\
		 1ull << DCSIM_COVER_SHRINK_PARENT_WAIT | 1ull << DCSIM_COVER_SHRINK_PARENT_VICTIM | \
		 1ull << DCSIM_COVER_LOOKUP_RETRY | 1ull << DCSIM_COVER_DGET_PARENT_SLOW |		\
		 1ull << DCSIM_COVER_WALK_RCU_MISS | 1ull << DCSIM_COVER_WALK_RCU_SEQ |		\
		 1ull << DCSIM_COVER_WALK_RCU_DEAD | 1ull << DCSIM_COVER_WALK_RCU_LEGIT)
#define KILL_3X	(1ull << DCSIM_COVER_KILL_RETRY | 1ull << DCSIM_COVER_KILL_INODE_SLOW)
#define KILL_417 (1ull << DCSIM_COVER_KILL_LOCK_PARENT | 1ull << DCSIM_COVER_KILL_KEPT |	\
		  1ull << DCSIM_COVER_KILL_INODE_SLOW)
#define KILL_68	(1ull << DCSIM_COVER_LOCK_FOR_KILL_SLOW | 1ull << DCSIM_COVER_LOCK_FOR_KILL_FALSE)
#define HTM_ABORTS (1ull << DCSIM_COVER_HTM_LOCKED | 1ull << DCSIM_COVER_HTM_UNHASHED |		\
		    1ull << DCSIM_COVER_HTM_NOLRU | 1ull << DCSIM_COVER_HTM_KILL |		\
		    1ull << DCSIM_COVER_HTM_BADCOUNT)

static const struct {
	const char *strategy;
	uint64_t labels;
} expected[] = {
	{ "locked",	COMMON | KILL_3X },
	{ "lockref",	COMMON | KILL_3X },
	{ "rtm",	COMMON | KILL_3X | HTM_ABORTS | 1ull << DCSIM_COVER_HTM_NOTREF },
	{ "fast",	COMMON | KILL_417 },
	{ "retain",	COMMON | KILL_68 },
	/*
	 * Series v2 enters the transaction only after an unlocked look saw a
	 * hashed, unreferenced LRU final put (fast_dput_wants_txn()), so its
	 * UNHASHED, KILL and BADCOUNT aborts need a d_drop(), a DONTCACHE or a
	 * misuse put in the few steps between that look and the transaction:
	 * no scenario reaches them at the default budget, and they are gated on
	 * the union only.  fast-htm-all (v1) begins on every put and reaches all.
	 */
	{ "fast-htm",	COMMON | KILL_417 | 1ull << DCSIM_COVER_HTM_LOCKED |
			1ull << DCSIM_COVER_HTM_NOLRU },
	{ "fast-htm-all", COMMON | KILL_417 | HTM_ABORTS },
	/* Series v3 (6.12): fast-htm's transaction on retain's code, same reach. */
	{ "retain-htm",	COMMON | KILL_68 | 1ull << DCSIM_COVER_HTM_LOCKED |
			1ull << DCSIM_COVER_HTM_NOLRU },
};

static uint64_t expected_labels(const char *name)
{
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++)
		if (!strcmp(expected[i].strategy, name))
			return expected[i].labels;
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	static const enum dcsim_explore_htm htms[] = {
		DCSIM_EXPLORE_HTM_OFF, DCSIM_EXPLORE_HTM_COMMIT, DCSIM_EXPLORE_HTM_ABORTS,
	};
	static const enum dcsim_explore_mode modes[] = { DCSIM_EXPLORE_RANDOM, DCSIM_EXPLORE_PCT };
	unsigned long iters = strtoul(getenv("DCSIM_DCACHE_ITERS") ? getenv("DCSIM_DCACHE_ITERS") : "250",
				      NULL, 0) * dcsim_explore_scale();
	uint64_t cover[DCSIM_MAX_STRATEGIES][DCSIM_COVER_NR] = { { 0 } }, total[DCSIM_COVER_NR] = { 0 };
	unsigned long checks[DCSIM_SPEC_CHECK_NR], post_checked, post_skipped;
	const char *names[DCSIM_MAX_STRATEGIES] = { 0 };
	size_t nstrat = 0;
	int failed = 0, runs = 0, missed = 0;
	double t0 = now();

	dcsim_warn_set_quiet(true);
	for (size_t i = 0; i < dcsim_strategy_count(); i++) {
		const struct dcsim_dput_strategy *s = dcsim_strategy_get(i);

		if (argc > 1 && strcmp(argv[1], s->name))
			continue;
		dcsim_dcache_cover_reset();
		for (size_t h = 0; h < sizeof(htms) / sizeof(htms[0]); h++) {
			if (htms[h] != DCSIM_EXPLORE_HTM_OFF && !(s->flags & DCSIM_STRATEGY_USES_HTM))
				continue;
			/*
			 * Commits in the two final-put scenarios, per mode: fast-htm
			 * commits only the final put of an unreferenced LRU dentry,
			 * which final-dputs-cold reaches and final-dputs does not.
			 */
			unsigned long final_commits[sizeof(modes) / sizeof(modes[0])] = { 0 };

			for (int scn = 0; scn < DCSIM_DSCN_NR; scn++) {
				for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
					struct dcsim_explore_opts o;
					struct dcsim_explore_result r;
					int rc;

					dcsim_explore_opts_init(&o);

					dcsim_explore_opts_from_env(&o);
					o.mode = modes[m];
					o.iterations = iters;
					o.htm = htms[h];
					o.abort_permille = 60;
					rc = dcsim_explore_dcache(s, (enum dcsim_dcache_scenario)scn, &o, &r);
					runs++;
					if (r.skipped)
						continue;
					printf("%-18s %-9s %-10s %-6s %6lu execs %8lu steps %6lu commits %6lu aborts  %s\n",
					       dcsim_dcache_scenario_name(scn), s->name,
					       dcsim_explore_htm_name(htms[h]),
					       dcsim_explore_mode_name(modes[m]), r.executions, r.steps,
					       r.htm_commits, r.htm_aborts, rc ? "FAIL" : "ok");
					if (rc)
						failed++;
					if (scn == DCSIM_DSCN_FINAL_DPUTS || scn == DCSIM_DSCN_FINAL_DPUTS_COLD)
						final_commits[m] += r.htm_commits;
					if (htms[h] == DCSIM_EXPLORE_HTM_COMMIT && (s->flags & DCSIM_STRATEGY_USES_HTM) &&
					    scn == DCSIM_DSCN_FINAL_DPUTS_COLD && !final_commits[m]) {
						printf("  ^ no transaction committed in final-dputs(-cold): the HTM path was not explored\n");
						failed++;
					}
				}
			}
		}
		if (nstrat < DCSIM_MAX_STRATEGIES) {
			dcsim_dcache_cover_read(cover[nstrat]);
			names[nstrat++] = s->name;
		}
	}
	printf("%d explorations, %d failed, %.1f s\n", runs, failed, now() - t0);

	/* The coverage table (docs/testing.md), and the gate. */
	printf("\n%-22s", "labelled path");
	for (size_t i = 0; i < nstrat; i++)
		printf(" %9s", names[i]);
	printf("\n");
	for (int l = 0; l < DCSIM_COVER_NR; l++) {
		printf("%-22s", dcsim_dcache_cover_name(l));
		for (size_t i = 0; i < nstrat; i++) {
			bool want = expected_labels(names[i]) & (1ull << l);

			total[l] += cover[i][l];
			printf(" %8llu%c", (unsigned long long)cover[i][l],
			       want && !cover[i][l] ? '!' : want ? ' ' : '-');
		}
		printf("\n");
	}
	printf("('-': not gated per strategy: not in its code, or rare and gated on the total;"
	       " '!': expected and missed)\n");
	for (int l = 0; l < DCSIM_COVER_NR; l++) {
		for (size_t i = 0; i < nstrat; i++) {
			if ((expected_labels(names[i]) & (1ull << l)) && !cover[i][l]) {
				printf("  ^ %s never reached with %s\n", dcsim_dcache_cover_name(l),
				       names[i]);
				missed++;
			}
		}
		if (argc == 1 && !total[l]) {
			printf("  ^ %s never reached by any strategy\n", dcsim_dcache_cover_name(l));
			missed++;
		}
	}
	/* The table above is measured at the default budget; fewer executions reach less. */
	if (missed && iters < 250)
		printf("  (coverage gate off: %lu executions per exploration, below the default 250)\n",
		       iters);
	else
		failed += missed;
	dcsim_dcache_spec_checks(checks);
	printf("spec comparisons: %lu exact (serial), %lu any-order, %lu invariants only\n",
	       checks[DCSIM_SPEC_CHECK_SERIAL], checks[DCSIM_SPEC_CHECK_ANY_ORDER],
	       checks[DCSIM_SPEC_CHECK_NONE]);
	if (!checks[DCSIM_SPEC_CHECK_SERIAL] || !checks[DCSIM_SPEC_CHECK_ANY_ORDER]) {
		printf("  ^ the spec comparison did not run both ways\n");
		failed++;
	}
	dcsim_dcache_post_checks(&post_checked, &post_skipped);
	printf("post-conditions of d_invalidate()/shrink_all(): %lu checked at the return, "
	       "%lu not exact there\n", post_checked, post_skipped);
	if (!post_checked) {
		printf("  ^ no post-condition was checked\n");
		failed++;
	}
	return failed ? 1 : 0;
}
