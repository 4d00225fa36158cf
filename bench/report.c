// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Aggregation and reports: the table, CSV and JSON, and the targets.
 *
 * Spread is min/median/max over repetitions.  Ratios (against the baseline
 * strategy and against the floor and spin bounds) are formed repetition by
 * repetition, between samples measured seconds apart in the same rotation,
 * and the median of those per-repetition ratios is reported: drift of the
 * machine between repetitions then cancels instead of leaking into the
 * comparison.  Every median carries a 95% bootstrap interval over the
 * repetitions (stats.c): ns/op, throughput and the three ratios, in every
 * format; a target whose interval has points on both sides of its limit is
 * "inconclusive" rather than ok or MISS.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/htm.h>

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

double bench_sample_ops_s(const struct bench_sample *s)
{
	return s->wall_ns > 0 ? s->ops * 1e9 / s->wall_ns : NAN;
}

double bench_sample_ns_op(const struct bench_sample *s)
{
	/* CPU time, not wall: see harness.c:cpu_ns() */
	return s->ops ? s->thr_cpu_ns / s->ops : NAN;
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

/* ---- derived figures shared by every format ---- */

static double frac(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : NAN;
}

static double slow_fraction(const struct bench_agg *a)
{
	if (!a->c.have_cache)
		return NAN;
	return frac((uint64_t)a->c.v[DCSIM_CS_DPUT_LOCKED], (uint64_t)a->c.v[DCSIM_CS_DPUT]);
}

/* dputs finished without d_lock: by lockless cmpxchg or in a transaction */
static int64_t fast_hits(const struct bench_agg *a)
{
	return a->c.v[DCSIM_CS_DPUT_CAS] + a->c.v[DCSIM_CS_DPUT_HTM];
}

static double commit_rate(const struct bench_agg *a)
{
	return frac(a->st.v[DCSIM_STAT_HTM_COMMITS], a->st.v[DCSIM_STAT_HTM_ATTEMPTS]);
}

static uint64_t aborts_by(const struct bench_agg *a, int cause)
{
	return a->st.v[DCSIM_STAT_HTM_ABORT_FIRST + cause];
}

/* The model's explicit abort reasons (DCSIM_DCACHE_HTM_* codes). */
static const struct {
	enum dcsim_cache_stat stat;
	const char *name;
} model_reasons[] = {
	{ DCSIM_CS_HTM_ABORT_LOCKED, "locked" },
	{ DCSIM_CS_HTM_ABORT_UNHASHED, "unhashed" },
	{ DCSIM_CS_HTM_ABORT_NOLRU, "nolru" },
	{ DCSIM_CS_HTM_ABORT_KILL, "kill" },
	{ DCSIM_CS_HTM_ABORT_BADCOUNT, "badcount" },
	{ DCSIM_CS_HTM_ABORT_NOTREF, "notref" },
};

/* ---- targets ---- */

struct target {
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

#define MAX_TARGETS 64

static bool is_lockref_based(const struct bench_subject *s)
{
	return s->kind == BENCH_STRATEGY && strcmp(s->name, "locked");
}

/* By the strategy's flag, so a registered one (k61-htm) counts too. */
static bool is_htm_strategy(const struct bench_subject *s)
{
	const struct dcsim_dput_strategy *st = s->strategy;

	return s->kind == BENCH_STRATEGY && st && (st->flags & DCSIM_STRATEGY_USES_HTM);
}

/*
 * 5: scaling on many cores (issue 19), fast at 16 threads over 1 thread:
 * churn with --dirs 64 (a create lock per directory, 4 threads a
 * directory at most) and mixed, each at least 6x.  Sixteen workers need
 * sixteen CPUs of their own; on a smaller host, or without the rows, the
 * target is listed with the verdict n/a and the reason.
 */
static unsigned int scaling_targets(const struct bench_config *cfg, const struct bench_host *host,
				    struct target *t, unsigned int room)
{
	static const struct {
		const char *group, *id, *what;
		unsigned int dirs;	/* --dirs the target is for; 0: any */
	} want[] = {
		{ "churn", "churn-scales-16", "churn --dirs 64: 16 threads over 1 thread, fast", 64 },
		{ "mixed", "mixed-scales-16", "mixed: 16 threads over 1 thread, fast", 0 },
	};
	unsigned int n = 0;

	for (unsigned int i = 0; i < DCSIM_ARRAY_SIZE(want) && n < room; i++) {
		int r1 = bench_find_row(cfg, want[i].group, 1, "fast");
		int r16 = bench_find_row(cfg, want[i].group, 16, "fast");
		struct target *tg;
		bool in_run = false;

		for (unsigned int g = 0; g < cfg->nr_groups; g++)
			in_run |= !strcmp(cfg->groups[g].name, want[i].group);
		if (!in_run)
			continue;
		tg = &t[n++];
		*tg = (struct target){
			.id = want[i].id, .what = want[i].what, .group = want[i].group,
			.subject = "fast", .threads = 16, .value = NAN, .limit = 6.0, .op = ">=",
			.est = { NAN, NAN, NAN, 0 },
		};
		if (host->online_cpus < 16) {
			tg->na = true;
			snprintf(tg->buf, sizeof(tg->buf), "not applicable on %u CPUs (needs 16)",
				 host->online_cpus);
		} else if (want[i].dirs && cfg->shape.dirs != want[i].dirs) {
			tg->na = true;
			snprintf(tg->buf, sizeof(tg->buf), "not applicable with --dirs %u (needs %u)",
				 cfg->shape.dirs, want[i].dirs);
		} else if (r1 < 0 || r16 < 0) {
			tg->na = true;
			snprintf(tg->buf, sizeof(tg->buf), "not applicable: needs fast at -t 1,16");
		} else {
			double v[BENCH_MAX_REPS];

			bench_median_ci(v, bench_ratio_samples(cfg, &cfg->rows[r16], r1, false, v),
					&tg->est);
			tg->value = tg->est.med;
			tg->buf[0] = '\0';
		}
		tg->note = tg->buf[0] ? tg->buf : NULL;
	}
	return n;
}

static unsigned int eval_targets(const struct bench_config *cfg, const struct bench_host *host,
				 struct target *t)
{
	struct bench_agg a;
	unsigned int n = 0;
	double cas_x;
	int r;

	/*
	 * 1: dget + non-final dput against the floor, one thread.  The note
	 * gives the cmpxchg bound's own ratio: the part of the gap that is the
	 * lockref's read + cmpxchg shape rather than the model around it.
	 */
	r = bench_find_row(cfg, "bounds", 1, "cmpxchg");
	cas_x = NAN;
	if (r >= 0) {
		bench_aggregate(cfg, &cfg->rows[r], &a);
		cas_x = a.x_floor;
	}
	for (unsigned int s = 0; s < cfg->nr_subjects; s++) {
		const struct bench_subject *subj = &cfg->subjects[s];
		struct target *tg;

		if (!is_lockref_based(subj) || n >= MAX_TARGETS)
			continue;
		r = bench_find_row(cfg, "hot", 1, subj->name);
		if (r < 0 || bench_find_row(cfg, "bounds", 1, "floor") < 0)
			continue;
		bench_aggregate(cfg, &cfg->rows[r], &a);
		tg = &t[n++];
		*tg = (struct target){
			.id = "nonfinal-vs-floor",
			.what = "hot 1 thread: dget+non-final dput ns/op over the atomic add+sub floor",
			.group = "hot", .subject = subj->name, .threads = 1,
			.value = a.x_floor, .limit = 1.3, .op = "<=", .est = a.r_floor,
		};
		snprintf(tg->buf, sizeof(tg->buf), "cmpxchg bound alone %.2fx floor%s", cas_x,
			 is_htm_strategy(subj) && host->htm_live ?
			 "; pays a transaction on every dput" : "");
		tg->note = tg->buf;
	}

	/* 2: raw lockref get+put against lock-update-unlock, one thread. */
	r = bench_find_row(cfg, "bounds", 1, "raw-lockref");
	if (r >= 0 && bench_find_row(cfg, "bounds", 1, "spin") >= 0 && n < MAX_TARGETS) {
		bench_aggregate(cfg, &cfg->rows[r], &a);
		t[n++] = (struct target){
			.id = "lockref-vs-spin",
			.what = "1 thread: lockref get+put ns/op over spinlock lock-update-unlock x2",
			.group = "bounds", .subject = "raw-lockref", .threads = 1,
			.value = a.x_ceil, .limit = 1.1, .op = "<=", .est = a.r_ceil,
		};
	}

	/* 3: slow-path fraction of final puts, at every thread count measured. */
	for (unsigned int g = 0; g < cfg->nr_groups; g++) {
		const char *gname = cfg->groups[g].name;

		if (strcmp(gname, "final") && strcmp(gname, "walk"))
			continue;
		for (unsigned int s = 0; s < cfg->nr_subjects; s++) {
			const struct bench_subject *subj = &cfg->subjects[s];
			bool locked = !strcmp(subj->name, "locked");
			bool want_fast = !strcmp(subj->name, "fast") || !strcmp(subj->name, "retain") ||
					 !strcmp(subj->name, "fast-htm") ||
					 (!strcmp(subj->name, "rtm") && host->htm_live);

			if (subj->kind != BENCH_STRATEGY || (!locked && !want_fast))
				continue;
			for (unsigned int ti = 0; ti < cfg->nr_threads && n < MAX_TARGETS; ti++) {
				r = bench_find_row(cfg, gname, cfg->threads[ti], subj->name);
				if (r < 0)
					continue;
				bench_aggregate(cfg, &cfg->rows[r], &a);
				t[n++] = (struct target){
					.id = locked ? "locked-always-dlock" : "final-avoids-dlock",
					.what = locked ? "share of dputs taking d_lock" :
						"share of dputs taking d_lock",
					.group = gname, .subject = subj->name,
					.threads = cfg->threads[ti],
					.value = slow_fraction(&a), .limit = locked ? 1.0 : 0.01,
					.op = locked ? "==" : "<",
					/* a count over all reps, not a sampled figure */
					.est = { slow_fraction(&a), NAN, NAN, a.n },
					.note = !strcmp(subj->name, "fast-htm") && !host->htm_live ?
						"HTM not live: fast-htm runs its fast_dput fallback" : NULL,
				};
			}
		}
	}

	/* 4: contended hot dentry, 2 threads, against locked. */
	if (bench_find_row(cfg, "hot", 2, "locked") >= 0) {
		for (unsigned int s = 0; s < cfg->nr_subjects && n < MAX_TARGETS; s++) {
			const struct bench_subject *subj = &cfg->subjects[s];
			double v[BENCH_MAX_REPS];
			int base = bench_find_row(cfg, "hot", 2, "locked");
			struct bench_est e;

			if (!is_lockref_based(subj))
				continue;
			r = bench_find_row(cfg, "hot", 2, subj->name);
			if (r < 0)
				continue;
			/* against locked whatever --baseline says */
			bench_median_ci(v, bench_ratio_samples(cfg, &cfg->rows[r], base, false, v), &e);
			t[n++] = (struct target){
				.id = "hot-vs-locked",
				.what = "hot 2 threads: throughput over locked",
				.group = "hot", .subject = subj->name, .threads = 2,
				.value = e.med, .limit = 1.5, .op = ">=", .est = e,
			};
		}
	}

	n += scaling_targets(cfg, host, t + n, MAX_TARGETS - n);

	for (unsigned int i = 0; i < n; i++) {
		t[i].verdict = t[i].na ? "n/a" : bench_verdict(&t[i].est, t[i].op, t[i].limit);
		t[i].pass = !strcmp(t[i].verdict, "ok");
	}
	return n;
}

/* ---- table ---- */

static void fmt_num(char *buf, size_t len, double v, const char *fmt)
{
	if (isfinite(v))
		snprintf(buf, len, fmt, v);
	else
		snprintf(buf, len, "-");
}

/* "lo-hi" of an estimate's interval, or "-" without one. */
static void fmt_range(char *buf, size_t len, const struct bench_est *e, const char *fmt)
{
	char lo[16], hi[16];

	if (!isfinite(e->lo) || !isfinite(e->hi)) {
		snprintf(buf, len, "-");
		return;
	}
	snprintf(lo, sizeof(lo), fmt, e->lo);
	snprintf(hi, sizeof(hi), fmt, e->hi);
	snprintf(buf, len, "%s-%s", lo, hi);
}

/* The larger half-width of the interval, in percent of the median. */
static void fmt_pm(char *buf, size_t len, const struct bench_est *e)
{
	double w;

	if (!isfinite(e->lo) || !isfinite(e->hi) || !(e->med > 0)) {
		snprintf(buf, len, "-");
		return;
	}
	w = fmax(e->hi - e->med, e->med - e->lo) / e->med;
	if (w >= 9.995)
		snprintf(buf, len, ">999%%");
	else
		snprintf(buf, len, "%.1f%%", 100 * w);
}

/* Where workers and helpers ran, and the cells with more threads than CPUs. */
static void print_placement(const struct bench_config *cfg, FILE *f)
{
	unsigned int n = 0;

	fprintf(f, "placement: workers on CPUs");
	for (unsigned int i = 0; i < cfg->nr_worker_cpus; i++)
		fprintf(f, "%c%d", i ? ',' : ' ', cfg->cpus[i]);
	if (!cfg->pin)
		fprintf(f, " (not pinned)");
	if (cfg->helper_cpu >= 0)
		fprintf(f, "; helpers (shrinker, call_rcu) on CPU %d", cfg->helper_cpu);
	else
		fprintf(f, "; helpers (shrinker, call_rcu) float over them: no CPU to spare");
	fprintf(f, "; call_rcu %s\n           oversubscribed (threads > free CPUs):",
		cfg->call_rcu == DCSIM_RCU_CB_PER_CPU ? "per-CPU" : "global");
	for (unsigned int g = 0; g < cfg->nr_groups; g++) {
		for (unsigned int ti = 0; ti < cfg->nr_threads; ti++) {
			if (!bench_oversubscribed(cfg, &cfg->groups[g], cfg->threads[ti]))
				continue;
			fprintf(f, "%s %s t=%u (+%u helpers)", n++ ? "," : "", cfg->groups[g].name,
				cfg->threads[ti], bench_cell_helpers(cfg, &cfg->groups[g]));
		}
	}
	fprintf(f, "%s\n", n ? "" : " none");
}

static void print_host(const struct bench_config *cfg, const struct bench_host *host, FILE *f)
{
	fprintf(f, "dcsim-bench %s  %s\n", host->version, host->when);
	fprintf(f, "cpu:      %s, %u CPUs online; kernel %s\n", host->cpu, host->online_cpus,
		host->kernel);
	fprintf(f, "htm:      backend %s, policy %s: %s\n", host->htm_backend, host->htm_policy,
		host->htm_live ? "TSX/HTM LIVE, transactions execute" :
		host->htm_cpu ? "HTM present but NOT used (policy)" :
		host->htm_none ? "NOT live (built without an HTM backend): HTM strategies run "
				 "their fallbacks" :
		host->rtm_always_abort ? "NOT live (RTM_ALWAYS_ABORT): HTM strategies run their fallbacks" :
		"NOT live (no HTM on this CPU): HTM strategies run their fallbacks");
	fprintf(f, "run:      %u rep(s) x ", cfg->reps);
	if (cfg->ops)
		fprintf(f, "%llu ops/thread", (unsigned long long)cfg->ops);
	else
		fprintf(f, "%.3f s", cfg->duration_s);
	fprintf(f, " per cell, threads");
	for (unsigned int i = 0; i < cfg->nr_threads; i++)
		fprintf(f, "%c%u", i ? ',' : ' ', cfg->threads[i]);
	fprintf(f, ", seed %llu, %s", (unsigned long long)cfg->seed,
		cfg->pin ? "pinned to CPUs" : "not pinned");
	if (cfg->pin)
		for (unsigned int i = 0; i < cfg->nr_cpus; i++)
			fprintf(f, "%c%d", i ? ',' : ' ', cfg->cpus[i]);
	fprintf(f, "\n          baseline %s; order of subjects rotated every repetition; "
		"first %.0f%% of every cell discarded (warm-up)\n",
		cfg->subjects[cfg->baseline].name, 100 * cfg->warmup);
	print_placement(cfg, f);
	if (cfg->ci_width > 0)
		fprintf(f, "adaptive: reps added until every ratio's ci95 is within %.1f%% of it, "
			"budget %.0f s: %s after %u rep(s), %.0f s; %u of %u ratios still wider\n",
			100 * cfg->ci_width, cfg->time_budget_s, cfg->adaptive_end, cfg->reps,
			cfg->run_s, cfg->adaptive_wide, cfg->adaptive_ratios);
	if (host->load_before >= 0)
		fprintf(f, "load:     %.2f before, %.2f after (1-min average on %u CPUs)\n",
			host->load_before, host->load_after, host->online_cpus);
	if (isfinite(host->steal_frac))
		fprintf(f, "host:     over the run: steal %.1f%%, other processes %.1f%% of all CPU time, "
			"this one %.2f CPUs\n", 100 * host->steal_frac, 100 * host->others_frac,
			host->self_cpus);
	if (isfinite(host->mhz_min_before) || host->governor[0] || host->boost >= 0) {
		fprintf(f, "freq:     ");
		if (isfinite(host->mhz_min_before))
			fprintf(f, "cpu MHz %.0f-%.0f before, %.0f-%.0f after; ", host->mhz_min_before,
				host->mhz_max_before, host->mhz_min_after, host->mhz_max_after);
		fprintf(f, "governor %s, boost %s\n", host->governor[0] ? host->governor : "n/a",
			host->boost < 0 ? "n/a" : host->boost ? "on" : "off");
	}
	if (host->busy)
		fprintf(f, "WARNING:  the host was busy (%s): expect wide intervals; "
			"rerun on a quiet machine for figures to quote\n", host->busy_why);
	if (host->dentry_size)
		fprintf(f, "model:    sizeof(struct dcsim_dentry) = %zu bytes\n", host->dentry_size);
	fprintf(f, "command:  %s\n", cfg->cmdline);
}

/*
 * "conflict 0.1% explicit 2% (nolru 2%)": hardware causes as shares of the
 * attempts, the explicit ones broken down by the model's reason codes.
 */
static void abort_summary(char *buf, size_t len, const struct bench_agg *a)
{
	uint64_t att = a->st.v[DCSIM_STAT_HTM_ATTEMPTS];
	size_t off = 0;

	buf[0] = 0;
	if (!att) {
		snprintf(buf, len, "-");
		return;
	}
	for (int c = 0; c < DCSIM_HTM_CAUSE_NR && off < len; c++) {
		uint64_t k = aborts_by(a, c);
		bool open = false;

		if (!k)
			continue;
		off += snprintf(buf + off, len - off, "%s%s %.3g%%", off ? " " : "",
				dcsim_htm_cause_name(c), 100.0 * k / att);
		if (c != DCSIM_HTM_CAUSE_EXPLICIT)
			continue;
		for (unsigned int i = 0; i < DCSIM_ARRAY_SIZE(model_reasons) && off < len; i++) {
			int64_t m = a->c.v[model_reasons[i].stat];

			if (m <= 0)
				continue;
			off += snprintf(buf + off, len - off, "%s%s %.3g%%", open ? ", " : " (",
					model_reasons[i].name, 100.0 * m / att);
			open = true;
		}
		if (open && off < len)
			off += snprintf(buf + off, len - off, ")");
	}
	if (!off)
		snprintf(buf, len, "none");
}

static void print_table(const struct bench_config *cfg, const struct bench_host *host, FILE *f)
{
	struct target t[MAX_TARGETS];
	unsigned int nt;

	print_host(cfg, host, f);
	for (unsigned int g = 0; g < cfg->nr_groups; g++) {
		const struct bench_group *grp = &cfg->groups[g];
		bool bounds = !grp->wl;

		fprintf(f, "\n== %s: %s ==\n", grp->name,
			bounds ? "one op = get+put on one shared cache line" : grp->wl->models);
		if (bounds)
			fprintf(f, "%3s %-12s %9s %7s %9s %8s %13s %7s %6s %7s %6s %9s\n", "thr",
				"bound", "Mops/s", "spread", "Mops/s/t", "ns/op", "ns/op ci95", "xfloor",
				"ci\xc2\xb1", "xspin", "ci\xc2\xb1", "retry/op");
		else
			fprintf(f, "%3s %-12s %9s %7s %8s %13s %6s %11s %7s %6s %7s %6s %8s %9s %8s  %s\n",
				"thr", "strategy", "Mops/s", "spread", "ns/op", "ns/op ci95",
				"x", "x ci95", "xfloor", "ci\xc2\xb1", "xspin", "ci\xc2\xb1", "d_lock%",
				"retry/op", "htm ok%", "aborts (% of attempts)");
		for (unsigned int i = 0; i < cfg->nr_rows; i++) {
			const struct bench_row *row = &cfg->rows[i];
			struct bench_agg a;
			char mops[16], spread[16], thr[16], ns[16], nsci[32], rb[16], rbci[32];
			char xf[16], xfci[16], xc[16], xcci[16];
			char slow[16], retry[16], ok[16], ab[160];

			if (row->group != g)
				continue;
			bench_aggregate(cfg, row, &a);
			fmt_num(mops, sizeof(mops), a.ops_s_med / 1e6, "%.3f");
			fmt_num(spread, sizeof(spread),
				100.0 * (a.ops_s_max - a.ops_s_min) / a.ops_s_med, "%.1f%%");
			fmt_num(thr, sizeof(thr), a.ops_s_thr_med / 1e6, "%.3f");
			fmt_num(ns, sizeof(ns), a.ns_op_med, "%.2f");
			fmt_range(nsci, sizeof(nsci), &a.ns_op, "%.2f");
			fmt_num(rb, sizeof(rb), a.ratio_base, "%.2f");
			fmt_range(rbci, sizeof(rbci), &a.r_base, "%.2f");
			fmt_num(xf, sizeof(xf), a.x_floor, "%.2f");
			fmt_pm(xfci, sizeof(xfci), &a.r_floor);
			fmt_num(xc, sizeof(xc), a.x_ceil, "%.2f");
			fmt_pm(xcci, sizeof(xcci), &a.r_ceil);
			fmt_num(slow, sizeof(slow), 100.0 * slow_fraction(&a), "%.3f");
			fmt_num(retry, sizeof(retry),
				frac(a.st.v[DCSIM_STAT_LOCKREF_RETRIES], a.ops), "%.4f");
			fmt_num(ok, sizeof(ok), 100.0 * commit_rate(&a), "%.2f");
			abort_summary(ab, sizeof(ab), &a);
			if (bounds)
				fprintf(f, "%3u %-12s %9s %7s %9s %8s %13s %7s %6s %7s %6s %9s\n",
					cfg->threads[row->tidx], cfg->subjects[row->subject].name,
					mops, spread, thr, ns, nsci, xf, xfci, xc, xcci, retry);
			else
				fprintf(f, "%3u %-12s %9s %7s %8s %13s %6s %11s %7s %6s %7s %6s %8s %9s %8s  %s\n",
					cfg->threads[row->tidx], cfg->subjects[row->subject].name,
					mops, spread, ns, nsci, rb, rbci, xf, xfci, xc, xcci, slow, retry,
					ok, ab);
		}
	}
	fprintf(f, "\ncolumns: Mops/s median total (spread = (max-min)/median over reps); "
		"ns/op = CPU time per op per thread;\n"
		"         x = throughput over %s; xfloor/xspin = ns/op over the floor/spin bound "
		"(per-rep ratios, median);\n"
		"         ci95 = 95%% interval of the median over reps (order statistics), ci\xc2\xb1 = its larger "
		"half-width in %% (- : one rep);\n"
		"         d_lock%% = dputs that took d_lock; retry/op = failed lockref cmpxchg per op;\n"
		"         htm ok%% = committed transactions of those attempted\n",
		cfg->subjects[cfg->baseline].name);

	nt = eval_targets(cfg, host, t);
	if (!nt)
		return;
	fprintf(f, "\n== targets ==\n");
	for (unsigned int i = 0; i < nt; i++) {
		char v[64];

		if (!strcmp(t[i].id, "final-avoids-dlock") || !strcmp(t[i].id, "locked-always-dlock"))
			fmt_num(v, sizeof(v), 100.0 * t[i].value, "%.3f%%");
		else
			fmt_num(v, sizeof(v), t[i].value, "%.3f");
		if (isfinite(t[i].est.lo) && isfinite(t[i].est.hi))
			snprintf(v + strlen(v), sizeof(v) - strlen(v), " [%.3f,%.3f]", t[i].est.lo,
				 t[i].est.hi);
		fprintf(f, "%-12s %-20s %-6s t=%u %-9s %22s %s %g%s  (%s)%s%s\n",
			t[i].verdict, t[i].id, t[i].group, t[i].threads, t[i].subject, v,
			t[i].op,
			strcmp(t[i].op, "==") && strcmp(t[i].op, "<") ? t[i].limit : 100 * t[i].limit,
			strcmp(t[i].op, "==") && strcmp(t[i].op, "<") ? "" : "%",
			t[i].what, t[i].note ? "; " : "", t[i].note ? t[i].note : "");
	}
	fputs("(inconclusive: the 95% interval [lo,hi] has points on both sides of the limit; "
	      "more reps or --ci-width decide)\n", f);
}

/* ---- CSV ---- */

static void csv_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, ",%.6g", v);
	else
		fputs(",", f);
}

static void print_csv(const struct bench_config *cfg, const struct bench_host *host, FILE *f)
{
	fputs("cpu,htm_live,htm_policy,group,threads,subject,kind,reps,"
	      "ops_s_min,ops_s_median,ops_s_max,ops_s_ci95_lo,ops_s_ci95_hi,ops_s_per_thread,"
	      "ns_op_min,ns_op_median,ns_op_max,ns_op_ci95_lo,ns_op_ci95_hi,baseline,"
	      "ratio_vs_baseline,ratio_vs_baseline_ci95_lo,ratio_vs_baseline_ci95_hi,"
	      "x_floor,x_floor_ci95_lo,x_floor_ci95_hi,x_spin,x_spin_ci95_lo,x_spin_ci95_hi,"
	      "ops,dputs,dputs_locked,slow_path_fraction,fast_hits,"
	      "lockref_retries,lockref_fallbacks,retries_per_op,"
	      "htm_attempts,htm_commits,htm_aborts,htm_commit_rate", f);
	for (int c = 0; c < DCSIM_HTM_CAUSE_NR; c++) {
		/* "debug/interrupt" -> abort_debug_interrupt: a plain column name */
		fputs(",abort_", f);
		for (const char *p = dcsim_htm_cause_name(c); *p; p++)
			fputc(*p == '/' ? '_' : *p, f);
	}
	for (unsigned int i = 0; i < DCSIM_ARRAY_SIZE(model_reasons); i++)
		fprintf(f, ",model_abort_%s", model_reasons[i].name);
	fputc('\n', f);

	for (unsigned int i = 0; i < cfg->nr_rows; i++) {
		const struct bench_row *row = &cfg->rows[i];
		const struct bench_subject *subj = &cfg->subjects[row->subject];
		struct bench_agg a;

		bench_aggregate(cfg, row, &a);
		csv_str(f, host->cpu);
		fprintf(f, ",%d,%s,%s,%u,%s,%s,%u", host->htm_live, host->htm_policy,
			cfg->groups[row->group].name, cfg->threads[row->tidx], subj->name,
			subj->kind == BENCH_BOUND ? "bound" : "strategy", a.n);
		csv_num(f, a.ops_s_min);
		csv_num(f, a.ops_s_med);
		csv_num(f, a.ops_s_max);
		csv_num(f, a.ops_s.lo);
		csv_num(f, a.ops_s.hi);
		csv_num(f, a.ops_s_thr_med);
		csv_num(f, a.ns_op_min);
		csv_num(f, a.ns_op_med);
		csv_num(f, a.ns_op_max);
		csv_num(f, a.ns_op.lo);
		csv_num(f, a.ns_op.hi);
		fprintf(f, ",%s", cfg->subjects[cfg->baseline].name);
		csv_num(f, a.ratio_base);
		csv_num(f, a.r_base.lo);
		csv_num(f, a.r_base.hi);
		csv_num(f, a.x_floor);
		csv_num(f, a.r_floor.lo);
		csv_num(f, a.r_floor.hi);
		csv_num(f, a.x_ceil);
		csv_num(f, a.r_ceil.lo);
		csv_num(f, a.r_ceil.hi);
		fprintf(f, ",%llu", (unsigned long long)a.ops);
		if (a.c.have_cache)
			fprintf(f, ",%lld,%lld", (long long)a.c.v[DCSIM_CS_DPUT],
				(long long)a.c.v[DCSIM_CS_DPUT_LOCKED]);
		else
			fputs(",,", f);
		csv_num(f, slow_fraction(&a));
		if (a.c.have_cache)
			fprintf(f, ",%lld", (long long)fast_hits(&a));
		else
			fputs(",", f);
		fprintf(f, ",%llu,%llu", (unsigned long long)a.st.v[DCSIM_STAT_LOCKREF_RETRIES],
			(unsigned long long)a.st.v[DCSIM_STAT_LOCKREF_FALLBACKS]);
		csv_num(f, frac(a.st.v[DCSIM_STAT_LOCKREF_RETRIES], a.ops));
		fprintf(f, ",%llu,%llu,%llu", (unsigned long long)a.st.v[DCSIM_STAT_HTM_ATTEMPTS],
			(unsigned long long)a.st.v[DCSIM_STAT_HTM_COMMITS],
			(unsigned long long)a.st.v[DCSIM_STAT_HTM_ABORTS]);
		csv_num(f, commit_rate(&a));
		for (int c = 0; c < DCSIM_HTM_CAUSE_NR; c++)
			fprintf(f, ",%llu", (unsigned long long)aborts_by(&a, c));
		for (unsigned int k = 0; k < DCSIM_ARRAY_SIZE(model_reasons); k++)
			fprintf(f, ",%lld", (long long)a.c.v[model_reasons[k].stat]);
		fputc('\n', f);
	}
}

/* ---- JSON ---- */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.6g", v);
	else
		fputs("null", f);
}

/* The values of a {"min": .., "median": .., "max": ..} object, after its first key. */
static void json_spread(FILE *f, double min, double med, double max)
{
	json_num(f, min);
	fputs(", \"median\": ", f);
	json_num(f, med);
	fputs(", \"max\": ", f);
	json_num(f, max);
}

/* ", "ci95_lo": .., "ci95_hi": .." of an estimate */
static void json_ci(FILE *f, const struct bench_est *e)
{
	fputs(", \"ci95_lo\": ", f);
	json_num(f, e->lo);
	fputs(", \"ci95_hi\": ", f);
	json_num(f, e->hi);
}

/* "name": {"value": .., "ci95_lo": .., "ci95_hi": .., "n": ..} */
static void json_est(FILE *f, const char *name, const struct bench_est *e, bool comma)
{
	fprintf(f, "%s\"%s\": {\"value\": ", comma ? ", " : "", name);
	json_num(f, e->med);
	json_ci(f, e);
	fprintf(f, ", \"n\": %u}", e->n);
}

static void json_samples(FILE *f, const char *name, const double *v, unsigned int n)
{
	fprintf(f, ", \"%s\": [", name);
	for (unsigned int i = 0; i < n; i++) {
		fputs(i ? ", " : "", f);
		json_num(f, v[i]);
	}
	fputc(']', f);
}

static void print_json(const struct bench_config *cfg, const struct bench_host *host, FILE *f)
{
	struct target t[MAX_TARGETS];
	unsigned int nt = eval_targets(cfg, host, t);

	fputs("{\n  \"tool\": \"dcsim-bench\",\n  \"version\": ", f);
	json_str(f, host->version);
	fputs(",\n  \"date\": ", f);
	json_str(f, host->when);
	fputs(",\n  \"command\": ", f);
	json_str(f, cfg->cmdline);
	fputs(",\n  \"host\": {\"cpu\": ", f);
	json_str(f, host->cpu);
	fprintf(f, ", \"online_cpus\": %u, \"kernel\": ", host->online_cpus);
	json_str(f, host->kernel);
	fprintf(f, ", \"htm_backend\": \"%s\", \"htm_policy\": \"%s\", \"htm_cpu\": %s, "
		"\"htm_live\": %s, \"rtm_always_abort\": %s, \"dentry_size\": %zu, "
		"\"load_before\": ",
		host->htm_backend, host->htm_policy, host->htm_cpu ? "true" : "false",
		host->htm_live ? "true" : "false", host->rtm_always_abort ? "true" : "false",
		host->dentry_size);
	json_num(f, host->load_before >= 0 ? host->load_before : NAN);
	fputs(", \"load_after\": ", f);
	json_num(f, host->load_after >= 0 ? host->load_after : NAN);
	fputs(", \"steal_frac\": ", f);
	json_num(f, host->steal_frac);
	fputs(", \"others_frac\": ", f);
	json_num(f, host->others_frac);
	fputs(", \"self_cpus\": ", f);
	json_num(f, host->self_cpus);
	fputs(",\n           \"cpu_mhz\": {\"min_before\": ", f);
	json_num(f, host->mhz_min_before);
	fputs(", \"max_before\": ", f);
	json_num(f, host->mhz_max_before);
	fputs(", \"min_after\": ", f);
	json_num(f, host->mhz_min_after);
	fputs(", \"max_after\": ", f);
	json_num(f, host->mhz_max_after);
	fputs("}, \"governor\": ", f);
	if (host->governor[0])
		json_str(f, host->governor);
	else
		fputs("null", f);
	fprintf(f, ", \"boost\": %s, \"busy\": %s, \"busy_why\": ",
		host->boost < 0 ? "null" : host->boost ? "true" : "false",
		host->busy ? "true" : "false");
	json_str(f, host->busy_why);
	fputs("},\n", f);
	fprintf(f, "  \"config\": {\"reps\": %u, \"warmup\": ", cfg->reps);
	json_num(f, cfg->warmup);
	fputs(", \"adaptive\": ", f);
	if (cfg->ci_width > 0) {
		fputs("{\"ci_width\": ", f);
		json_num(f, cfg->ci_width);
		fputs(", \"time_budget_s\": ", f);
		json_num(f, cfg->time_budget_s);
		fprintf(f, ", \"max_reps\": %u, \"end\": \"%s\", \"ratios\": %u, "
			"\"still_wide\": %u, \"run_s\": ", cfg->max_reps, cfg->adaptive_end,
			cfg->adaptive_ratios, cfg->adaptive_wide);
		json_num(f, cfg->run_s);
		fputc('}', f);
	} else {
		fputs("null", f);
	}
	fputs(", \"duration_s\": ", f);
	json_num(f, cfg->ops ? NAN : cfg->duration_s);
	fprintf(f, ", \"ops_per_thread\": %llu, \"seed\": %llu, \"pin\": %s, \"cpus\": [",
		(unsigned long long)cfg->ops, (unsigned long long)cfg->seed,
		cfg->pin ? "true" : "false");
	for (unsigned int i = 0; i < cfg->nr_cpus; i++)
		fprintf(f, "%s%d", i ? ", " : "", cfg->cpus[i]);
	fputs("], \"threads\": [", f);
	for (unsigned int i = 0; i < cfg->nr_threads; i++)
		fprintf(f, "%s%u", i ? ", " : "", cfg->threads[i]);
	fputs("], \"groups\": [", f);
	for (unsigned int i = 0; i < cfg->nr_groups; i++) {
		fputs(i ? ", " : "", f);
		json_str(f, cfg->groups[i].name);
	}
	fputs("], \"subjects\": [", f);
	for (unsigned int i = 0; i < cfg->nr_subjects; i++) {
		fputs(i ? ", " : "", f);
		json_str(f, cfg->subjects[i].name);
	}
	fputs("], \"baseline\": ", f);
	json_str(f, cfg->subjects[cfg->baseline].name);
	fprintf(f, ", \"shape\": {\"depth\": %u, \"fanout\": %u, \"leaves\": %u, \"files\": %u, "
		"\"shrink_batch\": %u, \"shrink_us\": %u, \"unlink_pct\": %u, \"dirs\": %u, "
		"\"cold\": %s}",
		cfg->shape.depth, cfg->shape.fanout, cfg->shape.leaves, cfg->shape.files,
		cfg->shape.shrink_batch, cfg->shape.shrink_us, cfg->shape.unlink_pct,
		cfg->shape.dirs, cfg->shape.cold ? "true" : "false");
	/* where workers and helpers ran; the cells with more threads than CPUs */
	fputs(", \"placement\": {\"worker_cpus\": [", f);
	for (unsigned int i = 0; i < cfg->nr_worker_cpus; i++)
		fprintf(f, "%s%d", i ? ", " : "", cfg->cpus[i]);
	fputs("], \"helper_cpu\": ", f);
	if (cfg->helper_cpu >= 0)
		fprintf(f, "%d", cfg->helper_cpu);
	else
		fputs("null", f);
	fprintf(f, ", \"call_rcu\": \"%s\", \"oversubscribed\": [",
		cfg->call_rcu == DCSIM_RCU_CB_PER_CPU ? "percpu" : "global");
	for (unsigned int g = 0, n = 0; g < cfg->nr_groups; g++)
		for (unsigned int ti = 0; ti < cfg->nr_threads; ti++)
			if (bench_oversubscribed(cfg, &cfg->groups[g], cfg->threads[ti])) {
				fprintf(f, "%s{\"group\": ", n++ ? ", " : "");
				json_str(f, cfg->groups[g].name);
				fprintf(f, ", \"threads\": %u, \"helpers\": %u}", cfg->threads[ti],
					bench_cell_helpers(cfg, &cfg->groups[g]));
			}
	fputs("]}},\n", f);

	fputs("  \"rows\": [\n", f);
	for (unsigned int i = 0; i < cfg->nr_rows; i++) {
		const struct bench_row *row = &cfg->rows[i];
		const struct bench_subject *subj = &cfg->subjects[row->subject];
		struct bench_agg a;
		bool first = true;

		bench_aggregate(cfg, row, &a);
		fputs("    {\"group\": ", f);
		json_str(f, cfg->groups[row->group].name);
		fprintf(f, ", \"threads\": %u, \"subject\": ", cfg->threads[row->tidx]);
		json_str(f, subj->name);
		fprintf(f, ", \"kind\": \"%s\", \"reps\": %u,\n     \"ops_s\": {\"min\": ",
			subj->kind == BENCH_BOUND ? "bound" : "strategy", a.n);
		json_spread(f, a.ops_s_min, a.ops_s_med, a.ops_s_max);
		json_ci(f, &a.ops_s);
		fputs("}, \"ops_s_per_thread\": ", f);
		json_num(f, a.ops_s_thr_med);
		fputs(", \"ns_op\": {\"min\": ", f);
		json_spread(f, a.ns_op_min, a.ns_op_med, a.ns_op_max);
		json_ci(f, &a.ns_op);
		fputs("},\n     \"ratios\": {", f);
		json_est(f, "vs_baseline", &a.r_base, false);
		json_est(f, "x_floor", &a.r_floor, true);
		json_est(f, "x_spin", &a.r_ceil, true);
		fputs("},\n     \"ratio_vs_baseline\": ", f);
		json_num(f, a.ratio_base);
		fputs(", \"x_floor\": ", f);
		json_num(f, a.x_floor);
		fputs(", \"x_spin\": ", f);
		json_num(f, a.x_ceil);
		fprintf(f, ", \"ops\": %llu,\n     \"dputs\": ", (unsigned long long)a.ops);
		if (a.c.have_cache)
			fprintf(f, "%lld, \"dputs_locked\": %lld, \"fast_hits\": %lld",
				(long long)a.c.v[DCSIM_CS_DPUT], (long long)a.c.v[DCSIM_CS_DPUT_LOCKED],
				(long long)fast_hits(&a));
		else
			fputs("null, \"dputs_locked\": null, \"fast_hits\": null", f);
		fputs(", \"slow_path_fraction\": ", f);
		json_num(f, slow_fraction(&a));
		fprintf(f, ",\n     \"lockref_retries\": %llu, \"lockref_fallbacks\": %llu, "
			"\"retries_per_op\": ",
			(unsigned long long)a.st.v[DCSIM_STAT_LOCKREF_RETRIES],
			(unsigned long long)a.st.v[DCSIM_STAT_LOCKREF_FALLBACKS]);
		json_num(f, frac(a.st.v[DCSIM_STAT_LOCKREF_RETRIES], a.ops));
		fprintf(f, ",\n     \"htm\": {\"attempts\": %llu, \"commits\": %llu, \"aborts\": %llu, "
			"\"commit_rate\": ",
			(unsigned long long)a.st.v[DCSIM_STAT_HTM_ATTEMPTS],
			(unsigned long long)a.st.v[DCSIM_STAT_HTM_COMMITS],
			(unsigned long long)a.st.v[DCSIM_STAT_HTM_ABORTS]);
		json_num(f, commit_rate(&a));
		fputs(", \"aborts_by_cause\": {", f);
		for (int c = 0; c < DCSIM_HTM_CAUSE_NR; c++)
			fprintf(f, "%s\"%s\": %llu", c ? ", " : "", dcsim_htm_cause_name(c),
				(unsigned long long)aborts_by(&a, c));
		fputs("}, \"explicit_codes\": {", f);
		for (unsigned int k = 0; k < DCSIM_ARRAY_SIZE(a.st.htm_explicit_code); k++) {
			if (!a.st.htm_explicit_code[k])
				continue;
			fprintf(f, "%s\"%u\": %llu", first ? "" : ", ", k,
				(unsigned long long)a.st.htm_explicit_code[k]);
			first = false;
		}
		fputs("}, \"model_aborts\": {", f);
		for (unsigned int k = 0; k < DCSIM_ARRAY_SIZE(model_reasons); k++)
			fprintf(f, "%s\"%s\": %lld", k ? ", " : "", model_reasons[k].name,
				(long long)a.c.v[model_reasons[k].stat]);
		fputs("}},\n     \"model\": ", f);
		if (a.c.have_cache) {
			/* every event counter of the cache, by its stable name */
			fputc('{', f);
			for (int k = 0; k < DCSIM_CS_NR_DENTRY; k++)
				fprintf(f, "%s\"%s\": %lld", k ? ", " : "",
					dcsim_cache_stat_name(k), (long long)a.c.v[k]);
			fputc('}', f);
		} else {
			fputs("null", f);
		}
		{
			/* the samples themselves: what --compare resamples */
			double v[BENCH_MAX_REPS], w[BENCH_MAX_REPS];
			unsigned int k = 0;
			const char *g = cfg->groups[row->group].name;
			unsigned int nthr = cfg->threads[row->tidx];

			for (unsigned int r = 0; r < cfg->reps; r++) {
				if (!row->samples[r].done)
					continue;
				v[k] = bench_sample_ops_s(&row->samples[r]);
				w[k++] = bench_sample_ns_op(&row->samples[r]);
			}
			fputs(",\n     \"samples\": {\"reps\": [", f);
			first = true;
			for (unsigned int r = 0; r < cfg->reps; r++) {
				if (!row->samples[r].done)
					continue;
				fprintf(f, "%s%u", first ? "" : ", ", r);
				first = false;
			}
			fputc(']', f);
			json_samples(f, "ops_s", v, k);
			json_samples(f, "ns_op", w, k);
			k = subj->kind == BENCH_STRATEGY ?
			    bench_ratio_samples(cfg, row, bench_find_row(cfg, g, nthr,
					cfg->subjects[cfg->baseline].name), false, v) : 0;
			json_samples(f, "vs_baseline", v, k);
			k = bench_ratio_samples(cfg, row, bench_find_row(cfg, "bounds", nthr, "floor"),
						true, v);
			json_samples(f, "x_floor", v, k);
			k = bench_ratio_samples(cfg, row, bench_find_row(cfg, "bounds", nthr, "spin"),
						true, v);
			json_samples(f, "x_spin", v, k);
			if (row->group) {
				/* the bounds measured in this row's block, per rep */
				for (unsigned int b = 0; b < BENCH_NR_NEAR; b++) {
					k = 0;
					for (unsigned int r = 0; r < cfg->reps; r++) {
						const struct bench_sample *nb =
							bench_near_bound(cfg, row->group, row->tidx, b, r);

						if (row->samples[r].done)
							v[k++] = nb->done ? bench_sample_ns_op(nb) : NAN;
					}
					json_samples(f, b == BENCH_NEAR_FLOOR ? "floor_ns_op" :
						     "spin_ns_op", v, k);
				}
			}
			fputs("},\n     \"samples_ops_s\": [", f);
			k = 0;
			for (unsigned int r = 0; r < cfg->reps; r++)
				if (row->samples[r].done)
					w[k++] = bench_sample_ops_s(&row->samples[r]);
			for (unsigned int r = 0; r < k; r++) {
				fputs(r ? ", " : "", f);
				json_num(f, w[r]);
			}
		}
		fprintf(f, "]}%s\n", i + 1 < cfg->nr_rows ? "," : "");
	}
	fputs("  ],\n  \"targets\": [\n", f);
	for (unsigned int i = 0; i < nt; i++) {
		fputs("    {\"id\": ", f);
		json_str(f, t[i].id);
		fputs(", \"what\": ", f);
		json_str(f, t[i].what);
		fputs(", \"group\": ", f);
		json_str(f, t[i].group);
		fprintf(f, ", \"threads\": %u, \"subject\": ", t[i].threads);
		json_str(f, t[i].subject);
		fputs(", \"value\": ", f);
		json_num(f, t[i].value);
		json_ci(f, &t[i].est);
		fprintf(f, ", \"op\": \"%s\", \"limit\": %g, \"pass\": %s, \"verdict\": \"%s\", "
			"\"note\": ", t[i].op, t[i].limit, t[i].pass ? "true" : "false",
			t[i].verdict);
		if (t[i].note)
			json_str(f, t[i].note);
		else
			fputs("null", f);
		fprintf(f, "}%s\n", i + 1 < nt ? "," : "");
	}
	fputs("  ]\n}\n", f);
}

void bench_report(const struct bench_config *cfg, const struct bench_host *host, FILE *f)
{
	switch (cfg->format) {
	case BENCH_FMT_CSV:
		print_csv(cfg, host, f);
		break;
	case BENCH_FMT_JSON:
		print_json(cfg, host, f);
		break;
	default:
		print_table(cfg, host, f);
		break;
	}
}
