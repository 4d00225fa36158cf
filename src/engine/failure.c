// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Failure of an execution: the first message wins, the failing logical
 * thread parks for good, the controller gets the baton; and the report.
 */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include <dcsim/explore.h>

#include "internal.h"

/* ---- failure and parking ---- */

__attribute__((noreturn)) void park_forever(void)
{
	static pthread_mutex_t park_lock = PTHREAD_MUTEX_INITIALIZER;
	static pthread_cond_t park_cv = PTHREAD_COND_INITIALIZER;

	pthread_mutex_lock(&park_lock);
	for (;;)
		pthread_cond_wait(&park_cv, &park_lock);
}

/* ex.lock held.  Records only the first failure of an execution. */
static void fail_locked(const char *fmt, va_list ap)
{
	if (ex.failed)
		return;
	ex.failed = true;
	vsnprintf(ex.msg, sizeof(ex.msg), fmt, ap);
}

void fail_lockedf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fail_locked(fmt, ap);
	va_end(ap);
}

/*
 * ex.lock held, called by a logical thread: end the execution here.  The
 * other threads keep waiting for a baton that never comes back to their
 * (now dead) pool; this one parks.  The controller gets the baton.
 */
__attribute__((noreturn)) void abandon_locked(struct lthread *lt)
{
	lt->pool->dead = true;
	ex.abandoned = true;
	ex.exec_done = true;
	ex.current = CTL;
	pthread_cond_signal(&ex.ctl_cv);
	pthread_mutex_unlock(&ex.lock);
	park_forever();
}

void dcsim_explore_fail(const char *fmt, ...)
{
	struct lthread *lt = explore_lt;
	va_list ap;

	pthread_mutex_lock(&ex.lock);
	va_start(ap, fmt);
	fail_locked(fmt, ap);
	va_end(ap);
	if (lt) {
		/* Even from inside a simulated transaction: nothing runs after this. */
		lt->txn.active = false;
		explore_wm_restore(lt);
		abandon_locked(lt);
	}
	pthread_mutex_unlock(&ex.lock);
}

int dcsim_explore_self(void)
{
	struct lthread *lt = explore_lt;

	return lt ? (int)lt->id : -1;
}

void report_failure(FILE *f)
{
	char target[128];

	fprintf(f, "dcsim-explore: FAILED scenario '%s', execution %lu, mode %s",
		ex.sc->name, ex.exec_no, dcsim_explore_mode_name(ex.o.mode));
	if (ex.o.mode == DCSIM_EXPLORE_PCT)
		fprintf(f, " (depth %u, step estimate %lu)", ex.o.pct_depth, ex.pct_k_used);
	if (ex.o.mode == DCSIM_EXPLORE_DFS)
		fprintf(f, " (preemption bound %u)", ex.o.preemption_bound);
	fprintf(f, ", %u threads, htm %s, memory %s, sched %s\n", ex.sc->nthreads,
		dcsim_explore_htm_name(ex.o.htm),
		ex.o.memory == DCSIM_EXPLORE_MEM_RELAXED_RMW ? "relaxed-rmw" : "sc",
		dcsim_explore_sched_name(ex.o.sched));
	fprintf(f, "dcsim-explore:   %s\n", ex.msg);
	if (ex.uaf.set) {
		if (ex.uaf.queuer >= 0) {
			fprintf(f, "dcsim-explore:   freeing thread T%d, up to its call_rcu() "
				"(step %lu):\n", ex.uaf.queuer, ex.uaf.q_slog);
			slog_print_thread(f, ex.uaf.queuer, ex.uaf.q_slog, 12);
		}
		fprintf(f, "dcsim-explore:   accessing thread T%d, up to the access "
			"(grace period ended at step %lu):\n", ex.uaf.accessor, ex.uaf.gp_slog);
		slog_print_thread(f, ex.uaf.accessor, ex.uaf.a_slog, 16);
	}
	fprintf(f, "dcsim-explore:   replay: DCSIM_EXPLORE_SCENARIO='%s' DCSIM_EXPLORE_MODE=%s "
		"DCSIM_EXPLORE_SEED=%#" PRIx64, ex.sc->name,
		dcsim_explore_mode_name(ex.o.mode), ex.exec_seed);
	if (ex.o.memory == DCSIM_EXPLORE_MEM_RELAXED_RMW)
		fputs(" DCSIM_EXPLORE_MEMORY=relaxed-rmw", f);
	if (ex.o.mode == DCSIM_EXPLORE_PCT)
		fprintf(f, " DCSIM_EXPLORE_PCT_STEPS=%lu", ex.pct_k_used);
	if (ex.o.sched != DCSIM_EXPLORE_SCHED_FAIR)
		fprintf(f, " DCSIM_EXPLORE_SCHED=%s", dcsim_explore_sched_name(ex.o.sched));
	if (*window_target_name(target, sizeof(target)))
		fprintf(f, " DCSIM_EXPLORE_WINDOW_TARGET=%s", target);
	fputs(" <test binary>\n", f);
	if (ex.o.mode == DCSIM_EXPLORE_DFS)
		fputs("dcsim-explore:   (dfs: replay with the schedule below and the same seed)\n", f);
	schedule_print(f);
	slog_print(f);
	fflush(f);
}
