/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_BENCH_TARGETS_H
#define DCSIM_BENCH_TARGETS_H

/*
 * The bench's targets (targets.c): each a figure of this run held against
 * its limit, with an interval and a verdict; report.c writes them.
 */

#include <stdbool.h>

#include "bench.h"

struct bench_target {
	const char *id, *what;
	const char *group, *subject;
	unsigned int threads;
	double value, limit;
	const char *op;		/* "<=", ">=", "<", "==" */
	struct bench_est est;	/* value with its ci95 (NAN for exact counts) */
	const char *verdict;	/* ok, MISS or inconclusive (bench_verdict()); n/a */
	bool pass;
	bool na;		/* cannot be evaluated on this host or run: verdict n/a */
	const char *note;
	char buf[128];		/* a computed note */
};

#define BENCH_MAX_TARGETS 256	/* --sharing alone adds one per workload, strategy and thread count */

/**
 * bench_eval_targets() - every target this run can be judged on, into @t
 * (BENCH_MAX_TARGETS at most), each with its value, interval and verdict.
 * Return: how many.
 */
unsigned int bench_eval_targets(const struct bench_config *cfg, const struct bench_host *host,
				struct bench_target *t);

#endif /* DCSIM_BENCH_TARGETS_H */
