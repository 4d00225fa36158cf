// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * --from FILE.json: the reports of a saved run, redrawn without running.
 *
 * A run on a machine without gnuplot (the many-core host of
 * bench/scaling-run.sh) brings back only its JSON.  This reads that JSON
 * into the configuration, host facts and per-rep samples the run had, and
 * hands them to the same report code: the table, CSV and JSON (with the
 * targets, evaluated again) and --plot come out as the run would have
 * printed them.  What the reports are computed from is in the JSON: every
 * rep's throughput and ns/op (reals with 17 digits, so the same doubles),
 * the floor and spin bounds of each row's block, and the counters summed
 * over the reps (put back on the row's first rep, since only sums are
 * reported).  A --sharing report reads back its sharing rows.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/htm.h>
#include <dcsim/stats.h>
#include <dcsim/strategy.h>

#include "bench.h"
#include "json.h"

#define PROG "dcsim-bench"

static uint64_t get_u64(const json_t *obj, const char *key)
{
	const json_t *j = json_object_get(obj, key);

	if (json_is_integer(j))
		return json_integer_value(j) > 0 ? (uint64_t)json_integer_value(j) : 0;
	return isfinite(bj_num(j)) && bj_num(j) > 0 ? (uint64_t)bj_num(j) : 0;
}

/* A real read back, with null as NAN (or @dflt where the writer mapped it). */
static double get_real(const json_t *obj, const char *key, double dflt)
{
	double v = bj_get_num(obj, key);

	return isfinite(v) ? v : dflt;
}

static void copy_str(char *dst, size_t len, const char *s)
{
	snprintf(dst, len, "%s", s ? s : "");
}

static int bad_file(const char *path, const char *why)
{
	fprintf(stderr, PROG ": --from: '%s': %s\n", path, why);
	return 2;
}

static void read_host(const json_t *h, const json_t *doc, struct bench_host *host)
{
	const json_t *mhz = json_object_get(h, "cpu_mhz");

	memset(host, 0, sizeof(*host));
	copy_str(host->cpu, sizeof(host->cpu), bj_get_str(h, "cpu"));
	host->online_cpus = (unsigned int)get_u64(h, "online_cpus");
	copy_str(host->kernel, sizeof(host->kernel), bj_get_str(h, "kernel"));
	host->htm_backend = bj_get_str(h, "htm_backend") ? bj_get_str(h, "htm_backend") : "?";
	host->htm_policy = bj_get_str(h, "htm_policy") ? bj_get_str(h, "htm_policy") : "?";
	host->htm_cpu = json_is_true(json_object_get(h, "htm_cpu"));
	host->htm_live = json_is_true(json_object_get(h, "htm_live"));
	host->htm_none = !strcmp(host->htm_backend, "none");
	host->rtm_always_abort = json_is_true(json_object_get(h, "rtm_always_abort"));
	host->dentry_size = get_u64(h, "dentry_size");
	host->load_before = get_real(h, "load_before", -1);
	host->load_after = get_real(h, "load_after", -1);
	host->steal_frac = get_real(h, "steal_frac", NAN);
	host->others_frac = get_real(h, "others_frac", NAN);
	host->self_cpus = get_real(h, "self_cpus", NAN);
	host->mhz_min_before = get_real(mhz, "min_before", NAN);
	host->mhz_max_before = get_real(mhz, "max_before", NAN);
	host->mhz_min_after = get_real(mhz, "min_after", NAN);
	host->mhz_max_after = get_real(mhz, "max_after", NAN);
	copy_str(host->governor, sizeof(host->governor), bj_get_str(h, "governor"));
	host->boost = json_is_boolean(json_object_get(h, "boost")) ?
		      json_is_true(json_object_get(h, "boost")) : -1;
	host->busy = json_is_true(json_object_get(h, "busy"));
	copy_str(host->busy_why, sizeof(host->busy_why), bj_get_str(h, "busy_why"));
	copy_str(host->when, sizeof(host->when), bj_get_str(doc, "date"));
	host->version = bj_get_str(doc, "version") ? bj_get_str(doc, "version") : "?";
}

static const struct bench_workload *bound_of(const char *name)
{
	static const struct {
		const char *name;
		const struct bench_workload *wl;
	} b[] = {
		{ "floor", &bench_bound_floor }, { "cmpxchg", &bench_bound_cmpxchg },
		{ "spin", &bench_bound_spin }, { "raw-lockref", &bench_bound_lockref },
	};

	for (unsigned int i = 0; i < DCSIM_ARRAY_SIZE(b); i++)
		if (!strcmp(b[i].name, name))
			return b[i].wl;
	return NULL;
}

/* Return: 0, or 2 with a message. */
static int read_config(const char *path, const json_t *c, const json_t *doc,
		       struct bench_config *cfg)
{
	const json_t *a, *v, *shape = json_object_get(c, "shape"), *ad;
	const char *base = bj_get_str(c, "baseline");
	size_t i;

	copy_str(cfg->cmdline, sizeof(cfg->cmdline), bj_get_str(doc, "command"));
	cfg->reps = (unsigned int)get_u64(c, "reps");
	if (!cfg->reps || cfg->reps > BENCH_MAX_REPS)
		return bad_file(path, "config.reps is not a repetition count");
	cfg->max_reps = cfg->reps;
	cfg->warmup = get_real(c, "warmup", 0);
	ad = json_object_get(c, "adaptive");
	if (json_is_object(ad)) {
		cfg->ci_width = get_real(ad, "ci_width", 0);
		cfg->time_budget_s = get_real(ad, "time_budget_s", 0);
		cfg->adaptive_end = bj_get_str(ad, "end");
		cfg->adaptive_ratios = (unsigned int)get_u64(ad, "ratios");
		cfg->adaptive_wide = (unsigned int)get_u64(ad, "still_wide");
		cfg->run_s = get_real(ad, "run_s", NAN);
		if (get_u64(ad, "max_reps") > cfg->reps && get_u64(ad, "max_reps") <= BENCH_MAX_REPS)
			cfg->max_reps = (unsigned int)get_u64(ad, "max_reps");
	}
	cfg->duration_s = get_real(c, "duration_s", 0);
	cfg->ops = get_u64(c, "ops_per_thread");
	cfg->seed = get_u64(c, "seed");
	cfg->pin = json_is_true(json_object_get(c, "pin"));
	a = json_object_get(c, "cpus");
	json_array_foreach(a, i, v)
		if (cfg->nr_cpus < BENCH_MAX_THREADS)
			cfg->cpus[cfg->nr_cpus++] = (int)json_integer_value(v);
	a = json_object_get(c, "threads");
	json_array_foreach(a, i, v) {
		if (cfg->nr_threads == DCSIM_ARRAY_SIZE(cfg->threads) || !json_is_integer(v) ||
		    json_integer_value(v) < 1 || json_integer_value(v) > BENCH_MAX_THREADS)
			return bad_file(path, "config.threads is not a list of thread counts");
		cfg->threads[cfg->nr_threads++] = (unsigned int)json_integer_value(v);
	}
	if (!cfg->nr_threads)
		return bad_file(path, "config.threads is empty");
	a = json_object_get(c, "subjects");
	json_array_foreach(a, i, v) {
		const char *name = json_string_value(v);
		struct bench_subject *s;

		if (!name || cfg->nr_subjects == DCSIM_ARRAY_SIZE(cfg->subjects))
			return bad_file(path, "config.subjects is not a list of names");
		s = &cfg->subjects[cfg->nr_subjects];
		if (cfg->nr_subjects < BENCH_NR_BOUNDS) {
			/* the four bounds come first, as every run measures them */
			*s = (struct bench_subject){ name, BENCH_BOUND, NULL, bound_of(name) };
			if (!s->bound)
				return bad_file(path, "config.subjects does not start with the bounds");
		} else {
			/* NULL for a strategy this binary lacks (a --load plugin): name only */
			*s = (struct bench_subject){ name, BENCH_STRATEGY,
						     dcsim_strategy_lookup(name), NULL };
		}
		if (base && !strcmp(base, name))
			cfg->baseline = cfg->nr_subjects;
		cfg->nr_subjects++;
	}
	if (cfg->nr_subjects < BENCH_NR_BOUNDS)
		return bad_file(path, "config.subjects lacks the bounds");
	a = json_object_get(c, "groups");
	json_array_foreach(a, i, v) {
		const char *name = json_string_value(v);
		struct bench_group *g;

		if (!name || cfg->nr_groups == DCSIM_ARRAY_SIZE(cfg->groups))
			return bad_file(path, "config.groups is not a list of names");
		g = &cfg->groups[cfg->nr_groups];
		if (!cfg->nr_groups) {
			if (strcmp(name, "bounds"))
				return bad_file(path, "config.groups does not start with bounds");
			*g = (struct bench_group){ .name = name, .first_subject = 0,
						   .nr_subjects = BENCH_NR_BOUNDS };
		} else {
			*g = (struct bench_group){ .name = name, .wl = bench_workload_find(name),
				.first_subject = BENCH_NR_BOUNDS,
				.nr_subjects = cfg->nr_subjects - BENCH_NR_BOUNDS };
			if (!g->wl) {
				fprintf(stderr, PROG ": --from: '%s': workload '%s' is not one this "
					"dcsim-bench knows\n", path, name);
				return 2;
			}
		}
		cfg->nr_groups++;
	}
	if (!cfg->nr_groups)
		return bad_file(path, "config.groups is empty");
	cfg->shape.depth = (unsigned int)get_u64(shape, "depth");
	cfg->shape.fanout = (unsigned int)get_u64(shape, "fanout");
	cfg->shape.leaves = (unsigned int)get_u64(shape, "leaves");
	cfg->shape.files = (unsigned int)get_u64(shape, "files");
	cfg->shape.shrink_batch = (unsigned int)get_u64(shape, "shrink_batch");
	cfg->shape.shrink_us = (unsigned int)get_u64(shape, "shrink_us");
	cfg->shape.unlink_pct = (unsigned int)get_u64(shape, "unlink_pct");
	cfg->shape.cold = json_is_true(json_object_get(shape, "cold"));
	/* absent before --private-tree: shared trees */
	cfg->shape.private_tree = json_is_true(json_object_get(shape, "private_tree"));
	/* absent before --hash-bits, whose automatic table was 16 times denser */
	cfg->shape.hash_bits = json_object_get(shape, "hash_bits") ?
			       (unsigned int)get_u64(shape, "hash_bits") : BENCH_HASH_BITS_UNKNOWN;
	/* absent from reports before --dirs, whose churn had 4 directories */
	cfg->shape.dirs = (unsigned int)get_u64(shape, "dirs");
	if (!cfg->shape.dirs)
		cfg->shape.dirs = 4;
	/* absent from reports before helper placement: workers on every CPU */
	{
		const json_t *p = json_object_get(c, "placement"), *h, *pv;
		size_t pi;

		cfg->nr_worker_cpus = cfg->nr_cpus;
		cfg->helper_cpu = -1;
		cfg->call_rcu = DCSIM_RCU_CB_GLOBAL;
		if (json_is_object(p)) {
			if (json_is_array(json_object_get(p, "worker_cpus")))
				cfg->nr_worker_cpus = 0;
			json_array_foreach(json_object_get(p, "worker_cpus"), pi, pv)
				if (cfg->nr_worker_cpus < cfg->nr_cpus)
					cfg->cpus[cfg->nr_worker_cpus++] = (int)json_integer_value(pv);
			h = json_object_get(p, "helper_cpu");
			if (json_is_integer(h))
				cfg->helper_cpu = (int)json_integer_value(h);
			pv = json_object_get(p, "call_rcu");
			if (json_is_string(pv) && !strcmp(json_string_value(pv), "percpu"))
				cfg->call_rcu = DCSIM_RCU_CB_PER_CPU;
		}
	}
	/* absent from reports before RCU-walk, which were all ref-walk */
	{
		const char *wm = json_string_value(json_object_get(shape, "walk_mode"));

		cfg->shape.ref_walk = !wm || !strcmp(wm, "ref");
	}
	for (unsigned int w = 0; w < bench_nr_workloads && w < DCSIM_ARRAY_SIZE(cfg->shape.mix); w++)
		cfg->shape.mix[w] = (unsigned int)get_u64(json_object_get(c, "mix"),
							  bench_workloads[w]->name);
	return 0;
}

static int index_of_threads(const struct bench_config *cfg, double t)
{
	for (unsigned int i = 0; i < cfg->nr_threads; i++)
		if (cfg->threads[i] == t)
			return (int)i;
	return -1;
}

/* The counters a report sums over reps, onto @s (the row's first rep). */
static void read_counters(const json_t *row, struct bench_sample *s)
{
	const json_t *model = json_object_get(row, "model"), *htm = json_object_get(row, "htm");
	const json_t *by = json_object_get(htm, "aborts_by_cause");
	const json_t *codes = json_object_get(htm, "explicit_codes"), *v;
	const char *key;

	s->ops = get_u64(row, "ops");
	s->c.have_cache = json_is_object(model);
	for (int i = 0; i < DCSIM_CS_NR_DENTRY && s->c.have_cache; i++)
		s->c.v[i] = json_integer_value(json_object_get(model, dcsim_cache_stat_name(i)));
	s->st.v[DCSIM_STAT_LOCKREF_RETRIES] = get_u64(row, "lockref_retries");
	s->st.v[DCSIM_STAT_LOCKREF_FALLBACKS] = get_u64(row, "lockref_fallbacks");
	s->st.v[DCSIM_STAT_HTM_ATTEMPTS] = get_u64(htm, "attempts");
	s->st.v[DCSIM_STAT_HTM_COMMITS] = get_u64(htm, "commits");
	s->st.v[DCSIM_STAT_HTM_ABORTS] = get_u64(htm, "aborts");
	for (int c = 0; c < DCSIM_HTM_CAUSE_NR; c++)
		s->st.v[DCSIM_STAT_HTM_ABORT_FIRST + c] = get_u64(by, dcsim_htm_cause_name(c));
	json_object_foreach((json_t *)codes, key, v) {
		unsigned long k = strtoul(key, NULL, 10);

		if (k < DCSIM_ARRAY_SIZE(s->st.htm_explicit_code))
			s->st.htm_explicit_code[k] = json_is_integer(v) ?
				(uint64_t)json_integer_value(v) : 0;
	}
}

/* One row and its samples; Return: 0 or 2. */
static int read_row(const char *path, struct bench_config *cfg, const json_t *jr,
		    struct bench_row *row)
{
	const json_t *sm = json_object_get(jr, "samples"), *reps = json_object_get(sm, "reps");
	const json_t *ops_s = json_object_get(sm, "ops_s"), *ns_op = json_object_get(sm, "ns_op");
	const char *g = bj_get_str(jr, "group"), *s = bj_get_str(jr, "subject");
	int ti = index_of_threads(cfg, bj_get_num(jr, "threads"));
	bool first = true;
	size_t k;
	json_t *v;

	row->group = row->subject = UINT32_MAX;
	for (unsigned int i = 0; g && i < cfg->nr_groups; i++)
		if (!strcmp(cfg->groups[i].name, g))
			row->group = i;
	for (unsigned int i = 0; s && i < cfg->nr_subjects; i++)
		if (!strcmp(cfg->subjects[i].name, s))
			row->subject = i;
	if (row->group == UINT32_MAX || row->subject == UINT32_MAX || ti < 0)
		return bad_file(path, "a row names a group, subject or thread count not in config");
	row->tidx = (unsigned int)ti;
	if (!json_is_array(reps) || json_array_size(ops_s) != json_array_size(reps) ||
	    json_array_size(ns_op) != json_array_size(reps))
		return bad_file(path, "a row lacks its per-rep samples (an older dcsim-bench "
				"wrote it)");
	row->samples = calloc(cfg->max_reps, sizeof(*row->samples));
	row->agg = calloc(1, sizeof(*row->agg));
	if (!row->samples || !row->agg)
		return 1;
	json_array_foreach(reps, k, v) {
		json_int_t r = json_integer_value(v);
		struct bench_sample *smp;

		if (!json_is_integer(v) || r < 0 || r >= (json_int_t)cfg->reps)
			return bad_file(path, "a row's samples.reps is not a list of reps");
		smp = &row->samples[r];
		smp->done = true;
		smp->ops_s = bj_num(json_array_get(ops_s, k));
		smp->ns_op = bj_num(json_array_get(ns_op, k));
		if (first)
			read_counters(jr, smp);
		first = false;
		if (!row->group)
			continue;
		/* the floor and spin bounds of this row's block, in this rep */
		for (unsigned int b = 0; b < BENCH_NR_NEAR; b++) {
			double x = bj_num(json_array_get(json_object_get(sm, b == BENCH_NEAR_FLOOR ?
						"floor_ns_op" : "spin_ns_op"), k));
			struct bench_sample *nb = bench_near_bound(cfg, row->group, row->tidx, b,
								   (unsigned int)r);

			nb->done = isfinite(x);
			nb->ns_op = x;
			nb->ops_s = NAN;
		}
	}
	return 0;
}

static int read_sharing(const char *path, struct bench_config *cfg, const json_t *sh)
{
	const json_t *rows = json_object_get(sh, "rows"), *v;
	size_t i;

	cfg->sharing = true;
	cfg->share_ops = get_u64(sh, "ops_per_thread");
	cfg->share_warm = get_u64(sh, "warmup_ops_per_thread");
	cfg->share = calloc(json_array_size(rows) + 1, sizeof(*cfg->share));
	if (!cfg->share)
		return 1;
	json_array_foreach(rows, i, v) {
		struct bench_share *r = &cfg->share[cfg->nr_share++];

		r->group = bj_get_str(v, "group");
		r->subject = bj_get_str(v, "subject");
		if (!r->group || !r->subject)
			return bad_file(path, "a sharing row lacks its group or subject");
		r->threads = (unsigned int)get_u64(v, "threads");
		r->done = json_is_true(json_object_get(v, "done"));
		r->ops = get_u64(v, "ops");
		r->rmw = get_u64(v, "rmw");
		r->stores = get_u64(v, "stores");
		r->helper = get_u64(v, "helper");
		r->lines = get_u64(v, "shared_lines");
		r->writes = get_u64(v, "writes");
		r->lost_threads = (unsigned int)get_u64(v, "lost_threads");
	}
	return 0;
}

int bench_from(const char *path, enum bench_format fmt, const char *plot, FILE *out)
{
	static struct bench_config cfg;
	struct bench_host host;
	json_t *doc = bench_json_load(path, "--from");
	const json_t *rows, *jr, *sh;
	int err = 0;
	size_t i;

	if (!doc)
		return 2;
	rows = json_object_get(doc, "rows");
	if (!bj_get_str(doc, "tool") || strcmp(bj_get_str(doc, "tool"), "dcsim-bench") ||
	    !json_is_array(rows) || !json_is_object(json_object_get(doc, "config")) ||
	    !json_is_object(json_object_get(doc, "host"))) {
		err = bad_file(path, "not a dcsim-bench JSON report (--format json; a --compare "
			       "report cannot be redrawn)");
		goto out;
	}
	err = read_config(path, json_object_get(doc, "config"), doc, &cfg);
	if (err)
		goto out;
	read_host(json_object_get(doc, "host"), doc, &host);
	cfg.format = fmt;
	cfg.plot = plot;
	cfg.rows = calloc(json_array_size(rows) + 1, sizeof(*cfg.rows));
	cfg.near_bounds = calloc((size_t)cfg.nr_groups * cfg.nr_threads * BENCH_NR_NEAR *
				 cfg.max_reps, sizeof(*cfg.near_bounds));
	if (!cfg.rows || !cfg.near_bounds) {
		err = 1;
		goto out;
	}
	json_array_foreach(rows, i, jr) {
		err = read_row(path, &cfg, jr, &cfg.rows[cfg.nr_rows]);
		if (err)
			goto out;
		cfg.nr_rows++;
	}
	sh = json_object_get(doc, "sharing");
	if (json_is_object(sh)) {
		err = read_sharing(path, &cfg, sh);
		if (err)
			goto out;
	}
	if (!cfg.nr_rows && !cfg.sharing) {
		err = bad_file(path, "the report has neither rows nor sharing figures");
		goto out;
	}
	bench_report(&cfg, &host, out);
	if (plot) {
		if (!cfg.nr_rows)
			err = bad_file(path, "a --sharing report has no timed rows to plot");
		else if (bench_plot(&cfg, &host, plot))
			err = 1;
	}
out:
	for (unsigned int r = 0; cfg.rows && r <= cfg.nr_rows; r++) {
		free(cfg.rows[r].samples);
		free(cfg.rows[r].agg);
	}
	free(cfg.rows);
	free(cfg.near_bounds);
	free(cfg.share);
	json_decref(doc);
	return err;
}
