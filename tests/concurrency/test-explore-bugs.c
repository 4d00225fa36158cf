// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The explorer has teeth: deliberately broken dput strategies, registered
 * through the public strategy API like any user's strategy, must each be
 * caught by the dentry cache scenarios.  For each bug and search mode the
 * test prints how many executions (schedules) it took; docs/testing.md
 * quotes these numbers.
 *
 * Each bug is one line away from a correct strategy of the library:
 *
 *  bug-rtm-no-lock-check  the 2013 RTM patch without the lock-value test in
 *                         the transaction: its decrement can land inside a
 *                         d_lock holder's read-modify-write of the count.
 *  bug-rtm-dec-first      the decrement made (transactionally, lock checked)
 *                         before the hashed/LRU/REFERENCED check, which then
 *                         runs after xend; a failed check re-takes "its"
 *                         reference under d_lock, but from the decrement on
 *                         the dentry was unused and fair game.
 *  bug-fast-no-recheck    fast_dput() without the count recheck after it
 *                         re-locks: the reference it dropped is restored over
 *                         whatever happened meanwhile (a new reference, a kill).
 *  bug-fast-no-unhashed   fast_dput()'s lockless retain test without
 *                         d_unhashed(): a dropped dentry is left unused,
 *                         unhashed and unowned.
 *  bug-plain-dec          a non-final put as a plain load and store of the
 *                         count, not a lockref cmpxchg: lost updates.
 *  bug-rtm-no-ref         the 2013 RTM patch accepting LRU_LIST without
 *                         REFERENCED: a final put commits where the 3.x
 *                         locked path would have set REFERENCED.  No
 *                         invariant is broken; only the comparison with the
 *                         spec sees it, with simulated HTM, so it is caught
 *                         on a host without RTM too.
 *  bug-husk-freed-early   the correct control strategy on a cache model with
 *                         a planted fault (dcsim_dcache_set_fault()): a kill
 *                         of a dentry on another thread's shrink list unlinks
 *                         it from that list and frees it instead of leaving
 *                         the husk to the list's owner.
 *  bug-walk-no-seq-recheck  the control on a cache model whose RCU-walk
 *                         legitimises the leaf with lockref_get_not_dead()
 *                         alone, without the d_seq recheck (planted fault):
 *                         a leaf unlinked between the walk's look at it and
 *                         its reference is returned negative (walk-vs-unlink).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/atomic.h>
#include <dcsim/dentry.h>
#include <dcsim/explore-dcache.h>
#include <dcsim/htm.h>
#include <dcsim/lockref.h>
#include <dcsim/rcu.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

#include "explore-isolated.h"

#define REF_LRU		(DCSIM_DCACHE_REFERENCED | DCSIM_DCACHE_LRU_LIST)
#define MUST_DIE	(DCSIM_DCACHE_DISCONNECTED | DCSIM_DCACHE_DONTCACHE)

/* The 3.12 lockref dput, the fallback of the rtm variants. */
static enum dcsim_dput_path put_312(struct dcsim_dentry *d)
{
	if (dcsim_lockref_put_or_lock(dcsim_d_lockref(d)))
		return DCSIM_DPUT_PATH_CAS;
	dcsim_dput_locked_final(d, DCSIM_RETAIN_ALWAYS_REFERENCED);
	return DCSIM_DPUT_PATH_LOCKED;
}

static enum dcsim_dput_path bug_rtm_no_lock_check(struct dcsim_dentry *d)
{
	struct dcsim_lockref *ref = dcsim_d_lockref(d);
	dcsim_htm_status_t st;
	uint32_t f;
	int32_t c;

	if ((dcsim_d_flags(d) & DCSIM_DCACHE_OP_DELETE) || !dcsim_htm_live())
		return put_312(d);
	st = dcsim_htm_begin();
	if (st != DCSIM_HTM_STARTED)
		return put_312(d);
	f = dcsim_d_flags(d);
	if (dcsim_d_unhashed(d) || (f & REF_LRU) != REF_LRU)
		dcsim_htm_abort(DCSIM_DCACHE_HTM_NOLRU);
	/* BUG: the d_lock value is not tested, so a lock holder is not excluded. */
	c = DCSIM_READ_ONCE(ref->count);
	if (c <= 0 || (c == 1 && (f & MUST_DIE)))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_BADCOUNT);
	DCSIM_WRITE_ONCE(ref->count, c - 1);
	dcsim_htm_end();
	return DCSIM_DPUT_PATH_HTM;
}

static enum dcsim_dput_path bug_rtm_dec_first(struct dcsim_dentry *d)
{
	struct dcsim_lockref *ref = dcsim_d_lockref(d);
	struct dcsim_lockref old;
	dcsim_htm_status_t st;
	uint32_t f;

	if ((dcsim_d_flags(d) & DCSIM_DCACHE_OP_DELETE) || !dcsim_htm_live())
		return put_312(d);
	dcsim_rcu_read_lock();
	st = dcsim_htm_begin();
	if (st != DCSIM_HTM_STARTED) {
		dcsim_rcu_read_unlock();
		return put_312(d);
	}
	old.lock_count = DCSIM_READ_ONCE(ref->lock_count);
	if (!dcsim_spin_value_unlocked(old.lock) || old.count <= 0)
		dcsim_htm_abort(DCSIM_DCACHE_HTM_LOCKED);
	DCSIM_WRITE_ONCE(ref->count, old.count - 1);
	dcsim_htm_end();
	if (old.count > 1) {
		dcsim_rcu_read_unlock();
		return DCSIM_DPUT_PATH_HTM;
	}
	/* BUG: decremented to zero first, the retain conditions checked after. */
	f = dcsim_d_flags(d);
	if (!dcsim_d_unhashed(d) && (f & (REF_LRU | MUST_DIE)) == REF_LRU) {
		dcsim_rcu_read_unlock();
		return DCSIM_DPUT_PATH_HTM;
	}
	dcsim_spin_lock(&ref->lock);
	dcsim_rcu_read_unlock();
	DCSIM_WRITE_ONCE(ref->count, DCSIM_READ_ONCE(ref->count) + 1);
	dcsim_dput_locked_final(d, DCSIM_RETAIN_ALWAYS_REFERENCED);
	return DCSIM_DPUT_PATH_LOCKED;
}

/* fast_dput() of 6.1 with one of two bugs; @bug selects which. */
static enum dcsim_dput_path fast_variant(struct dcsim_dentry *d, int bug)
{
	struct dcsim_lockref *ref = dcsim_d_lockref(d);
	uint32_t f;
	int ret;

	if (dcsim_d_flags(d) & DCSIM_DCACHE_OP_DELETE) {
		if (dcsim_lockref_put_or_lock(ref))
			return DCSIM_DPUT_PATH_CAS;
		dcsim_dput_locked_final(d, DCSIM_RETAIN_LRU_THEN_REFERENCED);
		return DCSIM_DPUT_PATH_LOCKED;
	}
	dcsim_rcu_read_lock();
	ret = dcsim_lockref_put_return(ref);
	if (ret < 0) {
		/* Nothing was decremented: the locked path drops our reference. */
		dcsim_spin_lock(&ref->lock);
		dcsim_rcu_read_unlock();
		dcsim_dput_locked_final(d, DCSIM_RETAIN_LRU_THEN_REFERENCED);
		return DCSIM_DPUT_PATH_LOCKED;
	}
	if (ret) {
		dcsim_rcu_read_unlock();
		return DCSIM_DPUT_PATH_CAS;
	}
	dcsim_smp_rmb();
	f = dcsim_d_flags(d) & (REF_LRU | MUST_DIE);
	/* BUG 2: no d_unhashed() test. */
	if (f == REF_LRU && (bug == 2 || !dcsim_d_unhashed(d))) {
		dcsim_rcu_read_unlock();
		return DCSIM_DPUT_PATH_CAS;
	}
	dcsim_spin_lock(&ref->lock);
	/*
	 * The RCU section stays open across the recheck, as in 6.1's dput():
	 * a killer that marked the dentry dead just before we locked may
	 * call_rcu() it, and only our section keeps that free from running
	 * before the count read below.
	 */
	/* BUG 1: no "if (count) { unlock; return; }" recheck. */
	if (bug != 1 && DCSIM_READ_ONCE(ref->count)) {
		dcsim_spin_unlock(&ref->lock);
		dcsim_rcu_read_unlock();
		return DCSIM_DPUT_PATH_LOCKED;
	}
	dcsim_rcu_read_unlock();
	DCSIM_WRITE_ONCE(ref->count, 1);
	dcsim_dput_locked_final(d, DCSIM_RETAIN_LRU_THEN_REFERENCED);
	return DCSIM_DPUT_PATH_LOCKED;
}

static enum dcsim_dput_path fast_correct(struct dcsim_dentry *d)
{
	return fast_variant(d, 0);
}

static enum dcsim_dput_path bug_fast_no_recheck(struct dcsim_dentry *d)
{
	return fast_variant(d, 1);
}

static enum dcsim_dput_path bug_fast_no_unhashed(struct dcsim_dentry *d)
{
	return fast_variant(d, 2);
}

static enum dcsim_dput_path bug_plain_dec(struct dcsim_dentry *d)
{
	struct dcsim_lockref *ref = dcsim_d_lockref(d);
	int32_t c = DCSIM_READ_ONCE(ref->count);

	/* BUG: not a cmpxchg on the lock+count word. */
	if (c > 1) {
		DCSIM_WRITE_ONCE(ref->count, c - 1);
		return DCSIM_DPUT_PATH_CAS;
	}
	return put_312(d);
}

static enum dcsim_dput_path bug_rtm_no_ref(struct dcsim_dentry *d)
{
	struct dcsim_lockref *ref = dcsim_d_lockref(d);
	struct dcsim_lockref old;
	dcsim_htm_status_t st;
	uint32_t f;

	if ((dcsim_d_flags(d) & DCSIM_DCACHE_OP_DELETE) || !dcsim_htm_live())
		return put_312(d);
	st = dcsim_htm_begin();
	if (st != DCSIM_HTM_STARTED)
		return put_312(d);
	if (dcsim_d_unhashed(d))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_UNHASHED);
	f = dcsim_d_flags(d);
	/* BUG: LRU_LIST alone is accepted; REFERENCED is not tested. */
	if (!(f & DCSIM_DCACHE_LRU_LIST))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_NOLRU);
	old.lock_count = DCSIM_READ_ONCE(ref->lock_count);
	if (!dcsim_spin_value_unlocked(old.lock))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_LOCKED);
	if (old.count <= 0)
		dcsim_htm_abort(DCSIM_DCACHE_HTM_BADCOUNT);
	if (old.count == 1 && (f & MUST_DIE))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_KILL);
	DCSIM_WRITE_ONCE(ref->count, old.count - 1);
	dcsim_htm_end();
	return DCSIM_DPUT_PATH_HTM;
}

static const struct dcsim_dput_strategy control = {
	.name = "test-fast-control", .dput = fast_correct,
	.description = "the public-API fast_dput() the bugs are cut from (must pass)",
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
};

static const struct dcsim_dput_strategy bugs[] = {
	{ .name = "bug-rtm-no-lock-check", .dput = bug_rtm_no_lock_check,
	  .retain_style = DCSIM_RETAIN_ALWAYS_REFERENCED, .flags = DCSIM_STRATEGY_USES_HTM },
	{ .name = "bug-rtm-dec-first", .dput = bug_rtm_dec_first,
	  .retain_style = DCSIM_RETAIN_ALWAYS_REFERENCED, .flags = DCSIM_STRATEGY_USES_HTM },
	{ .name = "bug-fast-no-recheck", .dput = bug_fast_no_recheck,
	  .retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED },
	{ .name = "bug-fast-no-unhashed", .dput = bug_fast_no_unhashed,
	  .retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED },
	{ .name = "bug-plain-dec", .dput = bug_plain_dec,
	  .retain_style = DCSIM_RETAIN_ALWAYS_REFERENCED },
	{ .name = "bug-rtm-no-ref", .dput = bug_rtm_no_ref,
	  .retain_style = DCSIM_RETAIN_ALWAYS_REFERENCED, .flags = DCSIM_STRATEGY_USES_HTM },
	{ .name = "bug-husk-freed-early", .dput = fast_correct,
	  .description = "the control, on a cache whose kill frees husks (planted fault)",
	  .retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED },
	{ .name = "bug-walk-no-seq-recheck", .dput = fast_correct,
	  .description = "the control, on a cache whose RCU-walk skips the leaf's d_seq recheck",
	  .retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED },
};

/* The planted fault of the cache model that goes with a bug, if any. */
static enum dcsim_dcache_fault bug_fault(const struct dcsim_dput_strategy *s)
{
	if (!strcmp(s->name, "bug-husk-freed-early"))
		return DCSIM_DCACHE_FAULT_HUSK_FREED_EARLY;
	if (!strcmp(s->name, "bug-walk-no-seq-recheck"))
		return DCSIM_DCACHE_FAULT_WALK_NO_SEQ_RECHECK;
	return DCSIM_DCACHE_FAULT_NONE;
}

/*
 * The first scenario that can catch a bug: a fault planted in RCU-walk is
 * searched for from the first scenario that walks (the ones before never
 * call dcsim_path_walk()); every other bug from the first scenario.
 */
static int bug_first_scenario(const struct dcsim_dput_strategy *s)
{
	return bug_fault(s) == DCSIM_DCACHE_FAULT_WALK_NO_SEQ_RECHECK ? DCSIM_DSCN_WALK_VS_KILL : 0;
}

static struct dcsim_explore_opts opts(enum dcsim_explore_mode mode, const struct dcsim_dput_strategy *s,
				      unsigned long iters)
{
	struct dcsim_explore_opts o;

	dcsim_explore_opts_init(&o);

	dcsim_explore_opts_from_env(&o);
	o.mode = mode;
	o.iterations = iters;
	o.htm = (s->flags & DCSIM_STRATEGY_USES_HTM) ? DCSIM_EXPLORE_HTM_COMMIT : DCSIM_EXPLORE_HTM_OFF;
	o.quiet = !getenv("DCSIM_TEST_VERBOSE");
	return o;
}

int main(void)
{
	static const enum dcsim_explore_mode modes[] = { DCSIM_EXPLORE_RANDOM, DCSIM_EXPLORE_PCT };
	unsigned long budget = 3000 * dcsim_explore_scale();
	int failed = 0;

	dcsim_warn_set_quiet(true);
	if (dcsim_strategy_register(&control))
		return 2;
	for (size_t b = 0; b < DCSIM_ARRAY_SIZE(bugs); b++)
		if (dcsim_strategy_register(&bugs[b]))
			return 2;

	/* The control must survive every scenario. */
	for (int scn = 0; scn < DCSIM_DSCN_NR; scn++) {
		struct dcsim_explore_opts o = opts(DCSIM_EXPLORE_RANDOM, &control, 300);
		struct explore_outcome r;

		o.quiet = false;
		r = explore_isolated(&control, (enum dcsim_dcache_scenario)scn, &o,
				     bug_fault(&control));
		if (r.rc) {
			printf("control failed %s: %s\n", dcsim_dcache_scenario_name(scn), r.failure);
			failed++;
		}
	}

	printf("%-24s %-6s %-18s %10s %12s  %s\n", "bug", "mode", "caught by", "execution",
	       "total execs", "first failure");
	for (size_t b = 0; b < DCSIM_ARRAY_SIZE(bugs); b++) {
		for (size_t m = 0; m < DCSIM_ARRAY_SIZE(modes); m++) {
			unsigned long total = 0;
			bool caught = false;

			/*
			 * Scenarios in order from the first that can catch it, each up to
			 * the budget: the cost of finding it blind.
			 */
			for (int scn = bug_first_scenario(&bugs[b]); scn < DCSIM_DSCN_NR && !caught;
			     scn++) {
				struct dcsim_explore_opts o = opts(modes[m], &bugs[b], budget);
				struct explore_outcome r;

				o.quiet = false;	/* the child's report names the execution */
				r = explore_isolated(&bugs[b], (enum dcsim_dcache_scenario)scn, &o,
						     bug_fault(&bugs[b]));
				if (r.rc == 1 || r.rc == -1) {
					caught = true;
					total += r.first;
					printf("%-24s %-6s %-18s %10lu %12lu  %.100s\n", bugs[b].name,
					       dcsim_explore_mode_name(modes[m]),
					       dcsim_dcache_scenario_name(scn), r.first, total,
					       r.failure);
				} else {
					total += r.executions;
				}
			}
			if (!caught) {
				printf("%-24s %-6s NOT CAUGHT in %lu executions\n", bugs[b].name,
				       dcsim_explore_mode_name(modes[m]), total);
				failed++;
			}
		}
	}
	return failed ? 1 : 0;
}
