// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dcsim-check: run the checkers (<dcsim/checker.h>) on a dput strategy,
 * built in or loaded from a user's shared library.  Check build only.
 *
 *   dcsim-check [--load LIB.so]... --strategy NAME
 *               [--suites diff,explore,stress,misuse] [--seed N]
 *               [--budget quick|default|soak] [--trace FILE]
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
 *
 * --corpus DIR runs the corpus of upstream bugs (kernel/corpus/): for each
 * .bug entry the suites it names on the strategies it names, and prints
 * one table row per entry on stdout (dcsim_checker_corpus()); the kernel
 * code variants come from the plugin of the kernel-code build,
 *   dcsim-check --load kernel-code/libdcsim-kc-corpus.so --corpus kernel/corpus
 * and the exit status is 1 when a result disagrees with its entry's
 * "expect:" field.
 *
 * --jobs N runs the diff and explore suites in N forked processes, each
 * taking every N-th unit (trace, exploration); --shard I/N runs only the
 * units i with i % N == I, for one machine of N (with --jobs J, the shard
 * is split again J ways).  Each process stops at its first failure, so the
 * failure with the lowest unit index among them is the one a run without
 * --jobs reports first: that report, and its replay line, are printed, the
 * others' output is dropped.  Stress and misuse run once, in shard 0.  A
 * sharded run prints, per suite, one line
 *   dcsim-check: shard I/N: SUITE: STRATEGY: R runs, F failed, C simulated commits
 * for the merge (docs/testing.md): any failure fails; the commits of all
 * shards together must be > 0 for an HTM strategy.
 *
 * Exit: 0 every check passed, 1 a check failed (a report, ending in one
 * "replay:" line), 2 bad usage (unknown option or strategy, a library that
 * does not load).  Progress and reports go to stderr; stdout has only the
 * stress suite's result row (and --list, --help).
 */

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/wait.h>
#include <unistd.h>

#include <dcsim/checker.h>
#include <dcsim/dcache-cover.h>
#include <dcsim/strategy.h>

#define MAX_LOADS	8

enum suite { S_DIFF = 1, S_EXPLORE = 2, S_STRESS = 4, S_MISUSE = 8 };

static const struct {
	const char *name;
	unsigned int bit;
} suites[] = {
	{ "diff", S_DIFF }, { "explore", S_EXPLORE }, { "stress", S_STRESS }, { "misuse", S_MISUSE },
};

static void usage(FILE *f)
{
	fputs("usage: dcsim-check [--load LIB.so]... --strategy NAME\n"
	      "                   [--suites diff,explore,stress,misuse] [--seed N]\n"
	      "                   [--budget quick|default|soak] [--trace FILE]\n"
	      "                   [--diff-steps N] [--jobs N] [--shard I/N]\n"
	      "                   [--scenario NAME --explore-mode random|pct --execution-seed N\n"
	      "                    [--pct-steps K]] [--scenarios A,B,...] [--fault NAME]\n"
	      "       dcsim-check [--load LIB.so]... --corpus DIR [--budget B]\n"
	      "       dcsim-check [--load LIB.so]... --list\n", f);
}

static int bad_usage(const char *fmt, const char *arg)
{
	fputs("dcsim-check: ", stderr);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	usage(stderr);
	return 2;
}

static void list_strategies(FILE *f)
{
	for (size_t i = 0; i < dcsim_strategy_count(); i++) {
		const struct dcsim_dput_strategy *s = dcsim_strategy_get(i);

		fprintf(f, "  %-14s %s%s\n", s->name, s->description ? s->description : "",
			s->flags & DCSIM_STRATEGY_USES_HTM ? " [HTM]" : "");
	}
}

static int parse_suites(const char *arg, unsigned int *out)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", arg);
	*out = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		unsigned int bit = 0;

		for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
			if (!strcmp(t, suites[i].name))
				bit = suites[i].bit;
		if (!bit) {
			fprintf(stderr, "dcsim-check: unknown suite '%s' (valid: diff, explore, "
				"stress, misuse)\n", t);
			return -1;
		}
		*out |= bit;
	}
	return *out ? 0 : -1;
}

static int parse_u64(const char *arg, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(arg, &end, 0);
	return errno || !*arg || *end ? -1 : 0;
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

static int run_suite(unsigned int bit, const struct dcsim_dput_strategy *s,
		     const struct dcsim_checker_opts *o, struct dcsim_checker_result *res)
{
	switch (bit) {
	case S_DIFF:
		return dcsim_checker_diff(s, o, res);
	case S_EXPLORE:
		return dcsim_checker_explore(s, o, res);
	case S_STRESS:
		return dcsim_checker_stress(s, 0, 0, 0, o, res);
	default:
		return dcsim_checker_misuse(s, o, res);
	}
}

struct job {
	pid_t pid;
	FILE *out;		/* the child's stderr: progress and report */
	int fd;			/* its struct dcsim_checker_result */
	bool got;		/* the result arrived (else it crashed) */
	int status;
	struct dcsim_checker_result res;
};

static void copy_out(FILE *from, FILE *to)
{
	char buf[4096];
	size_t n;

	rewind(from);
	while ((n = fread(buf, 1, sizeof(buf), from)) > 0)
		fwrite(buf, 1, n, to);
}

/*
 * Suite @bit on @jobs processes, each with its share of the units of shard
 * @shard of @nshards.  Return: 0, 1 (a check failed, one report printed),
 * 2 (an error).
 */
static int run_jobs(unsigned int bit, const char *suite, const struct dcsim_dput_strategy *s,
		    const struct dcsim_checker_opts *o0, unsigned int jobs, unsigned int shard,
		    unsigned int nshards)
{
	struct job *j = calloc(jobs, sizeof(*j));
	unsigned long runs = 0, commits = 0;
	struct job *first = NULL;
	bool crashed = false, error = false;

	if (!j)
		return 2;
	for (unsigned int i = 0; i < jobs; i++) {
		int p[2];

		j[i].out = tmpfile();
		if (!j[i].out || pipe(p))
			return fprintf(stderr, "dcsim-check: --jobs: %s\n", strerror(errno)), 2;
		fflush(stdout);
		fflush(stderr);
		j[i].pid = fork();
		if (j[i].pid < 0)
			return fprintf(stderr, "dcsim-check: fork: %s\n", strerror(errno)), 2;
		if (j[i].pid == 0) {
			struct dcsim_checker_opts o = *o0;
			struct dcsim_checker_result res;
			int rc;

			close(p[0]);
			/* The explorer writes its part of a report to fd 2 itself. */
			dup2(fileno(j[i].out), 2);
			o.shard = shard + nshards * i;
			o.nshards = nshards * jobs;
			rc = run_suite(bit, s, &o, &res);
			fflush(stderr);
			if (write(p[1], &res, sizeof(res)) != (ssize_t)sizeof(res))
				_exit(2);
			_exit(rc < 0 ? 2 : rc);
		}
		close(p[1]);
		j[i].fd = p[0];
	}
	for (unsigned int i = 0; i < jobs; i++) {
		j[i].got = read(j[i].fd, &j[i].res, sizeof(j[i].res)) == (ssize_t)sizeof(j[i].res);
		close(j[i].fd);
		waitpid(j[i].pid, &j[i].status, 0);
		if (!j[i].got || !WIFEXITED(j[i].status)) {
			crashed = true;
			continue;
		}
		if (WEXITSTATUS(j[i].status) == 2)
			error = true;
		runs += j[i].res.runs;
		commits += j[i].res.htm_commits;
		/* Each stopped at its first failure: the lowest is the unsharded run's. */
		if (j[i].res.failures && (!first || j[i].res.failed_unit < first->res.failed_unit))
			first = &j[i];
	}
	for (unsigned int i = 0; i < jobs; i++) {
		/* A crash (signal) has no result: its whole output is the report. */
		if (&j[i] == first || !j[i].got || !WIFEXITED(j[i].status) ||
		    WEXITSTATUS(j[i].status) == 2)
			copy_out(j[i].out, stderr);
		fclose(j[i].out);
	}
	if (!first && !crashed && !error && nshards <= 1 && bit != S_STRESS && bit != S_MISUSE &&
	    (s->flags & DCSIM_STRATEGY_USES_HTM) && !commits) {
		/* The suites' own check, over all processes together. */
		fprintf(stderr, "dcsim-check: FAIL: %s, strategy %s, HTM sim-commit\ncheck: the "
			"strategy says DCSIM_STRATEGY_USES_HTM, but none of its transactions "
			"committed with simulated HTM committing: its HTM path was not checked\n"
			"replay: %s --suites %s --seed %" PRIu64 "\n", suite, s->name,
			o0->replay_prefix, suite, o0->seed);
		free(j);
		return 1;
	}
	if (nshards > 1)
		printf("dcsim-check: shard %u/%u: %s: %s: %lu runs, %s, %lu simulated commits\n",
		       shard, nshards, suite, s->name, runs,
		       first || crashed ? "FAILED" : error ? "ERROR" : "ok", commits);
	fprintf(stderr, "dcsim-check: %s: %s: %lu runs on %u processes, %s\n", suite, s->name, runs,
		jobs, first || crashed ? "FAILED" : error ? "ERROR" : "ok");
	free(j);
	return error ? 2 : first || crashed ? 1 : 0;
}

static int parse_shard(const char *arg, unsigned int *i, unsigned int *n)
{
	char *end;
	unsigned long a, b;

	errno = 0;
	a = strtoul(arg, &end, 10);
	if (errno || end == arg || *end != '/')
		return -1;
	b = strtoul(end + 1, &end, 10);
	if (errno || *end || !b || a >= b || b > UINT_MAX / 1024)
		return -1;
	*i = (unsigned int)a;
	*n = (unsigned int)b;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "load", required_argument, NULL, 'l' },
		{ "strategy", required_argument, NULL, 's' },
		{ "suites", required_argument, NULL, 'S' },
		{ "seed", required_argument, NULL, 'r' },
		{ "budget", required_argument, NULL, 'b' },
		{ "trace", required_argument, NULL, 't' },
		{ "scenario", required_argument, NULL, 'c' },
		{ "explore-mode", required_argument, NULL, 'm' },
		{ "execution-seed", required_argument, NULL, 'e' },
		{ "pct-steps", required_argument, NULL, 'p' },
		{ "diff-steps", required_argument, NULL, 'd' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "shard", required_argument, NULL, 'x' },
		{ "scenarios", required_argument, NULL, 'C' },
		{ "fault", required_argument, NULL, 'f' },
		{ "corpus", required_argument, NULL, 'K' },
		{ "list", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *loads[MAX_LOADS], *name = NULL, *trace = NULL, *budget_name = NULL;
	const char *corpus = NULL, *fault_name = NULL;
	unsigned int nloads = 0, which = S_DIFF | S_EXPLORE | S_STRESS | S_MISUSE;
	const struct dcsim_dput_strategy *s;
	struct dcsim_checker_opts o;
	char replay[2048] = "dcsim-check";
	bool list = false;
	unsigned int jobs = 1, shard = 0, nshards = 1;
	int c, failed = 0;

	dcsim_checker_opts_init(&o);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (nloads == MAX_LOADS)
				return bad_usage("at most %s libraries", "8");
			loads[nloads++] = optarg;
			break;
		case 's':
			name = optarg;
			break;
		case 'S':
			if (parse_suites(optarg, &which))
				return bad_usage("bad --suites '%s'", optarg);
			break;
		case 'r':
			if (parse_u64(optarg, &o.seed))
				return bad_usage("bad --seed '%s' (want an integer)", optarg);
			break;
		case 'b':
			if (dcsim_checker_budget_parse(optarg, &o.budget))
				return bad_usage("bad --budget '%s' (want quick, default or soak)",
						 optarg);
			budget_name = optarg;
			break;
		case 't':
			trace = optarg;
			break;
		case 'c':
			o.scenario = optarg;
			break;
		case 'm':
			if (strcmp(optarg, "random") && strcmp(optarg, "pct"))
				return bad_usage("bad --explore-mode '%s' (want random or pct)", optarg);
			o.explore_mode = optarg;
			break;
		case 'e':
			if (parse_u64(optarg, &o.execution_seed))
				return bad_usage("bad --execution-seed '%s'", optarg);
			break;
		case 'p': {
			uint64_t v;

			if (parse_u64(optarg, &v) || !v)
				return bad_usage("bad --pct-steps '%s'", optarg);
			o.pct_steps = (unsigned long)v;
			break;
		}
		case 'd': {
			uint64_t v;

			if (parse_u64(optarg, &v) || !v || v > 1000)
				return bad_usage("bad --diff-steps '%s' (want 1..1000)", optarg);
			o.diff_steps = (unsigned int)v;
			break;
		}
		case 'j': {
			uint64_t v;

			if (parse_u64(optarg, &v) || !v || v > 1024)
				return bad_usage("bad --jobs '%s' (want 1..1024)", optarg);
			jobs = (unsigned int)v;
			break;
		}
		case 'x':
			if (parse_shard(optarg, &shard, &nshards))
				return bad_usage("bad --shard '%s' (want I/N, 0 <= I < N)", optarg);
			break;
		case 'C':
			o.scenarios = optarg;
			break;
		case 'f':
			if (dcsim_dcache_fault_lookup(optarg) < 0)
				return bad_usage("unknown --fault '%s'", optarg);
			fault_name = optarg;
			break;
		case 'K':
			corpus = optarg;
			break;
		case 'L':
			list = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return bad_usage("unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc)
		return bad_usage("unexpected argument '%s'", argv[optind]);

	for (unsigned int i = 0; i < nloads; i++) {
		char why[512];
		bool init;

		if (dcsim_strategy_load(loads[i], &init, why, sizeof(why)) < 0) {
			fprintf(stderr, "dcsim-check: --load %s: %s\n", loads[i], why);
			return 2;
		}
		fprintf(stderr, "dcsim-check: loaded %s%s\n", loads[i],
			init ? " (dcsim_plugin_init() called)" : "");
		append_word(replay, sizeof(replay), "--load");
		append_word(replay, sizeof(replay), loads[i]);
	}
	if (list) {
		list_strategies(stdout);
		return 0;
	}
	if (corpus) {
		int rc;

		if (name || trace || o.scenario || o.scenarios || fault_name)
			return bad_usage("%s", "--corpus takes its strategies, suites and faults "
					 "from the .bug files: no --strategy, --trace, --scenario(s) "
					 "or --fault");
		if (budget_name) {
			append_word(replay, sizeof(replay), "--budget");
			append_word(replay, sizeof(replay), budget_name);
		}
		o.replay_prefix = replay;
		o.report = stderr;
		o.progress = stderr;
		rc = dcsim_checker_corpus(corpus, &o, stdout);
		if (rc < 0) {
			fprintf(stderr, "dcsim-check: --corpus %s: %s\n", corpus,
				rc == -ENOENT ? "no .bug entry in it" : strerror(-rc));
			return 2;
		}
		return rc;
	}
	if (fault_name)
		dcsim_dcache_set_fault(dcsim_dcache_fault_lookup(fault_name));
	if (o.scenarios && (!(which & S_EXPLORE) || trace))
		return bad_usage("%s", "--scenarios chooses explore scenarios: use it with the "
				 "explore suite");
	if (!name)
		return bad_usage("%s", "--strategy NAME is required (--list shows the names)");
	s = dcsim_strategy_lookup(name);
	if (!s) {
		fprintf(stderr, "dcsim-check: unknown strategy '%s'; the registered ones are:\n",
			name);
		list_strategies(stderr);
		return 2;
	}
	if (o.scenario && (which != S_EXPLORE || trace))
		return bad_usage("%s", "--scenario replays one explorer execution: "
				 "use it with --suites explore only");
	append_word(replay, sizeof(replay), "--strategy");
	append_word(replay, sizeof(replay), name);
	if (budget_name) {
		append_word(replay, sizeof(replay), "--budget");
		append_word(replay, sizeof(replay), budget_name);
	}
	if (fault_name) {
		append_word(replay, sizeof(replay), "--fault");
		append_word(replay, sizeof(replay), fault_name);
	}
	o.replay_prefix = replay;
	/*
	 * Reports go to stderr with the progress, in order: the explorer writes
	 * its part of a report (the interleaving, the schedule) there, also
	 * from a crash handler, so one stream keeps a report in one piece.
	 */
	o.report = stderr;
	o.progress = stderr;

	if (trace) {
		int rc = dcsim_checker_trace_file(s, trace, &o, NULL);

		return rc < 0 ? 2 : rc;
	}
	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++) {
		int rc = 0;

		if (!(which & suites[i].bit))
			continue;
		if (jobs > 1 || nshards > 1) {
			bool split = suites[i].bit == S_DIFF || suites[i].bit == S_EXPLORE;

			/* Stress and misuse have no seed space to split: shard 0 runs them. */
			if (!split && shard)
				continue;
			if (split && !o.scenario) {
				rc = run_jobs(suites[i].bit, suites[i].name, s, &o, jobs, shard, nshards);
				if (rc == 2)
					return 2;
				failed |= rc;
				fflush(stdout);
				continue;
			}
		}
		switch (suites[i].bit) {
		case S_DIFF:
			rc = dcsim_checker_diff(s, &o, NULL);
			break;
		case S_EXPLORE:
			rc = dcsim_checker_explore(s, &o, NULL);
			break;
		case S_STRESS:
			rc = dcsim_checker_stress(s, 0, 0, 0, &o, NULL);
			break;
		case S_MISUSE:
			rc = dcsim_checker_misuse(s, &o, NULL);
			break;
		}
		if (rc < 0) {
			fprintf(stderr, "dcsim-check: %s: %s\n", suites[i].name, strerror(-rc));
			return 2;
		}
		failed |= rc;
		fflush(stdout);
	}
	fprintf(stderr, "dcsim-check: %s: %s\n", s->name, failed ? "FAILED" : "all checks passed");
	return failed ? 1 : 0;
}
