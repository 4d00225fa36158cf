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
#include "json.h"

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

/* ---- --sharing ---- */

/* @n writes over the cell's ops; NAN for a cell not measured. */
static double share_per_op(const struct bench_share *r, uint64_t n)
{
	return r->done && r->ops ? (double)n / (double)r->ops : NAN;
}

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

#define MAX_TARGETS 256	/* --sharing alone adds one per workload, strategy and thread count */

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

/* "rcu" or "ref" for the groups whose ops walk paths (walk, mixed); "" otherwise. */
static const char *walk_mode(const struct bench_config *cfg, const char *group)
{
	if (strcmp(group, "walk") && strcmp(group, "mixed"))
		return "";
	return cfg->shape.ref_walk ? "ref" : "rcu";
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

	/*
	 * 5 (issue 19): shared writes per op (--sharing), an exact count: 0
	 * for walk and final, whose ops touch only private lines in a model
	 * that scales like the kernel, and 2 for hot, whose get and put are
	 * one RMW each on the one dentry's lockref line.  Every strategy but
	 * locked (which takes d_lock around its updates: 4 writes on that
	 * line) at every thread count measured.
	 */
	for (unsigned int i = 0; i < cfg->nr_share && n < MAX_TARGETS; i++) {
		const struct bench_share *sr = &cfg->share[i];
		double v = share_per_op(sr, sr->rmw + sr->stores);
		bool hot = !strcmp(sr->group, "hot");

		if ((!hot && strcmp(sr->group, "walk") && strcmp(sr->group, "final")) ||
		    !strcmp(sr->subject, "locked") || !sr->done)
			continue;
		t[n] = (struct target){
			.id = "shared-writes",
			.what = "RMWs + stores per op to lines more than one thread writes",
			.group = sr->group, .subject = sr->subject, .threads = sr->threads,
			.value = v, .limit = hot ? 2 : 0, .op = "==",
			.est = { v, NAN, NAN, 1 },
		};
		snprintf(t[n].buf, sizeof(t[n].buf), "%.3g RMW + %.3g stores per op on %llu line(s)",
			 share_per_op(sr, sr->rmw), share_per_op(sr, sr->stores),
			 (unsigned long long)sr->lines);
		t[n].note = t[n].buf;
		n++;
	}

	/*
	 * 6: walk scales (issue 19): RCU-walk writes no shared line but the
	 * private leaf's, so 2 threads on 2 cores do nearly twice 1 thread's
	 * work.  Per rep, the 2-thread cell over the 1-thread cell.
	 */
	for (unsigned int s = 0; s < cfg->nr_subjects && n < MAX_TARGETS; s++) {
		const struct bench_subject *subj = &cfg->subjects[s];
		double v[BENCH_MAX_REPS];
		struct bench_est e;
		struct target *tg;
		int one;

		if (subj->kind != BENCH_STRATEGY)
			continue;
		r = bench_find_row(cfg, "walk", 2, subj->name);
		one = bench_find_row(cfg, "walk", 1, subj->name);
		if (r < 0 || one < 0)
			continue;
		bench_median_ci(v, bench_ratio_samples(cfg, &cfg->rows[r], one, false, v), &e);
		tg = &t[n++];
		*tg = (struct target){
			.id = "walk-2t-scaling",
			.what = "walk 2 threads: throughput over its 1-thread throughput",
			.group = "walk", .subject = subj->name, .threads = 2,
			.value = e.med, .limit = 1.8, .op = ">=", .est = e,
		};
		if (cfg->shape.ref_walk || host->online_cpus < 2 || host->busy) {
			size_t off = 0;

			tg->buf[0] = '\0';
			if (cfg->shape.ref_walk)
				off += snprintf(tg->buf + off, sizeof(tg->buf) - off,
						"--ref-walk ran; the target is RCU-walk's");
			if (host->online_cpus < 2 && off < sizeof(tg->buf))
				off += snprintf(tg->buf + off, sizeof(tg->buf) - off, "%sfewer than 2 CPUs",
						off ? "; " : "");
			if (host->busy && off < sizeof(tg->buf))
				snprintf(tg->buf + off, sizeof(tg->buf) - off,
					 "%shost busy: other load shares the CPUs", off ? "; " : "");
			tg->note = tg->buf;
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

/* The "run:" lines of a timed run: reps, cells, threads, pinning, adaptive end. */
static void print_run(const struct bench_config *cfg, FILE *f)
{
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
	if (cfg->sharing) {
		fprintf(f, "run:      --sharing (writes counted, nothing timed), threads");
		for (unsigned int i = 0; i < cfg->nr_threads; i++)
			fprintf(f, "%c%u", i ? ',' : ' ', cfg->threads[i]);
		fprintf(f, ", seed %llu\n", (unsigned long long)cfg->seed);
	} else {
		print_run(cfg, f);
	}
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
	if (host->busy && !cfg->sharing)
		fprintf(f, "WARNING:  the host was busy (%s): expect wide intervals; "
			"rerun on a quiet machine for figures to quote\n", host->busy_why);
	if (host->dentry_size)
		fprintf(f, "model:    sizeof(struct dcsim_dentry) = %zu bytes\n", host->dentry_size);
	if (cfg->shape.hash_bits == BENCH_HASH_BITS_UNKNOWN)
		;	/* a saved report from before --hash-bits */
	else if (cfg->shape.hash_bits)
		fprintf(f, "hash:     2^%u buckets (--hash-bits)\n", cfg->shape.hash_bits);
	else
		fprintf(f, "hash:     16 buckets per dentry of each cell's tree, at most 2^21\n");
	for (unsigned int g = 0; g < cfg->nr_groups; g++) {
		if (*walk_mode(cfg, cfg->groups[g].name)) {
			fprintf(f, "walk:     %s%s\n", cfg->shape.ref_walk ?
				"ref-walk (--ref-walk): a reference on every component" :
				"RCU-walk, ref-walk when it gives up (counters walk_rcu, walk_unlazy)",
				cfg->shape.private_tree ? "; a tree per thread (--private-tree)" : "");
			break;
		}
	}
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

/* The --sharing section of the table: one block per workload. */
static void print_sharing(const struct bench_config *cfg, FILE *f)
{
	const char *last = NULL;

	if (!cfg->sharing)
		return;
	fprintf(f, "\n== sharing: writes per op to cache lines that more than one thread writes ==\n"
		"%s;\n%llu ops per thread per cell after %llu discarded\n",
		BENCH_SHARING_METHOD, (unsigned long long)cfg->share_ops,
		(unsigned long long)cfg->share_warm);
	for (unsigned int i = 0; i < cfg->nr_share; i++) {
		const struct bench_share *r = &cfg->share[i];
		char sw[16], rmw[16], st[16], hp[16], all[16];

		if (!last || strcmp(last, r->group)) {
			fprintf(f, "\n-- %s --\n%3s %-12s %9s %8s %8s %8s %7s %9s\n", r->group, "thr",
				"strategy", "shared/op", "RMW/op", "store/op", "helpers", "lines",
				"writes/op");
			last = r->group;
		}
		fmt_num(sw, sizeof(sw), share_per_op(r, r->rmw + r->stores), "%.3f");
		fmt_num(rmw, sizeof(rmw), share_per_op(r, r->rmw), "%.3f");
		fmt_num(st, sizeof(st), share_per_op(r, r->stores), "%.3f");
		fmt_num(hp, sizeof(hp), share_per_op(r, r->helper), "%.3f");
		fmt_num(all, sizeof(all), share_per_op(r, r->writes), "%.3f");
		fprintf(f, "%3u %-12s %9s %8s %8s %8s %7llu %9s%s\n", r->threads, r->subject, sw, rmw,
			st, hp, (unsigned long long)r->lines, all,
			r->lost_threads ? "  (threads beyond the recorder table not counted)" : "");
	}
	fputs("\ncolumns: shared/op = RMW/op + store/op, writes by any thread to lines written by "
	      "more than one thread,\n"
	      "         per worker op; helpers = the part of those by threads no worker (shrinker, "
	      "call_rcu);\n"
	      "         lines = such lines; writes/op = every recorded write, shared line or not\n",
	      f);
}

static void print_table(const struct bench_config *cfg, const struct bench_host *host, FILE *f)
{
	struct target t[MAX_TARGETS];
	unsigned int nt;

	print_host(cfg, host, f);
	for (unsigned int g = 0; g < cfg->nr_groups && cfg->nr_rows; g++) {
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
	if (cfg->nr_rows)
		fprintf(f, "\ncolumns: Mops/s median total (spread = (max-min)/median over reps); "
		"ns/op = CPU time per op per thread;\n"
		"         x = throughput over %s; xfloor/xspin = ns/op over the floor/spin bound "
		"(per-rep ratios, median);\n"
		"         ci95 = 95%% interval of the median over reps (order statistics), ci\xc2\xb1 = its larger "
		"half-width in %% (- : one rep);\n"
		"         d_lock%% = dputs that took d_lock; retry/op = failed lockref cmpxchg per op;\n"
		"         htm ok%% = committed transactions of those attempted\n",
		cfg->subjects[cfg->baseline].name);

	print_sharing(cfg, f);
	nt = eval_targets(cfg, host, t);
	if (!nt)
		return;
	fprintf(f, "\n== targets ==\n");
	for (unsigned int i = 0; i < nt; i++) {
		bool pct = !strcmp(t[i].id, "final-avoids-dlock") ||
			   !strcmp(t[i].id, "locked-always-dlock");
		char v[64];

		if (pct)
			fmt_num(v, sizeof(v), 100.0 * t[i].value, "%.3f%%");
		else
			fmt_num(v, sizeof(v), t[i].value, "%.3f");
		if (isfinite(t[i].est.lo) && isfinite(t[i].est.hi))
			snprintf(v + strlen(v), sizeof(v) - strlen(v), " [%.3f,%.3f]", t[i].est.lo,
				 t[i].est.hi);
		fprintf(f, "%-12s %-20s %-6s t=%u %-9s %22s %s %g%s  (%s)%s%s\n",
			t[i].verdict, t[i].id, t[i].group, t[i].threads, t[i].subject, v,
			t[i].op, pct ? 100 * t[i].limit : t[i].limit, pct ? "%" : "",
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

/* --sharing: a block of its own (after the timed rows and a blank line, if any). */
static void print_sharing_csv(const struct bench_config *cfg, FILE *f)
{
	fputs("group,threads,subject,ops,shared_writes_per_op,rmw_per_op,stores_per_op,"
	      "helper_per_op,shared_lines,writes_per_op,rmw,stores,helper\n", f);
	for (unsigned int i = 0; i < cfg->nr_share; i++) {
		const struct bench_share *r = &cfg->share[i];

		fprintf(f, "%s,%u,%s,%llu", r->group, r->threads, r->subject,
			(unsigned long long)r->ops);
		csv_num(f, share_per_op(r, r->rmw + r->stores));
		csv_num(f, share_per_op(r, r->rmw));
		csv_num(f, share_per_op(r, r->stores));
		csv_num(f, share_per_op(r, r->helper));
		fprintf(f, ",%llu", (unsigned long long)r->lines);
		csv_num(f, share_per_op(r, r->writes));
		fprintf(f, ",%llu,%llu,%llu\n", (unsigned long long)r->rmw,
			(unsigned long long)r->stores, (unsigned long long)r->helper);
	}
}

static void print_csv(const struct bench_config *cfg, const struct bench_host *host, FILE *f)
{
	if (cfg->sharing) {
		print_sharing_csv(cfg, f);
		if (!cfg->nr_rows)
			return;
		fputc('\n', f);
	}
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
	fputs(",walk_mode", f);
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
		fprintf(f, ",%s", walk_mode(cfg, cfg->groups[row->group].name));
		fputc('\n', f);
	}
}

/* ---- JSON ---- */

/* {"value": .., "ci95_lo": .., "ci95_hi": .., "n": ..} */
static json_t *json_est(const struct bench_est *e)
{
	return json_pack("{s:o, s:o, s:o, s:i}", "value", bj_real(e->med), "ci95_lo", bj_real(e->lo),
			 "ci95_hi", bj_real(e->hi), "n", (int)e->n);
}

/* {"min": .., "median": .., "max": .., "ci95_lo": .., "ci95_hi": ..} */
static json_t *json_spread(double min, double med, double max, const struct bench_est *e)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o}", "min", bj_real(min), "median", bj_real(med),
			 "max", bj_real(max), "ci95_lo", bj_real(e->lo), "ci95_hi", bj_real(e->hi));
}

static json_t *json_reals(const double *v, unsigned int n)
{
	json_t *a = json_array();

	for (unsigned int i = 0; i < n; i++)
		json_array_append_new(a, bj_real(v[i]));
	return a;
}

static json_t *json_strs(const char *const *v, unsigned int n, size_t stride)
{
	json_t *a = json_array();

	for (unsigned int i = 0; i < n; i++)
		json_array_append_new(a, bj_str(*(const char *const *)((const char *)v + i * stride)));
	return a;
}

static json_t *json_host(const struct bench_host *host)
{
	json_t *h = json_object();

	json_object_set_new(h, "cpu", bj_str(host->cpu));
	json_object_set_new(h, "online_cpus", bj_uint(host->online_cpus));
	json_object_set_new(h, "kernel", bj_str(host->kernel));
	json_object_set_new(h, "htm_backend", bj_str(host->htm_backend));
	json_object_set_new(h, "htm_policy", bj_str(host->htm_policy));
	json_object_set_new(h, "htm_cpu", json_boolean(host->htm_cpu));
	json_object_set_new(h, "htm_live", json_boolean(host->htm_live));
	json_object_set_new(h, "rtm_always_abort", json_boolean(host->rtm_always_abort));
	json_object_set_new(h, "dentry_size", bj_uint(host->dentry_size));
	json_object_set_new(h, "load_before",
			    bj_real(host->load_before >= 0 ? host->load_before : NAN));
	json_object_set_new(h, "load_after", bj_real(host->load_after >= 0 ? host->load_after : NAN));
	json_object_set_new(h, "steal_frac", bj_real(host->steal_frac));
	json_object_set_new(h, "others_frac", bj_real(host->others_frac));
	json_object_set_new(h, "self_cpus", bj_real(host->self_cpus));
	json_object_set_new(h, "cpu_mhz", json_pack("{s:o, s:o, s:o, s:o}",
		"min_before", bj_real(host->mhz_min_before), "max_before", bj_real(host->mhz_max_before),
		"min_after", bj_real(host->mhz_min_after), "max_after", bj_real(host->mhz_max_after)));
	json_object_set_new(h, "governor", host->governor[0] ? bj_str(host->governor) : json_null());
	json_object_set_new(h, "boost", host->boost < 0 ? json_null() : json_boolean(host->boost));
	json_object_set_new(h, "busy", json_boolean(host->busy));
	json_object_set_new(h, "busy_why", bj_str(host->busy_why));
	return h;
}

static json_t *json_config(const struct bench_config *cfg)
{
	json_t *c = json_object(), *a;

	json_object_set_new(c, "reps", bj_uint(cfg->reps));
	json_object_set_new(c, "warmup", bj_real(cfg->warmup));
	if (cfg->ci_width > 0)
		json_object_set_new(c, "adaptive", json_pack("{s:o, s:o, s:i, s:s, s:i, s:i, s:o}",
			"ci_width", bj_real(cfg->ci_width), "time_budget_s", bj_real(cfg->time_budget_s),
			"max_reps", (int)cfg->max_reps, "end", cfg->adaptive_end ? cfg->adaptive_end : "",
			"ratios", (int)cfg->adaptive_ratios, "still_wide", (int)cfg->adaptive_wide,
			"run_s", bj_real(cfg->run_s)));
	else
		json_object_set_new(c, "adaptive", json_null());
	json_object_set_new(c, "duration_s", bj_real(cfg->ops ? NAN : cfg->duration_s));
	json_object_set_new(c, "ops_per_thread", bj_uint(cfg->ops));
	json_object_set_new(c, "seed", bj_uint(cfg->seed));
	json_object_set_new(c, "pin", json_boolean(cfg->pin));
	a = json_array();
	for (unsigned int i = 0; i < cfg->nr_cpus; i++)
		json_array_append_new(a, json_integer(cfg->cpus[i]));
	json_object_set_new(c, "cpus", a);
	a = json_array();
	for (unsigned int i = 0; i < cfg->nr_threads; i++)
		json_array_append_new(a, bj_uint(cfg->threads[i]));
	json_object_set_new(c, "threads", a);
	json_object_set_new(c, "groups", json_strs(&cfg->groups[0].name, cfg->nr_groups,
						   sizeof(cfg->groups[0])));
	json_object_set_new(c, "subjects", json_strs(&cfg->subjects[0].name, cfg->nr_subjects,
						     sizeof(cfg->subjects[0])));
	json_object_set_new(c, "baseline", bj_str(cfg->subjects[cfg->baseline].name));
	a = json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:b, s:s, s:b}",
		"depth", (int)cfg->shape.depth, "fanout", (int)cfg->shape.fanout,
		"leaves", (int)cfg->shape.leaves, "files", (int)cfg->shape.files,
		"shrink_batch", (int)cfg->shape.shrink_batch, "shrink_us", (int)cfg->shape.shrink_us,
		"unlink_pct", (int)cfg->shape.unlink_pct, "dirs", (int)cfg->shape.dirs,
		"cold", cfg->shape.cold, "walk_mode", cfg->shape.ref_walk ? "ref" : "rcu",
		"private_tree", cfg->shape.private_tree);
	/* 0: automatic; left out for a report saved before --hash-bits (--from) */
	if (cfg->shape.hash_bits != BENCH_HASH_BITS_UNKNOWN)
		json_object_set_new(a, "hash_bits", json_integer((json_int_t)cfg->shape.hash_bits));
	json_object_set_new(c, "shape", a);
	/* where workers and helpers ran; the cells with more threads than CPUs */
	{
		json_t *p = json_object(), *o = json_array();

		a = json_array();
		for (unsigned int i = 0; i < cfg->nr_worker_cpus; i++)
			json_array_append_new(a, json_integer(cfg->cpus[i]));
		json_object_set_new(p, "worker_cpus", a);
		json_object_set_new(p, "helper_cpu", cfg->helper_cpu >= 0 ?
				    json_integer(cfg->helper_cpu) : json_null());
		json_object_set_new(p, "call_rcu", json_string(cfg->call_rcu == DCSIM_RCU_CB_PER_CPU ?
							       "percpu" : "global"));
		for (unsigned int g = 0; g < cfg->nr_groups; g++)
			for (unsigned int ti = 0; ti < cfg->nr_threads; ti++)
				if (bench_oversubscribed(cfg, &cfg->groups[g], cfg->threads[ti]))
					json_array_append_new(o, json_pack("{s:s, s:i, s:i}",
						"group", cfg->groups[g].name, "threads", (int)cfg->threads[ti],
						"helpers", (int)bench_cell_helpers(cfg, &cfg->groups[g])));
		json_object_set_new(p, "oversubscribed", o);
		json_object_set_new(c, "placement", p);
	}
	a = json_object();
	for (unsigned int i = 0; i < bench_nr_workloads && i < DCSIM_ARRAY_SIZE(cfg->shape.mix); i++)
		if (strcmp(bench_workloads[i]->name, "mixed"))
			json_object_set_new(a, bench_workloads[i]->name, bj_uint(cfg->shape.mix[i]));
	json_object_set_new(c, "mix", a);
	return c;
}

/* The samples of @row, per rep: what --compare resamples and --from reads back. */
static json_t *json_row_samples(const struct bench_config *cfg, const struct bench_row *row)
{
	const struct bench_subject *subj = &cfg->subjects[row->subject];
	const char *g = cfg->groups[row->group].name;
	unsigned int nthr = cfg->threads[row->tidx];
	double v[BENCH_MAX_REPS], w[BENCH_MAX_REPS];
	json_t *sm = json_object(), *reps = json_array();
	unsigned int k = 0;

	for (unsigned int r = 0; r < cfg->reps; r++) {
		if (!row->samples[r].done)
			continue;
		json_array_append_new(reps, bj_uint(r));
		v[k] = bench_sample_ops_s(&row->samples[r]);
		w[k++] = bench_sample_ns_op(&row->samples[r]);
	}
	json_object_set_new(sm, "reps", reps);
	json_object_set_new(sm, "ops_s", json_reals(v, k));
	json_object_set_new(sm, "ns_op", json_reals(w, k));
	k = subj->kind == BENCH_STRATEGY ?
	    bench_ratio_samples(cfg, row, bench_find_row(cfg, g, nthr,
				cfg->subjects[cfg->baseline].name), false, v) : 0;
	json_object_set_new(sm, "vs_baseline", json_reals(v, k));
	k = bench_ratio_samples(cfg, row, bench_find_row(cfg, "bounds", nthr, "floor"), true, v);
	json_object_set_new(sm, "x_floor", json_reals(v, k));
	k = bench_ratio_samples(cfg, row, bench_find_row(cfg, "bounds", nthr, "spin"), true, v);
	json_object_set_new(sm, "x_spin", json_reals(v, k));
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
			json_object_set_new(sm, b == BENCH_NEAR_FLOOR ? "floor_ns_op" : "spin_ns_op",
					    json_reals(v, k));
		}
	}
	return sm;
}

static json_t *json_row(const struct bench_config *cfg, const struct bench_row *row)
{
	const struct bench_subject *subj = &cfg->subjects[row->subject];
	json_t *j = json_object(), *o;
	struct bench_agg a;
	double v[BENCH_MAX_REPS];
	unsigned int k = 0;

	bench_aggregate(cfg, row, &a);
	json_object_set_new(j, "group", bj_str(cfg->groups[row->group].name));
	json_object_set_new(j, "threads", bj_uint(cfg->threads[row->tidx]));
	json_object_set_new(j, "subject", bj_str(subj->name));
	json_object_set_new(j, "kind", json_string(subj->kind == BENCH_BOUND ? "bound" : "strategy"));
	json_object_set_new(j, "reps", bj_uint(a.n));
	json_object_set_new(j, "ops_s", json_spread(a.ops_s_min, a.ops_s_med, a.ops_s_max, &a.ops_s));
	json_object_set_new(j, "ops_s_per_thread", bj_real(a.ops_s_thr_med));
	json_object_set_new(j, "ns_op", json_spread(a.ns_op_min, a.ns_op_med, a.ns_op_max, &a.ns_op));
	json_object_set_new(j, "ratios", json_pack("{s:o, s:o, s:o}", "vs_baseline",
		json_est(&a.r_base), "x_floor", json_est(&a.r_floor), "x_spin", json_est(&a.r_ceil)));
	json_object_set_new(j, "ratio_vs_baseline", bj_real(a.ratio_base));
	json_object_set_new(j, "x_floor", bj_real(a.x_floor));
	json_object_set_new(j, "x_spin", bj_real(a.x_ceil));
	json_object_set_new(j, "ops", bj_uint(a.ops));
	json_object_set_new(j, "dputs", a.c.have_cache ? json_integer(a.c.v[DCSIM_CS_DPUT]) :
				json_null());
	json_object_set_new(j, "dputs_locked", a.c.have_cache ?
			    json_integer(a.c.v[DCSIM_CS_DPUT_LOCKED]) : json_null());
	json_object_set_new(j, "fast_hits", a.c.have_cache ? json_integer(fast_hits(&a)) :
			    json_null());
	json_object_set_new(j, "slow_path_fraction", bj_real(slow_fraction(&a)));
	json_object_set_new(j, "lockref_retries", bj_uint(a.st.v[DCSIM_STAT_LOCKREF_RETRIES]));
	json_object_set_new(j, "lockref_fallbacks", bj_uint(a.st.v[DCSIM_STAT_LOCKREF_FALLBACKS]));
	json_object_set_new(j, "retries_per_op",
			    bj_real(frac(a.st.v[DCSIM_STAT_LOCKREF_RETRIES], a.ops)));
	o = json_pack("{s:o, s:o, s:o, s:o}",
		      "attempts", bj_uint(a.st.v[DCSIM_STAT_HTM_ATTEMPTS]),
		      "commits", bj_uint(a.st.v[DCSIM_STAT_HTM_COMMITS]),
		      "aborts", bj_uint(a.st.v[DCSIM_STAT_HTM_ABORTS]),
		      "commit_rate", bj_real(commit_rate(&a)));
	{
		json_t *by = json_object(), *codes = json_object(), *model = json_object();
		char key[16];

		for (int c = 0; c < DCSIM_HTM_CAUSE_NR; c++)
			json_object_set_new(by, dcsim_htm_cause_name(c), bj_uint(aborts_by(&a, c)));
		for (unsigned int i = 0; i < DCSIM_ARRAY_SIZE(a.st.htm_explicit_code); i++) {
			if (!a.st.htm_explicit_code[i])
				continue;
			snprintf(key, sizeof(key), "%u", i);
			json_object_set_new(codes, key, bj_uint(a.st.htm_explicit_code[i]));
		}
		for (unsigned int i = 0; i < DCSIM_ARRAY_SIZE(model_reasons); i++)
			json_object_set_new(model, model_reasons[i].name,
					    json_integer(a.c.v[model_reasons[i].stat]));
		json_object_set_new(o, "aborts_by_cause", by);
		json_object_set_new(o, "explicit_codes", codes);
		json_object_set_new(o, "model_aborts", model);
	}
	json_object_set_new(j, "htm", o);
	if (a.c.have_cache) {
		/* every counter of the cache, by its stable name */
		o = json_object();
		for (int i = 0; i < DCSIM_CS_NR_DENTRY; i++)
			json_object_set_new(o, dcsim_cache_stat_name(i), json_integer(a.c.v[i]));
		json_object_set_new(j, "model", o);
	} else {
		json_object_set_new(j, "model", json_null());
	}
	json_object_set_new(j, "samples", json_row_samples(cfg, row));
	for (unsigned int r = 0; r < cfg->reps; r++)
		if (row->samples[r].done)
			v[k++] = bench_sample_ops_s(&row->samples[r]);
	json_object_set_new(j, "samples_ops_s", json_reals(v, k));
	return j;
}

static json_t *json_sharing(const struct bench_config *cfg)
{
	json_t *j, *rows;

	if (!cfg->sharing)
		return json_null();
	rows = json_array();
	for (unsigned int i = 0; i < cfg->nr_share; i++) {
		const struct bench_share *r = &cfg->share[i];

		json_array_append_new(rows, json_pack(
			"{s:s, s:i, s:s, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i}",
			"group", r->group, "threads", (int)r->threads, "subject", r->subject,
			"done", r->done, "ops", bj_uint(r->ops),
			"shared_writes_per_op", bj_real(share_per_op(r, r->rmw + r->stores)),
			"rmw_per_op", bj_real(share_per_op(r, r->rmw)),
			"stores_per_op", bj_real(share_per_op(r, r->stores)),
			"helper_per_op", bj_real(share_per_op(r, r->helper)),
			"writes_per_op", bj_real(share_per_op(r, r->writes)),
			"rmw", bj_uint(r->rmw), "stores", bj_uint(r->stores),
			"helper", bj_uint(r->helper), "shared_lines", bj_uint(r->lines),
			"lost_threads", (int)r->lost_threads));
		json_object_set_new(json_array_get(rows, json_array_size(rows) - 1), "writes",
				    bj_uint(r->writes));
	}
	j = json_pack("{s:s, s:i, s:o, s:o, s:o}", "method", BENCH_SHARING_METHOD,
		      "line_bytes", 64, "ops_per_thread", bj_uint(cfg->share_ops),
		      "warmup_ops_per_thread", bj_uint(cfg->share_warm), "rows", rows);
	return j;
}

static void print_json(const struct bench_config *cfg, const struct bench_host *host, FILE *f)
{
	struct target t[MAX_TARGETS];
	unsigned int nt = eval_targets(cfg, host, t);
	json_t *doc = json_object(), *a;

	json_object_set_new(doc, "tool", json_string("dcsim-bench"));
	json_object_set_new(doc, "version", bj_str(host->version));
	json_object_set_new(doc, "date", bj_str(host->when));
	json_object_set_new(doc, "command", bj_str(cfg->cmdline));
	json_object_set_new(doc, "host", json_host(host));
	json_object_set_new(doc, "config", json_config(cfg));
	a = json_array();
	for (unsigned int i = 0; i < cfg->nr_rows; i++)
		json_array_append_new(a, json_row(cfg, &cfg->rows[i]));
	json_object_set_new(doc, "rows", a);
	json_object_set_new(doc, "sharing", json_sharing(cfg));
	a = json_array();
	for (unsigned int i = 0; i < nt; i++) {
		json_t *tg = json_object();

		json_object_set_new(tg, "id", bj_str(t[i].id));
		json_object_set_new(tg, "what", bj_str(t[i].what));
		json_object_set_new(tg, "group", bj_str(t[i].group));
		json_object_set_new(tg, "threads", bj_uint(t[i].threads));
		json_object_set_new(tg, "subject", bj_str(t[i].subject));
		json_object_set_new(tg, "value", bj_real(t[i].value));
		json_object_set_new(tg, "ci95_lo", bj_real(t[i].est.lo));
		json_object_set_new(tg, "ci95_hi", bj_real(t[i].est.hi));
		json_object_set_new(tg, "op", bj_str(t[i].op));
		json_object_set_new(tg, "limit", bj_real(t[i].limit));
		json_object_set_new(tg, "pass", json_boolean(t[i].pass));
		json_object_set_new(tg, "verdict", bj_str(t[i].verdict));
		json_object_set_new(tg, "note", bj_str(t[i].note));
		json_array_append_new(a, tg);
	}
	json_object_set_new(doc, "targets", a);
	if (bench_json_dump(doc, f))
		fprintf(stderr, "dcsim-bench: writing the JSON report failed\n");
	json_decref(doc);
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
