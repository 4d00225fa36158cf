// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * --plot FILE.png: one row of two panels per workload.
 *
 *   left:  throughput (median Mops/s, min..max error bars) against threads,
 *          one line per strategy; on `hot` the floor and spin bounds are
 *          drawn dashed, since one hot op is one get+put like theirs.
 *   middle: share of dputs that took d_lock per strategy and thread count,
 *          log scale so that 0.1% and 100% are both readable, with the 1%
 *          target drawn across.  Zero is drawn at the bottom of the axis.
 *   right: throughput over the baseline strategy, the median of per-rep
 *          ratios with its 95% interval as error bars.
 *
 * --compare A B --plot FILE.png draws, per workload, every cell's ratio over
 * the baseline in A and in B side by side, with their intervals.
 *
 * The data and the script go to a private temporary directory and gnuplot
 * (gnuplot-nox is enough: pngcairo) renders them.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "outfile.h"

#define SLOW_MIN 0.001	/* percent: where 0 is drawn on the log axis */

static void gp_str(FILE *f, const char *s)
{
	/* gnuplot single-quoted string: '' is a literal quote */
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

static int write_throughput(const struct bench_config *cfg, unsigned int g, const char *path,
			    unsigned int *subj, unsigned int *nsubj)
{
	FILE *f = fopen(path, "w");
	const struct bench_group *grp = &cfg->groups[g];

	if (!f)
		return -errno;
	*nsubj = 0;
	/* strategies, then (on hot) the two bounds: one gnuplot index each */
	for (unsigned int k = 0; k < grp->nr_subjects + 2; k++) {
		unsigned int s;
		const char *gname = grp->name;

		if (k < grp->nr_subjects) {
			s = grp->first_subject + k;
		} else {
			if (strcmp(grp->name, "hot"))
				break;
			s = k - grp->nr_subjects;	/* floor, spin */
			gname = "bounds";
		}
		fprintf(f, "# %s\n", cfg->subjects[s].name);
		for (unsigned int ti = 0; ti < cfg->nr_threads; ti++) {
			int r = bench_find_row(cfg, gname, cfg->threads[ti], cfg->subjects[s].name);
			struct bench_agg a;

			if (r < 0)
				continue;
			bench_aggregate(cfg, &cfg->rows[r], &a);
			if (!isfinite(a.ops_s_med))
				continue;
			fprintf(f, "%u %.6g %.6g %.6g\n", cfg->threads[ti], a.ops_s_med / 1e6,
				a.ops_s_min / 1e6, a.ops_s_max / 1e6);
		}
		fputs("\n\n", f);
		subj[(*nsubj)++] = s;
	}
	return fclose(f) ? -errno : 0;
}

/* Ratio over the baseline with its ci95, per strategy: "threads med lo hi". */
static int write_ratio(const struct bench_config *cfg, unsigned int g, const char *path)
{
	FILE *f = fopen(path, "w");
	const struct bench_group *grp = &cfg->groups[g];

	if (!f)
		return -errno;
	for (unsigned int k = 0; k < grp->nr_subjects; k++) {
		unsigned int s = grp->first_subject + k;

		fprintf(f, "# %s\n", cfg->subjects[s].name);
		for (unsigned int ti = 0; ti < cfg->nr_threads; ti++) {
			int r = bench_find_row(cfg, grp->name, cfg->threads[ti], cfg->subjects[s].name);
			struct bench_agg a;

			if (r < 0)
				continue;
			bench_aggregate(cfg, &cfg->rows[r], &a);
			if (!isfinite(a.r_base.med))
				continue;
			/* one rep: no interval, the bar collapses onto the point */
			fprintf(f, "%u %.6g %.6g %.6g\n", cfg->threads[ti], a.r_base.med,
				isfinite(a.r_base.lo) ? a.r_base.lo : a.r_base.med,
				isfinite(a.r_base.hi) ? a.r_base.hi : a.r_base.med);
		}
		fputs("\n\n", f);
	}
	return fclose(f) ? -errno : 0;
}

static int write_slow(const struct bench_config *cfg, unsigned int g, const char *path)
{
	FILE *f = fopen(path, "w");
	const struct bench_group *grp = &cfg->groups[g];

	if (!f)
		return -errno;
	for (unsigned int k = 0; k < grp->nr_subjects; k++) {
		unsigned int s = grp->first_subject + k;

		fprintf(f, "%s", cfg->subjects[s].name);
		for (unsigned int ti = 0; ti < cfg->nr_threads; ti++) {
			int r = bench_find_row(cfg, grp->name, cfg->threads[ti], cfg->subjects[s].name);
			struct bench_agg a;
			double pct = NAN;

			if (r >= 0) {
				bench_aggregate(cfg, &cfg->rows[r], &a);
				if (a.c.v[DCSIM_CS_DPUT] > 0)
					pct = 100.0 * a.c.v[DCSIM_CS_DPUT_LOCKED] /
					      a.c.v[DCSIM_CS_DPUT];
			}
			if (isfinite(pct))
				fprintf(f, " %.6g", pct < SLOW_MIN ? SLOW_MIN : pct);
			else
				fputs(" NaN", f);
		}
		fputc('\n', f);
	}
	return fclose(f) ? -errno : 0;
}

static int plot_to(const struct bench_config *cfg, const struct bench_host *host, const char *png)
{
	char dir[] = "/tmp/dcsim-bench-plot.XXXXXX", path[512], script[512];
	unsigned int nwl = 0, subj[32], nsubj = 0;
	FILE *f;
	int err = 0, st;
	pid_t pid;

	for (unsigned int g = 0; g < cfg->nr_groups; g++)
		nwl += cfg->groups[g].wl != NULL;
	if (!nwl) {
		fprintf(stderr, "dcsim-bench: --plot: no workload was run, nothing to draw\n");
		return -EINVAL;
	}
	if (!mkdtemp(dir)) {
		fprintf(stderr, "dcsim-bench: --plot: mkdtemp: %s\n", strerror(errno));
		return -errno;
	}
	snprintf(script, sizeof(script), "%s/plot.gp", dir);
	f = fopen(script, "w");
	if (!f) {
		err = -errno;
		goto out;
	}
	/* noenhanced: "d_lock" must not become d subscript lock */
	fprintf(f, "set terminal pngcairo noenhanced size 1700,%u font 'sans,8'\nset output ",
		90 + 270 * nwl);
	gp_str(f, png);
	fputs("\nset encoding utf8\nset multiplot layout ", f);
	fprintf(f, "%u,3 title ", nwl);
	{
		char title[384];

		snprintf(title, sizeof(title),
			 "dcsim-bench: %s, %u CPUs, HTM %s (%s); %u rep(s), median with min..max",
			 host->cpu, host->online_cpus, host->htm_live ? "LIVE" : "not live",
			 host->htm_backend, cfg->reps);
		gp_str(f, title);
	}
	fputs(" font 'sans,11'\nset grid ytics\nset key outside right top font 'sans,8'\n", f);
	fputs("set xtics (", f);
	for (unsigned int ti = 0; ti < cfg->nr_threads; ti++)
		fprintf(f, "%s%u", ti ? ", " : "", cfg->threads[ti]);
	fputs(")\n", f);

	for (unsigned int g = 0; g < cfg->nr_groups; g++) {
		const struct bench_group *grp = &cfg->groups[g];
		unsigned int tmin = UINT32_MAX, tmax = 0;

		if (!grp->wl)
			continue;
		for (unsigned int ti = 0; ti < cfg->nr_threads; ti++) {
			tmin = cfg->threads[ti] < tmin ? cfg->threads[ti] : tmin;
			tmax = cfg->threads[ti] > tmax ? cfg->threads[ti] : tmax;
		}
		snprintf(path, sizeof(path), "%s/tp-%u.dat", dir, g);
		err = write_throughput(cfg, g, path, subj, &nsubj);
		if (err)
			goto out_close;
		fputs("unset logscale y\nset style data linespoints\nset yrange [0:*]\n", f);
		fprintf(f, "set xrange [%g:%g]\n", tmin - 0.3, tmax + 0.3);
		fprintf(f, "set title '%s: throughput' font 'sans,10'\n", grp->name);
		fputs("set xlabel 'threads'\nset ylabel 'Mops/s (total)'\nplot ", f);
		for (unsigned int k = 0; k < nsubj; k++) {
			bool bound = cfg->subjects[subj[k]].kind == BENCH_BOUND;

			fprintf(f, "%s", k ? ", \\\n     " : "");
			gp_str(f, path);
			fprintf(f, " index %u using 1:2:3:4 with yerrorlines lw 2 %s title ", k,
				bound ? "dt 2 lc rgb 'gray40'" : "");
			gp_str(f, bound ? (!strcmp(cfg->subjects[subj[k]].name, "floor") ?
					   "floor (atomic add+sub)" : "spin (lock-update-unlock)") :
			       cfg->subjects[subj[k]].name);
		}
		fputs("\n", f);

		snprintf(path, sizeof(path), "%s/slow-%u.dat", dir, g);
		err = write_slow(cfg, g, path);
		if (err)
			goto out_close;
		fprintf(f, "set title '%s: share of dputs that took d_lock' font 'sans,10'\n",
			grp->name);
		fputs("set xrange [*:*]\nset logscale y\n", f);
		fprintf(f, "set yrange [%g:200]\n", SLOW_MIN);
		fputs("set ylabel '% of dputs (log; 0 drawn at bottom)'\nset xlabel ''\n"
		      "set style data histograms\nset style histogram clustered gap 1\n"
		      "set style fill solid 0.8 border -1\n"
		      "set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb 'red'\n"
		      "plot ", f);
		for (unsigned int ti = 0; ti < cfg->nr_threads; ti++) {
			fprintf(f, "%s", ti ? ", " : "");
			gp_str(f, path);
			fprintf(f, " using %u%s title '%u thr'", ti + 2, ti ? "" : ":xtic(1)",
				cfg->threads[ti]);
		}
		fputs("\nunset arrow 1\nset xtics (", f);
		for (unsigned int ti = 0; ti < cfg->nr_threads; ti++)
			fprintf(f, "%s%u", ti ? ", " : "", cfg->threads[ti]);
		fputs(")\n", f);

		snprintf(path, sizeof(path), "%s/ratio-%u.dat", dir, g);
		err = write_ratio(cfg, g, path);
		if (err)
			goto out_close;
		fprintf(f, "set title '%s: throughput over %s, 95%% interval' font 'sans,10'\n",
			grp->name, cfg->subjects[cfg->baseline].name);
		fputs("unset logscale y\nset style data linespoints\nset yrange [0:*]\n", f);
		fprintf(f, "set xrange [%g:%g]\n", tmin - 0.3, tmax + 0.3);
		fputs("set xlabel 'threads'\nset ylabel 'x baseline'\n"
		      "set arrow 2 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb 'gray40'\n"
		      "plot ", f);
		for (unsigned int k = 0; k < grp->nr_subjects; k++) {
			fprintf(f, "%s", k ? ", \\\n     " : "");
			gp_str(f, path);
			fprintf(f, " index %u using 1:2:3:4 with yerrorlines lw 2 title ", k);
			gp_str(f, cfg->subjects[grp->first_subject + k].name);
		}
		fputs("\nunset arrow 2\n", f);
	}
	fputs("unset multiplot\n", f);
out_close:
	if (fclose(f) && !err)
		err = -errno;
	if (err) {
		fprintf(stderr, "dcsim-bench: --plot: writing the data: %s\n", strerror(-err));
		goto out;
	}

	pid = fork();
	if (pid == 0) {
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0) {
		err = -errno;
		fprintf(stderr, "dcsim-bench: --plot: cannot run gnuplot: %s\n", strerror(errno));
	} else if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		err = -EIO;
		if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
			fprintf(stderr, "dcsim-bench: --plot: gnuplot not found; install it "
				"(apt-get install gnuplot-nox)\n");
		else
			fprintf(stderr, "dcsim-bench: --plot: gnuplot failed (script kept in %s)\n",
				dir);
		if (WIFEXITED(st) && WEXITSTATUS(st) != 127)
			return err;	/* keep the directory for debugging */
	}
out:
	/* best effort cleanup of the private directory */
	for (unsigned int g = 0; g < cfg->nr_groups; g++) {
		snprintf(path, sizeof(path), "%s/tp-%u.dat", dir, g);
		unlink(path);
		snprintf(path, sizeof(path), "%s/slow-%u.dat", dir, g);
		unlink(path);
		snprintf(path, sizeof(path), "%s/ratio-%u.dat", dir, g);
		unlink(path);
	}
	unlink(script);
	rmdir(dir);
	return err;
}

/* Run gnuplot on @script; Return: 0 or a negative errno (message printed). */
static int run_gnuplot(const char *script)
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0) {
		fprintf(stderr, "dcsim-bench: --plot: cannot run gnuplot: %s\n", strerror(errno));
		return -errno;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
		fprintf(stderr, "dcsim-bench: --plot: gnuplot not found; install it "
			"(apt-get install gnuplot-nox)\n");
		return -EIO;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "dcsim-bench: --plot: gnuplot failed\n");
		return -EIO;
	}
	return 0;
}

/*
 * --compare --plot: per workload one panel, a cell per x position
 * ("strategy/threads"), A and B's ratio over the baseline side by side with
 * their 95% intervals; where the bars do not overlap, the runs differ.
 */
static int plot_compare_to(const char *png, const char *a, const char *b, const char *baseline,
			   const struct bench_plot_cell *c, unsigned int n)
{
	char dir[] = "/tmp/dcsim-bench-plot.XXXXXX", data[512], script[512], title[600];
	const char *groups[16];
	unsigned int ng = 0;
	FILE *f, *d;
	int err = 0;

	for (unsigned int i = 0; i < n; i++) {
		bool seen = false;

		if (!isfinite(c[i].a.med) && !isfinite(c[i].b.med))
			continue;
		for (unsigned int k = 0; k < ng; k++)
			seen |= !strcmp(groups[k], c[i].group);
		if (!seen && ng < DCSIM_ARRAY_SIZE(groups))
			groups[ng++] = c[i].group;
	}
	if (!ng) {
		fprintf(stderr, "dcsim-bench: --plot: no ratio over a baseline to draw\n");
		return -EINVAL;
	}
	if (!mkdtemp(dir)) {
		fprintf(stderr, "dcsim-bench: --plot: mkdtemp: %s\n", strerror(errno));
		return -errno;
	}
	snprintf(script, sizeof(script), "%s/compare.gp", dir);
	snprintf(data, sizeof(data), "%s/compare.dat", dir);
	f = fopen(script, "w");
	d = fopen(data, "w");
	if (!f || !d) {
		err = -errno;
		fprintf(stderr, "dcsim-bench: --plot: %s\n", strerror(errno));
		goto out;
	}
	fprintf(f, "set terminal pngcairo noenhanced size 1150,%u font 'sans,8'\nset output ",
		90 + 300 * ng);
	gp_str(f, png);
	fprintf(f, "\nset multiplot layout %u,1 title ", ng);
	snprintf(title, sizeof(title), "dcsim-bench --compare: throughput over %s, median and 95%% "
		 "interval; A = %s, B = %s", baseline, a, b);
	gp_str(f, title);
	fputs(" font 'sans,10'\nset grid ytics\nset key outside right top\n"
	      "set style data yerrorbars\nset yrange [0:*]\nset xtics rotate by -40\n", f);
	for (unsigned int k = 0; k < ng; k++) {
		unsigned int x = 0;

		/* index k of the data file: "x labelA medA loA hiA medB loB hiB" */
		for (unsigned int i = 0; i < n; i++) {
			const struct bench_est *ea = &c[i].a, *eb = &c[i].b;

			if (strcmp(c[i].group, groups[k]) || (!isfinite(ea->med) && !isfinite(eb->med)))
				continue;
			fprintf(d, "%u %s/%u", x++, c[i].subject, c[i].threads);
			for (int j = 0; j < 2; j++) {
				const struct bench_est *e = j ? eb : ea;
				double med = isfinite(e->med) ? e->med : NAN;

				fprintf(d, " %.6g %.6g %.6g", med, isfinite(e->lo) ? e->lo : med,
					isfinite(e->hi) ? e->hi : med);
			}
			fputc('\n', d);
		}
		fputs("\n\n", d);
		fprintf(f, "set title '%s' font 'sans,10'\nset xrange [-0.5:%u.5]\n", groups[k],
			x ? x - 1 : 0);
		fputs("set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "
		      "'gray40'\nplot ", f);
		gp_str(f, data);
		fprintf(f, " index %u using ($1-0.12):3:4:5:xtic(2) lw 2 pt 7 title 'A', ", k);
		gp_str(f, data);
		fprintf(f, " index %u using ($1+0.12):6:7:8 lw 2 pt 5 title 'B'\nunset arrow 1\n", k);
	}
	fputs("unset multiplot\n", f);
out:
	if (f && fclose(f) && !err)
		err = -errno;
	if (d && fclose(d) && !err)
		err = -errno;
	if (!err)
		err = run_gnuplot(script);
	unlink(script);
	unlink(data);
	rmdir(dir);
	return err;
}

/*
 * gnuplot writes the PNG to a temporary file beside @png (outfile.c),
 * renamed over it only when gnuplot succeeded: a failed or interrupted
 * plot leaves the previous one.
 */
int bench_plot(const struct bench_config *cfg, const struct bench_host *host, const char *png)
{
	struct bench_out o;
	int err;

	if (bench_out_reserve(&o, png, "--plot"))
		return -EIO;
	err = plot_to(cfg, host, o.in_place ? png : o.tmp);
	if (err) {
		bench_out_abort(&o);
		return err;
	}
	return bench_out_commit(&o) ? -EIO : 0;
}

int bench_plot_compare(const char *png, const char *a, const char *b, const char *baseline,
		       const struct bench_plot_cell *c, unsigned int n)
{
	struct bench_out o;
	int err;

	if (bench_out_reserve(&o, png, "--plot"))
		return -EIO;
	err = plot_compare_to(o.in_place ? png : o.tmp, a, b, baseline, c, n);
	if (err) {
		bench_out_abort(&o);
		return err;
	}
	return bench_out_commit(&o) ? -EIO : 0;
}
