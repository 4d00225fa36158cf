/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_BENCH_H
#define DCSIM_BENCH_H

/*
 * dcsim-bench: the shared types of the benchmark tool.
 *
 * A run measures "rows": (group, thread count, subject).  A group is either
 * the bounds (workload-independent reference loops: the bare atomic floor,
 * the spinlock ceiling, a raw lockref get+put) or one workload, whose
 * subjects are the dput strategies of the model.  Every row is measured
 * once per repetition; within a repetition the rows of one (group, threads)
 * pair run back to back in an order rotated from repetition to repetition,
 * so slow drift of the machine (frequency, noisy neighbours) hits every
 * subject alike and ratios are taken between samples seconds apart.
 *
 * A workload plugs in through struct bench_workload: setup builds the state
 * for one cell (a cache with the subject's strategy and a tree), run does n
 * operations on one worker thread, collect reads the model's per-cache
 * statistics, teardown frees everything.  Nothing in the harness knows what
 * an operation is.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <dcsim/cache.h>
#include <dcsim/compiler.h>
#include <dcsim/rcu.h>
#include <dcsim/stats.h>
#include <dcsim/strategy.h>

#include "../src/base/rng.h"

#define BENCH_MAX_THREADS	128
#define BENCH_NR_BOUNDS	4	/* subjects 0..3 of every run: floor, cmpxchg, spin, raw-lockref */
#define BENCH_SUBJ_FLOOR	0
#define BENCH_SUBJ_SPIN		2
enum { BENCH_NEAR_FLOOR, BENCH_NEAR_SPIN, BENCH_NR_NEAR };
#define BENCH_MAX_REPS		1000
#define BENCH_ADAPTIVE_MAX_REPS	100	/* --max-reps default with --ci-width */

struct bench_cell;
struct bench_worker;

/*
 * The model's per-cache counters over a cell (enum dcsim_cache_stat): dputs,
 * how many took d_lock, fast-path completions, transactions and the
 * model's own abort reasons.  Zero and have_cache false for the bounds.
 */
struct bench_counts {
	bool have_cache;
	int64_t v[DCSIM_CS_NR];
};

/* One measured cell: one subject, one thread count, one repetition. */
struct bench_sample {
	bool done;
	double wall_ns;		/* first worker start to last worker end */
	uint64_t ops;		/* all workers */
	uint64_t thr_ops_min, thr_ops_max;
	double thr_busy_ns;	/* sum over workers of their own loop time */
	double thr_cpu_ns;	/* sum over workers of the CPU time they got */
	double ops_s;		/* ops / wall time: throughput, all workers */
	double ns_op;		/* thr_cpu_ns / ops: CPU time per op of one thread */
	struct dcsim_stats st;	/* library counters: lockref, HTM */
	struct bench_counts c;
};

/* Per-thread context handed to a workload's run(). */
struct bench_worker {
	unsigned int id;	/* 0 .. nthreads-1 */
	unsigned int nthreads;
	uint64_t rng;		/* splitmix64 state, seeded from --seed and id */
	void *priv;		/* the workload's per-thread state */
};

struct bench_config;

struct bench_workload {
	const char *name;
	const char *models;	/* the kernel situation, one line for --help */
	/* main thread; Return: 0 or a negative errno (message printed) */
	int (*setup)(struct bench_cell *cell);
	/* on the worker, before timing starts / after it ends */
	void (*thread_init)(struct bench_cell *cell, struct bench_worker *w);
	void (*thread_fini)(struct bench_cell *cell, struct bench_worker *w);
	/* on the worker: perform @n operations */
	void (*run)(struct bench_cell *cell, struct bench_worker *w, uint64_t n);
	/* main thread, after the workers stopped: fill the model's counters */
	void (*collect)(struct bench_cell *cell, struct bench_counts *c);
	void (*teardown)(struct bench_cell *cell);
	/* optional helper thread for the cell (churn's shrinker); NULL if none */
	void (*helper)(struct bench_cell *cell, int *stop);	/* until __atomic *stop */
};

enum bench_subject_kind { BENCH_BOUND, BENCH_STRATEGY };

struct bench_subject {
	const char *name;
	enum bench_subject_kind kind;
	const void *strategy;	/* the model's strategy, for BENCH_STRATEGY */
	/* for bounds: the whole workload */
	const struct bench_workload *bound;
};

/* What the cell sees: configuration, subject, and the workload's state. */
struct bench_cell {
	const struct bench_config *cfg;
	const struct bench_workload *wl;
	const struct bench_subject *subj;
	unsigned int nthreads;
	void *state;		/* the workload's per-cell state */
};

/* A group: the bounds, or one workload with the strategies. */
struct bench_group {
	const char *name;	/* "bounds" or the workload's name */
	const struct bench_workload *wl;	/* NULL for bounds */
	unsigned int first_subject, nr_subjects;	/* into cfg->subjects */
};

struct bench_agg;

/*
 * One --sharing cell: writes by every thread to the cache lines that more
 * than one thread wrote, over @ops worker ops (sharing.c).
 */
struct bench_share {
	const char *group, *subject;	/* names, as in cfg->groups/subjects */
	unsigned int threads;
	bool done;
	uint64_t ops;			/* worker ops recorded, all threads */
	uint64_t rmw, stores;		/* to shared lines */
	uint64_t helper;		/* of those, by threads no worker (shrinker, call_rcu) */
	uint64_t lines;			/* lines written by more than one thread */
	uint64_t writes;		/* every recorded write, shared line or not */
	unsigned int lost_threads;	/* threads beyond the recorder table: not counted */
};

struct bench_row {
	unsigned int group, tidx, subject;	/* tidx indexes cfg->threads */
	struct bench_sample *samples;		/* [max_reps]; the first cfg->reps are valid */
	struct bench_agg *agg;			/* cached by bench_aggregate(), see report.c */
};

enum bench_format { BENCH_FMT_TABLE, BENCH_FMT_CSV, BENCH_FMT_JSON };

/* Tree shape and workload knobs. */
struct bench_shape {
	unsigned int depth;	/* walk: components per path (>= 1) */
	unsigned int fanout;	/* shared directories per directory level */
	unsigned int leaves;	/* private leaves per thread per bottom directory */
	unsigned int files;	/* final: private files per thread; churn: names per thread */
	unsigned int shrink_batch;	/* churn: LRU entries scanned per prune */
	unsigned int shrink_us;		/* churn: pause between prunes */
	unsigned int unlink_pct;	/* churn: lookups that unlink */
	unsigned int dirs;		/* churn: shared directories (--dirs) */
	unsigned int mix[8];		/* mixed: weight per workload index */
	bool cold;			/* walk: directories never unused (never on the LRU) */
	bool ref_walk;			/* walk, mixed: ref-walk only (--ref-walk), not RCU-walk */
	unsigned int hash_bits;		/* the cache's hash table: 2^hash_bits buckets; 0: auto */
	bool private_tree;		/* walk, mixed: a tree per thread, made by it (--private-tree) */
};

/* shape.hash_bits of a report saved before --hash-bits (--from): not known */
#define BENCH_HASH_BITS_UNKNOWN	(~0u)

struct bench_config {
	/* what to run */
	struct bench_subject subjects[BENCH_NR_BOUNDS + DCSIM_MAX_STRATEGIES];
	unsigned int nr_subjects;
	struct bench_group groups[8];
	unsigned int nr_groups;
	unsigned int threads[32];
	unsigned int nr_threads;
	unsigned int reps;		/* repetitions run (or, before the run, asked for) */
	unsigned int max_reps;		/* samples allocated per row */
	double ci_width;		/* adaptive: target relative ci95 width of ratios; 0 off */
	double time_budget_s;		/* adaptive: stop adding repetitions after this */
	double warmup;			/* share of a cell run first and discarded */
	double duration_s;	/* per cell; 0 when ops is used */
	uint64_t ops;		/* per thread per cell; 0 when duration is used */
	uint64_t seed;
	bool pin;
	int cpus[BENCH_MAX_THREADS];	/* pinning order */
	unsigned int nr_cpus;
	/*
	 * Placement (bench_placement()): workers go to the first
	 * nr_worker_cpus of cpus[]; helper threads (a workload's shrinker, the
	 * global call_rcu thread) to helper_cpu, the last one, when the widest
	 * cell leaves it free; -1: they float over every allowed CPU.
	 */
	unsigned int nr_worker_cpus;
	int helper_cpu;
	enum dcsim_rcu_callbacks call_rcu;	/* --call-rcu */
	struct bench_shape shape;
	unsigned int baseline;		/* subject index for ratios */
	/* output */
	enum bench_format format;
	const char *plot;
	bool progress;
	bool quiet_warn;
	char cmdline[1024];
	/* results */
	struct bench_row *rows;
	unsigned int nr_rows;
	/*
	 * The floor and spin bounds measured again inside each workload
	 * block, [group][threads][BENCH_NEAR_*][rep]: xfloor and xspin of a
	 * workload row divide by these, measured seconds apart from the
	 * subject's cell, not by the bounds block's.
	 */
	struct bench_sample *near_bounds;
	/* adaptive mode: how it ended */
	const char *adaptive_end;	/* "converged", "time budget", "max reps" */
	unsigned int adaptive_wide;	/* ratios still wider than ci_width */
	unsigned int adaptive_ratios;	/* ratios checked */
	double run_s;			/* wall time of the measurement */
	/* --sharing: one entry per workload, threads and strategy (no timed rows) */
	bool sharing;
	struct bench_share *share;
	unsigned int nr_share;
	uint64_t share_ops, share_warm;	/* per thread per cell */
};

/* Host facts recorded in every report. */
struct bench_host {
	char cpu[128];
	unsigned int online_cpus;
	const char *htm_backend;
	const char *htm_policy;
	bool htm_cpu;		/* usable HTM detected */
	bool htm_none;		/* built without a hardware HTM backend */
	bool htm_live;		/* transactions are executed */
	bool rtm_always_abort;
	char kernel[160];
	char when[32];
	const char *version;
	size_t dentry_size;	/* sizeof(struct dcsim_dentry), 0 if unknown */
	double load_before, load_after;	/* 1-minute load average; < 0 unknown */
	/* over the run, from /proc/stat (NAN if unknown) */
	double steal_frac;	/* stolen by the hypervisor, of all CPU time */
	double others_frac;	/* busy in other processes, of all CPU time */
	double self_cpus;	/* CPUs' worth of time this process used */
	/* frequency hints: "cpu MHz" over the CPUs before and after (NAN unknown) */
	double mhz_min_before, mhz_max_before, mhz_min_after, mhz_max_after;
	char governor[32];	/* cpufreq governor of cpu0, "" if none */
	int boost;		/* 1 on, 0 off, -1 unknown */
	bool busy;		/* one of the above says the figures are noisy */
	char busy_why[192];
};

/* args.c: the options' values; each names the option when it refuses one */
__attribute__((format(printf, 1, 2))) int bench_bad(const char *fmt, ...);
/* An unsigned integer in [min, max] (<dcsim/parse.h>); Return: 0 or -1. */
int bench_parse_uint(const char *s, unsigned long long min, unsigned long long max,
		     unsigned long long *out);
/* --@opt's whole number in [min, max] into *@out.  Return: 0, or 2 (said why). */
int bench_opt_uint(const char *opt, const char *arg, unsigned long long min,
		   unsigned long long max, unsigned int *out);
/* Comma list of unsigned numbers in [min, max]; Return: count, or -1 on a bad element. */
int bench_parse_list(const char *s, unsigned long long min, unsigned long long max,
		     unsigned int *out, unsigned int cap);
int bench_parse_workloads(struct bench_config *cfg, const char *list);
int bench_parse_mix(struct bench_config *cfg, const char *spec);
/* A number in (min, max] (a trailing % divides by 100 when @pct); Return: 0 or -1. */
int bench_parse_double(const char *s, double min, double max, bool pct, double *out);

/* run.c: the measurement */
/* Rows in report order: group, then threads, then subject.  Return: 0 or -ENOMEM. */
int bench_build_rows(struct bench_config *cfg);
/* Every repetition of every block.  Return: 0, or 1 when a cell failed. */
int bench_run_all(struct bench_config *cfg);

/* host.c: what the host did while we measured */
struct bench_hostmon {
	unsigned long long stat[8];	/* /proc/stat "cpu" line */
	bool have_stat;
	double self_cpu_s, wall_s;
	double load;
	double mhz_min, mhz_max;
};
void bench_hostmon_start(struct bench_hostmon *m);
void bench_hostmon_end(const struct bench_hostmon *start, struct bench_host *h);
double bench_loadavg(void);

/* harness.c */
/*
 * Choose where workers and helpers run for a run of at most @maxthr workers,
 * and set the callbacks up (--call-rcu).  Return: 0 or a negative errno.
 */
int bench_placement(struct bench_config *cfg, unsigned int maxthr);
/* Helper threads a cell of @g runs beside its workers (shrinker, call_rcu). */
unsigned int bench_cell_helpers(const struct bench_config *cfg, const struct bench_group *g);
/* A cell of @g at @nthreads has more threads than CPUs to run them on. */
bool bench_oversubscribed(const struct bench_config *cfg, const struct bench_group *g,
			  unsigned int nthreads);
int bench_pool_start(struct bench_config *cfg, unsigned int nworkers);
void bench_pool_stop(void);
int bench_run_cell(struct bench_config *cfg, const struct bench_workload *wl,
		   const struct bench_subject *subj, unsigned int nthreads,
		   struct bench_sample *out);
/* A worker's context for thread @id of @cell: its id and its --seed stream. */
void bench_worker_init(const struct bench_cell *cell, struct bench_worker *w, unsigned int id);
/* The project's one generator (src/base/rng.h): picks paths, names and ops. */
static inline uint64_t bench_rand(uint64_t *s)
{
	return splitmix64_next(s);
}

/* sharing.c: --sharing, the shared writes per op (instrumented build only) */
#define BENCH_SHARING_OPS	1000	/* ops per thread per cell unless --ops */
#define BENCH_SHARING_METHOD \
	"instrumented build access hook (<dcsim/atomic.h>); real threads taking turns, one op each, " \
	"round robin; 64-byte lines; HTM off"
bool bench_sharing_supported(void);
/* Fill cfg->share for every workload, strategy and thread count; Return: 0, 1 failed. */
int bench_sharing_run(struct bench_config *cfg);

/* bounds.c */
extern const struct bench_workload bench_bound_floor, bench_bound_cmpxchg, bench_bound_spin,
	bench_bound_lockref;
/* workloads.c: the model's workloads and strategies */
extern const struct bench_workload *const bench_workloads[];
extern const unsigned int bench_nr_workloads;
const struct bench_workload *bench_workload_find(const char *name);
/* Fill @cfg->subjects with the model's strategies named in @list (NULL: all). */
int bench_strategies_add(struct bench_config *cfg, const char *list);
const char *bench_strategy_list(void);	/* "locked,lockref,..." */
size_t bench_dentry_size(void);

/* report.c */
/*
 * A median with its 95% confidence interval (percentile bootstrap over the
 * repetitions, see stats.c); lo and hi are NAN with fewer than 2 samples.
 */
struct bench_est {
	double med, lo, hi;
	unsigned int n;
};

struct bench_agg {
	unsigned int n;			/* repetitions measured */
	unsigned int computed_reps;	/* cfg->reps when this was computed */
	double ops_s_min, ops_s_med, ops_s_max;
	double ops_s_thr_med;		/* per thread */
	double ns_op_min, ns_op_med, ns_op_max;	/* per thread: CPU time / its ops */
	struct bench_est ops_s, ns_op;	/* median and ci95 */
	double ratio_base;		/* median over reps of ops_s / baseline ops_s; NAN if none */
	double x_floor, x_ceil;		/* median over reps of ns_op / bound ns_op */
	struct bench_est r_base, r_floor, r_ceil;	/* the same three with ci95 */
	struct bench_counts c;		/* summed over reps */
	struct dcsim_stats st;		/* summed over reps */
	uint64_t ops;			/* summed over reps */
};

void bench_aggregate(const struct bench_config *cfg, const struct bench_row *row,
		     struct bench_agg *agg);
struct bench_sample *bench_near_bound(const struct bench_config *cfg, unsigned int group,
				      unsigned int tidx, unsigned int which, unsigned int rep);
/* Per-rep ratios f(row)/f(other) into @v (reps where both ran); Return: count. */
unsigned int bench_ratio_samples(const struct bench_config *cfg, const struct bench_row *row,
				 int other, bool ns, double *v);
double bench_sample_ops_s(const struct bench_sample *s);
double bench_sample_ns_op(const struct bench_sample *s);
/* Relative width (hi - lo) / med of an estimate; INFINITY without an interval. */
double bench_est_width(const struct bench_est *e);
const char *bench_verdict(const struct bench_est *e, const char *op, double limit);

/* stats.c */
void bench_median_ci(const double *v, unsigned int n, struct bench_est *e);
unsigned int bench_median_rank(unsigned int n);
double bench_median_coverage(unsigned int n);
/* P(two runs' intervals miss each other) when both draw from one distribution. */
double bench_apart_by_chance(unsigned int na, unsigned int nb);
/* ci95 of med(b)/med(a) - 1 from two independent sample sets. */
void bench_change_ci(const double *a, unsigned int na, const double *b, unsigned int nb,
		     uint64_t seed, struct bench_est *e);

/* compare.c */
int bench_compare(const char *a, const char *b, enum bench_format fmt, const char *plot,
		  FILE *out);
/* from.c: --from FILE.json, the reports of a saved run; Return: 0, 1 failed, 2 bad input */
int bench_from(const char *path, enum bench_format fmt, const char *plot, FILE *out);
int bench_find_row(const struct bench_config *cfg, const char *group,
		   unsigned int nthreads, const char *subject);
void bench_report(const struct bench_config *cfg, const struct bench_host *host, FILE *f);
int bench_plot(const struct bench_config *cfg, const struct bench_host *host, const char *png);
/* plot.c, for --compare --plot: one cell's ratio over the baseline in A and B */
struct bench_plot_cell {
	const char *group, *subject;
	unsigned int threads;
	struct bench_est a, b;
};
int bench_plot_compare(const char *png, const char *a, const char *b, const char *baseline,
		       const struct bench_plot_cell *c, unsigned int n);

#endif /* DCSIM_BENCH_H */
