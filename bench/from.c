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

#define _GNU_SOURCE	/* CPU_SETSIZE */
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/htm.h>
#include <dcsim/stats.h>
#include <dcsim/strategy.h>

#include "bench.h"
#include "json.h"

#define PROG "dcsim-bench"

/*
 * The reader's state: the file, and the first error.  Every figure is read
 * against the range the writer can produce, so a damaged or hand-edited
 * report (a negative CPU count, hash_bits 99, a thread count of 1e300,
 * whose conversion to an integer is undefined) is an error naming the
 * field, never a report drawn from nonsense.
 */
struct rd {
	const char *path;
	int err;
};

static void rd_bad(struct rd *rd, const char *where, const char *key, const json_t *j,
		   const char *want)
{
	char *text = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;

	if (!rd->err)
		fprintf(stderr, PROG ": --from: '%s': %s%s%s is %.40s, not %s\n", rd->path,
			where, *where && key[0] != '[' ? "." : "", key, text ? text : "missing", want);
	rd->err = 2;
	free(text);
}

/* What a member must be: a whole number in [umin, umax], else a number in [dmin, dmax]. */
struct rd_range {
	bool whole;
	uint64_t umin, umax;
	double dmin, dmax;
};

/*
 * Number member @key of @obj (named @where in messages), checked against
 * @r: the one check behind rd_uint() and rd_real().  Whole numbers are
 * compared as integers (COUNT_MAX has no exact double).
 * Return: 0 when it is missing or null (older reports lack some members;
 * null is the writer's non-finite), 1 when it is in range (*u or *d set),
 * -1 after reporting anything else.
 */
static int rd_num(struct rd *rd, const json_t *obj, const char *where, const char *key,
		  const struct rd_range *r, uint64_t *u, double *d)
{
	const json_t *j = json_object_get(obj, key);
	char want[96];

	if (!j || json_is_null(j))
		return 0;
	if (r->whole) {
		json_int_t v = json_is_integer(j) ? json_integer_value(j) : -1;

		if (json_is_integer(j) && v >= 0 && (uint64_t)v >= r->umin && (uint64_t)v <= r->umax) {
			*u = (uint64_t)v;
			return 1;
		}
		snprintf(want, sizeof(want), "a whole number in %" PRIu64 "..%" PRIu64, r->umin,
			 r->umax);
	} else {
		double v = bj_num(j);

		if (json_is_number(j) && v >= r->dmin && v <= r->dmax) {
			*d = v;
			return 1;
		}
		snprintf(want, sizeof(want), "a number in %g..%g", r->dmin, r->dmax);
	}
	rd_bad(rd, where, key, j, want);
	return -1;
}

/* An integer member in [min, max]; missing, null or bad: @absent (bad is an error too). */
static uint64_t rd_uint(struct rd *rd, const json_t *obj, const char *where, const char *key,
			uint64_t min, uint64_t max, uint64_t absent)
{
	const struct rd_range r = { .whole = true, .umin = min, .umax = max };
	uint64_t v;

	return rd_num(rd, obj, where, key, &r, &v, NULL) == 1 ? v : absent;
}

/* A real member in [min, max]; missing, null or bad: @dflt (bad is an error too). */
static double rd_real(struct rd *rd, const json_t *obj, const char *where, const char *key,
		      double min, double max, double dflt)
{
	const struct rd_range r = { .dmin = min, .dmax = max };
	double v;

	return rd_num(rd, obj, where, key, &r, NULL, &v) == 1 ? v : dflt;
}

/* An array element in [min, max] ("config.cpus[3]"). */
static int64_t rd_elem(struct rd *rd, const json_t *v, const char *where, size_t i,
		       int64_t min, int64_t max)
{
	char key[32], want[96];

	if (json_is_integer(v) && json_integer_value(v) >= min && json_integer_value(v) <= max)
		return json_integer_value(v);
	snprintf(key, sizeof(key), "[%zu]", i);
	snprintf(want, sizeof(want), "a whole number in %" PRId64 "..%" PRId64, min, max);
	if (!rd->err)
		rd_bad(rd, where, key, v, want);
	return min;
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

static void read_host(struct rd *rd, const json_t *h, const json_t *doc, struct bench_host *host)
{
	const json_t *mhz = json_object_get(h, "cpu_mhz");

	memset(host, 0, sizeof(*host));
	copy_str(host->cpu, sizeof(host->cpu), bj_get_str(h, "cpu"));
	host->online_cpus = (unsigned int)rd_uint(rd, h, "host", "online_cpus", 0, CPU_SETSIZE, 0);
	copy_str(host->kernel, sizeof(host->kernel), bj_get_str(h, "kernel"));
	host->htm_backend = bj_get_str(h, "htm_backend") ? bj_get_str(h, "htm_backend") : "?";
	host->htm_policy = bj_get_str(h, "htm_policy") ? bj_get_str(h, "htm_policy") : "?";
	host->htm_cpu = json_is_true(json_object_get(h, "htm_cpu"));
	host->htm_live = json_is_true(json_object_get(h, "htm_live"));
	host->htm_none = !strcmp(host->htm_backend, "none");
	host->rtm_always_abort = json_is_true(json_object_get(h, "rtm_always_abort"));
	host->dentry_size = rd_uint(rd, h, "host", "dentry_size", 0, 1u << 20, 0);
	host->load_before = rd_real(rd, h, "host", "load_before", -1, 1e6, -1);
	host->load_after = rd_real(rd, h, "host", "load_after", -1, 1e6, -1);
	host->steal_frac = rd_real(rd, h, "host", "steal_frac", 0, 1, NAN);
	host->others_frac = rd_real(rd, h, "host", "others_frac", 0, 1, NAN);
	host->self_cpus = rd_real(rd, h, "host", "self_cpus", 0, CPU_SETSIZE, NAN);
	host->mhz_min_before = rd_real(rd, mhz, "host.cpu_mhz", "min_before", 0, 1e6, NAN);
	host->mhz_max_before = rd_real(rd, mhz, "host.cpu_mhz", "max_before", 0, 1e6, NAN);
	host->mhz_min_after = rd_real(rd, mhz, "host.cpu_mhz", "min_after", 0, 1e6, NAN);
	host->mhz_max_after = rd_real(rd, mhz, "host.cpu_mhz", "max_after", 0, 1e6, NAN);
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
static int read_config(struct rd *rd, const json_t *c, const json_t *doc,
		       struct bench_config *cfg)
{
	const char *path = rd->path;
	const json_t *a, *v, *shape = json_object_get(c, "shape"), *ad;
	const char *base = bj_get_str(c, "baseline");
	size_t i;

	copy_str(cfg->cmdline, sizeof(cfg->cmdline), bj_get_str(doc, "command"));
	cfg->reps = (unsigned int)rd_uint(rd, c, "config", "reps", 1, BENCH_MAX_REPS, 0);
	if (!cfg->reps)
		return rd->err ? rd->err : bad_file(path, "config.reps is not a repetition count");
	cfg->max_reps = cfg->reps;
	cfg->warmup = rd_real(rd, c, "config", "warmup", 0, 0.9, 0);
	ad = json_object_get(c, "adaptive");
	if (json_is_object(ad)) {
		uint64_t mr = rd_uint(rd, ad, "config.adaptive", "max_reps", 1, BENCH_MAX_REPS, 0);

		cfg->ci_width = rd_real(rd, ad, "config.adaptive", "ci_width", 0, 1, 0);
		cfg->time_budget_s = rd_real(rd, ad, "config.adaptive", "time_budget_s", 0, 86400, 0);
		cfg->adaptive_end = bj_get_str(ad, "end");
		cfg->adaptive_ratios = (unsigned int)rd_uint(rd, ad, "config.adaptive", "ratios", 0,
							     1u << 20, 0);
		cfg->adaptive_wide = (unsigned int)rd_uint(rd, ad, "config.adaptive", "still_wide", 0,
							   1u << 20, 0);
		cfg->run_s = rd_real(rd, ad, "config.adaptive", "run_s", 0, 1e9, NAN);
		if (mr > cfg->reps)
			cfg->max_reps = (unsigned int)mr;
	}
	cfg->duration_s = rd_real(rd, c, "config", "duration_s", 0, 3600, 0);
	cfg->ops = rd_uint(rd, c, "config", "ops_per_thread", 0, 1ull << 40, 0);
	/* Any 64 bits: the writer's integer is signed, so a seed of 2^63 or more reads negative. */
	v = json_object_get(c, "seed");
	if (v && !json_is_null(v) && !json_is_integer(v))
		rd_bad(rd, "config", "seed", v, "a whole number");
	cfg->seed = json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0;
	cfg->pin = json_is_true(json_object_get(c, "pin"));
	a = json_object_get(c, "cpus");
	if (json_array_size(a) > BENCH_MAX_THREADS)
		return bad_file(path, "config.cpus has more CPUs than dcsim-bench pins");
	json_array_foreach(a, i, v)
		cfg->cpus[cfg->nr_cpus++] = (int)rd_elem(rd, v, "config.cpus", i, 0, CPU_SETSIZE - 1);
	if (rd->err)
		return rd->err;
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
	/* The ranges of the options that set them (dcsim-bench --help). */
	cfg->shape.depth = (unsigned int)rd_uint(rd, shape, "config.shape", "depth", 1, 16, 0);
	cfg->shape.fanout = (unsigned int)rd_uint(rd, shape, "config.shape", "fanout", 1, 64, 0);
	cfg->shape.leaves = (unsigned int)rd_uint(rd, shape, "config.shape", "leaves", 1, 4096, 0);
	cfg->shape.files = (unsigned int)rd_uint(rd, shape, "config.shape", "files", 1, 1u << 20, 0);
	cfg->shape.shrink_batch = (unsigned int)rd_uint(rd, shape, "config.shape", "shrink_batch",
							1, 1u << 20, 0);
	cfg->shape.shrink_us = (unsigned int)rd_uint(rd, shape, "config.shape", "shrink_us", 0,
						     10000000, 0);
	cfg->shape.unlink_pct = (unsigned int)rd_uint(rd, shape, "config.shape", "unlink_pct", 0,
						      100, 0);
	cfg->shape.cold = json_is_true(json_object_get(shape, "cold"));
	/* absent before --private-tree: shared trees */
	cfg->shape.private_tree = json_is_true(json_object_get(shape, "private_tree"));
	/* absent before --hash-bits, whose automatic table was 16 times denser */
	/* 0: the automatic table; else --hash-bits, 4..24 */
	cfg->shape.hash_bits = (unsigned int)rd_uint(rd, shape, "config.shape", "hash_bits", 0, 24,
						     BENCH_HASH_BITS_UNKNOWN);
	if (cfg->shape.hash_bits >= 1 && cfg->shape.hash_bits < 4)
		rd_bad(rd, "config.shape", "hash_bits", json_object_get(shape, "hash_bits"),
		       "0 (automatic) or 4..24");
	/* absent from reports before --dirs, whose churn had 4 directories */
	cfg->shape.dirs = (unsigned int)rd_uint(rd, shape, "config.shape", "dirs", 1, 1u << 16, 0);
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
					cfg->cpus[cfg->nr_worker_cpus++] = (int)rd_elem(rd, pv,
						"config.placement.worker_cpus", pi, 0, CPU_SETSIZE - 1);
			h = json_object_get(p, "helper_cpu");
			if (h && !json_is_null(h))
				cfg->helper_cpu = (int)rd_elem(rd, h, "config.placement.helper_cpu", 0,
							       -1, CPU_SETSIZE - 1);
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
		cfg->shape.mix[w] = (unsigned int)rd_uint(rd, json_object_get(c, "mix"), "config.mix",
							  bench_workloads[w]->name, 0, 1000000, 0);
	return rd->err;
}

static int index_of_threads(const struct bench_config *cfg, const json_t *t)
{
	for (unsigned int i = 0; json_is_integer(t) && i < cfg->nr_threads; i++)
		if (cfg->threads[i] == json_integer_value(t))
			return (int)i;
	return -1;
}

/* A count the report sums: a whole number, at most INT64_MAX. */
#define COUNT_MAX	((uint64_t)INT64_MAX)

/* The counters a report sums over reps, onto @s (the row's first rep). */
static void read_counters(struct rd *rd, const json_t *row, struct bench_sample *s)
{
	const json_t *model = json_object_get(row, "model"), *htm = json_object_get(row, "htm");
	const json_t *by = json_object_get(htm, "aborts_by_cause");
	const json_t *codes = json_object_get(htm, "explicit_codes"), *v;
	const char *key;

	s->ops = rd_uint(rd, row, "rows[]", "ops", 0, COUNT_MAX, 0);
	s->c.have_cache = json_is_object(model);
	for (int i = 0; i < DCSIM_CS_NR_DENTRY && s->c.have_cache; i++)
		s->c.v[i] = json_integer_value(json_object_get(model, dcsim_cache_stat_name(i)));
	s->st.v[DCSIM_STAT_LOCKREF_RETRIES] = rd_uint(rd, row, "rows[]", "lockref_retries", 0,
						      COUNT_MAX, 0);
	s->st.v[DCSIM_STAT_LOCKREF_FALLBACKS] = rd_uint(rd, row, "rows[]", "lockref_fallbacks", 0,
							COUNT_MAX, 0);
	s->st.v[DCSIM_STAT_HTM_ATTEMPTS] = rd_uint(rd, htm, "rows[].htm", "attempts", 0, COUNT_MAX, 0);
	s->st.v[DCSIM_STAT_HTM_COMMITS] = rd_uint(rd, htm, "rows[].htm", "commits", 0, COUNT_MAX, 0);
	s->st.v[DCSIM_STAT_HTM_ABORTS] = rd_uint(rd, htm, "rows[].htm", "aborts", 0, COUNT_MAX, 0);
	for (int c = 0; c < DCSIM_HTM_CAUSE_NR; c++)
		s->st.v[DCSIM_STAT_HTM_ABORT_FIRST + c] = rd_uint(rd, by, "rows[].htm.aborts_by_cause",
							dcsim_htm_cause_name(c), 0, COUNT_MAX, 0);
	json_object_foreach((json_t *)codes, key, v) {
		unsigned long k = strtoul(key, NULL, 10);

		if (k < DCSIM_ARRAY_SIZE(s->st.htm_explicit_code))
			s->st.htm_explicit_code[k] = json_is_integer(v) ?
				(uint64_t)json_integer_value(v) : 0;
	}
}

/* One row and its samples; Return: 0 or 2. */
static int read_row(struct rd *rd, struct bench_config *cfg, const json_t *jr,
		    struct bench_row *row)
{
	const char *path = rd->path;
	const json_t *sm = json_object_get(jr, "samples"), *reps = json_object_get(sm, "reps");
	const json_t *ops_s = json_object_get(sm, "ops_s"), *ns_op = json_object_get(sm, "ns_op");
	const char *g = bj_get_str(jr, "group"), *s = bj_get_str(jr, "subject");
	int ti = index_of_threads(cfg, json_object_get(jr, "threads"));
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
		if (smp->done)
			return bad_file(path, "a row's samples.reps names a rep twice");
		smp->done = true;
		/* null is the writer's non-finite figure; anything else must be a figure. */
		smp->ops_s = json_is_null(json_array_get(ops_s, k)) ? NAN :
			     bj_num(json_array_get(ops_s, k));
		smp->ns_op = json_is_null(json_array_get(ns_op, k)) ? NAN :
			     bj_num(json_array_get(ns_op, k));
		if (!(smp->ops_s >= 0 && smp->ops_s <= 1e15) && !isnan(smp->ops_s))
			return bad_file(path, "a row's samples.ops_s has a negative or absurd throughput");
		if (!(smp->ns_op >= 0 && smp->ns_op <= 1e15) && !isnan(smp->ns_op))
			return bad_file(path, "a row's samples.ns_op has a negative or absurd duration");
		if (isnan(smp->ops_s) && !json_is_null(json_array_get(ops_s, k)))
			return bad_file(path, "a row's samples.ops_s is not a list of figures");
		if (isnan(smp->ns_op) && !json_is_null(json_array_get(ns_op, k)))
			return bad_file(path, "a row's samples.ns_op is not a list of figures");
		if (first)
			read_counters(rd, jr, smp);
		if (rd->err)
			return rd->err;
		first = false;
		if (!row->group)
			continue;
		/* the floor and spin bounds of this row's block, in this rep */
		for (unsigned int b = 0; b < BENCH_NR_NEAR; b++) {
			double x = bj_num(json_array_get(json_object_get(sm, b == BENCH_NEAR_FLOOR ?
						"floor_ns_op" : "spin_ns_op"), k));

			if (x < 0 || x > 1e15)
				return bad_file(path, "a row's floor or spin ns/op is negative or absurd");
			struct bench_sample *nb = bench_near_bound(cfg, row->group, row->tidx, b,
								   (unsigned int)r);

			nb->done = isfinite(x);
			nb->ns_op = x;
			nb->ops_s = NAN;
		}
	}
	return 0;
}

static int read_sharing(struct rd *rd, struct bench_config *cfg, const json_t *sh)
{
	const char *path = rd->path;
	const json_t *rows = json_object_get(sh, "rows"), *v;
	size_t i;

	cfg->sharing = true;
	cfg->share_ops = rd_uint(rd, sh, "sharing", "ops_per_thread", 0, COUNT_MAX, 0);
	cfg->share_warm = rd_uint(rd, sh, "sharing", "warmup_ops_per_thread", 0, COUNT_MAX, 0);
	cfg->share = calloc(json_array_size(rows) + 1, sizeof(*cfg->share));
	if (!cfg->share)
		return 1;
	json_array_foreach(rows, i, v) {
		struct bench_share *r = &cfg->share[cfg->nr_share++];

		r->group = bj_get_str(v, "group");
		r->subject = bj_get_str(v, "subject");
		if (!r->group || !r->subject)
			return bad_file(path, "a sharing row lacks its group or subject");
		r->threads = (unsigned int)rd_uint(rd, v, "sharing.rows[]", "threads", 1,
						   BENCH_MAX_THREADS, 0);
		r->done = json_is_true(json_object_get(v, "done"));
		r->ops = rd_uint(rd, v, "sharing.rows[]", "ops", 0, COUNT_MAX, 0);
		r->rmw = rd_uint(rd, v, "sharing.rows[]", "rmw", 0, COUNT_MAX, 0);
		r->stores = rd_uint(rd, v, "sharing.rows[]", "stores", 0, COUNT_MAX, 0);
		r->helper = rd_uint(rd, v, "sharing.rows[]", "helper", 0, COUNT_MAX, 0);
		r->lines = rd_uint(rd, v, "sharing.rows[]", "shared_lines", 0, COUNT_MAX, 0);
		r->writes = rd_uint(rd, v, "sharing.rows[]", "writes", 0, COUNT_MAX, 0);
		r->lost_threads = (unsigned int)rd_uint(rd, v, "sharing.rows[]", "lost_threads", 0,
							BENCH_MAX_THREADS, 0);
		if (rd->err)
			return rd->err;
	}
	return 0;
}

int bench_from(const char *path, enum bench_format fmt, const char *plot, FILE *out)
{
	static struct bench_config cfg;
	struct bench_host host;
	struct rd rd = { .path = path };
	json_t *doc = bench_json_load(path, "--from");
	const json_t *rows, *jr, *sh;
	size_t i, cells = 0, missing = 0;
	unsigned char *seen = NULL;
	int err = 0;

	/* Static for its size; each call starts from nothing (the fuzzer calls it again and again). */
	memset(&cfg, 0, sizeof(cfg));
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
	err = read_config(&rd, json_object_get(doc, "config"), doc, &cfg);
	if (err)
		goto out;
	read_host(&rd, json_object_get(doc, "host"), doc, &host);
	if (rd.err) {
		err = rd.err;
		goto out;
	}
	/* Every (group, subject, threads) cell at most once: a repeated row is damage. */
	cells = (size_t)cfg.nr_groups * cfg.nr_subjects * cfg.nr_threads;
	if (json_array_size(rows) > cells) {
		err = bad_file(path, "more rows than the cells its config names (rows repeated?)");
		goto out;
	}
	seen = calloc(cells + 1, 1);
	if (!seen) {
		err = 1;
		goto out;
	}
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
		struct bench_row *row = &cfg.rows[cfg.nr_rows];
		size_t cell;

		err = read_row(&rd, &cfg, jr, row);
		if (err)
			goto out;
		cfg.nr_rows++;
		cell = ((size_t)row->group * cfg.nr_subjects + row->subject) * cfg.nr_threads +
		       row->tidx;
		if (seen[cell]) {
			fprintf(stderr, PROG ": --from: '%s': rows[%zu] repeats the cell %s, %s, "
				"%u threads\n", path, i, cfg.groups[row->group].name,
				cfg.subjects[row->subject].name, cfg.threads[row->tidx]);
			err = 2;
			goto out;
		}
		seen[cell] = 1;
	}
	/* A run has a row for every subject of every group at every thread count. */
	for (unsigned int g = 0; cfg.nr_rows && g < cfg.nr_groups; g++)
		for (unsigned int k = 0; k < cfg.groups[g].nr_subjects; k++)
			for (unsigned int t = 0; t < cfg.nr_threads; t++)
				missing += !seen[((size_t)g * cfg.nr_subjects +
						  cfg.groups[g].first_subject + k) *
						 cfg.nr_threads + t];
	if (missing)
		fprintf(stderr, PROG ": --from: '%s': warning: %zu of the cells its config names "
			"have no row (a damaged or cut report?): they are left out\n", path, missing);
	sh = json_object_get(doc, "sharing");
	if (json_is_object(sh)) {
		err = read_sharing(&rd, &cfg, sh);
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
	free(seen);
	json_decref(doc);
	return err;
}
