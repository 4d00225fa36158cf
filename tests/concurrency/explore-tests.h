/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_TESTS_EXPLORE_TESTS_H
#define DCSIM_TESTS_EXPLORE_TESTS_H

/*
 * What the files of test-explore share: the scenarios' common state, its
 * setup, the options of a run, and the tests main() runs.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <dcsim/atomic.h>
#include <dcsim/explore.h>
#include <dcsim/htm.h>
#include <dcsim/lockref.h>
#include <dcsim/rcu.h>
#include <dcsim/sched.h>
#include <dcsim/spinlock.h>
#include <dcsim/stats.h>

struct shared {
	dcsim_spinlock_t lock, lock2;
	struct dcsim_lockref ref;
	int x, y;
	int killed, got;
	int variant;
	int pv[DCSIM_EXPLORE_MAX_THREADS][2];	/* private to each thread */
};

void *setup_shared(void *arg);
void teardown_shared(void *state);
struct dcsim_explore_opts opts_for(enum dcsim_explore_mode mode, unsigned long iters);
/* Three threads' increments under the lock, and the check that none is lost. */
void locked_inc(void *state, unsigned int tid);
void check_three(void *state);
void test_finds_lost_update(void **unused);
void test_replay_from_seed(void **unused);
void test_spinlock_exhaustive(void **unused);
void test_deadlocks(void **unused);
void test_lockref_kill(void **unused);
void test_txn_counter(void **unused);
void test_sim_semantics(void **unused);
void test_sim_refuses_outside(void **unused);
void test_rcu_grace_period(void **unused);
void test_htm_conflicts(void **unused);
void test_strict_priorities(void **unused);
void test_fair_cycles(void **unused);

#endif /* DCSIM_TESTS_EXPLORE_TESTS_H */
