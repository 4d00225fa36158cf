// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The report of a failed execution: what failed and where, the lock
 * order or use after free behind it, the replay line, the schedule and
 * the last steps.  Printed by the controller (explore.c), by the crash
 * handler (crash.c) and by the watchdog (watchdog.c).
 */

#include <inttypes.h>
#include <stdio.h>

#include <dcsim/explore.h>

#include "internal.h"

void report_failure(struct explorer *ex, FILE *f)
{
	char target[128];

	fprintf(f, "dcsim-explore: FAILED scenario '%s', execution %lu, mode %s",
		ex->sc->name, ex->exec_no, dcsim_explore_mode_name(ex->o.mode));
	if (ex->o.mode == DCSIM_EXPLORE_PCT)
		fprintf(f, " (depth %u, step estimate %lu)", ex->o.pct_depth, ex->pct.k_used);
	if (ex->o.mode == DCSIM_EXPLORE_DFS)
		fprintf(f, " (preemption bound %u)", ex->o.preemption_bound);
	fprintf(f, ", %u threads, htm %s, memory %s, sched %s\n", ex->sc->nthreads,
		dcsim_explore_htm_name(ex->o.htm),
		ex->o.memory == DCSIM_EXPLORE_MEM_RELAXED_RMW ? "relaxed-rmw" : "sc",
		dcsim_explore_sched_name(ex->o.sched));
	fprintf(f, "dcsim-explore:   %s\n", ex->msg);
	lockdep_report(f);
	if (ex->rcu.uaf.set) {
		if (ex->rcu.uaf.queuer >= 0) {
			fprintf(f, "dcsim-explore:   freeing thread T%d, up to its call_rcu() "
				"(step %lu):\n", ex->rcu.uaf.queuer, ex->rcu.uaf.q_slog);
			slog_print_thread(&ex->slog, f, ex->rcu.uaf.queuer, ex->rcu.uaf.q_slog, 12);
		}
		fprintf(f, "dcsim-explore:   accessing thread T%d, up to the access "
			"(grace period ended at step %lu):\n", ex->rcu.uaf.accessor, ex->rcu.uaf.gp_slog);
		slog_print_thread(&ex->slog, f, ex->rcu.uaf.accessor, ex->rcu.uaf.a_slog, 16);
	}
	fprintf(f, "dcsim-explore:   replay: DCSIM_EXPLORE_SCENARIO='%s' DCSIM_EXPLORE_MODE=%s "
		"DCSIM_EXPLORE_SEED=%#" PRIx64, ex->sc->name,
		dcsim_explore_mode_name(ex->o.mode), ex->exec_seed);
	if (ex->o.memory == DCSIM_EXPLORE_MEM_RELAXED_RMW)
		fputs(" DCSIM_EXPLORE_MEMORY=relaxed-rmw", f);
	if (ex->o.mode == DCSIM_EXPLORE_PCT)
		fprintf(f, " DCSIM_EXPLORE_PCT_STEPS=%lu", ex->pct.k_used);
	if (ex->o.sched != DCSIM_EXPLORE_SCHED_FAIR)
		fprintf(f, " DCSIM_EXPLORE_SCHED=%s", dcsim_explore_sched_name(ex->o.sched));
	if (*window_target_name(ex, target, sizeof(target)))
		fprintf(f, " DCSIM_EXPLORE_WINDOW_TARGET=%s", target);
	fputs(" <test binary>\n", f);
	if (ex->o.mode == DCSIM_EXPLORE_DFS)
		fputs("dcsim-explore:   (dfs: replay with the schedule below and the same seed)\n", f);
	schedule_print(&ex->dec, f);
	slog_print(&ex->slog, f);
	fflush(f);
}
