// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Aggregation: a row's repetitions into medians with their 95% intervals.
 *
 * Spread is min/median/max over repetitions.  Ratios (against the baseline
 * strategy and against the floor and spin bounds) are formed repetition by
 * repetition, between samples measured seconds apart in the same rotation,
 * and the median of those per-repetition ratios is reported: drift of the
 * machine between repetitions then cancels instead of leaking into the
 * comparison.  Every median carries a 95% bootstrap interval over the
 * repetitions (stats.c): ns/op, throughput and the three ratios.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of @n values (sorted in place); NAN for none. */
static double median(double *v, unsigned int n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Both figures are derived once, when the cell ends (or read back by --from). */
double bench_sample_ops_s(const struct bench_sample *s)
{
	return s->ops_s;
}

double bench_sample_ns_op(const struct bench_sample *s)
{
	return s->ns_op;
}

int bench_find_row(const struct bench_config *cfg, const char *group,
		   unsigned int nthreads, const char *subject)
{
	for (unsigned int i = 0; i < cfg->nr_rows; i++) {
		const struct bench_row *r = &cfg->rows[i];

		if (cfg->threads[r->tidx] == nthreads &&
		    !strcmp(cfg->groups[r->group].name, group) &&
		    !strcmp(cfg->subjects[r->subject].name, subject))
			return (int)i;
	}
	return -1;
}

/* The floor (@which BENCH_NEAR_FLOOR) or spin bound of block (@group, @tidx). */
struct bench_sample *bench_near_bound(const struct bench_config *cfg, unsigned int group,
				      unsigned int tidx, unsigned int which, unsigned int rep)
{
	size_t i = ((size_t)group * cfg->nr_threads + tidx) * BENCH_NR_NEAR + which;

	return &cfg->near_bounds[i * cfg->max_reps + rep];
}

/*
 * f(row)/f(other) repetition by repetition, where both were measured in
 * the same repetition: @ns picks ns/op (CPU time), else throughput.  A
 * workload row over the floor or spin bound takes the bound's cell from
 * its own block.
 */
unsigned int bench_ratio_samples(const struct bench_config *cfg, const struct bench_row *row,
				 int other, bool ns, double *v)
{
	double (*f)(const struct bench_sample *) = ns ? bench_sample_ns_op : bench_sample_ops_s;
	unsigned int n = 0;

	int near = -1;

	if (other < 0)
		return 0;
	if (cfg->near_bounds && row->group && !cfg->rows[other].group)
		near = cfg->rows[other].subject == BENCH_SUBJ_FLOOR ? BENCH_NEAR_FLOOR :
		       cfg->rows[other].subject == BENCH_SUBJ_SPIN ? BENCH_NEAR_SPIN : -1;
	for (unsigned int r = 0; r < cfg->reps; r++) {
		const struct bench_sample *a = &row->samples[r];
		const struct bench_sample *b = near < 0 ? &cfg->rows[other].samples[r] :
			bench_near_bound(cfg, row->group, row->tidx, (unsigned int)near, r);
		double x, y;

		if (!a->done || !b->done)
			continue;
		x = f(a);
		y = f(b);
		if (isfinite(x) && isfinite(y) && y > 0)
			v[n++] = x / y;
	}
	return n;
}

static void ratio_est(const struct bench_config *cfg, const struct bench_row *row, int other,
		      bool ns, struct bench_est *e)
{
	double v[BENCH_MAX_REPS];

	bench_median_ci(v, bench_ratio_samples(cfg, row, other, ns, v), e);
}

static void aggregate(const struct bench_config *cfg, const struct bench_row *row,
		      struct bench_agg *agg)
{
	double ops_s[BENCH_MAX_REPS] = { 0 }, ns_op[BENCH_MAX_REPS] = { 0 };
	unsigned int nthreads = cfg->threads[row->tidx];
	const struct bench_subject *subj = &cfg->subjects[row->subject];
	unsigned int n = 0;

	memset(agg, 0, sizeof(*agg));
	for (unsigned int r = 0; r < cfg->reps; r++) {
		const struct bench_sample *s = &row->samples[r];

		if (!s->done)
			continue;
		ops_s[n] = bench_sample_ops_s(s);
		ns_op[n] = bench_sample_ns_op(s);
		n++;
		agg->ops += s->ops;
		for (unsigned int i = 0; i < DCSIM_CS_NR; i++)
			agg->c.v[i] += s->c.v[i];
		agg->c.have_cache |= s->c.have_cache;
		for (unsigned int i = 0; i < DCSIM_STAT_NR; i++)
			agg->st.v[i] += s->st.v[i];
		for (unsigned int i = 0; i < DCSIM_ARRAY_SIZE(s->st.htm_explicit_code); i++)
			agg->st.htm_explicit_code[i] += s->st.htm_explicit_code[i];
	}
	agg->n = n;
	agg->computed_reps = cfg->reps;
	bench_median_ci(ops_s, n, &agg->ops_s);
	bench_median_ci(ns_op, n, &agg->ns_op);
	agg->ops_s_med = median(ops_s, n);
	agg->ops_s_min = n ? ops_s[0] : NAN;
	agg->ops_s_max = n ? ops_s[n - 1] : NAN;
	agg->ops_s_thr_med = agg->ops_s_med / nthreads;
	agg->ns_op_med = median(ns_op, n);
	agg->ns_op_min = n ? ns_op[0] : NAN;
	agg->ns_op_max = n ? ns_op[n - 1] : NAN;

	agg->r_base = (struct bench_est){ NAN, NAN, NAN, 0 };
	if (subj->kind == BENCH_STRATEGY)
		ratio_est(cfg, row, bench_find_row(cfg, cfg->groups[row->group].name, nthreads,
						   cfg->subjects[cfg->baseline].name),
			  false, &agg->r_base);
	ratio_est(cfg, row, bench_find_row(cfg, "bounds", nthreads, "floor"), true,
		  &agg->r_floor);
	ratio_est(cfg, row, bench_find_row(cfg, "bounds", nthreads, "spin"), true,
		  &agg->r_ceil);
	agg->ratio_base = agg->r_base.med;
	agg->x_floor = agg->r_floor.med;
	agg->x_ceil = agg->r_ceil.med;
}

/*
 * The aggregate of @row, computed once per repetition count: the bootstrap
 * is not free, and every format, the targets and the plot ask for it.  The
 * cache is the row's own (row->agg), so a const row stays unchanged in
 * everything but this memo.
 */
void bench_aggregate(const struct bench_config *cfg, const struct bench_row *row,
		     struct bench_agg *agg)
{
	if (row->agg && row->agg->computed_reps == cfg->reps && row->agg->n) {
		*agg = *row->agg;
		return;
	}
	aggregate(cfg, row, agg);
	if (row->agg)
		*row->agg = *agg;
}
