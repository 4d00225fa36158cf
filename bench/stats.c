// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Confidence intervals for the bench figures.
 *
 * A cell's figure (ns/op, or a ratio formed within one repetition) gets
 * the distribution-free interval for a median: the order statistics
 * x(k) and x(n+1-k), k the largest rank with P(Bin(n, 1/2) < k) <= 2.5%.
 * If the repetitions are independent draws of one distribution, the true
 * median lies inside with probability 1 - 2 P(Bin(n, 1/2) < k): at least
 * 95% from 6 repetitions on; below 6 no rank does, and the interval is
 * min..max (93.75% with 5, 87.5% with 4).
 *
 * Why not a normal interval: on a shared host the samples are skewed (a
 * descheduled worker, a noisy neighbour make a few repetitions much
 * slower).  Why no longer the percentile bootstrap of the median: with few
 * samples it snaps to order statistics too, but to the wrong ones for
 * some n (about 87% coverage with 7 repetitions, measured), which the
 * adaptive mode reaches.
 *
 * The change between two runs (--compare) is a ratio of two medians from
 * independent sample sets; it keeps the percentile bootstrap, seeded from
 * the data's position so that a comparison is reproducible.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define BOOT_ROUNDS	1000

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
		tmp[i] = v[splitmix64_below(rng, n)];
	*out = median_of(tmp, n);
}

/* P(Bin(n, 1/2) <= k). */
static double binom_half_cdf(unsigned int n, unsigned int k)
{
	double term = ldexp(1.0, -(int)n), sum = 0;	/* C(n,0) / 2^n */

	for (unsigned int i = 0; i <= k && i <= n; i++) {
		sum += term;
		term = term * (n - i) / (i + 1);
	}
	return sum;
}

/**
 * bench_median_rank() - rank k (from 1) of the lower end of the 95%
 * interval of a median of @n samples; the upper end is rank n + 1 - k.
 */
unsigned int bench_median_rank(unsigned int n)
{
	unsigned int k = 1;

	while (k < n / 2 && binom_half_cdf(n, k) <= 0.025)	/* P(Bin < k + 1) */
		k++;
	return k;
}

/** bench_median_coverage() - the interval's coverage for @n samples. */
double bench_median_coverage(unsigned int n)
{
	return n < 2 ? 0 : 1 - 2 * binom_half_cdf(n, bench_median_rank(n) - 1);
}

/**
 * bench_median_ci() - median of @v[0..@n) and its distribution-free 95%
 * interval (see the top of this file).  NAN figures in @v are not samples
 * and are skipped.
 */
void bench_median_ci(const double *v, unsigned int n, struct bench_est *e)
{
	double x[BENCH_MAX_REPS];
	unsigned int m = 0, k;

	for (unsigned int i = 0; i < n && m < BENCH_MAX_REPS; i++)
		if (isfinite(v[i]))
			x[m++] = v[i];
	e->n = m;
	e->med = e->lo = e->hi = NAN;
	if (!m)
		return;
	qsort(x, m, sizeof(*x), cmp_double);
	e->med = m % 2 ? x[m / 2] : (x[m / 2 - 1] + x[m / 2]) / 2;
	if (m < 2)
		return;
	k = bench_median_rank(m);
	e->lo = x[k - 1];
	e->hi = x[m - k];
}

/* C(n, k) as a double: exact for the sizes used here. */
static double choose(unsigned int n, unsigned int k)
{
	double c = 1;

	if (k > n)
		return 0;
	for (unsigned int i = 1; i <= k; i++)
		c = c * (n - k + i) / i;
	return c;
}

/*
 * P(the lower end of A's interval lies above the upper end of B's), A and
 * B exchangeable: over the C(na+nb, na) equally likely orders of the
 * pooled samples, count those with at least u = nb+1-kb of B's samples
 * before A's ka-th.  With j of them before it: C(ka-1+j, j) orders of what
 * precedes, C(na-ka + nb-j, nb-j) of what follows.
 */
static double above(unsigned int na, unsigned int nb)
{
	unsigned int ka = bench_median_rank(na), u = nb + 1 - bench_median_rank(nb);
	double ways = 0;

	for (unsigned int j = u; j <= nb; j++)
		ways += choose(ka - 1 + j, j) * choose(na - ka + nb - j, nb - j);
	return ways / choose(na + nb, na);
}

/**
 * bench_apart_by_chance() - the probability that the intervals of two
 * runs of @na and @nb repetitions do not overlap although every
 * repetition of both is an independent draw of the same distribution:
 * the non-overlaps a comparison of two identical setups shows by chance
 * alone.  2/252 = 0.8% for 5 and 5.
 */
double bench_apart_by_chance(unsigned int na, unsigned int nb)
{
	if (na < 2 || nb < 2 || na > BENCH_MAX_REPS || nb > BENCH_MAX_REPS)
		return NAN;
	return above(na, nb) + above(nb, na);
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

	bench_median_ci(a, na, &ea);
	bench_median_ci(b, nb, &eb);
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
