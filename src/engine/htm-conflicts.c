// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The explorer's side of the simulated HTM: conflict detection (strong
 * isolation) over the transactions' read and write sets, abort
 * injection, and the statistics of a run.  htm-sim.c, above, runs the
 * transactions and calls down into this file.
 */

#include <string.h>

#include <dcsim/explore.h>

#include "internal.h"

/* ---- a transaction lost to another thread's access ---- */

/*
 * Conflict mode: @lt (parked) loses to another thread's access; its stores
 * are rolled back now, and its next access aborts it (htm-sim.c).
 */
void htm_sim_doom(struct lthread *lt, dcsim_htm_status_t st)
{
	struct sim_txn *tx = &lt->txn;

	/* Newest first: memory is as at begin before the other access is made. */
	for (unsigned int i = tx->nlog; i-- > 0;)
		memcpy(tx->log[i].addr, tx->log[i].old, tx->log[i].size);
	tx->nlog = 0;
	tx->nread = tx->nwrite = 0;
	tx->doomed = true;
	tx->status = st;
}

/* ---- HTM conflicts (strong isolation) ---- */

/* ex->lock held: @lt's access aborts every transaction it conflicts with. */
void htm_conflicts(struct explorer *ex, struct lthread *lt, unsigned int acc, uintptr_t addr,
		   unsigned int size)
{
	uintptr_t first = addr >> SIM_LINE_SHIFT, last = (addr + size - 1) >> SIM_LINE_SHIFT;
	bool w = acc_writes(acc);

	for (unsigned int i = 0; i < lt->pool->n; i++) {
		struct lthread *o = &lt->pool->lt[i];

		if (o == lt || !o->txn.active || o->txn.doomed)
			continue;
		for (uintptr_t ln = first; ln <= last; ln++) {
			dcsim_htm_status_t st = DCSIM_HTM_SIM_MARK | DCSIM_HTM_X86_CONFLICT |
						DCSIM_HTM_X86_RETRY;

			if (!htm_sim_has_line(o, ln, true) &&
			    !(w && htm_sim_has_line(o, ln, false)))
				continue;
			slog_add(&ex->slog, o->id, SL_HTM_ABORT, (const void *)(uintptr_t)st, 0,
				  w ? "conflict: another thread writes a line it touched" :
				      "conflict: another thread reads a line it wrote", 0, true);
			htm_sim_doom(o, st);
			ex->htm.conflicts++;
			break;
		}
	}
}

/* ---- HTM glue for htm-sim.c ---- */

bool explore_htm_on(struct explorer *ex)
{
	return ex->o.htm != DCSIM_EXPLORE_HTM_OFF;
}

dcsim_htm_status_t explore_htm_inject(struct explorer *ex, struct lthread *lt, const char *where)
{
	/* The RTM causes a transaction can die of, with the bits hardware sets. */
	static const uint32_t causes[] = {
		DCSIM_HTM_X86_CONFLICT | DCSIM_HTM_X86_RETRY,
		DCSIM_HTM_X86_CAPACITY,
		DCSIM_HTM_X86_DEBUG,
		DCSIM_HTM_X86_NESTED,
		DCSIM_HTM_X86_RETRY,
		0,	/* interrupt: RTM gives no reason */
	};
	dcsim_htm_status_t st;

	(void)where;
	if (ex->o.htm != DCSIM_EXPLORE_HTM_ABORTS && ex->o.htm != DCSIM_EXPLORE_HTM_CONFLICTS)
		return 0;
	if (splitmix64_below(&ex->htm.inj_rng, 1000) >= ex->o.abort_permille)
		return 0;
	st = DCSIM_HTM_SIM_MARK |
	     causes[splitmix64_below(&ex->htm.inj_rng, DCSIM_ARRAY_SIZE(causes))];
	slog_add(&ex->slog, lt->id, SL_HTM_ABORT, (const void *)(uintptr_t)st, 0, where, 0, true);
	return st;
}

void explore_slog_txn(struct explorer *ex, struct lthread *lt, enum dcsim_access acc,
		      const volatile void *addr, unsigned int size, const char *func, int line)
{
	slog_add(&ex->slog, lt->id, acc, addr, size, func, line, true);
}

void explore_note_htm(struct ex_htm *htm, bool commit, dcsim_htm_status_t st)
{
	if (commit) {
		htm->commits++;
		return;
	}
	htm->aborts++;
	if ((st & DCSIM_HTM_X86_CAPACITY) && !(st & DCSIM_HTM_X86_EXPLICIT))
		htm->capacity_aborts++;
}

bool explore_htm_conflict_mode(struct explorer *ex)
{
	return ex->o.htm == DCSIM_EXPLORE_HTM_CONFLICTS;
}

unsigned int explore_htm_capacity(struct explorer *ex)
{
	unsigned int c = ex->o.htm_capacity;

	return c && c < SIM_LINES_MAX ? c : SIM_LINES_MAX;
}
