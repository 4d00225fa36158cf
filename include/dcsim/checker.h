/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_H_CHECKER
#define DCSIM_H_CHECKER

/*
 * The checkers as library code (instrumented build only): the suites that the
 * project's tests and the dcsim-check tool run on a dput strategy.
 *
 *   diff     seeded random traces of cache operations, step by step against
 *            the executable spec (single thread; for strategies with
 *            DCSIM_STRATEGY_USES_HTM also with simulated transactions that
 *            commit and that abort); a failing trace is shrunk and printed
 *            in the trace format (docs/trace-format.md)
 *   explore  every dentry cache scenario of <dcsim/explore-dcache.h>
 *   stress   real threads on one shared tree, then the invariants
 *   misuse   puts without a reference: one warning each, nothing changed
 *
 * Each suite returns 0 (passed), 1 (a check failed: a self-contained
 * report went to opts->report) or a negative errno (bad arguments).
 * Progress goes to opts->progress.  A report names dentries by path
 * ("/a/b"), labels the two states "model:" (the strategy under test) and
 * "spec:", and ends with one "replay:" line: opts->replay_prefix followed by
 * the options that rerun exactly the failing check.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <dcsim/compiler.h>
#include <dcsim/explore.h>
#include <dcsim/strategy.h>

enum dcsim_checker_budget {
	DCSIM_BUDGET_QUICK,	/* seconds: what the test suite runs */
	DCSIM_BUDGET_DEFAULT,
	DCSIM_BUDGET_SOAK,	/* tens of minutes */
};

struct dcsim_checker_unit;

struct dcsim_checker_opts {
	enum dcsim_checker_budget budget;
	uint64_t seed;			/* base seed of the suite */
	FILE *report;			/* failure reports (NULL: stdout) */
	FILE *progress;			/* one line per part (NULL: stderr) */
	/*
	 * The start of the replay line, e.g. "dcsim-check --load ./libmine.so
	 * --strategy mine"; NULL: "dcsim-check --strategy NAME".
	 */
	const char *replay_prefix;
	bool quiet;			/* no report (self-tests of the checker) */
	/* explore only: one scenario ("final-dputs/fast/off"), NULL: all */
	const char *scenario;
	const char *explore_mode;	/* "random" or "pct" only; NULL: both */
	/* explore only: "fair", "strict", "rt" or "window" (<dcsim/explore.h>); NULL: fair */
	const char *explore_sched;
	uint64_t execution_seed;	/* with @scenario: run that one execution */
	unsigned long pct_steps;	/* with @scenario, pct: the failure's step estimate */
	/* explore only: a comma-separated list of scenario names to run, NULL: all */
	const char *scenarios;
	/* diff only: traces to run (0: by budget) and steps per trace (0: 60) */
	unsigned long diff_traces;
	unsigned int diff_steps;
	/*
	 * diff and explore: run only the units (traces, explorations) that
	 * dcsim_checker_shard_of() gives to @shard of @nshards (@nshards 0
	 * or 1: all).  A sharded run leaves the "no transaction committed"
	 * check to its caller, who sums dcsim_checker_result.htm_commits
	 * over the shards.
	 */
	unsigned int shard, nshards;
	/*
	 * diff and explore: units handed out at run time (dcsim-check --jobs).
	 * When set, called for each unit of the shard in increasing order;
	 * the unit runs here only if it returns true.  Like a shard, such a
	 * run leaves the "no transaction committed" check to its caller.
	 */
	bool (*take_unit)(void *arg, unsigned long unit);
	void *take_arg;
	/*
	 * explore with sched "window" (<dcsim/explore.h>, "Windows"): a file
	 * each exploration appends its per-window counts to, and the window
	 * ("FUNC:LINE") every execution targets (a replay's); NULL: none.
	 */
	const char *window_dump;
	const char *window_target;
	/*
	 * explore: where the suite is, written before each exploration and
	 * execution, so that a caller can replay one that crashed or hung
	 * (dcsim-check puts it in memory shared with its child processes).
	 */
	struct dcsim_checker_where *where;
	/* explore: steps of the interleaving a failure report prints; 0: the explorer's (80) */
	unsigned long report_steps;
	/*
	 * diff and explore: called after each unit this process ran (a trace,
	 * an exploration), in the order they ran, with what it found; NULL:
	 * none.  dcsim-check --json lists the units from it.
	 */
	void (*unit_done)(void *arg, const struct dcsim_checker_unit *u);
	void *unit_arg;
};

/* One unit's outcome, for dcsim_checker_opts.unit_done (valid during the call). */
struct dcsim_checker_unit {
	unsigned long index;		/* its number in the suite (what shards split) */
	const char *scenario;		/* explore: "final-dputs/k61/off"; diff: NULL */
	const char *mode;		/* explore: "random" or "pct"; diff: NULL */
	uint64_t seed;			/* diff: the trace's; explore: the exploration's */
	unsigned long executions;	/* explore: executions run; diff: HTM configs replayed */
	bool failed;
	const char *failure;		/* when failed: one line */
	const char *replay;		/* when failed: the options that replay it, after the prefix */
};

struct dcsim_checker_where {
	char scenario[160];		/* --scenario: "final-dputs/k61/off" */
	char mode[16];			/* --explore-mode */
	struct dcsim_explore_where exec;
};

struct dcsim_checker_result {
	unsigned long runs;		/* traces x configs, explorations, ... */
	unsigned long failures;
	size_t shrunk_steps;		/* diff: steps of the shrunk failing trace */
	char failure[512];		/* the first failure, one line */
	unsigned long failed_unit;	/* index of the unit that failed (sharding) */
	unsigned long htm_commits;	/* simulated commits the HTM check counts */
	/*
	 * Work done up to the first failure, failure included: traces (diff),
	 * executions over all explorations (explore), runs (misuse); 0 if none.
	 */
	unsigned long first_failure;
	/*
	 * The lock order validator's work (docs/lock-order.md), summed over
	 * the units (explorations, traces, the one stress run): validated
	 * blocking acquisitions, successful trylocks, and acquired-before
	 * edges, each unit's graph counted on its own.
	 */
	unsigned long lock_acquisitions, lock_trylocks, lock_edges;
};

/**
 * dcsim_checker_shard_of() - the shard of @n that runs unit @i: the units
 * go in blocks of @n consecutive ones, one unit of each block to each
 * shard, rotated by a hash of the block's number.  So every unit runs in
 * exactly one shard, the shards' counts differ by at most one, and a
 * shard does not get every unit of one kind when the units' kinds repeat
 * with a period that divides @n (explore numbers scenario x mode, so
 * i % 2 would give one shard every random walk and the other every PCT).
 * Fixed for good: the shards of one soak may run different builds.
 * Return: 0..@n-1.
 */
static inline unsigned int dcsim_checker_shard_of(unsigned long i, unsigned int n)
{
	uint64_t b = (uint64_t)(i / n) + 0x9e3779b97f4a7c15ull;

	/* splitmix64's finalizer: consecutive blocks get unrelated rotations. */
	b = (b ^ (b >> 30)) * 0xbf58476d1ce4e5b9ull;
	b = (b ^ (b >> 27)) * 0x94d049bb133111ebull;
	b ^= b >> 31;
	return (unsigned int)((i % n + b % n) % n);
}

/*
 * Does this process run unit @i (a trace, an exploration)?  Call it once
 * per unit, in increasing order (o->take_unit counts on that).
 */
static inline bool dcsim_checker_in_shard(const struct dcsim_checker_opts *o, unsigned long i)
{
	if (o->nshards > 1 && dcsim_checker_shard_of(i, o->nshards) != o->shard)
		return false;
	return !o->take_unit || o->take_unit(o->take_arg, i);
}

/* Does this process run every unit (so that it may judge totals, as the HTM commit count)? */
static inline bool dcsim_checker_whole_run(const struct dcsim_checker_opts *o)
{
	return o->nshards <= 1 && !o->take_unit;
}

/** dcsim_checker_opts_init() - quick budget, the default seed, stdout/stderr. */
DCSIM_API void dcsim_checker_opts_init(struct dcsim_checker_opts *opts);

/** dcsim_checker_budget_parse() - "quick", "default" or "soak". Return: 0 or -EINVAL. */
DCSIM_API int dcsim_checker_budget_parse(const char *str, enum dcsim_checker_budget *out);

/**
 * dcsim_checker_diff() - the differential suite on @s.  Traces use seeds
 * opts->seed, opts->seed + 1, ...; it stops at the first failure, so the
 * replay line "--suites diff --seed N" reruns the failing trace first.
 * Return: 0, 1 or -errno; @res (may be NULL) gets the counts.
 */
DCSIM_API int dcsim_checker_diff(const struct dcsim_dput_strategy *s,
			       const struct dcsim_checker_opts *opts,
			       struct dcsim_checker_result *res);

/**
 * dcsim_checker_trace_file() - replay the trace file @path on @s against the
 * spec, step by step (the configs of dcsim_checker_diff()).
 * Return: 0, 1 (mismatch), -EINVAL (a malformed trace: message on
 * opts->progress), -errno (file not readable).
 */
DCSIM_API int dcsim_checker_trace_file(const struct dcsim_dput_strategy *s, const char *path,
				     const struct dcsim_checker_opts *opts,
				     struct dcsim_checker_result *res);

/** dcsim_checker_explore() - every scenario (or opts->scenario) on @s.  Return: 0, 1, -errno. */
DCSIM_API int dcsim_checker_explore(const struct dcsim_dput_strategy *s,
				  const struct dcsim_checker_opts *opts,
				  struct dcsim_checker_result *res);

/**
 * dcsim_checker_stress() - @nthreads real threads (0: by budget) on one tree
 * for @ops operations each, or for @seconds if > 0 (both 0: by budget),
 * then the invariants; one result row on stdout.  HTM runs
 * as the environment's policy allows (simulated transactions do not run
 * outside the explorer).  The run is one scope of the lock order validator
 * of real threads (dcsim_lockdep_begin()): a report fails it, and threads
 * that deadlock after a report are left spinning, not waited for.
 * Return: 0, 1, -errno.
 */
DCSIM_API int dcsim_checker_stress(const struct dcsim_dput_strategy *s, unsigned int nthreads,
				 long ops, double seconds, const struct dcsim_checker_opts *opts,
				 struct dcsim_checker_result *res);

/**
 * dcsim_checker_corpus() - run the corpus of upstream bugs in @dir
 * (corpus/, format in its README.md): for each entry the suites its
 * .bug file names, on the strategies it names (a kind (a) entry's variant
 * <tree>-<name> by default), with the model fault it names planted, each
 * run in a child process; one row per entry on @table, saying whether the
 * result agrees with the entry's "expect:" field.  Reports of failing
 * checks go to opts->report only with opts->quiet false.
 * Return: 0 every result as expected, 1 a result disagrees, -errno (no
 * such folder, or no entry in it).
 */
DCSIM_API int dcsim_checker_corpus(const char *dir, const struct dcsim_checker_opts *opts,
				   FILE *table);

/** dcsim_checker_misuse() - bad puts on @s: one warning each, no corruption.  Return: 0, 1. */
DCSIM_API int dcsim_checker_misuse(const struct dcsim_dput_strategy *s,
				 const struct dcsim_checker_opts *opts,
				 struct dcsim_checker_result *res);

#endif /* DCSIM_H_CHECKER */
