// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The explore suite (dcsim_checker_explore()): every dentry cache scenario of
 * <dcsim/explore-dcache.h> on one strategy, random walk and PCT, with HTM
 * off and, for a strategy with DCSIM_STRATEGY_USES_HTM, with simulated
 * transactions that commit and with injected aborts.  An HTM strategy none
 * of whose transactions committed in the final-put scenarios fails: its
 * HTM path was never explored.
 *
 * Replay: an explorer execution is a pure function of its seed, so the
 * replay line names the scenario, the mode and the failing execution's
 * seed (and, for PCT, its step estimate), and reruns exactly that execution
 * (the scenario, replay and pct_steps fields of struct dcsim_explore_opts).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/checker.h>
#include <dcsim/explore-dcache.h>
#include <dcsim/explore.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

/*
 * The full name SCN/STRATEGY/HTM of the one execution --scenario @want
 * replays, into @full; @want may be the short form a FAIL line prints
 * (SCN), when the strategy has one HTM configuration.  Return: 0, or
 * -EINVAL with the names that exist printed on @prog: a name that matches
 * nothing must not replay nothing and pass.
 */
static int scenario_full_name(const struct dcsim_dput_strategy *s, const char *want,
			      const enum dcsim_explore_htm *htms, size_t nhtm, FILE *prog,
			      char *full, size_t len)
{
	bool htm = s->flags & DCSIM_STRATEGY_USES_HTM;
	char name[256];

	for (int scn = 0; scn < DCSIM_DSCN_NR; scn++) {
		if (!htm && !strcmp(want, dcsim_dcache_scenario_name(scn))) {
			snprintf(full, len, "%s/%s/%s", want, s->name,
				 dcsim_explore_htm_name(DCSIM_EXPLORE_HTM_OFF));
			return 0;
		}
		for (size_t h = 0; h < nhtm; h++) {
			if (htms[h] != DCSIM_EXPLORE_HTM_OFF && !htm)
				continue;
			snprintf(name, sizeof(name), "%s/%s/%s", dcsim_dcache_scenario_name(scn),
				 s->name, dcsim_explore_htm_name(htms[h]));
			if (!strcmp(want, name)) {
				snprintf(full, len, "%s", name);
				return 0;
			}
		}
	}
	fprintf(prog, "dcsim-check: explore: --scenario '%s' is no scenario of strategy %s; "
		"the names are SCENARIO/%s/HTM (%s), with SCENARIO one of:", want, s->name, s->name,
		htm ? "HTM: off, commit or aborts" : "HTM: off; or SCENARIO alone");
	for (int scn = 0; scn < DCSIM_DSCN_NR; scn++)
		fprintf(prog, " %s", dcsim_dcache_scenario_name(scn));
	fputc('\n', prog);
	return -EINVAL;
}

/* Is scenario @name in the comma-separated @list (NULL: every scenario)? */
static bool wanted(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == '\0'))
			return true;
	return !list;
}

int dcsim_checker_explore(const struct dcsim_dput_strategy *s, const struct dcsim_checker_opts *o,
			   struct dcsim_checker_result *res)
{
	static const enum dcsim_explore_htm htms[] = {
		DCSIM_EXPLORE_HTM_OFF, DCSIM_EXPLORE_HTM_COMMIT, DCSIM_EXPLORE_HTM_ABORTS,
	};
	static const enum dcsim_explore_mode modes[] = { DCSIM_EXPLORE_RANDOM, DCSIM_EXPLORE_PCT };
	static const unsigned long iters[] = { 60, 250, 2500 };
	struct dcsim_checker_result local;
	char one_name[256] = "";
	FILE *out, *prog;
	unsigned long commits = 0, unit = 0, executions = 0, preemptions = 0, all = 0;
	unsigned long cycles = 0, demotions = 0, win_reached = 0, win_parked = 0;
	unsigned long lock_edges = 0, lock_acq = 0, lock_try = 0;
	unsigned long post_checked, post_skipped;
	bool one = o && o->scenario;

	if (!res)
		res = &local;
	memset(res, 0, sizeof(*res));
	enum dcsim_explore_sched sched = DCSIM_EXPLORE_SCHED_FAIR;

	if (!s || !o || (unsigned int)o->budget > DCSIM_BUDGET_SOAK ||
	    (o->explore_sched && dcsim_explore_sched_parse(o->explore_sched, &sched)))
		return -EINVAL;
	out = o->report ? o->report : stdout;
	prog = o->progress ? o->progress : stderr;
	for (const char *p = o->scenarios; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		int scn = 0;

		while (scn < DCSIM_DSCN_NR &&
		       (strncmp(p, dcsim_dcache_scenario_name(scn), strcspn(p, ",")) ||
			strlen(dcsim_dcache_scenario_name(scn)) != strcspn(p, ",")))
			scn++;
		if (scn == DCSIM_DSCN_NR) {
			fprintf(prog, "dcsim-check: explore: no scenario '%.*s'\n", (int)strcspn(p, ","),
				p);
			return -EINVAL;
		}
	}
	if (one && scenario_full_name(s, o->scenario, htms, DCSIM_ARRAY_SIZE(htms), prog, one_name,
				      sizeof(one_name)))
		return -EINVAL;
	fprintf(prog, "dcsim-check: explore: %s: %d scenarios, %lu executions each%s%s\n", s->name,
		DCSIM_DSCN_NR, iters[o->budget], one ? " (one execution replayed)" : "",
		sched == DCSIM_EXPLORE_SCHED_STRICT ? ", strict priorities" :
		sched == DCSIM_EXPLORE_SCHED_RT ? ", real-time priorities" :
		sched == DCSIM_EXPLORE_SCHED_WINDOW ? ", window-directed" : "");
	dcsim_warn_set_quiet(true);
	for (size_t h = 0; h < DCSIM_ARRAY_SIZE(htms) && !res->failures; h++) {
		if (htms[h] != DCSIM_EXPLORE_HTM_OFF && !(s->flags & DCSIM_STRATEGY_USES_HTM))
			continue;
		for (int scn = 0; scn < DCSIM_DSCN_NR && !res->failures; scn++) {
			for (size_t m = 0; m < DCSIM_ARRAY_SIZE(modes) && !res->failures; m++) {
				struct dcsim_explore_opts eo;
				struct dcsim_explore_result r;
				struct dcsim_checker_unit u;
				char pct[48], named[160], where_name[160], args[512];
				int rc;

				if (!wanted(o->scenarios, dcsim_dcache_scenario_name(scn)))
					continue;
				if (o->explore_mode &&
				    strcmp(o->explore_mode, dcsim_explore_mode_name(modes[m])))
					continue;
				if (!dcsim_checker_in_shard(o, unit++))
					continue;
				snprintf(where_name, sizeof(where_name), "%s/%s/%s",
					 dcsim_dcache_scenario_name(scn), s->name,
					 dcsim_explore_htm_name(htms[h]));
				dcsim_explore_opts_init(&eo);
				eo.mode = modes[m];
				eo.seed = o->seed + (uint64_t)scn * 1000 + m * 100 + h;
				eo.iterations = iters[o->budget];
				eo.htm = htms[h];
				eo.abort_permille = 60;
				eo.sched = sched;
				eo.window_dump = o->window_dump;
				eo.window_target = o->window_target;
				eo.quiet = o->quiet;
				if (o->report_steps)
					eo.report_steps = o->report_steps;
				if (o->scenarios && !one) {
					/* Named: latent-bug scenarios run too. */
					snprintf(named, sizeof(named), "%s/%s/%s",
						 dcsim_dcache_scenario_name(scn), s->name,
						 dcsim_explore_htm_name(htms[h]));
					eo.scenario = named;
				}
				if (o->where) {
					snprintf(o->where->scenario, sizeof(o->where->scenario), "%s",
						 where_name);
					snprintf(o->where->mode, sizeof(o->where->mode), "%s",
						 dcsim_explore_mode_name(modes[m]));
					eo.where = &o->where->exec;
				}
				if (one) {
					/* The replay of one execution. */
					eo.scenario = one_name;
					eo.replay = true;
					eo.replay_seed = o->execution_seed;
					eo.pct_steps = o->pct_steps;
				}
				rc = dcsim_explore_dcache(s, (enum dcsim_dcache_scenario)scn, &eo, &r);
				if (rc < 0) {
					dcsim_warn_set_quiet(false);
					return rc;
				}
				if (r.skipped)
					continue;
				u = (struct dcsim_checker_unit){
					.index = unit - 1, .scenario = where_name, .mode =
					dcsim_explore_mode_name(modes[m]), .seed = eo.seed,
					.executions = r.executions,
				};
				res->runs++;
				preemptions += r.preemptions;
				cycles += r.lasso_tries;
				demotions += r.lasso_demotions;
				win_reached += r.windows_reached;
				win_parked += r.windows_parked;
				lock_edges += r.lock_edges;
				lock_acq += r.lock_acquisitions;
				lock_try += r.lock_trylocks;
				all += r.executions;
				if (!rc)
					executions += r.executions;
				if (scn == DCSIM_DSCN_FINAL_DPUTS || scn == DCSIM_DSCN_FINAL_DPUTS_COLD)
					commits += r.htm_commits;
				if (!rc) {
					if (o->unit_done)
						o->unit_done(o->unit_arg, &u);
					continue;
				}
				res->failures++;
				res->failed_unit = unit - 1;
				res->first_failure = executions + r.first_failure;
				if (snprintf(res->failure, sizeof(res->failure), "explore %s/%s/%s: %s",
					 dcsim_dcache_scenario_name(scn), s->name, dcsim_explore_htm_name(htms[h]),
					 r.failure) < 0)
					res->failure[0] = '\0';
				if (modes[m] == DCSIM_EXPLORE_PCT)
					snprintf(pct, sizeof(pct), " --pct-steps %lu", r.failure_pct_steps);
				else
					pct[0] = '\0';
				snprintf(args, sizeof(args), "--suites explore --scenario %s "
					 "--explore-mode %s --execution-seed %#" PRIx64 "%s%s%s%s%s",
					 where_name, dcsim_explore_mode_name(modes[m]), r.failure_seed, pct,
					 /* dcsim-check's prefix has its own --sched */
					 sched != DCSIM_EXPLORE_SCHED_FAIR && !o->replay_prefix ?
					 " --sched " : "",
					 sched != DCSIM_EXPLORE_SCHED_FAIR && !o->replay_prefix ?
					 dcsim_explore_sched_name(sched) : "",
					 r.failure_window[0] && !o->window_target ? " --window-target " : "",
					 r.failure_window[0] && !o->window_target ? r.failure_window : "");
				if (o->unit_done) {
					u.failed = true;
					u.failure = res->failure;
					u.replay = args;
					o->unit_done(o->unit_arg, &u);
				}
				if (o->quiet)
					continue;
				/* The scenario's report may end in a newline: one line here. */
				r.failure[strcspn(r.failure, "\n")] = '\0';
				fprintf(out, "dcsim-check: FAIL: explore, scenario %s, strategy %s, "
					"HTM %s, mode %s, execution %lu of %lu\ncheck: %s\n"
					"(the explorer's report, with the interleaving, is on stderr%s)\n",
					dcsim_dcache_scenario_name(scn), s->name, dcsim_explore_htm_name(htms[h]), dcsim_explore_mode_name(modes[m]),
					r.first_failure, r.executions, r.failure,
					out == stderr ? ", above" : "");
				fprintf(out, "replay: %s%s %s\n",
					o->replay_prefix ? o->replay_prefix : "dcsim-check --strategy ",
					o->replay_prefix ? "" : s->name, args);
			}
		}
	}
	dcsim_warn_set_quiet(false);
	res->htm_commits = commits;
	res->lock_acquisitions = lock_acq;
	res->lock_trylocks = lock_try;
	res->lock_edges = lock_edges;
	/* A replay that ran nothing has checked nothing: an error, not a pass. */
	if (one && !res->runs) {
		fprintf(prog, "dcsim-check: explore: --scenario %s replayed no execution (is "
			"--explore-mode the one of the FAIL line?)\n", one_name);
		return -EINVAL;
	}
	/* Only the final-put scenarios reach the transaction: a choice of others cannot. */
	if (!one && !o->scenarios && !res->failures && (s->flags & DCSIM_STRATEGY_USES_HTM) && !commits &&
	    dcsim_checker_whole_run(o)) {
		res->failures++;
		snprintf(res->failure, sizeof(res->failure),
			 "explore: no simulated transaction of %s committed", s->name);
		if (!o->quiet)
			fprintf(out, "dcsim-check: FAIL: explore, strategy %s\ncheck: the strategy "
				"says DCSIM_STRATEGY_USES_HTM but none of its transactions committed "
				"in final-dputs(-cold) with simulated HTM committing: its HTM path "
				"was not explored (built against the normal build's headers?)\n",
				s->name);
		if (!o->quiet)
			fprintf(out, "replay: %s%s --suites explore --seed %" PRIu64 "\n",
				o->replay_prefix ? o->replay_prefix : "dcsim-check --strategy ",
				o->replay_prefix ? "" : s->name, o->seed);
	}
	dcsim_dcache_post_checks(&post_checked, &post_skipped);
	fprintf(prog, "dcsim-check: explore: %s: %lu explorations, %s (post-conditions so far: "
		"%lu checked, %lu not exact; fair cycles forced again %lu, PCT demotions %lu; "
		"lock order: %lu validated acquisitions, %lu trylocks, %lu edges summed over "
		"explorations)",
		s->name, res->runs, res->failures ? "FAILED" : "ok", post_checked, post_skipped,
		cycles, demotions, lock_acq, lock_try, lock_edges);
	if (sched == DCSIM_EXPLORE_SCHED_STRICT || sched == DCSIM_EXPLORE_SCHED_RT)
		fprintf(prog, " (%lu of %lu executions preempted a thread)", preemptions, all);
	if (sched == DCSIM_EXPLORE_SCHED_WINDOW)
		fprintf(prog, " (windows, summed over explorations: %lu reached, %lu parked in)",
			win_reached, win_parked);
	fputc('\n', prog);
	return res->failures ? 1 : 0;
}
