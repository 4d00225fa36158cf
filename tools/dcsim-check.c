// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dcsim-check: run the checkers (<dcsim/checker.h>) on a dput strategy,
 * built in or loaded from a user's shared library.  Instrumented build only.
 *
 *   dcsim-check [--load LIB.so]... --strategy NAME
 *               [--suites diff,explore,stress,misuse] [--seed N]
 *               [--budget quick|default|soak] [--trace FILE] [--no-pin]
 *
 * --load dlopen()s LIB.so (RTLD_NOW | RTLD_GLOBAL); the library registers
 * its strategies with dcsim_strategy_register() from a constructor, or
 * defines "int dcsim_plugin_init(void)", which is called once after the
 * load (non-zero: the load failed).  --trace replays a trace file
 * (docs/trace-format.md) against the spec instead of running the suites.
 * --diff-steps N: random traces of N steps (default 60).  Explore replays:
 * --scenario NAME --explore-mode MODE --execution-seed N [--pct-steps K].
 * --scenarios A,B,... explores only those scenarios.  --fault NAME plants a
 * fault of the cache model (<dcsim/dcache-cover.h>, "husk-freed-early").
 * --sched strict explores with strict priorities (<dcsim/explore.h>,
 * "Scheduling": spinning does not yield, busy-wait livelocks fail); --sched
 * rt also takes the yield from cond_resched() (a real-time preemptor).
 * --sched window parks threads inside lock-drop windows while the others
 * run (<dcsim/explore.h>, "Windows"; docs/window-exploration.md);
 * --window-dump FILE appends its per-window counts to FILE, and
 * --window-target FUNC:LINE[:hold] (a failure's replay) fixes the window
 * every execution targets.
 *
 * --corpus DIR runs the corpus of upstream bugs (corpus/): for each
 * .bug entry the suites it names on the strategies it names, and prints
 * one table row per entry on stdout (dcsim_checker_corpus()); the kernel
 * code variants come from the plugin of the kernel-code build,
 *   dcsim-check --load kernel-code/libdcsim-kc-corpus.so --corpus corpus
 * and the exit status is 1 when a result disagrees with its entry's
 * "expect:" field.
 *
 * --jobs N runs the diff and explore suites in N forked processes, which
 * take the units (trace, exploration) one at a time from a shared counter,
 * so a fast process takes more; process i pins its explorations to the
 * i-th allowed CPU (src/engine/pin.c; --no-pin: no pinning, to measure
 * what it gains).  --shard I/N runs only the units that
 * dcsim_checker_shard_of() gives shard I, a fixed split for one
 * machine of N (with --jobs J, the shard's units are shared by J
 * processes).  Each process stops at its first failure, and no unit above
 * a failure is handed out, so the failure with the lowest unit index is
 * the one a run without --jobs reports: that report, and its replay line,
 * are printed, the others' output is dropped.  Stress and misuse run
 * once, in shard 0.  A
 * sharded run prints, per suite, one line
 *   dcsim-check: shard I/N: SUITE: STRATEGY: R runs, F failed, C simulated commits
 * for the merge (docs/testing.md): any failure fails; the commits of all
 * shards together must be > 0 for an HTM strategy.
 *
 * --kernel-tree TREE --kernel-patch FILE... (docs/kernel.md, "Checking a
 * patch of yours"): the kernel's dput path of TREE (6.1, 6.12: Debian's
 * linux-source-<TREE> tarball in /usr/src; or a tarball's path) with the
 * patches applied in order, built by kernel-code/kpatch.py into a cache
 * directory ($DCSIM_CACHE_DIR, else $XDG_CACHE_HOME/dcsim, else
 * ~/.cache/dcsim) and loaded as the strategy k<tree>-<patch name>, which
 * the suites then run (--strategy may be left out).  kpatch.py and the
 * shims are found beside the installed program (<datadir>/dcsim-check), in
 * the source tree for the build tree's program, or in $DCSIM_KC_ROOT with
 * the headers in $DCSIM_KC_INCLUDE.
 *
 * A --kernel-patch is a file (git format-patch output, mail and signature
 * around the diff, several patches in one mbox; or a plain diff -u), a
 * quilt series file, or a directory (its series file, else its *.patch
 * files in name order).  Every suite of a --kernel-patch run runs in a
 * child process, and the coverage of the change is reported after the
 * suites (check-coverage.c): the changed lines each suite ran, how often,
 * and the sides of their conditions taken; unreached lines are a warning,
 * a failure with --require-coverage.  --cache-clean empties the cache of
 * builds.
 *
 * --json FILE writes the result (docs/dcsim-check.schema.json), --junit
 * FILE JUnit XML; --merge SHARD.json... combines the --json files of a
 * run's shards into its verdict (check-merge.c).  --trace-steps N (else
 * DCSIM_EXPLORE_TRACE) is the length of an explorer report's interleaving.
 * docs/dcsim-check.md is the user's guide.
 *
 * Exit: 0 every check passed, 1 a check failed (a report, ending in one
 * "replay:" line; a crash of the code under test is one), 2 bad usage
 * (unknown option or strategy, a library that does not load, a kernel
 * patch that is empty, changes nothing, does not apply or build), 3 every
 * check passed but --require-coverage found a changed line that never
 * ran, 77 the --kernel-tree tarball is missing (the message names the
 * package).
 * Progress and reports go to stderr; stdout has only the stress suite's
 * result row (and --list, --help).
 */

#define _GNU_SOURCE	/* nftw(), strsignal(), RTLD_DEFAULT */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dcsim/checker.h>
#include <dcsim/dcache-cover.h>
#include <dcsim/explore.h>
#include <dcsim/parse.h>
#include <dcsim/strategy.h>

#include "check.h"

#define MAX_LOADS	8
#define MAX_PATCHES	16

static const struct {
	const char *name;
	unsigned int bit;
} suites[] = {
	{ "diff", S_DIFF }, { "explore", S_EXPLORE }, { "stress", S_STRESS }, { "misuse", S_MISUSE },
};

/* The command line, as the option handlers leave it. */
struct cli {
	const char *loads[MAX_LOADS];
	unsigned int nloads;
	const char *name, *trace, *budget_name, *corpus, *fault_name, *ktree;
	const char *kpatches[MAX_PATCHES];
	unsigned int nkpatches;
	unsigned int which, jobs, shard, nshards;
	bool list, no_pin, require_coverage, cache_clean, merge;
	const char *json, *junit;
	struct dcsim_checker_opts o;
	char replay[4096];
};

static int bad_usage(const char *fmt, const char *arg)
{
	fputs("dcsim-check: ", stderr);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	check_usage(stderr, false);
	return CHECK_USAGE;
}

static void list_strategies(FILE *f)
{
	for (size_t i = 0; i < dcsim_strategy_count(); i++) {
		const struct dcsim_dput_strategy *s = dcsim_strategy_get(i);

		fprintf(f, "  %-14s %s%s\n", s->name, s->description ? s->description : "",
			s->flags & DCSIM_STRATEGY_USES_HTM ? " [HTM]" : "");
	}
}

/* An option's number in [min, max] (<dcsim/parse.h>); 0, or bad usage naming @opt. */
static int opt_u64(const char *opt, const char *arg, uint64_t min, uint64_t max, uint64_t *out)
{
	int rc = dcsim_parse_u64(arg, min, max, out);

	if (!rc)
		return 0;
	fprintf(stderr, "dcsim-check: bad %s '%s': %s (want a whole number in %" PRIu64
		"..%" PRIu64 ")\n", opt, arg, dcsim_parse_strerror(rc), min, max);
	return CHECK_USAGE;
}

/* Append @s to @buf as one shell word (quoted if it needs it). */
static void append_word(char *buf, size_t len, const char *s)
{
	size_t used = strlen(buf);

	if (strpbrk(s, " \t'\"$\\*?[]()&;|<>`!{}~#"))
		snprintf(buf + used, len - used, " '%s'", s);
	else
		snprintf(buf + used, len - used, " %s", s);
}

static void append_opt(struct cli *c, const char *opt, const char *arg)
{
	append_word(c->replay, sizeof(c->replay), opt);
	if (arg)
		append_word(c->replay, sizeof(c->replay), arg);
}

/* ---- the option handlers: 0, or an exit status ---- */

static int opt_load(struct cli *c, const char *arg)
{
	if (c->nloads == MAX_LOADS)
		return bad_usage("at most %s libraries", "8");
	c->loads[c->nloads++] = arg;
	return 0;
}

static int opt_strategy(struct cli *c, const char *arg)
{
	c->name = arg;
	return 0;
}

static int opt_suites(struct cli *c, const char *arg)
{
	char buf[256], *save = NULL;

	if (strlen(arg) >= sizeof(buf))
		return bad_usage("bad --suites '%s'", arg);
	snprintf(buf, sizeof(buf), "%s", arg);
	c->which = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		unsigned int bit = 0;

		for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
			if (!strcmp(t, suites[i].name))
				bit = suites[i].bit;
		if (!bit)
			return bad_usage("unknown suite '%s' (valid: diff, explore, stress, misuse)", t);
		c->which |= bit;
	}
	return c->which ? 0 : bad_usage("bad --suites '%s'", arg);
}

static int opt_seed(struct cli *c, const char *arg)
{
	return opt_u64("--seed", arg, 0, UINT64_MAX, &c->o.seed);
}

static int opt_budget(struct cli *c, const char *arg)
{
	if (dcsim_checker_budget_parse(arg, &c->o.budget))
		return bad_usage("bad --budget '%s' (want quick, default or soak)", arg);
	c->budget_name = arg;
	return 0;
}

static int opt_trace(struct cli *c, const char *arg)
{
	c->trace = arg;
	return 0;
}

static int opt_scenario(struct cli *c, const char *arg)
{
	c->o.scenario = arg;
	return 0;
}

static int opt_explore_mode(struct cli *c, const char *arg)
{
	if (strcmp(arg, "random") && strcmp(arg, "pct"))
		return bad_usage("bad --explore-mode '%s' (want random or pct)", arg);
	c->o.explore_mode = arg;
	return 0;
}

static int opt_execution_seed(struct cli *c, const char *arg)
{
	return opt_u64("--execution-seed", arg, 0, UINT64_MAX, &c->o.execution_seed);
}

/* An integer in 1..@max into @out, or bad usage naming @opt. */
static int parse_count(const char *opt, const char *arg, uint64_t max, uint64_t *out)
{
	*out = 0;
	return opt_u64(opt, arg, 1, max, out);
}

static int opt_pct_steps(struct cli *c, const char *arg)
{
	uint64_t v;
	int rc = parse_count("--pct-steps", arg, UINT32_MAX, &v);

	c->o.pct_steps = (unsigned long)v;
	return rc;
}

static int opt_diff_steps(struct cli *c, const char *arg)
{
	uint64_t v;
	int rc = parse_count("--diff-steps", arg, 1000, &v);

	c->o.diff_steps = (unsigned int)v;
	return rc;
}

static int opt_trace_steps(struct cli *c, const char *arg)
{
	uint64_t v;
	int rc = parse_count("--trace-steps", arg, 1000000, &v);

	c->o.report_steps = (unsigned long)v;
	return rc;
}

static int opt_jobs(struct cli *c, const char *arg)
{
	uint64_t v;
	int rc = parse_count("--jobs", arg, 1024, &v);

	c->jobs = (unsigned int)v;
	return rc;
}

static int opt_shard(struct cli *c, const char *arg)
{
	const char *slash = strchr(arg, '/');
	char first[32];
	uint64_t a, b;

	if (!slash || (size_t)(slash - arg) >= sizeof(first))
		return bad_usage("bad --shard '%s' (want I/N, 0 <= I < N)", arg);
	snprintf(first, sizeof(first), "%.*s", (int)(slash - arg), arg);
	if (dcsim_parse_u64(first, 0, UINT_MAX, &a) ||
	    dcsim_parse_u64(slash + 1, 1, UINT_MAX / 1024, &b) || a >= b)
		return bad_usage("bad --shard '%s' (want I/N, 0 <= I < N)", arg);
	c->shard = (unsigned int)a;
	c->nshards = (unsigned int)b;
	return 0;
}

static int opt_kernel_tree(struct cli *c, const char *arg)
{
	c->ktree = arg;
	return 0;
}

static int opt_kernel_patch(struct cli *c, const char *arg)
{
	/* Absolute, so that a replay line works from anywhere. */
	char *abs = realpath(arg, NULL);

	if (c->nkpatches == MAX_PATCHES)
		return free(abs), bad_usage("at most %s --kernel-patch", "16");
	if (!abs)
		return bad_usage("--kernel-patch %s: no such file or directory", arg);
	c->kpatches[c->nkpatches++] = abs;
	return 0;
}

static int opt_scenarios(struct cli *c, const char *arg)
{
	c->o.scenarios = arg;
	return 0;
}

static int opt_fault(struct cli *c, const char *arg)
{
	if (dcsim_dcache_fault_lookup(arg) < 0)
		return bad_usage("unknown --fault '%s'", arg);
	c->fault_name = arg;
	return 0;
}

static int opt_corpus(struct cli *c, const char *arg)
{
	c->corpus = arg;
	return 0;
}

static int opt_sched(struct cli *c, const char *arg)
{
	enum dcsim_explore_sched sch;

	if (dcsim_explore_sched_parse(arg, &sch))
		return bad_usage("bad --sched '%s' (want fair, strict, rt or window)", arg);
	c->o.explore_sched = arg;
	return 0;
}

static int opt_window_dump(struct cli *c, const char *arg)
{
	c->o.window_dump = arg;
	return 0;
}

static int opt_window_target(struct cli *c, const char *arg)
{
	const char *colon = strchr(arg, ':');
	char *end;

	if (!colon || colon == arg || (strtol(colon + 1, &end, 10), end == colon + 1) ||
	    (*end && strcmp(end, ":hold")))
		return bad_usage("bad --window-target '%s' (want FUNC:LINE or FUNC:LINE:hold)",
				 arg);
	c->o.window_target = arg;
	return 0;
}

static int opt_no_pin(struct cli *c, const char *arg)
{
	(void)arg;
	c->no_pin = true;
	dcsim_explore_set_pin(DCSIM_EXPLORE_PIN_OFF);
	return 0;
}

static int opt_require_coverage(struct cli *c, const char *arg)
{
	(void)arg;
	c->require_coverage = true;
	return 0;
}

static int opt_cache_clean(struct cli *c, const char *arg)
{
	(void)arg;
	c->cache_clean = true;
	return 0;
}

static int opt_junit(struct cli *c, const char *arg)
{
	c->junit = arg;
	return 0;
}

static int opt_merge(struct cli *c, const char *arg)
{
	(void)arg;
	c->merge = true;
	return 0;
}

static int opt_json(struct cli *c, const char *arg)
{
	c->json = arg;
	return 0;
}

static int opt_list(struct cli *c, const char *arg)
{
	(void)arg;
	c->list = true;
	return 0;
}

/* How logical threads switch: results do not depend on it (not in the replay). */
static int opt_handoff(struct cli *c, const char *arg)
{
	enum dcsim_explore_handoff ho;

	(void)c;
	if (dcsim_explore_handoff_parse(arg, &ho))
		return bad_usage("bad --handoff '%s' (want fiber, ucontext or pthread)", arg);
	dcsim_explore_set_handoff(ho);
	return 0;
}

static int opt_help(struct cli *c, const char *arg)
{
	(void)c, (void)arg;
	check_usage(stdout, true);
	exit(CHECK_PASS);
}

static const struct {
	const char *name;
	int has_arg;
	int (*set)(struct cli *c, const char *arg);
} options[] = {
	{ "load", required_argument, opt_load },
	{ "strategy", required_argument, opt_strategy },
	{ "suites", required_argument, opt_suites },
	{ "seed", required_argument, opt_seed },
	{ "budget", required_argument, opt_budget },
	{ "trace", required_argument, opt_trace },
	{ "scenario", required_argument, opt_scenario },
	{ "explore-mode", required_argument, opt_explore_mode },
	{ "execution-seed", required_argument, opt_execution_seed },
	{ "pct-steps", required_argument, opt_pct_steps },
	{ "diff-steps", required_argument, opt_diff_steps },
	{ "jobs", required_argument, opt_jobs },
	{ "trace-steps", required_argument, opt_trace_steps },
	{ "shard", required_argument, opt_shard },
	{ "kernel-tree", required_argument, opt_kernel_tree },
	{ "kernel-patch", required_argument, opt_kernel_patch },
	{ "require-coverage", no_argument, opt_require_coverage },
	{ "cache-clean", no_argument, opt_cache_clean },
	{ "scenarios", required_argument, opt_scenarios },
	{ "fault", required_argument, opt_fault },
	{ "corpus", required_argument, opt_corpus },
	{ "sched", required_argument, opt_sched },
	{ "window-dump", required_argument, opt_window_dump },
	{ "window-target", required_argument, opt_window_target },
	{ "no-pin", no_argument, opt_no_pin },
	{ "handoff", required_argument, opt_handoff },
	{ "json", required_argument, opt_json },
	{ "merge", no_argument, opt_merge },
	{ "junit", required_argument, opt_junit },
	{ "list", no_argument, opt_list },
	{ "help", no_argument, opt_help },
};

#define NR_OPTIONS	(sizeof(options) / sizeof(options[0]))

static int parse_args(struct cli *c, int argc, char **argv)
{
	struct option lopts[NR_OPTIONS + 1];
	int k;

	for (size_t i = 0; i < NR_OPTIONS; i++)
		lopts[i] = (struct option){ options[i].name, options[i].has_arg, NULL, (int)i };
	lopts[NR_OPTIONS] = (struct option){ NULL, 0, NULL, 0 };
	opterr = 0;
	while ((k = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		int rc;

		if (k < 0 || (size_t)k >= NR_OPTIONS)
			return bad_usage("unknown or incomplete option '%s'", argv[optind - 1]);
		rc = options[k].set(c, optarg);
		if (rc)
			return rc;
	}
	if (c->merge && optind == argc)
		return bad_usage("%s", "--merge wants the --json files of the shards");
	if (optind != argc && !c->merge)
		return bad_usage("unexpected argument '%s'", argv[optind]);
	return 0;
}

/* ---- the steps of a run ---- */

static int load_libraries(struct cli *c)
{
	for (unsigned int i = 0; i < c->nloads; i++) {
		char why[512];
		bool init;

		int got = dcsim_strategy_load(c->loads[i], &init, why, sizeof(why));

		if (got < 0) {
			fprintf(stderr, "dcsim-check: --load %s: %s\n", c->loads[i], why);
			return CHECK_USAGE;
		}
		if (!got) {
			fprintf(stderr, "dcsim-check: --load %s: the library registered no dput "
				"strategy (register them from a constructor or from "
				"dcsim_plugin_init())\n", c->loads[i]);
			return CHECK_USAGE;
		}
		fprintf(stderr, "dcsim-check: loaded %s%s\n", c->loads[i],
			init ? " (dcsim_plugin_init() called)" : "");
		append_opt(c, "--load", c->loads[i]);
	}
	return 0;
}

static int load_kernel_patch(struct cli *c, char *kname, size_t len)
{
	int rc;

	if (!c->ktree != !c->nkpatches)
		return bad_usage("%s", "--kernel-tree and --kernel-patch go together");
	if (!c->ktree) {
		if (c->require_coverage)
			return bad_usage("%s", "--require-coverage measures a --kernel-patch run");
		return 0;
	}
	rc = check_kernel_patch(c->ktree, c->kpatches, c->nkpatches, kname, len);
	if (rc)
		return rc;
	if (c->name && strcmp(c->name, kname)) {
		fprintf(stderr, "dcsim-check: --strategy %s: the --kernel-patch build is named %s\n",
			c->name, kname);
		return CHECK_USAGE;
	}
	c->name = kname;
	append_opt(c, "--kernel-tree", c->ktree);
	for (unsigned int i = 0; i < c->nkpatches; i++)
		append_opt(c, "--kernel-patch", c->kpatches[i]);
	return 0;
}

static int run_corpus(struct cli *c)
{
	int rc;

	if (c->name || c->trace || c->o.scenario || c->o.scenarios || c->fault_name ||
	    c->o.explore_sched)
		return bad_usage("%s", "--corpus takes its strategies, suites, faults and "
				 "scheduling from the .bug files: no --strategy, --trace, "
				 "--scenario(s), --fault or --sched");
	if (c->budget_name)
		append_opt(c, "--budget", c->budget_name);
	c->o.replay_prefix = c->replay;
	c->o.report = stderr;
	c->o.progress = stderr;
	rc = dcsim_checker_corpus(c->corpus, &c->o, stdout);
	if (rc < 0) {
		fprintf(stderr, "dcsim-check: --corpus %s: %s\n", c->corpus,
			rc == -ENOENT ? "no .bug entry in it" : strerror(-rc));
		return CHECK_USAGE;
	}
	return rc;
}

/* The strategy and the replay prefix; Return: 0 or an exit status. */
static int prepare_suites(struct cli *c, const struct dcsim_dput_strategy **s)
{
	if (c->fault_name)
		dcsim_dcache_set_fault(dcsim_dcache_fault_lookup(c->fault_name));
	if (c->o.scenarios && (!(c->which & S_EXPLORE) || c->trace))
		return bad_usage("%s", "--scenarios chooses explore scenarios: use it with the "
				 "explore suite");
	if (!c->name)
		return bad_usage("%s", "--strategy NAME is required (--list shows the names)");
	*s = dcsim_strategy_lookup(c->name);
	if (!*s) {
		fprintf(stderr, "dcsim-check: unknown strategy '%s'; the registered ones are:\n",
			c->name);
		list_strategies(stderr);
		return CHECK_USAGE;
	}
	if (c->o.scenario && (c->which != S_EXPLORE || c->trace))
		return bad_usage("%s", "--scenario replays one explorer execution: "
				 "use it with --suites explore only");
	append_opt(c, "--strategy", c->name);
	if (c->budget_name)
		append_opt(c, "--budget", c->budget_name);
	if (c->fault_name)
		append_opt(c, "--fault", c->fault_name);
	if (c->o.explore_sched)
		append_opt(c, "--sched", c->o.explore_sched);
	if (c->o.window_target)
		append_opt(c, "--window-target", c->o.window_target);
	c->o.replay_prefix = c->replay;
	/*
	 * Reports go to stderr with the progress, in order: the explorer writes
	 * its part of a report (the interleaving, the schedule) there, also
	 * from a crash handler, so one stream keeps a report in one piece.
	 */
	c->o.report = stderr;
	c->o.progress = stderr;
	return 0;
}

/*
 * One suite, in child processes whatever --jobs: a crash or a hang (the
 * watchdog aborts) in the code under test is then a failure with our
 * replay line, the other suites still run, and a --kernel-patch child's
 * coverage counts are its suite's.  Return: 0, 1 or 2.
 */
static int run_one_suite(struct cli *c, size_t i, const struct dcsim_dput_strategy *s)
{
	unsigned int bit = suites[i].bit;

	/* Stress and misuse have no seed space to split: shard 0 runs them. */
	if (bit != S_DIFF && bit != S_EXPLORE && c->shard)
		return 0;
	return check_run_jobs(bit, suites[i].name, s, &c->o, c->jobs, c->shard, c->nshards,
			      c->no_pin);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag;
	return ftw->level ? remove(path) : 0;
}

/* --cache-clean: empty the cache's kernel/ folder (the builds). */
static int cache_clean(void)
{
	char dir[PATH_MAX];
	size_t n;

	if (check_cache_dir(dir, sizeof(dir) - 8))
		return CHECK_USAGE;
	n = strlen(dir);
	snprintf(dir + n, sizeof(dir) - n, "/kernel");
	if (nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) && errno != ENOENT) {
		fprintf(stderr, "dcsim-check: --cache-clean: %s: %s\n", dir, strerror(errno));
		return CHECK_USAGE;
	}
	fprintf(stderr, "dcsim-check: --cache-clean: emptied %s\n", dir);
	return 0;
}

/*
 * --json FILE: the verdict, the suites (each with its runs, first failure
 * and replay), their units (each trace, exploration, stress or misuse run,
 * with its outcome) and the coverage of the change, as docs/dcsim-check.schema.json
 * describes; written to a temporary file renamed into place.
 */
static FILE *json_open(const struct cli *c, char *tmp, size_t len)
{
	FILE *f;

	if (!c->json)
		return NULL;
	snprintf(tmp, len, "%s.tmp.%ld", c->json, (long)getpid());
	f = fopen(tmp, "w");
	if (!f)
		fprintf(stderr, "dcsim-check: --json %s: %s\n", tmp, strerror(errno));
	return f;
}

static void json_head(FILE *f, const struct cli *c, const char *strategy, bool uses_htm)
{
	unsigned int n;
	const struct check_suite_result *r = check_suite_results(&n);

	fputs("{\"tool\": \"dcsim-check\", \"strategy\": ", f);
	check_json_str(f, strategy);
	fprintf(f, ", \"seed\": %" PRIu64 ", \"uses_htm\": %s, \"shard\": {\"index\": %u, "
		"\"count\": %u}, \"suites\": [", c->o.seed, uses_htm ? "true" : "false", c->shard,
		c->nshards);
	for (unsigned int i = 0; i < n; i++) {
		fprintf(f, "%s{\"name\": ", i ? ", " : "");
		check_json_str(f, r[i].name);
		fputs(", \"verdict\": ", f);
		check_json_str(f, r[i].verdict);
		fprintf(f, ", \"runs\": %lu, \"simulated_commits\": %lu, \"processes\": %u, "
			"\"failure\": ", r[i].runs, r[i].commits, r[i].processes);
		if (r[i].failure[0])
			check_json_str(f, r[i].failure);
		else
			fputs("null", f);
		fputs(", \"replay\": ", f);
		if (r[i].replay[0])
			check_json_str(f, r[i].replay);
		else
			fputs("null", f);
		fputc('}', f);
	}
	fputs("], \"units\": [", f);
	for (unsigned int i = 0, first = 1; i < n; i++) {
		for (unsigned long k = 0; k < r[i].nunits; k++, first = 0) {
			fputs(first ? "\n" : ",\n", f);
			check_json_unit(f, r[i].name, strategy, &r[i].units[k]);
		}
	}
	fputs("], ", f);
}

static int json_close(FILE *f, const struct cli *c, const char *tmp, int rc)
{
	static const char *const verdicts[] = {
		[CHECK_PASS] = "pass", [CHECK_FAILED] = "fail", [CHECK_USAGE] = "error",
		[CHECK_UNCOVERED] = "uncovered",
	};

	if (!f)
		return rc;
	fprintf(f, ", \"verdict\": \"%s\", \"exit\": %d}\n", verdicts[rc], rc);
	if (fclose(f) || rename(tmp, c->json)) {
		fprintf(stderr, "dcsim-check: --json %s: %s\n", c->json, strerror(errno));
		remove(tmp);
		return rc ? rc : CHECK_USAGE;
	}
	return rc;
}

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\n')
				fputc(*s, f);
		}
	}
}

/*
 * --junit FILE: JUnit XML for CI, one test case per suite (a failure
 * carries the first failure and its replay), and with a --kernel-patch
 * run one for the coverage of the change (a failure when a changed line
 * never ran: with --require-coverage that fails the run, else CI shows it).
 */
static int junit_write(const struct cli *c, const char *strategy,
		       const struct check_cov_total *tot, bool measured)
{
	unsigned int n, failures = 0;
	const struct check_suite_result *r = check_suite_results(&n);
	FILE *f;

	if (!c->junit)
		return 0;
	f = fopen(c->junit, "w");
	if (!f)
		return fprintf(stderr, "dcsim-check: --junit %s: %s\n", c->junit, strerror(errno)), -1;
	for (unsigned int i = 0; i < n; i++)
		failures += strcmp(r[i].verdict, "ok") != 0;
	failures += measured && tot->missed;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
		"  <testsuite name=\"dcsim-check ");
	xml_text(f, strategy);
	fprintf(f, "\" tests=\"%u\" failures=\"%u\">\n", n + measured, failures);
	for (unsigned int i = 0; i < n; i++) {
		fprintf(f, "    <testcase classname=\"dcsim-check.");
		xml_text(f, strategy);
		fprintf(f, "\" name=\"%s\">", r[i].name);
		if (strcmp(r[i].verdict, "ok")) {
			fputs("\n      <failure message=\"", f);
			xml_text(f, r[i].failure[0] ? r[i].failure : r[i].verdict);
			fputs("\">replay: ", f);
			xml_text(f, r[i].replay);
			fputs("</failure>\n    ", f);
		}
		fputs("</testcase>\n", f);
	}
	if (measured) {
		fputs("    <testcase classname=\"dcsim-check.", f);
		xml_text(f, strategy);
		fprintf(f, "\" name=\"coverage of the change\">");
		if (tot->missed)
			fprintf(f, "\n      <failure message=\"%u of %u changed lines never ran\"/>\n    ",
				tot->missed, tot->lines);
		fputs("</testcase>\n", f);
	}
	fputs("  </testsuite>\n</testsuites>\n", f);
	return fclose(f) ? -1 : 0;
}

int main(int argc, char **argv)
{
	static struct cli c = {
		.which = S_DIFF | S_EXPLORE | S_STRESS | S_MISUSE,
		.jobs = 1, .nshards = 1, .replay = "dcsim-check",
	};
	const struct dcsim_dput_strategy *s;
	struct check_cov_total tot;
	char kname[256], json_tmp[PATH_MAX + 32];
	bool measured;
	FILE *json;
	int rc, failed = 0;

	dcsim_checker_opts_init(&c.o);
	rc = parse_args(&c, argc, argv);
	if (rc)
		return rc;
	if (!c.o.report_steps && getenv("DCSIM_EXPLORE_TRACE") &&
	    opt_trace_steps(&c, getenv("DCSIM_EXPLORE_TRACE")))
		return bad_usage("%s", "DCSIM_EXPLORE_TRACE wants a step count, 1..1000000");
	if (c.cache_clean)
		return cache_clean();
	if (c.merge)
		return check_merge(argv + optind, (unsigned int)(argc - optind), c.json);
	rc = load_libraries(&c);
	if (!rc)
		rc = load_kernel_patch(&c, kname, sizeof(kname));
	if (rc)
		return rc;
	if (c.list) {
		list_strategies(stdout);
		return 0;
	}
	if (c.corpus)
		return run_corpus(&c);
	rc = prepare_suites(&c, &s);
	if (rc)
		return rc;
	if (c.trace) {
		rc = dcsim_checker_trace_file(s, c.trace, &c.o, NULL);
		check_cov_ran("in-process");
		failed = rc < 0 ? CHECK_USAGE : rc;
	}
	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]) && !c.trace; i++) {
		if (!(c.which & suites[i].bit))
			continue;
		rc = run_one_suite(&c, i, s);
		if (rc == CHECK_USAGE)
			return rc;
		failed |= rc;
		fflush(stdout);
	}
	if (failed == CHECK_USAGE)
		return CHECK_USAGE;
	fprintf(stderr, "dcsim-check: %s: %s\n", s->name, failed ? "FAILED" : "all checks passed");
	json = json_open(&c, json_tmp, sizeof(json_tmp));
	if (json)
		json_head(json, &c, s->name, s->flags & DCSIM_STRATEGY_USES_HTM);
	measured = check_cov_active();
	rc = check_cov_report(stderr, c.require_coverage, &tot, json);
	if (junit_write(&c, s->name, &tot, measured && tot.lines))
		rc = rc ? rc : CHECK_USAGE;
	return json_close(json, &c, json_tmp, failed ? CHECK_FAILED : rc);
}
