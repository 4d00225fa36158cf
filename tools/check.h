/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dcsim-check's parts (tools/): the options and main (dcsim-check.c), the
 * suites in child processes (check-jobs.c), the --kernel-patch build
 * (check-kpatch.c) and the coverage of the change (check-coverage.c).
 */
#ifndef DCSIM_TOOLS_CHECK_H
#define DCSIM_TOOLS_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <dcsim/checker.h>
#include <dcsim/strategy.h>

/* Exit statuses (dcsim-check --help lists them). */
enum {
	CHECK_PASS = 0,
	CHECK_FAILED = 1,	/* a check failed: a report ending in one "replay:" line */
	CHECK_USAGE = 2,	/* bad usage, a library or patch that does not load, apply or build */
	CHECK_UNCOVERED = 3,	/* --require-coverage: a changed line never ran */
	CHECK_NO_TREE = 77,	/* the --kernel-tree tarball is missing */
};

enum suite { S_DIFF = 1, S_EXPLORE = 2, S_STRESS = 4, S_MISUSE = 8 };

/* check-jobs.c */
int check_run_suite(unsigned int bit, const struct dcsim_dput_strategy *s,
		    const struct dcsim_checker_opts *o, struct dcsim_checker_result *res);
/*
 * Suite @bit in child processes: @jobs of them take the units of shard
 * @shard of @nshards from a shared pool (diff, explore), or one runs the
 * whole suite (@jobs 1: stress, misuse, a one-execution replay).
 * Return: 0, 1 (a check failed or a process crashed: one report, with a
 * replay line), 2 (an error).
 */
int check_run_jobs(unsigned int bit, const char *suite, const struct dcsim_dput_strategy *s,
		   const struct dcsim_checker_opts *o, unsigned int jobs, unsigned int shard,
		   unsigned int nshards, bool no_pin);

/* check-kpatch.c */
/* The cache of --kernel-patch builds (see --help).  Return: 0, or -1 (said). */
int check_cache_dir(char *dir, size_t len);
/*
 * Build (or find in the cache) @tree with @patches as a strategy, load it
 * and return its name in @name; the coverage of the change starts (when the
 * build counts it).  Return: 0, 2 (an error, said), 77 (the tarball is
 * missing, said).
 */
int check_kernel_patch(const char *tree, const char *const *patches, unsigned int npatches,
		       char *name, size_t len);

/* check-merge.c: one verdict from the --json files of a run's shards.  Return: 0, 1, 2. */
int check_merge(char *const *files, unsigned int n, const char *json);

/* check-coverage.c */
struct check_cov_total {
	unsigned int lines;	/* changed lines with code */
	unsigned int reached;	/* of them, run by some suite */
	unsigned int missed;	/* never run */
	unsigned int sides;	/* condition outcomes on changed lines */
	unsigned int taken;	/* of them, taken */
};

/* Start counting: @so is the build's shared object, @root kpatch.py's root. */
int check_cov_begin(const char *so, const char *root);
bool check_cov_active(void);
/* This process's counts go to the suite's directory (call in the child). */
void check_cov_suite(const char *suite);
/* Note that @suite ran (its counts are reported). */
void check_cov_ran(const char *suite);
/* Write this process's counts now (before _exit()). */
void check_cov_flush(void);
/*
 * The report, to @out; the totals in @tot.  Return: 0, or 3 when
 * @require and a changed line never ran.
 */
int check_cov_report(FILE *out, bool require, struct check_cov_total *tot, FILE *json);

/* @s as a JSON string (control characters left out). */
void check_json_str(FILE *f, const char *s);

/* check-jobs.c: each unit's outcome (a trace, an exploration, a stress or misuse run). */
enum check_unit_kind { CHECK_UNIT_OK, CHECK_UNIT_CHECK, CHECK_UNIT_CRASH, CHECK_UNIT_HANG };
struct check_unit {
	unsigned long index;		/* its number in the suite (what shards split) */
	unsigned long executions;	/* explore: executions; diff: HTM configs; else runs */
	uint64_t seed;			/* diff, explore: the trace's or exploration's */
	enum check_unit_kind kind;	/* OK, or how it failed */
	char scenario[160], mode[16];	/* explore only; "" otherwise */
	char *failure, *replay;		/* when it failed (one line, the whole replay line) */
};

/* check-jobs.c: each suite's outcome, for --json. */
struct check_suite_result {
	const char *name;
	const char *verdict;		/* "ok", "FAILED", "ERROR" */
	unsigned long runs, commits;
	unsigned int processes;
	char failure[512];		/* the first failure, one line; "" if none */
	char replay[4096];		/* its replay; "" if none */
	/*
	 * Its units in index order, up to the lowest failing one (what a
	 * --jobs 1 run, which stops there, runs): all of them with --jobs N.
	 */
	struct check_unit *units;
	unsigned long nunits;
};
/* @u of @suite as a --json unit object (docs/dcsim-check.schema.json). */
void check_json_unit(FILE *f, const char *suite, const char *strategy, const struct check_unit *u);
/* The suites run so far, in order; @n gets their count. */
const struct check_suite_result *check_suite_results(unsigned int *n);

/* check-usage.c: the usage lines, and with @help the rest of --help. */
void check_usage(FILE *f, bool help);

#endif
