// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * --compare A.json B.json: what changed between two reports, cell by cell.
 *
 * For every cell (group, threads, subject) in both, and for each figure
 * (ns/op, the ratio over the baseline, over the floor, over the spin
 * bound), the change med(B)/med(A) - 1 with a 95% interval from resampling
 * the two reports' per-rep samples independently (stats.c).  "faster" or
 * "slower" only when the interval excludes zero; otherwise "same": the two
 * runs cannot tell the cells apart.  A before/after pair of builds, or one
 * build with TSX on and off (--htm), are the intended uses.
 */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "json.h"

#define PROG "dcsim-bench"

struct report {
	const char *path;
	json_t *doc;
	const json_t *rows;
};

static const char *const figures[] = { "ns_op", "vs_baseline", "x_floor", "x_spin" };
#define NR_FIGURES	4

struct cmp_fig {
	struct bench_est a, b, change;
	const char *verdict;	/* lower, higher, same, - */
	int overlap;		/* the two runs' own intervals overlap: 1, 0, -1 unknown */
};

struct cmp_cell {
	const char *group, *subject;
	unsigned int threads;
	struct cmp_fig fig[NR_FIGURES];
};

static const json_t *find_row(const struct report *r, const char *group,
			      unsigned int threads, const char *subject);

/*
 * Every row names its cell (a group, a subject, an integer thread count in
 * range: 1e300 does not convert to an integer) once, and its samples are
 * figures that can be: a damaged report is an error, never a comparison.
 * Return: 0 or 2 (said).
 */
static int check_rows(const struct report *r)
{
	static const char *const figs[] = { "ops_s", "ns_op" };
	/* More than any run makes (groups x subjects x thread counts). */
	const size_t max_rows = 16 * 64 * 32;
	const char *why = NULL;
	size_t i = 0;

	if (json_array_size(r->rows) > max_rows)
		why = "more rows than any run makes";
	for (; !why && i < json_array_size(r->rows); i++) {
		const json_t *row = json_array_get(r->rows, i), *t = json_object_get(row, "threads");
		const char *g = bj_get_str(row, "group"), *s = bj_get_str(row, "subject");

		if (!g || !s || !json_is_integer(t) || json_integer_value(t) < 1 ||
		    json_integer_value(t) > BENCH_MAX_THREADS) {
			why = "lacks its group, subject or a thread count in 1..128";
			break;
		}
		if (find_row(r, g, (unsigned int)json_integer_value(t), s) != row) {
			why = "repeats the cell of an earlier row";
			break;
		}
		for (int k = 0; k < 2 && !why; k++) {
			const json_t *a = json_object_get(json_object_get(row, "samples"), figs[k]);

			for (size_t j = 0; j < json_array_size(a); j++) {
				const json_t *v = json_array_get(a, j);

				if (!json_is_null(v) && !(json_is_number(v) && bj_num(v) >= 0 &&
							  bj_num(v) <= 1e15)) {
					why = "has a sample that is not a figure >= 0";
					break;
				}
			}
		}
	}
	if (!why)
		return 0;
	fprintf(stderr, PROG ": --compare: '%s': rows[%zu] %s\n", r->path, i, why);
	return 2;
}

static int load(struct report *r, const char *path)
{
	const json_t *first;

	r->path = path;
	r->doc = bench_json_load(path, "--compare");
	if (!r->doc)
		return 2;
	r->rows = json_object_get(r->doc, "rows");
	if (!bj_get_str(r->doc, "tool") || strcmp(bj_get_str(r->doc, "tool"), "dcsim-bench") ||
	    !json_is_array(r->rows)) {
		fprintf(stderr, PROG ": --compare: '%s' is not a dcsim-bench JSON report "
			"(--format json)\n", path);
		return 2;
	}
	first = json_array_get(r->rows, 0);
	if (first && !json_object_get(first, "samples")) {
		fprintf(stderr, PROG ": --compare: '%s' has no per-rep samples (an older "
			"dcsim-bench wrote it); rerun with this one\n", path);
		return 2;
	}
	return check_rows(r);
}

static unsigned int samples_of(const json_t *row, const char *fig, double *v)
{
	const json_t *a = json_object_get(json_object_get(row, "samples"), fig);
	unsigned int n = 0;

	for (size_t i = 0; i < json_array_size(a) && n < BENCH_MAX_REPS; i++)
		if (isfinite(bj_num(json_array_get(a, i))))
			v[n++] = bj_num(json_array_get(a, i));
	return n;
}

static const json_t *find_row(const struct report *r, const char *group,
			      unsigned int threads, const char *subject)
{
	for (size_t i = 0; i < json_array_size(r->rows); i++) {
		const json_t *row = json_array_get(r->rows, i);
		const char *g = bj_get_str(row, "group");
		const char *s = bj_get_str(row, "subject");

		if (g && s && !strcmp(g, group) && !strcmp(s, subject) &&
		    bj_get_num(row, "threads") == threads)
			return row;
	}
	return NULL;
}

static void compare_cell(const json_t *ra, const json_t *rb, uint64_t seed,
			 struct cmp_cell *c)
{
	for (int k = 0; k < NR_FIGURES; k++) {
		double a[BENCH_MAX_REPS], b[BENCH_MAX_REPS];
		unsigned int na = samples_of(ra, figures[k], a);
		unsigned int nb = samples_of(rb, figures[k], b);
		struct cmp_fig *f = &c->fig[k];

		bench_median_ci(a, na, &f->a);
		bench_median_ci(b, nb, &f->b);
		bench_change_ci(a, na, b, nb, seed + 4 * k + 2, &f->change);
		f->overlap = -1;
		if (isfinite(f->a.lo) && isfinite(f->b.lo))
			f->overlap = !(f->a.hi < f->b.lo || f->b.hi < f->a.lo);
		if (!isfinite(f->change.lo) || !isfinite(f->change.hi))
			f->verdict = "-";
		else if (f->change.lo > 0)
			f->verdict = "higher";
		else if (f->change.hi < 0)
			f->verdict = "lower";
		else
			f->verdict = "same";
	}
}

static const char *meta(const struct report *r, const char *obj, const char *key)
{
	const char *s = bj_get_str(obj ? json_object_get(r->doc, obj) : r->doc, key);

	return s ? s : "?";
}

static bool meta_bool(const struct report *r, const char *obj, const char *key)
{
	return json_is_true(json_object_get(json_object_get(r->doc, obj), key));
}

static void fmt_change(char *buf, size_t len, const struct cmp_fig *f)
{
	if (!isfinite(f->change.med))
		snprintf(buf, len, "-");
	else if (!isfinite(f->change.lo))
		snprintf(buf, len, "%+.1f%%", 100 * f->change.med);
	else
		snprintf(buf, len, "%+.1f%% [%+.1f,%+.1f] %s", 100 * f->change.med,
			 100 * f->change.lo, 100 * f->change.hi, f->verdict);
}

/*
 * The reproducibility check.  Two runs of one build on a quiet host should
 * give overlapping intervals for the ratios, but not for every one of
 * them: even when every repetition of both runs is an independent draw of
 * one distribution, two 95% intervals miss each other with a probability
 * of their own (0.8% for 5 repetitions each; bench_apart_by_chance()), so
 * a few hundred ratios show a few apart by chance alone.  The check
 * therefore states that expectation and how likely the count seen is
 * under it; a count far above it means the runs really differ (drift,
 * load, a change).  Ratios of one report share its baseline cells, so
 * they are not independent and the tail is a guide, not a test.
 */
struct overlap_sum {
	unsigned int both, apart;
	double expected, p_tail;	/* mean and P(>= apart) of the chance count */
};

static void overlap_summary(const struct cmp_cell *c, unsigned int n, struct overlap_sum *o,
			    FILE *list)
{
	/* the chance count's distribution (Poisson binomial), by convolution */
	double *dist = calloc((size_t)n * (NR_FIGURES - 1) + 1, sizeof(*dist));

	*o = (struct overlap_sum){ 0 };
	if (dist)
		dist[0] = 1;
	for (unsigned int i = 0; i < n; i++)
		for (int k = 1; k < NR_FIGURES; k++) {
			const struct cmp_fig *g = &c[i].fig[k];
			double p;

			/* a ratio of a subject over itself is 1 in both */
			if (g->overlap < 0 || (g->a.lo == g->a.hi && g->b.lo == g->b.hi))
				continue;
			p = bench_apart_by_chance(g->a.n, g->b.n);
			if (!isfinite(p))
				p = 0;
			o->expected += p;
			if (dist) {
				for (unsigned int m = o->both + 1; m > 0; m--)
					dist[m] = dist[m] * (1 - p) + dist[m - 1] * p;
				dist[0] *= 1 - p;
			}
			o->both++;
			if (g->overlap)
				continue;
			if (list && !o->apart)
				fputs("ratios whose A and B intervals do not overlap:", list);
			if (list)
				fprintf(list, " %s/%u/%s:%s", c[i].group, c[i].threads, c[i].subject,
					figures[k]);
			o->apart++;
		}
	o->p_tail = NAN;
	if (dist) {
		o->p_tail = 0;
		for (unsigned int m = o->apart; m <= o->both; m++)
			o->p_tail += dist[m];
		if (o->p_tail > 1)
			o->p_tail = 1;
	}
	free(dist);
}

static void print_table(const struct report *a, const struct report *b, struct cmp_cell *c,
			unsigned int n, unsigned int only_a, unsigned int only_b, FILE *f)
{
	const struct report *r[2] = { a, b };
	unsigned int counts[3] = { 0 };

	for (int i = 0; i < 2; i++) {
		fprintf(f, "%c: %s\n   %s, %s; HTM %s; baseline %s%s\n   %s\n", 'A' + i, r[i]->path,
			meta(r[i], "host", "cpu"), meta(r[i], NULL, "date"),
			meta_bool(r[i], "host", "htm_live") ? "LIVE" : "not live",
			meta(r[i], "config", "baseline"),
			meta_bool(r[i], "host", "busy") ? "; host was BUSY" : "",
			meta(r[i], NULL, "command"));
	}
	if (strcmp(meta(a, "config", "baseline"), meta(b, "config", "baseline")))
		fputs("note: the baselines differ, so the x changes compare different ratios\n", f);
	fprintf(f, "\nchange = med(B)/med(A) - 1 with its 95%% interval; lower/higher only when "
		"the interval excludes 0\n");
	fprintf(f, "%-6s %3s %-12s %-32s %-32s %-32s\n", "group", "thr", "subject",
		"ns/op change", "x (over baseline) change", "xfloor change");
	for (unsigned int i = 0; i < n; i++) {
		char s0[64], s1[64], s2[64];

		fmt_change(s0, sizeof(s0), &c[i].fig[0]);
		fmt_change(s1, sizeof(s1), &c[i].fig[1]);
		fmt_change(s2, sizeof(s2), &c[i].fig[2]);
		fprintf(f, "%-6s %3u %-12s %-32s %-32s %-32s\n", c[i].group, c[i].threads,
			c[i].subject, s0, s1, s2);
		if (!strcmp(c[i].fig[0].verdict, "lower"))
			counts[0]++;
		else if (!strcmp(c[i].fig[0].verdict, "higher"))
			counts[1]++;
		else
			counts[2]++;
	}
	fprintf(f, "\n%u cells: ns/op lower in %u, higher in %u, no difference shown in %u",
		n, counts[0], counts[1], counts[2]);
	if (only_a || only_b)
		fprintf(f, "; %u cell(s) only in A, %u only in B (not compared)", only_a, only_b);
	fputc('\n', f);
	{
		struct overlap_sum o;

		overlap_summary(c, n, &o, f);
		fprintf(f, "%sintervals overlap for %u of %u ratios (x, xfloor, xspin)\n",
			o.apart ? "\n" : "", o.both - o.apart, o.both);
		if (o.both)
			fprintf(f, "by chance alone (two runs of one setup, repetitions independent): "
				"%.1f apart expected; P(%u or more apart) = %.2f, taking the ratios "
				"as independent\n", o.expected, o.apart, o.p_tail);
	}
}

static void print_csv(struct cmp_cell *c, unsigned int n, FILE *f)
{
	fputs("group,threads,subject,figure,a,a_ci95_lo,a_ci95_hi,b,b_ci95_lo,b_ci95_hi,"
	      "change,change_ci95_lo,change_ci95_hi,verdict\n", f);
	for (unsigned int i = 0; i < n; i++)
		for (int k = 0; k < NR_FIGURES; k++) {
			const struct cmp_fig *g = &c[i].fig[k];
			const double v[9] = { g->a.med, g->a.lo, g->a.hi, g->b.med, g->b.lo, g->b.hi,
					      g->change.med, g->change.lo, g->change.hi };

			fprintf(f, "%s,%u,%s,%s", c[i].group, c[i].threads, c[i].subject, figures[k]);
			for (int j = 0; j < 9; j++)
				if (isfinite(v[j]))
					fprintf(f, ",%.6g", v[j]);
				else
					fputc(',', f);
			fprintf(f, ",%s\n", g->verdict);
		}
}

static json_t *jest(const struct bench_est *e)
{
	return json_pack("{s:o, s:o, s:o}", "value", bj_real(e->med), "ci95_lo", bj_real(e->lo),
			 "ci95_hi", bj_real(e->hi));
}

static json_t *side(const struct report *r)
{
	return json_pack("{s:o, s:o, s:b}", "path", bj_str(r->path),
			 "date", bj_str(meta(r, NULL, "date")),
			 "htm_live", meta_bool(r, "host", "htm_live"));
}

static int print_json(const struct report *a, const struct report *b, struct cmp_cell *c,
		      unsigned int n, FILE *f)
{
	json_t *doc = json_pack("{s:s, s:s, s:o, s:o}", "tool", "dcsim-bench", "mode", "compare",
				"a", side(a), "b", side(b));
	json_t *cells = json_array();
	struct overlap_sum o;
	int err;

	for (unsigned int i = 0; i < n; i++) {
		json_t *cell = json_pack("{s:o, s:i, s:o}", "group", bj_str(c[i].group),
					 "threads", (int)c[i].threads,
					 "subject", bj_str(c[i].subject));

		for (int k = 0; k < NR_FIGURES; k++) {
			const struct cmp_fig *g = &c[i].fig[k];

			json_object_set_new(cell, figures[k], json_pack("{s:o, s:o, s:o, s:s, s:o}",
				"a", jest(&g->a), "b", jest(&g->b), "change", jest(&g->change),
				"verdict", g->verdict,
				"overlap", g->overlap < 0 ? json_null() : json_boolean(g->overlap)));
		}
		json_array_append_new(cells, cell);
	}
	overlap_summary(c, n, &o, NULL);
	json_object_set_new(doc, "cells", cells);
	json_object_set_new(doc, "overlap", json_pack("{s:i, s:i, s:o, s:o}",
		"ratios", (int)o.both, "apart", (int)o.apart,
		"expected_apart", bj_real(o.expected), "p_apart_or_more", bj_real(o.p_tail)));
	err = bench_json_dump(doc, f);
	json_decref(doc);
	return err ? 1 : 0;
}

int bench_compare(const char *pa, const char *pb, enum bench_format fmt, const char *plot,
		  FILE *out)
{
	struct report a = { 0 }, b = { 0 };
	struct cmp_cell *cells = NULL;
	unsigned int n = 0, only_a = 0, only_b = 0;
	int err;

	err = load(&a, pa);
	if (!err)
		err = load(&b, pb);
	if (err)
		goto out;
	cells = calloc(json_array_size(b.rows) + 1, sizeof(*cells));
	if (!cells) {
		err = 1;
		goto out;
	}
	for (unsigned int i = 0; i < json_array_size(b.rows); i++) {
		const json_t *rb = json_array_get(b.rows, i), *ra;
		const char *g = bj_get_str(rb, "group");
		const char *s = bj_get_str(rb, "subject");
		/* check_rows(): an integer in 1..BENCH_MAX_THREADS. */
		double t = bj_get_num(rb, "threads");

		if (!g || !s || !(t >= 1)) {
			fprintf(stderr, PROG ": --compare: '%s': row %u lacks group/threads/subject\n",
				pb, i);
			err = 2;
			goto out;
		}
		ra = find_row(&a, g, (unsigned int)t, s);
		if (!ra) {
			only_b++;
			continue;
		}
		cells[n] = (struct cmp_cell){ .group = g, .subject = s, .threads = (unsigned int)t };
		compare_cell(ra, rb, 0x5eed0000ull + i * 64, &cells[n]);
		n++;
	}
	only_a = json_array_size(a.rows) > n ? (unsigned int)json_array_size(a.rows) - n : 0;
	if (!n) {
		fprintf(stderr, PROG ": --compare: '%s' and '%s' have no cell in common\n", pa, pb);
		err = 2;
		goto out;
	}
	switch (fmt) {
	case BENCH_FMT_CSV:
		print_csv(cells, n, out);
		break;
	case BENCH_FMT_JSON:
		err = print_json(&a, &b, cells, n, out);
		break;
	default:
		print_table(&a, &b, cells, n, only_a, only_b, out);
		break;
	}
	if (plot) {
		struct bench_plot_cell *pc = calloc(n, sizeof(*pc));

		if (!pc) {
			err = 1;
			goto out;
		}
		for (unsigned int i = 0; i < n; i++)
			pc[i] = (struct bench_plot_cell){ cells[i].group, cells[i].subject,
				cells[i].threads, cells[i].fig[1].a, cells[i].fig[1].b };
		if (bench_plot_compare(plot, pa, pb, meta(&a, "config", "baseline"), pc, n))
			err = 1;
		free(pc);
	}
out:
	free(cells);
	json_decref(a.doc);
	json_decref(b.doc);
	return err;
}
