// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * HTM accounting of the cache model: every HTM strategy reports each
 * begin status here, counted per cache by cause and explicit code (and
 * the explicit codes labelled as covered paths).
 */

#include "dcache.h"
#include "stats.h"

/* An abort status from dcsim_htm_begin(), by cause and explicit code. */
static void count_htm_abort(struct dcsim_cache *c, dcsim_htm_status_t status)
{
	struct dcsim_htm_abort a;
	enum dcsim_cache_stat s;

	a = dcsim_htm_decode(status);
	dstat_inc(c, DCSIM_CS_HTM_ATTEMPT);
	dstat_inc(c, DCSIM_CS_HTM_ABORT);
	switch (a.cause) {
	case DCSIM_HTM_CAUSE_EXPLICIT:
		if (a.code >= DCSIM_DCACHE_HTM_LOCKED && a.code <= DCSIM_DCACHE_HTM_NOTREF)
			dcache_cover(DCSIM_COVER_HTM_LOCKED + (a.code - DCSIM_DCACHE_HTM_LOCKED));
		switch (a.code) {
		case DCSIM_DCACHE_HTM_LOCKED:	s = DCSIM_CS_HTM_ABORT_LOCKED; break;
		case DCSIM_DCACHE_HTM_UNHASHED:	s = DCSIM_CS_HTM_ABORT_UNHASHED; break;
		case DCSIM_DCACHE_HTM_NOLRU:	s = DCSIM_CS_HTM_ABORT_NOLRU; break;
		case DCSIM_DCACHE_HTM_KILL:	s = DCSIM_CS_HTM_ABORT_KILL; break;
		case DCSIM_DCACHE_HTM_BADCOUNT:	s = DCSIM_CS_HTM_ABORT_BADCOUNT; break;
		case DCSIM_DCACHE_HTM_NOTREF:	s = DCSIM_CS_HTM_ABORT_NOTREF; break;
		default:			s = DCSIM_CS_HTM_ABORT_OTHER; break;
		}
		break;
	case DCSIM_HTM_CAUSE_CONFLICT:	s = DCSIM_CS_HTM_ABORT_CONFLICT; break;
	case DCSIM_HTM_CAUSE_CAPACITY:	s = DCSIM_CS_HTM_ABORT_CAPACITY; break;
	default:			s = DCSIM_CS_HTM_ABORT_OTHER; break;
	}
	dstat_inc(c, s);
}

/*
 * The per-cache half of a strategy's HTM accounting (the per-thread half,
 * <dcsim/stats.h>, is counted by dcsim_htm_begin() and dcsim_htm_end()).
 * The counters are plain per-thread slots, not transactional: a write
 * inside a hardware transaction would be rolled back on abort, and one
 * inside a simulated transaction would not be (counters are bookkeeping,
 * outside the undo log), so the rule is "outside any transaction".
 */
void dcsim_cache_htm_account(struct dcsim_cache *c, dcsim_htm_status_t status)
{
	if (status == DCSIM_HTM_DISABLED)	/* not an attempt: HTM is off */
		return;
#if DCSIM_INSTRUMENT
	/* Only the simulation can tell cheaply; hardware would roll it back. */
	if (WARN_ON_ONCE(dcsim_htm_test()))
		return;
#endif
	if (WARN_ON_ONCE(!dcache_alive(c)))
		return;
	if (status != DCSIM_HTM_STARTED) {
		count_htm_abort(c, status);
		return;
	}
	dstat_inc(c, DCSIM_CS_HTM_ATTEMPT);
	dstat_inc(c, DCSIM_CS_HTM_COMMIT);
}
