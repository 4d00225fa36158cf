// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Planted bugs that only the explorer's RCU and memory-ordering models can
 * see.  Each is one line away from fs/dcache.c:fast_dput() of 6.1, copied
 * from src/model/dput-fast.c with public building blocks only:
 *
 *  bug-fast-no-rcu   dput() without the rcu_read_lock() section around
 *                    fast_dput(): after the lockless drop to zero the dentry
 *                    may be killed and freed by another thread while we
 *                    still read its flags and hash link.  Caught by the
 *                    explorer's grace periods: the free runs as soon as no
 *                    reader of call_rcu() time is left, poisons the dentry,
 *                    and our next access fails the execution.
 *  bug-fast-no-rmb   fast_dput() without the smp_rmb() after the relaxed
 *                    cmpxchg of lockref_put_return(): the d_flags and
 *                    d_unhashed() loads may be satisfied before the
 *                    decrement, see a hashed dentry that another thread has
 *                    just dropped (and left to the last put to kill), and
 *                    leave it unused, unhashed and unowned.  Caught only in
 *                    the relaxed-rmw memory mode; the test also checks that
 *                    sequentially consistent exploration does *not* see it,
 *                    so that the catch is the ordering model's.
 *
 * The control (the same code with both lines) and every strategy of the
 * library must pass every scenario in the relaxed-rmw mode, and the HTM
 * strategies with conflict-driven simulated HTM as well: the models must
 * not invent bugs.  Each exploration runs in a child process, since a
 * planted bug may crash the cache; a crash counts as a catch at the
 * execution the explorer's report names.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/atomic.h>
#include <dcsim/dentry.h>
#include <dcsim/explore-dcache.h>
#include <dcsim/lockref.h>
#include <dcsim/rcu.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

#include "explore-isolated.h"

#define REF_LRU		(DCSIM_DCACHE_REFERENCED | DCSIM_DCACHE_LRU_LIST)
#define MUST_DIE	(DCSIM_DCACHE_DISCONNECTED | DCSIM_DCACHE_DONTCACHE)

enum fd_bug { FD_CORRECT, FD_NO_RCU, FD_NO_RMB };

/*
 * models fs/dcache.c:fast_dput() (6.1), as src/model/dput-fast.c.
 * Return: true if the put is complete; false with d_lock held and the
 * caller's reference counted again (count 1): the slow path decides.
 */
static bool fast_dput_61(struct dcsim_dentry *d, enum fd_bug bug)
{
	struct dcsim_lockref *ref = dcsim_d_lockref(d);
	uint32_t f;
	int ret;

	if (dcsim_d_flags(d) & DCSIM_DCACHE_OP_DELETE)
		return dcsim_lockref_put_or_lock(ref);

	ret = dcsim_lockref_put_return(ref);
	if (ret < 0) {
		/* Lock held or cmpxchg contended: nothing was decremented. */
		dcsim_spin_lock(&ref->lock);
		if (DCSIM_READ_ONCE(ref->count) > 1) {
			DCSIM_WRITE_ONCE(ref->count, DCSIM_READ_ONCE(ref->count) - 1);
			dcsim_spin_unlock(&ref->lock);
			return true;
		}
		return false;
	}
	if (ret)
		return true;

	/* Dropped to zero without the lock: order the loads after the cmpxchg. */
	if (bug != FD_NO_RMB)
		dcsim_smp_rmb();
	f = dcsim_d_flags(d) & (REF_LRU | MUST_DIE);
	if (f == REF_LRU && !dcsim_d_unhashed(d))
		return true;

	dcsim_spin_lock(&ref->lock);
	/* Someone re-got it, or killed it, while we were unlocked. */
	if (DCSIM_READ_ONCE(ref->count)) {
		dcsim_spin_unlock(&ref->lock);
		return true;
	}
	DCSIM_WRITE_ONCE(ref->count, 1);
	return false;
}

/* models fs/dcache.c:dput() (6.1) */
static enum dcsim_dput_path dput_61(struct dcsim_dentry *d, enum fd_bug bug)
{
	bool done;

	if (bug != FD_NO_RCU)
		dcsim_rcu_read_lock();
	done = fast_dput_61(d, bug);
	if (bug != FD_NO_RCU)
		dcsim_rcu_read_unlock();
	if (done)
		return DCSIM_DPUT_PATH_CAS;
	/* d_lock held, our reference counted: retain_dentry() or dentry_kill(). */
	dcsim_dput_locked_final(d, DCSIM_RETAIN_LRU_THEN_REFERENCED);
	return DCSIM_DPUT_PATH_LOCKED;
}

static enum dcsim_dput_path dput_control(struct dcsim_dentry *d)
{
	return dput_61(d, FD_CORRECT);
}

static enum dcsim_dput_path dput_no_rcu(struct dcsim_dentry *d)
{
	return dput_61(d, FD_NO_RCU);
}

static enum dcsim_dput_path dput_no_rmb(struct dcsim_dentry *d)
{
	return dput_61(d, FD_NO_RMB);
}

static const struct dcsim_dput_strategy control = {
	.name = "test-fast61-control", .dput = dput_control,
	.description = "public-API copy of 6.1 dput()/fast_dput() (must pass)",
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
};

static const struct dcsim_dput_strategy bug_no_rcu = {
	.name = "bug-fast-no-rcu", .dput = dput_no_rcu,
	.description = "fast_dput() outside rcu_read_lock()",
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
};

static const struct dcsim_dput_strategy bug_no_rmb = {
	.name = "bug-fast-no-rmb", .dput = dput_no_rmb,
	.description = "fast_dput() without smp_rmb() after the relaxed cmpxchg",
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
};

static struct dcsim_explore_opts opts(enum dcsim_explore_mode mode, enum dcsim_explore_memory mem,
				      enum dcsim_explore_htm htm, unsigned long iters)
{
	struct dcsim_explore_opts o;

	dcsim_explore_opts_init(&o);

	dcsim_explore_opts_from_env(&o);
	o.mode = mode;
	o.memory = mem;
	o.htm = htm;
	o.abort_permille = 0;
	o.iterations = iters;
	return o;
}

/* Every scenario must pass: @s is correct.  Return: failures. */
static int must_pass(const struct dcsim_dput_strategy *s, enum dcsim_explore_memory mem,
		     enum dcsim_explore_htm htm, unsigned long iters)
{
	unsigned long cbs = 0, stale = 0, conflicts = 0;
	int failed = 0;

	for (int scn = 0; scn < DCSIM_DSCN_NR; scn++) {
		struct dcsim_explore_opts o = opts(DCSIM_EXPLORE_RANDOM, mem, htm, iters);
		struct explore_outcome r = explore_isolated(s, (enum dcsim_dcache_scenario)scn, &o,
							    DCSIM_DCACHE_FAULT_NONE);

		cbs += r.callbacks;
		stale += r.stale;
		conflicts += r.conflicts;
		if (r.rc) {
			printf("  %s %s FAILED: %s\n", s->name, dcsim_dcache_scenario_name(scn), r.failure);
			failed++;
		}
	}
	printf("%-22s %-11s %-13s %s (%lu callbacks in executions, %lu stale loads, %lu conflicts)\n",
	       s->name, mem == DCSIM_EXPLORE_MEM_SC ? "sc" : "relaxed-rmw",
	       dcsim_explore_htm_name(htm), failed ? "FAIL" : "ok", cbs, stale, conflicts);
	return failed;
}

/* The bug must be caught in some scenario, in both search modes.  Return: failures. */
static int must_catch(const struct dcsim_dput_strategy *s, enum dcsim_explore_memory mem,
		      unsigned long budget, const char *want)
{
	static const enum dcsim_explore_mode modes[] = { DCSIM_EXPLORE_RANDOM, DCSIM_EXPLORE_PCT };
	int failed = 0;

	for (size_t m = 0; m < DCSIM_ARRAY_SIZE(modes); m++) {
		unsigned long total = 0;
		bool caught = false;

		for (int scn = 0; scn < DCSIM_DSCN_NR && !caught; scn++) {
			struct dcsim_explore_opts o = opts(modes[m], mem, DCSIM_EXPLORE_HTM_OFF, budget);
			struct explore_outcome r = explore_isolated(s, (enum dcsim_dcache_scenario)scn, &o,
							    DCSIM_DCACHE_FAULT_NONE);

			if (r.rc == 1 || r.rc == -1) {
				caught = true;
				total += r.first;
				printf("%-22s %-11s %-6s %-18s %9lu %11lu  %.90s\n", s->name,
				       mem == DCSIM_EXPLORE_MEM_SC ? "sc" : "relaxed-rmw",
				       dcsim_explore_mode_name(modes[m]), dcsim_dcache_scenario_name(scn),
				       r.first, total, r.failure);
				/* Caught for the right reason, not by a side effect. */
				if (want && !strstr(r.failure, want)) {
					printf("  ^ expected a failure mentioning '%s'\n", want);
					failed++;
				}
			} else {
				total += r.executions;
			}
		}
		if (!caught) {
			printf("%-22s %-11s %-6s NOT CAUGHT in %lu executions\n", s->name,
			       mem == DCSIM_EXPLORE_MEM_SC ? "sc" : "relaxed-rmw",
			       dcsim_explore_mode_name(modes[m]), total);
			failed++;
		}
	}
	return failed;
}

int main(void)
{
	unsigned long budget = 3000 * dcsim_explore_scale();
	unsigned long ctl = 200 * dcsim_explore_scale();
	int failed = 0;

	dcsim_warn_set_quiet(true);
	if (dcsim_strategy_register(&control) || dcsim_strategy_register(&bug_no_rcu) ||
	    dcsim_strategy_register(&bug_no_rmb))
		return 2;

	puts("-- controls: must pass every scenario");
	failed += must_pass(&control, DCSIM_EXPLORE_MEM_SC, DCSIM_EXPLORE_HTM_OFF, ctl);
	failed += must_pass(&control, DCSIM_EXPLORE_MEM_RELAXED_RMW, DCSIM_EXPLORE_HTM_OFF, ctl);
	for (size_t i = 0; i < dcsim_strategy_count(); i++) {
		const struct dcsim_dput_strategy *s = dcsim_strategy_get(i);

		if (s == &control || s == &bug_no_rcu || s == &bug_no_rmb)
			continue;
		failed += must_pass(s, DCSIM_EXPLORE_MEM_RELAXED_RMW, DCSIM_EXPLORE_HTM_OFF, ctl);
		if (s->flags & DCSIM_STRATEGY_USES_HTM)
			failed += must_pass(s, DCSIM_EXPLORE_MEM_RELAXED_RMW,
					    DCSIM_EXPLORE_HTM_CONFLICTS, ctl);
	}
	/* Sequentially consistent, smp_rmb() is a no-op: the bug must stay invisible. */
	failed += must_pass(&bug_no_rmb, DCSIM_EXPLORE_MEM_SC, DCSIM_EXPLORE_HTM_OFF, ctl);

	puts("-- planted bugs: must be caught");
	printf("%-22s %-11s %-6s %-18s %9s %11s  %s\n", "bug", "memory", "mode", "caught by",
	       "execution", "total execs", "first failure");
	failed += must_catch(&bug_no_rcu, DCSIM_EXPLORE_MEM_SC, budget, "use after free");
	failed += must_catch(&bug_no_rmb, DCSIM_EXPLORE_MEM_RELAXED_RMW, budget, NULL);
	return failed ? 1 : 0;
}
