// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The report writers: the table, CSV and JSON of a run (or of a saved one,
 * from.c), from the aggregated rows (aggregate.c) and the targets
 * (targets.c).  Every format carries the same figures with their 95%
 * intervals.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/htm.h>

#include "bench.h"
#include "json.h"
#include "figures.h"
#include "targets.h"

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
	struct bench_target t[BENCH_MAX_TARGETS];
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
	nt = bench_eval_targets(cfg, host, t);
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
	struct bench_target t[BENCH_MAX_TARGETS];
	unsigned int nt = bench_eval_targets(cfg, host, t);
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
