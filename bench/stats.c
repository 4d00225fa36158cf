// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Confidence intervals for the bench figures: percentile bootstrap of the
 * median over repetitions.
 *
 * Why a bootstrap of the median: a repetition is one sample of a cell, and
 * on a shared host the samples are skewed (a descheduled worker, a noisy
 * neighbour make a few repetitions much slower), so neither the mean nor a
 * normal interval fits; the median is what the report states, and
 * resampling the repetitions with replacement gives its sampling spread
 * without assuming a shape.  With n repetitions the interval can only end
 * at sample values, so with 5 repetitions it is close to min..max: few
 * repetitions honestly give wide intervals (--ci-width adds repetitions).
 *
 * The resampling is seeded from the data's position (row, figure), not the
 * clock, so a report is reproducible from its samples.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define BOOT_ROUNDS	1000

static uint64_t boot_rand(uint64_t *s)
{
	/* splitmix64: any seed, including 0, gives a full-period stream */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void swap(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

/*
 * k-th smallest of v[0..n) by quickselect with a three-way partition, O(n)
 * on average; afterwards v[0..k) <= v[k].  Repetitions often tie (equal
 * ratios from equal op counts), which the "equal" band handles.
 */
static double select_kth(double *v, unsigned int n, unsigned int k)
{
	unsigned int lo = 0, hi = n - 1;

	for (;;) {
		double pivot = v[lo + (hi - lo) / 2];
		unsigned int lt = lo, i = lo, gt = hi;

		/* [lo,lt) < pivot, [lt,i) == pivot, (gt,hi] > pivot */
		while (i <= gt) {
			if (v[i] < pivot) {
				swap(&v[lt++], &v[i++]);
			} else if (v[i] > pivot) {
				swap(&v[i], &v[gt]);
				if (gt-- == 0)
					break;
			} else {
				i++;
			}
		}
		if (k < lt)
			hi = lt - 1;
		else if (k > gt)
			lo = gt + 1;
		else
			return pivot;
	}
}

static double median_of(double *v, unsigned int n)
{
	double a = select_kth(v, n, n / 2);

	if (n % 2)
		return a;
	/* the largest of the lower half, now left of n/2 */
	return (a + select_kth(v, n / 2, n / 2 - 1)) / 2;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The 2.5% and 97.5% points of @boot[0..BOOT_ROUNDS) (sorted in place). */
static void percentiles(double *boot, double *lo, double *hi)
{
	qsort(boot, BOOT_ROUNDS, sizeof(*boot), cmp_double);
	*lo = boot[(unsigned int)(0.025 * (BOOT_ROUNDS - 1) + 0.5)];
	*hi = boot[(unsigned int)(0.975 * (BOOT_ROUNDS - 1) + 0.5)];
}

static void resample_median(const double *v, unsigned int n, uint64_t *rng, double *tmp,
			    double *out)
{
	for (unsigned int i = 0; i < n; i++)
		tmp[i] = v[boot_rand(rng) % n];
	*out = median_of(tmp, n);
}

/**
 * bench_median_ci() - median of @v[0..@n) and its 95% bootstrap interval.
 * NAN figures in @v are not samples and are skipped.
 */
void bench_median_ci(const double *v, unsigned int n, uint64_t seed, struct bench_est *e)
{
	double x[BENCH_MAX_REPS], tmp[BENCH_MAX_REPS], boot[BOOT_ROUNDS];
	unsigned int m = 0;
	uint64_t rng = seed;

	for (unsigned int i = 0; i < n && m < BENCH_MAX_REPS; i++)
		if (isfinite(v[i]))
			x[m++] = v[i];
	e->n = m;
	e->med = e->lo = e->hi = NAN;
	if (!m)
		return;
	memcpy(tmp, x, m * sizeof(*x));
	e->med = median_of(tmp, m);
	if (m < 2)
		return;
	for (unsigned int b = 0; b < BOOT_ROUNDS; b++)
		resample_median(x, m, &rng, tmp, &boot[b]);
	percentiles(boot, &e->lo, &e->hi);
}

/**
 * bench_change_ci() - relative change med(@b)/med(@a) - 1 with a 95%
 * interval, resampling the two runs independently (they are different
 * runs, so no pairing exists between their repetitions).
 */
void bench_change_ci(const double *a, unsigned int na, const double *b, unsigned int nb,
		     uint64_t seed, struct bench_est *e)
{
	struct bench_est ea, eb;
	double tmp[BENCH_MAX_REPS], boot[BOOT_ROUNDS];
	uint64_t rng = seed;

	bench_median_ci(a, na, seed, &ea);
	bench_median_ci(b, nb, seed + 1, &eb);
	e->n = ea.n < eb.n ? ea.n : eb.n;
	e->med = e->lo = e->hi = NAN;
	if (!ea.n || !eb.n || !(ea.med > 0))
		return;
	e->med = eb.med / ea.med - 1;
	if (ea.n < 2 || eb.n < 2 || na > BENCH_MAX_REPS || nb > BENCH_MAX_REPS)
		return;
	for (unsigned int r = 0; r < BOOT_ROUNDS; r++) {
		double ma, mb;

		resample_median(a, na, &rng, tmp, &ma);
		resample_median(b, nb, &rng, tmp, &mb);
		boot[r] = ma > 0 ? mb / ma - 1 : NAN;
	}
	percentiles(boot, &e->lo, &e->hi);
}

double bench_est_width(const struct bench_est *e)
{
	if (!isfinite(e->lo) || !isfinite(e->hi) || !(e->med != 0))
		return INFINITY;
	return (e->hi - e->lo) / fabs(e->med);
}

/**
 * bench_verdict() - "ok", "MISS" or "inconclusive" for "@e @op @limit":
 * inconclusive when the interval has points on both sides of the limit.
 * Without an interval (one repetition) the median decides, as before.
 */
const char *bench_verdict(const struct bench_est *e, const char *op, double limit)
{
	bool le = !strcmp(op, "<=") || !strcmp(op, "<");
	bool strict = !strcmp(op, "<");

	if (!isfinite(e->med))
		return "MISS";
	if (strcmp(op, "<=") && strcmp(op, "<") && strcmp(op, ">="))
		return e->med == limit ? "ok" : "MISS";
	if (isfinite(e->lo) && isfinite(e->hi)) {
		if (le)
			return (strict ? e->hi < limit : e->hi <= limit) ? "ok" :
			       (strict ? e->lo >= limit : e->lo > limit) ? "MISS" : "inconclusive";
		return e->lo >= limit ? "ok" : e->hi < limit ? "MISS" : "inconclusive";
	}
	if (le)
		return (strict ? e->med < limit : e->med <= limit) ? "ok" : "MISS";
	return e->med >= limit ? "ok" : "MISS";
}
