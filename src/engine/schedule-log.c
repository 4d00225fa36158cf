// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The schedule log: the ring of the most recent steps of an execution
 * (thread, access, where, address), printed in failure reports.  ("Trace"
 * is the trace-file language of the differential checker, not this.)
 * Its functions see the log (struct ex_slog) and the decisions (struct
 * ex_decisions), never the rest of the explorer.
 */

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>

#include <dcsim/explore.h>

#include "../base/hooks.h"
#include "internal.h"

const char *const acc_names[] = {
	[DCSIM_ACC_LOAD]	= "load",
	[DCSIM_ACC_STORE]	= "store",
	[DCSIM_ACC_RMW]		= "rmw",
	[DCSIM_ACC_FENCE]	= "fence",
	[DCSIM_ACC_SPIN]	= "spin",
	[DCSIM_ACC_RCU_LOCK]	= "rcu_lock",
	[DCSIM_ACC_RCU_UNLOCK]	= "rcu_unlock",
	[DCSIM_ACC_RMW_RELAXED]	= "rmw_relaxed",
	[DCSIM_ACC_LOAD_ACQUIRE] = "load_acq",
	[DCSIM_ACC_RMB]		= "rmb",
	[DCSIM_ACC_WMB]		= "wmb",
	[DCSIM_ACC_RESCHED]	= "resched",
	[SL_EXIT]		= "exit",
	[SL_HTM_ABORT]		= "htm_abort",
	[SL_HTM_COMMIT]		= "htm_commit",
	[SL_CALL_RCU]		= "call_rcu",
	[SL_RCU_CB]		= "rcu_cb",
	[SL_STALE]		= "stale",
	[SL_PREEMPT]		= "preempted",
};

_Static_assert(SL_NR <= 256, "schedule log kinds fit in a byte");

/* ---- recording ---- */

void slog_add(struct ex_slog *sl, unsigned int tid, unsigned int acc, const volatile void *addr,
	      unsigned int size, const char *func, int line, bool txn)
{
	struct slog_ent *e = &sl->ent[sl->n++ % SLOG_MAX];

	e->tid = (uint8_t)tid;
	e->acc = (uint8_t)acc;
	e->addr = addr;
	e->size = (uint8_t)(size > 255 ? 255 : size);
	e->func = func;
	e->line = line;
	e->txn = txn;
	e->caller = NULL;
	e->caller_line = 0;
	e->changed = 0;
	/*
	 * An access (or a stale load) is logged by the schedule point of the
	 * thread that makes it, before any switch: the frame set for that
	 * point (dcsim_step_frame_set()) is this step's.  The engine's own
	 * entries (exit, RCU callbacks, preemption) have none.
	 */
	if (acc < DCSIM_ACC_NR || acc == SL_STALE) {
		const struct dcsim_step_frame *f = dcsim_step_frame_get();

		if (f) {
			e->caller = f->caller;
			e->caller_line = f->caller_line;
			e->changed = f->changed;
			if (f->changed && sl->first_changed == ULONG_MAX)
				sl->first_changed = sl->n - 1;
		}
	}
}

static void slog_print_one(const struct ex_slog *sl, FILE *f, unsigned long i,
			   const struct slog_ent *e);

void slog_print(const struct ex_slog *sl, FILE *f)
{
	unsigned long n = sl->len_shown, first;

	/*
	 * A patch's first changed-line step is where its report starts at
	 * the latest: the steps that matter are often far above the last
	 * few (as far back as the ring still holds them).
	 */
	if (sl->first_changed != ULONG_MAX && sl->first_changed < sl->n &&
	    sl->n - sl->first_changed > n)
		n = sl->n - sl->first_changed;
	if (n > SLOG_MAX)
		n = SLOG_MAX;
	if (n > sl->n)
		n = sl->n;
	first = sl->n - n;
	fprintf(f, "dcsim-explore:   interleaving, last %lu of %lu steps "
		"(thread, access, where, address; '*' = inside a simulated transaction",
		n, sl->n);
	if (sl->first_changed != ULONG_MAX)
		fprintf(f, "; '>' = ran a line the patch changed, first at step %lu; "
			"'<-' names the call in the patched function",
			sl->first_changed);
	fputs("):\n", f);
	for (unsigned long i = first; i < sl->n; i++) {
		const struct slog_ent *e = &sl->ent[i % SLOG_MAX];

		slog_print_one(sl, f, i, e);
	}
}

static void slog_print_one(const struct ex_slog *sl, FILE *f, unsigned long i,
			   const struct slog_ent *e)
{
	if (e->acc == SL_HTM_ABORT) {
		fprintf(f, "    %6lu  T%u  htm abort (%s), status %#" PRIx64 "\n",
			i, e->tid, e->func ? e->func : "injected", (uint64_t)(uintptr_t)e->addr);
		return;
	}
	if (e->acc == SL_PREEMPT) {
		fprintf(f, "    %6lu  T%u  preempted by T%u on their CPU (strict priorities)\n",
			i, e->tid, (unsigned int)(uintptr_t)e->addr);
		return;
	}
	fprintf(f, "    %6lu  T%u%s%s %-11s %s:%d", i, e->tid, e->txn ? "*" : " ",
		/* The mark's column only where a patch's changed line ran. */
		e->changed ? ">" : sl->first_changed != ULONG_MAX ? " " : "", acc_names[e->acc],
		e->func ? e->func : "?", e->line);
	if (e->caller)
		fprintf(f, " <- %s:%d", e->caller, e->caller_line);
	if (e->addr) {
		char what[200];

		fprintf(f, "  %p/%u", (const void *)e->addr, e->size);
		if (*describe_addr((uintptr_t)e->addr, e->size, what, sizeof(what)))
			fprintf(f, "  %s", what);
	}
	fputc('\n', f);
}

/* The last @max steps of thread @tid up to schedule log index @upto. */
void slog_print_thread(const struct ex_slog *sl, FILE *f, int tid, unsigned long upto,
		       unsigned int max)
{
	unsigned long lo = sl->n > SLOG_MAX ? sl->n - SLOG_MAX : 0;
	unsigned long idx[64];
	unsigned int n = 0;

	if (max > 64)
		max = 64;
	for (unsigned long i = upto + 1; i-- > lo && n < max;) {
		if (i >= sl->n)
			continue;
		if (sl->ent[i % SLOG_MAX].tid == tid)
			idx[n++] = i;
	}
	while (n--)
		slog_print_one(sl, f, idx[n], &sl->ent[idx[n] % SLOG_MAX]);
}

/* Decisions as "tid*count,..." runs: what DCSIM_EXPLORE_SCHEDULE takes. */
void schedule_print(const struct ex_decisions *dec, FILE *f)
{
	size_t i = 0;

	fputs("dcsim-explore:   DCSIM_EXPLORE_SCHEDULE=", f);
	while (i < dec->n) {
		size_t j = i;

		while (j < dec->n && dec->d[j] == dec->d[i])
			j++;
		fprintf(f, "%s%d*%zu", i ? "," : "", dec->d[i], j - i);
		i = j;
	}
	fputc('\n', f);
}
