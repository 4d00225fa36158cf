/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_STATS_H
#define DCSIM_STATS_H

/*
 * Per-thread event counters for the primitives: lockref retries and
 * fallbacks, HTM attempts, commits and aborts by cause, explicit abort codes.
 *
 * Each thread writes only its own block (single writer, relaxed accesses),
 * so counting costs no shared cache line.  dcsim_stats_read() sums the blocks
 * of live threads and the totals left by threads that have exited.  Counter
 * updates are deliberately not schedule points in the instrumented build: they are
 * bookkeeping, not part of any algorithm under test.
 */

#include <stdint.h>

#include <dcsim/compiler.h>
#include <dcsim/htm.h>

enum dcsim_stat {
	DCSIM_STAT_LOCKREF_RETRIES,	/* failed cmpxchg in the lockref loop */
	DCSIM_STAT_LOCKREF_FALLBACKS,	/* loop gave up: lock held or retries spent */
	DCSIM_STAT_HTM_ATTEMPTS,	/* dcsim_htm_begin() calls that tried */
	DCSIM_STAT_HTM_COMMITS,
	DCSIM_STAT_HTM_ABORTS,		/* all causes */
	DCSIM_STAT_HTM_ABORT_FIRST,	/* + enum dcsim_htm_cause */
	DCSIM_STAT_NR = DCSIM_STAT_HTM_ABORT_FIRST + DCSIM_HTM_CAUSE_NR
};

struct dcsim_stats {
	uint64_t v[DCSIM_STAT_NR];
	uint64_t htm_explicit_code[256];	/* explicit aborts by 8-bit code */
};

/** dcsim_stats_read() - sum of every thread's counters, live or exited. */
DCSIM_API void dcsim_stats_read(struct dcsim_stats *out);

/** dcsim_stats_read_thread() - the calling thread's counters only. */
DCSIM_API void dcsim_stats_read_thread(struct dcsim_stats *out);

/** dcsim_stats_reset() - zero every counter; call while threads are quiescent. */
DCSIM_API void dcsim_stats_reset(void);

/** dcsim_stat_name() - a short stable name ("htm_commits"); NULL if out of range. */
DCSIM_API const char *dcsim_stat_name(enum dcsim_stat stat);

#endif /* DCSIM_STATS_H */
