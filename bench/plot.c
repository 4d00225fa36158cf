// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * --plot FILE.png: one row of two panels per workload.
 *
 *   left:  throughput (median Mops/s, min..max error bars) against threads,
 *          one line per strategy; on `hot` the floor and spin bounds are
 *          drawn dashed, since one hot op is one get+put like theirs.
 *   right: share of dputs that took d_lock per strategy and thread count,
 *          log scale so that 0.1% and 100% are both readable, with the 1%
 *          target drawn across.  Zero is drawn at the bottom of the axis.
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

int bench_plot(const struct bench_config *cfg, const struct bench_host *host, const char *png)
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
	fprintf(f, "set terminal pngcairo noenhanced size 1150,%u font 'sans,8'\nset output ",
		90 + 270 * nwl);
	gp_str(f, png);
	fputs("\nset encoding utf8\nset multiplot layout ", f);
	fprintf(f, "%u,2 title ", nwl);
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
	}
	unlink(script);
	rmdir(dir);
	return err;
}
