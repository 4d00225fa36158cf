/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_TESTS_EXPLORE_ISOLATED_H
#define DCSIM_TESTS_EXPLORE_ISOLATED_H

/*
 * One dentry cache exploration in a child process (instrumented build only).
 *
 * A planted bug may corrupt the cache badly enough to crash (a dentry
 * killed twice unlinks itself twice); the explorer then prints its report
 * and the process dies.  So the tests that plant bugs run every
 * exploration in a child, and a crash counts as a catch, at the execution
 * the explorer's crash report names.  The caller must be single-threaded
 * (fork()).  DCSIM_TEST_VERBOSE=1 copies the child's stderr to ours.
 */

#include <dcsim/explore-dcache.h>
#include <dcsim/strategy.h>

struct explore_outcome {
	int rc;			/* 0 passed, 1 caught, -1 child died, 2 could not run */
	unsigned long first;	/* execution of the first failure or of the crash */
	unsigned long executions, callbacks, stale, conflicts;
	char failure[160];	/* the failure, or the crash line */
};

/**
 * explore_isolated() - dcsim_explore_dcache(@s, @scn, @o) in a child that
 * first plants @fault (DCSIM_DCACHE_FAULT_NONE: none).
 * Return: the outcome; rc 2 if the child could not be started or run.
 */
struct explore_outcome explore_isolated(const struct dcsim_dput_strategy *s,
					enum dcsim_dcache_scenario scn,
					const struct dcsim_explore_opts *o,
					enum dcsim_dcache_fault fault);

#endif /* DCSIM_TESTS_EXPLORE_ISOLATED_H */
