/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_BENCH_FIGURES_H
#define DCSIM_BENCH_FIGURES_H

/*
 * The figures derived from an aggregated row (aggregate.c), the same way
 * in every format and in the targets: targets.c judges them, report.c
 * writes them as a table, CSV and JSON.
 */

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "bench.h"

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

#endif /* DCSIM_BENCH_FIGURES_H */
