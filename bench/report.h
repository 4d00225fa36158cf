/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_BENCH_REPORT_H
#define DCSIM_BENCH_REPORT_H

/*
 * What the report's three parts share: aggregate.c (medians, ratios and
 * their intervals per row), targets.c (the targets and their verdicts) and
 * report.c (the table, CSV and JSON writers).  The figures below are
 * derived from an aggregated row the same way in every format.
 */

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "bench.h"

/* ---- derived figures shared by every format ---- */

static inline double frac(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : NAN;
}

static inline double slow_fraction(const struct bench_agg *a)
{
	if (!a->c.have_cache)
		return NAN;
	return frac((uint64_t)a->c.v[DCSIM_CS_DPUT_LOCKED], (uint64_t)a->c.v[DCSIM_CS_DPUT]);
}

/* dputs finished without d_lock: by lockless cmpxchg or in a transaction */
static inline int64_t fast_hits(const struct bench_agg *a)
{
	return a->c.v[DCSIM_CS_DPUT_CAS] + a->c.v[DCSIM_CS_DPUT_HTM];
}

static inline double commit_rate(const struct bench_agg *a)
{
	return frac(a->st.v[DCSIM_STAT_HTM_COMMITS], a->st.v[DCSIM_STAT_HTM_ATTEMPTS]);
}

static inline uint64_t aborts_by(const struct bench_agg *a, int cause)
{
	return a->st.v[DCSIM_STAT_HTM_ABORT_FIRST + cause];
}

/* @n writes over the cell's ops; NAN for a cell not measured. */
static inline double share_per_op(const struct bench_share *r, uint64_t n)
{
	return r->done && r->ops ? (double)n / (double)r->ops : NAN;
}

/* "rcu" or "ref" for the groups whose ops walk paths (walk, mixed); "" otherwise. */
static inline const char *walk_mode(const struct bench_config *cfg, const char *group)
{
	if (strcmp(group, "walk") && strcmp(group, "mixed"))
		return "";
	return cfg->shape.ref_walk ? "ref" : "rcu";
}

/* ---- targets (targets.c) ---- */

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

#endif /* DCSIM_BENCH_REPORT_H */
