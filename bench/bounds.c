// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The bounds: reference loops measured in the same run as the strategies,
 * so each strategy's cost per reference get+put can be placed between them.
 *
 *   floor    a bare atomic add then sub on one cache line.  Nothing that
 *            takes and drops a shared reference can be cheaper: it is the
 *            two locked RMWs any scheme needs, with no lock and no checks.
 *   spin     a plain ticket spinlock protecting a counter: lock, count++,
 *            unlock, then lock, count--, unlock.  The naive ceiling: what
 *            the pre-3.12 kernel did for every dget/dput.
 *   cmpxchg  the same add+sub, each done as the lockref does it: read the
 *            word, then a dependent cmpxchg in a retry loop, inline.  The
 *            gap between floor and cmpxchg is the price of the cmpxchg
 *            shape itself, which no lockref-based dput can avoid.
 *   raw-lockref  the library's lockref_get + lockref_put_or_lock on a word
 *            whose count never reaches zero: the 3.12 primitive on its own,
 *            without the dentry around it.  The kernel tuned lockref to cost
 *            no more than the lock-update-unlock it replaced.
 *
 * One operation is one get+put pair everywhere, like one op of the `hot`
 * workload (dget + non-final dput), so ns/op compare directly.  All threads
 * share the one line: at 2+ threads the bounds show the contended cost too.
 */

#include <errno.h>
#include <stdlib.h>

#include <dcsim/atomic.h>
#include <dcsim/lockref.h>
#include <dcsim/spinlock.h>

#include "bench.h"

/* One cache line, whatever the bound uses of it. */
struct bound_line {
	union {
		uint64_t counter;
		struct dcsim_lockref lockref;
		struct {
			dcsim_spinlock_t lock;
			int32_t count;
		} spin;
	};
} dcsim_cacheline_aligned;

static int bound_setup(struct bench_cell *cell)
{
	struct bound_line *l = aligned_alloc(DCSIM_CACHELINE, sizeof(*l));

	if (!l)
		return -ENOMEM;
	l->counter = 0;
	/* lockref: a base reference, so the put below is never the last */
	dcsim_lockref_init(&l->lockref, 1);
	cell->state = l;
	return 0;
}

static void bound_teardown(struct bench_cell *cell)
{
	free(cell->state);
	cell->state = NULL;
}

static void floor_run(struct bench_cell *cell, struct bench_worker *w, uint64_t n)
{
	struct bound_line *l = cell->state;

	(void)w;
	for (uint64_t i = 0; i < n; i++) {
		dcsim_atomic_add(&l->counter, 1);
		dcsim_atomic_sub(&l->counter, 1);
	}
}

static void cmpxchg_run(struct bench_cell *cell, struct bench_worker *w, uint64_t n)
{
	struct bound_line *l = cell->state;

	(void)w;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t old = DCSIM_READ_ONCE(l->counter);

		/* a failed cmpxchg refreshes old: the retry needs no re-read */
		while (!dcsim_try_cmpxchg(&l->counter, &old, old + 1))
			;
		old = DCSIM_READ_ONCE(l->counter);
		while (!dcsim_try_cmpxchg(&l->counter, &old, old - 1))
			;
	}
}

static void spin_run(struct bench_cell *cell, struct bench_worker *w, uint64_t n)
{
	struct bound_line *l = cell->state;

	(void)w;
	for (uint64_t i = 0; i < n; i++) {
		/* The count is only touched under the lock: plain once-accesses. */
		dcsim_spin_lock(&l->spin.lock);
		DCSIM_WRITE_ONCE(l->spin.count, DCSIM_READ_ONCE(l->spin.count) + 1);
		dcsim_spin_unlock(&l->spin.lock);
		dcsim_spin_lock(&l->spin.lock);
		DCSIM_WRITE_ONCE(l->spin.count, DCSIM_READ_ONCE(l->spin.count) - 1);
		dcsim_spin_unlock(&l->spin.lock);
	}
}

static void lockref_run(struct bench_cell *cell, struct bench_worker *w, uint64_t n)
{
	struct bound_line *l = cell->state;

	(void)w;
	for (uint64_t i = 0; i < n; i++) {
		dcsim_lockref_get(&l->lockref);
		/* count >= 2 here, so this never returns 0 with the lock held */
		if (dcsim_unlikely(!dcsim_lockref_put_or_lock(&l->lockref)))
			abort();
	}
}

const struct bench_workload bench_bound_floor = {
	.name = "floor",
	.models = "bare atomic add+sub on one cache line (the floor)",
	.setup = bound_setup,
	.run = floor_run,
	.teardown = bound_teardown,
};

const struct bench_workload bench_bound_cmpxchg = {
	.name = "cmpxchg",
	.models = "read + cmpxchg loop add, then sub, inline (the shape of every lockref op)",
	.setup = bound_setup,
	.run = cmpxchg_run,
	.teardown = bound_teardown,
};

const struct bench_workload bench_bound_spin = {
	.name = "spin",
	.models = "spinlock-protected counter, lock-update-unlock x2 (the naive ceiling)",
	.setup = bound_setup,
	.run = spin_run,
	.teardown = bound_teardown,
};

const struct bench_workload bench_bound_lockref = {
	.name = "raw-lockref",
	.models = "lockref_get + lockref_put_or_lock, no dentry (the 3.12 primitive alone)",
	.setup = bound_setup,
	.run = lockref_run,
	.teardown = bound_teardown,
};
