// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Every dentry cache scenario on every registered dput strategy (check
 * build): random walk and PCT, with HTM off, and for strategies that use
 * HTM also with simulated transactions that commit and with injected
 * aborts.  Quick settings here; DCSIM_EXPLORE_SCALE=N multiplies the
 * executions for soak runs (docs/testing.md).
 *
 *   test-explore-dcache [strategy-name]
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dcsim/explore-dcache.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

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
	int failed = 0, runs = 0;
	double t0 = now();

	dcsim_warn_set_quiet(true);
	for (size_t i = 0; i < dcsim_strategy_count(); i++) {
		const struct dcsim_dput_strategy *s = dcsim_strategy_get(i);

		if (argc > 1 && strcmp(argv[1], s->name))
			continue;
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
					       htms[h] == DCSIM_EXPLORE_HTM_OFF ? "off" :
					       htms[h] == DCSIM_EXPLORE_HTM_COMMIT ? "sim-commit" : "sim-aborts",
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
	}
	printf("%d explorations, %d failed, %.1f s\n", runs, failed, now() - t0);
	return failed ? 1 : 0;
}
