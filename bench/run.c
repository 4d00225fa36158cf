// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The measurement of a run: its rows in report order, and the repetitions
 * of each (group, threads) block of cells, with progress on stderr, until
 * the intervals are narrow enough, --max-reps, or the time budget.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dcsim/parse.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

#include "bench.h"

#define PROG "dcsim-bench"

/* Rows in report order: group, then threads, then subject. */
int bench_build_rows(struct bench_config *cfg)
{
	unsigned int n = 0;

	for (unsigned int g = 0; g < cfg->nr_groups; g++)
		n += cfg->groups[g].nr_subjects * cfg->nr_threads;
	cfg->rows = calloc(n, sizeof(*cfg->rows));
	if (!cfg->rows)
		return -ENOMEM;
	cfg->nr_rows = 0;
	for (unsigned int g = 0; g < cfg->nr_groups; g++)
		for (unsigned int ti = 0; ti < cfg->nr_threads; ti++)
			for (unsigned int k = 0; k < cfg->groups[g].nr_subjects; k++) {
				struct bench_row *r = &cfg->rows[cfg->nr_rows++];

				r->group = g;
				r->tidx = ti;
				r->subject = cfg->groups[g].first_subject + k;
				r->samples = calloc(cfg->max_reps, sizeof(*r->samples));
				r->agg = calloc(1, sizeof(*r->agg));
				if (!r->samples || !r->agg)
					return -ENOMEM;
			}
	cfg->near_bounds = calloc((size_t)cfg->nr_groups * cfg->nr_threads * BENCH_NR_NEAR *
				  cfg->max_reps, sizeof(*cfg->near_bounds));
	return cfg->near_bounds ? 0 : -ENOMEM;
}

/* Cells of one repetition of block @g: a workload block also runs two bounds. */
static unsigned int block_cells(const struct bench_config *cfg, unsigned int g)
{
	return cfg->groups[g].nr_subjects + (g ? BENCH_NR_NEAR : 0);
}

static struct bench_row *row_of(struct bench_config *cfg, unsigned int g, unsigned int ti,
				unsigned int s)
{
	for (unsigned int i = 0; i < cfg->nr_rows; i++) {
		struct bench_row *r = &cfg->rows[i];

		if (r->group == g && r->tidx == ti && r->subject == s)
			return r;
	}
	return NULL;
}

static void progress(const struct bench_config *cfg, unsigned long done, unsigned long total,
		     unsigned int rep, const char *group, unsigned int threads, const char *subj,
		     double eta_s)
{
	if (!cfg->progress)
		return;
	fprintf(stderr, "\r\033[K[%3lu%%] rep %u/%u%s  %-6s t=%-3u %-12s  ~%.0fs left",
		total ? done * 100 / total : 100, rep + 1, cfg->ci_width > 0 ? cfg->max_reps : cfg->reps,
		cfg->ci_width > 0 ? " (adaptive)" : "", group, threads, subj, eta_s);
	fflush(stderr);
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * One (group, threads) block of one repetition, its cells rotated by @rep.
 * A workload block's cells are its subjects and the floor and spin bounds:
 * a ratio to a bound then divides by a cell measured seconds, not a whole
 * pass over the groups, away (host speed drifts on that scale).
 */
static int run_block(struct bench_config *cfg, unsigned int rep, unsigned int g, unsigned int ti,
		     unsigned long *done, unsigned long total, double t0, int *failed)
{
	const struct bench_group *grp = &cfg->groups[g];
	unsigned int n = block_cells(cfg, g);

	for (unsigned int k = 0; k < n; k++) {
		unsigned int c = (k + rep) % n, s;
		const struct bench_workload *wl;
		struct bench_sample *out;
		double el = mono_s() - t0;
		int err;

		if (c < grp->nr_subjects) {
			s = grp->first_subject + c;
			wl = grp->wl ? grp->wl : cfg->subjects[s].bound;
			out = &row_of(cfg, g, ti, s)->samples[rep];
		} else {
			c -= grp->nr_subjects;
			s = c == BENCH_NEAR_FLOOR ? BENCH_SUBJ_FLOOR : BENCH_SUBJ_SPIN;
			wl = cfg->subjects[s].bound;
			out = bench_near_bound(cfg, g, ti, c, rep);
		}
		progress(cfg, *done, total, rep, grp->name, cfg->threads[ti], cfg->subjects[s].name,
			 *done ? el * (total - *done) / *done : 0);
		err = bench_run_cell(cfg, wl, &cfg->subjects[s], cfg->threads[ti], out);
		if (err && (*failed)++ < 3)
			fprintf(stderr, "%s" PROG ": %s/%s at %u threads failed: %s%s\n",
				cfg->progress ? "\n" : "", grp->name, cfg->subjects[s].name,
				cfg->threads[ti], strerror(-err),
				*failed == 3 ? " (further failures not shown)" : "");
		(*done)++;
	}
	return 0;
}

/*
 * Adaptive mode: which (group, threads) blocks need another repetition.
 * A block does when one of its ratios (over the baseline, the floor, the
 * spin bound) has a ci95 wider than --ci-width of its median.  A workload
 * block measures its own floor and spin cells (run_block()), so it needs
 * the bounds block only for the bounds' own rows.  Return: ratios still
 * too wide.
 */
static unsigned int blocks_wanted(struct bench_config *cfg, bool *want)
{
	unsigned int wide = 0, checked = 0;

	memset(want, 0, sizeof(bool) * cfg->nr_groups * cfg->nr_threads);
	for (unsigned int i = 0; i < cfg->nr_rows; i++) {
		const struct bench_row *row = &cfg->rows[i];
		const struct bench_est *e[3];
		struct bench_agg a;
		bool more = false;

		bench_aggregate(cfg, row, &a);
		e[0] = &a.r_base;
		e[1] = &a.r_floor;
		e[2] = &a.r_ceil;
		for (int k = 0; k < 3; k++) {
			/* the baseline over itself and a bound over itself are exactly 1 */
			if (!e[k]->n || (e[k]->lo == e[k]->hi && e[k]->med == 1))
				continue;
			checked++;
			if (bench_est_width(e[k]) > cfg->ci_width) {
				wide++;
				more = true;
			}
		}
		if (more)
			want[row->group * cfg->nr_threads + row->tidx] = true;
	}
	cfg->adaptive_ratios = checked;
	return wide;
}

/*
 * The measurement: repetition by repetition, every (group, threads) pair,
 * its subjects in an order rotated by the repetition number, so no subject
 * always runs first after a warm-up or last before a frequency drop.  With
 * --ci-width, repetitions go on past --reps for the blocks whose ratios are
 * still too uncertain, until none is, --max-reps, or the time budget.
 */
int bench_run_all(struct bench_config *cfg)
{
	unsigned int reps_min = cfg->reps;
	unsigned long per_rep = 0, total, done = 0;
	bool want[8 * 32];
	double t0 = mono_s(), rep_s = 0;
	int failed = 0;

	for (unsigned int g = 0; g < cfg->nr_groups; g++)
		per_rep += (unsigned long)block_cells(cfg, g) * cfg->nr_threads;
	total = per_rep * reps_min;
	cfg->adaptive_end = "max reps";
	for (unsigned int i = 0; i < DCSIM_ARRAY_SIZE(want); i++)
		want[i] = true;
	for (unsigned int rep = 0; rep < cfg->max_reps; rep++) {
		double r0 = mono_s();

		if (rep >= reps_min) {
			unsigned long cells = 0;

			cfg->reps = rep;
			cfg->adaptive_wide = blocks_wanted(cfg, want);
			if (!cfg->adaptive_wide) {
				cfg->adaptive_end = "converged";
				break;
			}
			/* do not start a repetition the budget cannot hold */
			if (mono_s() - t0 + rep_s > cfg->time_budget_s) {
				cfg->adaptive_end = "time budget";
				break;
			}
			for (unsigned int g = 0; g < cfg->nr_groups; g++)
				for (unsigned int ti = 0; ti < cfg->nr_threads; ti++)
					if (want[g * cfg->nr_threads + ti])
						cells += block_cells(cfg, g);
			total = done + cells;
		}
		for (unsigned int ti = 0; ti < cfg->nr_threads; ti++)
			for (unsigned int g = 0; g < cfg->nr_groups; g++)
				if (want[g * cfg->nr_threads + ti])
					run_block(cfg, rep, g, ti, &done, total, t0, &failed);
		cfg->reps = rep + 1;
		rep_s = mono_s() - r0;
		if (cfg->ci_width > 0 && rep + 1 == cfg->max_reps) {
			cfg->adaptive_wide = blocks_wanted(cfg, want);
			cfg->adaptive_end = cfg->adaptive_wide ? "max reps" : "converged";
		}
	}
	cfg->run_s = mono_s() - t0;
	if (cfg->progress)
		fprintf(stderr, "\r\033[K");
	return failed ? 1 : 0;
}
