// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel's own dput() code under the explorer (instrumented build): every
 * dentry cache scenario on k61, k61-htm, k612 and (with kernel/patches-6.12/)
 * k612-htm, random walk and PCT, HTM off and, for the -htm ones, with
 * simulated transactions that commit and with
 * injected aborts.  For each HTM run it prints
 *
 *   kernel-code: <strategy> <scenario>: <N> transactions committed, <M> aborted
 *
 * (summed over both modes).  Series v2 runs the transaction only for the
 * final put of a hashed dentry on the LRU without DCACHE_REFERENCED, which
 * most scenarios reach rarely or never; final-dputs-cold is built to reach
 * it (its dentries' second final put), so N > 0 is required there, and over
 * all scenarios together: the transaction body of kernel/patches/0002,
 * compiled from the tarball, really ran and committed.
 *
 * Then examples/kernel-patches/: k612 with retain-dontcache-first.patch
 * must pass every scenario, and with its planted-bug twin (d_lru_add()
 * without d_lock in the lockless retain_dentry()) must be caught in each
 * mode.  Then the planted bug: k61-htm-bug-nolock, patch 0002 with the d_lock test
 * of fast_dput_htm() cut out by extract.py, must be caught (in a child
 * process: a caught bug may crash).
 *
 * Skips (77) when the tarball was missing at configure time.
 * DCSIM_DCACHE_ITERS (default 200) and DCSIM_EXPLORE_SCALE scale the runs.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/wait.h>
#include <unistd.h>

#include <dcsim/explore-dcache.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

extern const struct dcsim_dput_strategy kc_strategy_bug_nolock;
extern const struct dcsim_dput_strategy kc_strategy_example;
extern const struct dcsim_dput_strategy kc_strategy_example_bug;

static int explore_all(const struct dcsim_dput_strategy *s, unsigned long iters)
{
	static const enum dcsim_explore_htm htms[] = {
		DCSIM_EXPLORE_HTM_OFF, DCSIM_EXPLORE_HTM_COMMIT, DCSIM_EXPLORE_HTM_ABORTS,
	};
	static const enum dcsim_explore_mode modes[] = { DCSIM_EXPLORE_RANDOM, DCSIM_EXPLORE_PCT };
	int failed = 0;

	for (size_t h = 0; h < DCSIM_ARRAY_SIZE(htms); h++) {
		unsigned long all_commits = 0;

		if (htms[h] != DCSIM_EXPLORE_HTM_OFF && !(s->flags & DCSIM_STRATEGY_USES_HTM))
			continue;
		for (int scn = 0; scn < DCSIM_DSCN_NR; scn++) {
			unsigned long commits = 0, aborts = 0;
			bool skipped = false;

			for (size_t m = 0; m < DCSIM_ARRAY_SIZE(modes); m++) {
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
				if (r.skipped) {
					skipped = true;
					continue;
				}
				printf("  %-18s %-8s %-10s %-6s %6lu execs %8lu steps  %s\n",
				       dcsim_dcache_scenario_name(scn), s->name, dcsim_explore_htm_name(htms[h]),
				       dcsim_explore_mode_name(modes[m]), r.executions, r.steps,
				       rc ? "FAIL" : "ok");
				if (rc) {
					printf("    %s\n", r.failure);
					failed++;
				}
				commits += r.htm_commits;
				aborts += r.htm_aborts;
			}
			if (htms[h] == DCSIM_EXPLORE_HTM_OFF || skipped)
				continue;
			printf("kernel-code: %s %s (%s): %lu transactions committed, %lu aborted\n",
			       s->name, dcsim_dcache_scenario_name(scn), dcsim_explore_htm_name(htms[h]), commits,
			       aborts);
			all_commits += commits;
			if (htms[h] == DCSIM_EXPLORE_HTM_COMMIT && scn == DCSIM_DSCN_FINAL_DPUTS_COLD &&
			    !commits) {
				printf("  ^ no transaction of the kernel code committed in %s\n",
				       dcsim_dcache_scenario_name(scn));
				failed++;
			}
		}
		if (htms[h] == DCSIM_EXPLORE_HTM_COMMIT && !all_commits) {
			printf("  ^ no transaction of the kernel code committed in any scenario\n");
			failed++;
		}
	}
	return failed;
}

/* Explore @scn on @s in a child; return 1 if it failed or crashed (caught). */
static int caught_isolated(const struct dcsim_dput_strategy *s, enum dcsim_dcache_scenario scn,
			   const struct dcsim_explore_opts *o, unsigned long *first)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct dcsim_explore_result r;
		int rc;

		if (!getenv("DCSIM_TEST_VERBOSE"))
			freopen("/dev/null", "w", stderr);
		rc = dcsim_explore_dcache(s, scn, o, &r);
		if (rc == 1)
			printf("    caught by %s at execution %lu: %.160s\n",
			       dcsim_dcache_scenario_name(scn), r.first_failure, r.failure);
		fflush(stdout);
		_exit(rc < 0 ? 2 : rc);
	}
	waitpid(pid, &status, 0);
	if (WIFSIGNALED(status)) {
		printf("    caught by %s: the execution crashed (signal %d)\n",
		       dcsim_dcache_scenario_name(scn), WTERMSIG(status));
		*first = 0;
		return 1;
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 1;
}

int main(void)
{
	static const enum dcsim_explore_mode modes[] = { DCSIM_EXPLORE_RANDOM, DCSIM_EXPLORE_PCT };
	unsigned long iters = strtoul(getenv("DCSIM_DCACHE_ITERS") ? getenv("DCSIM_DCACHE_ITERS") : "200",
				      NULL, 0) * dcsim_explore_scale();
	const char *names[] = { "k61", "k61-htm", "k612" };
	int failed = 0;

	for (size_t i = 0; i < DCSIM_ARRAY_SIZE(names); i++) {
		if (!dcsim_strategy_lookup(names[i])) {
			printf("kernel-code: strategy %s not built (no linux-source-6.1/6.12 "
			       "tarballs at configure time: apt-get install linux-source-6.1 "
			       "linux-source-6.12, reconfigure); skipped\n", names[i]);
			return 77;
		}
	}
	dcsim_warn_set_quiet(true);
	for (size_t i = 0; i < DCSIM_ARRAY_SIZE(names); i++)
		failed += explore_all(dcsim_strategy_lookup(names[i]), iters);
	/* Built only with kernel/patches-6.12/ (kernel-code/meson.build). */
	if (dcsim_strategy_lookup("k612-htm"))
		failed += explore_all(dcsim_strategy_lookup("k612-htm"), iters);
	else
		printf("kernel-code: k612-htm not built (no kernel/patches-6.12/); not explored\n");
	/* examples/kernel-patches/: the correct patch passes every scenario. */
	if (dcsim_strategy_register(&kc_strategy_example) ||
	    dcsim_strategy_register(&kc_strategy_example_bug))
		return 2;
	failed += explore_all(&kc_strategy_example, iters);

	/*
	 * ... and the same patch with its planted bug is caught, in each mode:
	 * two threads' unlocked d_lru_add() corrupt the LRU list, whose walk
	 * in the check phase then never ends, and the explorer's watchdog
	 * reports it; 10 s rather than the default 60 (an execution here takes
	 * milliseconds), here and for k61's planted bug below.
	 */
	setenv("DCSIM_EXPLORE_WATCHDOG", "10", 0);
	for (size_t m = 0; m < DCSIM_ARRAY_SIZE(modes); m++) {
		bool caught = false;

		printf("planted bug %s, %s:\n", kc_strategy_example_bug.name,
		       dcsim_explore_mode_name(modes[m]));
		for (int scn = 0; scn < DCSIM_DSCN_NR && !caught; scn++) {
			struct dcsim_explore_opts o;
			unsigned long first = 0;

			dcsim_explore_opts_init(&o);
			o.mode = modes[m];
			o.iterations = 3000 * dcsim_explore_scale();
			caught = caught_isolated(&kc_strategy_example_bug,
						 (enum dcsim_dcache_scenario)scn, &o, &first) == 1;
		}
		if (!caught) {
			printf("    NOT CAUGHT\n");
			failed++;
		}
	}

	/* The planted bug must be caught, in each mode, within the budget. */
	if (dcsim_strategy_register(&kc_strategy_bug_nolock))
		return 2;
	for (size_t m = 0; m < DCSIM_ARRAY_SIZE(modes); m++) {
		bool caught = false;

		printf("planted bug %s, %s:\n", kc_strategy_bug_nolock.name,
		       dcsim_explore_mode_name(modes[m]));
		for (int scn = 0; scn < DCSIM_DSCN_NR && !caught; scn++) {
			struct dcsim_explore_opts o;
			unsigned long first = 0;

			dcsim_explore_opts_init(&o);

			dcsim_explore_opts_from_env(&o);
			o.mode = modes[m];
			o.iterations = 3000 * dcsim_explore_scale();
			o.htm = DCSIM_EXPLORE_HTM_COMMIT;
			caught = caught_isolated(&kc_strategy_bug_nolock, (enum dcsim_dcache_scenario)scn,
						 &o, &first) == 1;
		}
		if (!caught) {
			printf("    NOT CAUGHT\n");
			failed++;
		}
	}
	printf("kernel-code: %s\n", failed ? "FAILED" : "ok");
	return failed ? 1 : 0;
}
