// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel code's cond_resched() (kc_cond_resched(), the shim of
 * kernel-code/include/kc/glue-impl.h that 6.12's shrink_dcache_parent()
 * calls) as the explorer's scheduling modes need it (instrumented build):
 *
 *  1. Every call is exactly one DCSIM_ACC_RESCHED schedule point and
 *     nothing else, seen from an ordinary thread through
 *     dcsim_access_observer_set().  A shim that pauses with cpu_relax()
 *     (a spin that never gives the CPU back), that yields on some calls
 *     only, or that yields to the OS (sched_yield(): no schedule point the
 *     explorer sees) fails here, even where the end-to-end runs still pass
 *     because a later call yields.
 *  2. A thread that waits for another's flag with it: under strict
 *     priorities some execution preempts the flag's writer and none
 *     livelocks (the waiter's cond_resched() gives the CPU back); under
 *     real-time priorities it is caught as a livelock (a real-time
 *     preemptor's cond_resched() gives nothing back).  Under rt twice:
 *     with the preemption drawn from the first 20 steps, where it may
 *     begin while the waiter is already blocked in cond_resched(), and
 *     from the first step, where it begins before the waiter's first
 *     cond_resched(): only there does an rt that yields at cond_resched()
 *     let the victim run, and pass.
 *
 * The end-to-end guards are kernel-code-strict-k612 (k612's invalidate
 * passes under strict) and check-detect-bounds-kc (and is caught under rt).
 * Exit: 0 pass, 1 a check failed, 77 not an instrumented build.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/explore.h>

#include <kc/glue.h>

static int failed;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		printf("test-kc-resched: FAIL: " __VA_ARGS__);		\
		printf("\n");						\
		failed = 1;						\
	}								\
} while (0)

/* ---- 1. one call, one RESCHED point ---- */

static unsigned long seen[DCSIM_ACC_NR];
static unsigned long seen_other;	/* a kind past the enum: counted, never expected */

/* The observer: it only counts (no shared access of its own). */
static void count_access(enum dcsim_access acc, const volatile void *addr, unsigned int size)
{
	(void)addr;
	(void)size;
	if ((unsigned int)acc < sizeof(seen) / sizeof(seen[0]))
		seen[acc]++;
	else
		seen_other++;
}

static void check_points(void)
{
	const unsigned long calls = 8;
	unsigned long total = seen_other;

	dcsim_access_observer_set(count_access);
	for (unsigned long i = 0; i < calls; i++)
		kc_cond_resched();
	dcsim_access_observer_set(NULL);
	for (size_t i = 0; i < sizeof(seen) / sizeof(seen[0]); i++)
		total += seen[i];
	CHECK(seen[DCSIM_ACC_RESCHED] == calls,
	      "%lu calls of kc_cond_resched() made %lu cond_resched() schedule points",
	      calls, seen[DCSIM_ACC_RESCHED]);
	CHECK(seen[DCSIM_ACC_SPIN] == 0,
	      "kc_cond_resched() made %lu cpu_relax() points (a pause is not a yield)",
	      seen[DCSIM_ACC_SPIN]);
	CHECK(total == calls, "%lu calls of kc_cond_resched() made %lu schedule points in all",
	      calls, total);
	printf("test-kc-resched: %lu calls, %lu cond_resched() points, %lu points in all\n",
	       calls, seen[DCSIM_ACC_RESCHED], total);
}

/* ---- 2. a wait with it, under strict and real-time priorities ---- */

struct flag {
	dcsim_spinlock_t lock;
	int x;
};

static void *flag_setup(void *arg)
{
	struct flag *f = calloc(1, sizeof(*f));

	(void)arg;
	if (!f)
		abort();
	dcsim_spin_lock_init(&f->lock);
	return f;
}

static void flag_teardown(void *state)
{
	free(state);
}

/* T1 sets the flag under the lock; T0 waits for it as shrink_dcache_parent() waits. */
static void flag_thread(void *state, unsigned int tid)
{
	struct flag *f = state;

	if (tid == 1) {
		dcsim_spin_lock(&f->lock);
		DCSIM_WRITE_ONCE(f->x, 1);
		dcsim_spin_unlock(&f->lock);
		return;
	}
	while (!DCSIM_READ_ONCE(f->x))
		kc_cond_resched();
}

static int run_wait(enum dcsim_explore_sched sched, unsigned long window,
		    struct dcsim_explore_result *r)
{
	const struct dcsim_scenario sc = {
		.name = "kc-resched-wait", .nthreads = 2, .setup = flag_setup,
		.thread = flag_thread, .teardown = flag_teardown,
	};
	struct dcsim_explore_opts o;

	dcsim_explore_opts_init(&o);
	dcsim_explore_opts_from_env(&o);
	o.mode = DCSIM_EXPLORE_RANDOM;
	o.iterations = 300;
	o.sched = sched;
	o.strict_window = window;
	o.strict_steps = 2000;
	o.quiet = getenv("DCSIM_TEST_VERBOSE") == NULL;
	return dcsim_explore_run(&sc, &o, r);
}

static void check_wait(void)
{
	struct dcsim_explore_result r;
	int rc;

	rc = run_wait(DCSIM_EXPLORE_SCHED_STRICT, 20, &r);
	CHECK(rc == 0, "strict: the wait with kc_cond_resched() failed (exit %d): %s", rc,
	      r.failure);
	CHECK(r.preemptions > 0, "strict: no execution of %lu preempted a thread", r.executions);
	printf("test-kc-resched: strict: %lu executions, %lu preempted, none livelocked\n",
	       r.executions, r.preemptions);
	for (unsigned long window = 20; window; window = window > 1 ? 1 : 0) {
		rc = run_wait(DCSIM_EXPLORE_SCHED_RT, window, &r);
		CHECK(rc == 1 && strstr(r.failure, "livelock (real-time priorities)"),
		      "rt, preempted within %lu steps: the wait was not caught as a real-time "
		      "livelock (exit %d): %s", window, rc, r.failure);
		if (rc == 1)
			printf("test-kc-resched: rt, preempted within %lu steps: caught at execution "
			       "%lu: %.100s...\n", window, r.first_failure, r.failure);
	}
}

int main(void)
{
	if (!DCSIM_INSTRUMENT) {
		printf("test-kc-resched: SKIPPED: not an instrumented build\n");
		return 77;
	}
	check_points();
	check_wait();
	return failed;
}
