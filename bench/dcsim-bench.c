// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dcsim-bench: every dput() strategy side by side, on the workloads that
 * decide between them, with the bounds measured in the same run.
 *
 *   dcsim-bench [options]          (see usage() or --help)
 *
 * Exit status: 0 on success, 1 when a measurement failed (a cell could not
 * be set up), 2 on bad usage.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <dcsim/config.h>
#include <dcsim/htm.h>
#include <dcsim/parse.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

#include "bench.h"
#include "outfile.h"

#define PROG "dcsim-bench"

static void usage(FILE *f)
{
	fprintf(f,
"usage: " PROG " [options]\n"
"Compares the dput() strategies of the dcsim dentry cache model side by side.\n"
"Every run also measures four bounds (floor: atomic add+sub; cmpxchg: the\n"
"lockref's read+cmpxchg shape; spin: lock-update-unlock; raw-lockref) and\n"
"checks the project's targets.  Default: ~30 s on 2 CPUs.\n"
"\n"
"What to run:\n"
"  -w, --workloads LIST     comma list of workloads (default: all), see --list\n"
"  -s, --strategies LIST    comma list of strategies (default: all): %s\n"
"  -t, --threads LIST       thread counts, e.g. 1,2,4 (default: 1,2,4.. up to the CPUs)\n"
"  -d, --duration SEC       time per cell (default 0.06, less on hosts with many CPUs)\n"
"  -n, --ops N              operations per thread per cell instead of a duration\n"
"  -r, --reps N             repetitions, strategies interleaved in each (default 5)\n"
"  -b, --baseline NAME      strategy the ratios are taken against (default locked)\n"
"      --load LIB.so        load a library of strategies first (repeatable): it\n"
"                           registers them from a constructor or from\n"
"                           int dcsim_plugin_init(void), called if defined; then\n"
"                           -s and --list know them\n"
"      --seed N             seed for paths and names (default 1)\n"
"      --warmup FRAC        share of every cell run first and discarded (default 0.1)\n"
"\n"
"Statistics: every median comes with a 95%% interval over the reps (distribution-free).\n"
"      --ci-width W         adaptive: add reps until every ratio's interval is within\n"
"                           W of it (relative width, e.g. 0.05 or 5%%; from --reps >= 3)\n"
"      --time-budget SEC    adaptive: start no rep after SEC seconds (default 300)\n"
"      --max-reps N         adaptive: at most N reps (default %d)\n"
"      --compare A.json B.json  per-cell changes B vs A with intervals (no run);\n"
"                           with --plot, the ratios of both with their intervals\n"
"      --from FILE.json     the reports of a saved JSON run (no run): -f table, csv\n"
"                           or json, the targets, and --plot where gnuplot is\n"
"      --sharing            count, instead of timing, the atomic RMWs and stores per\n"
"                           op to cache lines that more than one thread writes (the\n"
"                           instrumented build only; workers take turns op by op; default\n"
"                           -t 2,4 and --ops %d; HTM off)\n"
"      --htm POLICY         auto, off or force (default $DCSIM_HTM, else auto)\n"
"      --pin / --no-pin     pin worker i to the i-th CPU of --cpus (default: pin)\n"
"      --cpus LIST          CPUs to pin to, in order (default: the allowed CPUs); when the\n"
"                           most threads leave one free, the last runs the helpers\n"
"                           (shrinker, call_rcu thread) and the workers keep off it\n"
"      --call-rcu MODE      global (one queue and thread, default) or percpu (liburcu's\n"
"                           per-CPU queues and threads, as the kernel's per-CPU lists)\n"
"\n"
"Tree shape and workload knobs:\n"
"      --depth K            walk: path components (default 4)\n"
"      --fanout F           walk: shared directories per level (default 4)\n"
"      --leaves L           walk: private leaves per thread per bottom directory (default 8)\n"
"      --cold               walk: directories that were never unused, so never on the LRU\n"
"                           (default: warm, as on a built tree)\n"
"      --ref-walk           walk, mixed: ref-walk (a reference on every component) instead\n"
"                           of RCU-walk with its ref-walk fallback (the default)\n"
"      --private-tree       walk, mixed: each thread walks a tree of its own (same shape,\n"
"                           made by that thread) instead of the shared one: the control\n"
"                           that tells sharing from the host's capacity\n"
"      --hash-bits B        every workload: a dentry hash of 2^B buckets (4..24; default:\n"
"                           16 per dentry of the tree, at most 2^21 unless the tree needs\n"
"                           more, as the kernel's table is sized for RAM)\n"
"      --files N            final: private files per thread; churn: names per thread\n"
"                           (default 64)\n"
"      --shrink-batch N     churn: LRU entries scanned per prune (default 64)\n"
"      --shrink-us N        churn: microseconds between prunes (default 200)\n"
"      --unlink-pct P       churn: share of found names that are unlinked (default 25)\n"
"      --dirs N             churn: shared directories, each with its own create\n"
"                           lock (i_rwsem) (default 4)\n"
"      --mix SPEC           mixed: weights, e.g. hot=1,final=2,walk=6,churn=1 (the default)\n"
"\n"
"Output:\n"
"  -f, --format FMT         table (default), csv or json, on stdout\n"
"  -o, --output FILE        write the report to FILE instead of stdout\n"
"      --save FILE.json     also write the JSON report to FILE, whatever -f says\n"
"                           (for --from and --compare later)\n"
"      --plot FILE.png      draw throughput vs threads and slow-path fractions (gnuplot)\n"
"      --progress / --no-progress   progress line on stderr (default: if a terminal)\n"
"  -l, --list               list workloads, strategies and bounds, then exit\n"
"  -h, --help               this text\n"
"\n"
"Every report names the CPU and whether HTM (TSX) was live.  Exit status:\n"
"0 ok, 1 a measurement failed, 2 bad usage.\n", bench_strategy_list(),
		BENCH_ADAPTIVE_MAX_REPS, BENCH_SHARING_OPS);
}

/*
 * --load: dlopen() a library of strategies.  RTLD_GLOBAL and the
 * executable's exported dcsim_* (meson: export_dynamic, the library linked
 * whole) let a plugin built without -ldcsim resolve against this binary;
 * one linked with -ldcsim resolves against it too, since the executable
 * comes first in the lookup scope, so its strategies land in our registry.
 * Return: 0, or 2 (bad usage) with a message.
 */
static int load_plugin(const char *path)
{
	char why[512];
	int n = dcsim_strategy_load(path, NULL, why, sizeof(why));

	if (n < 0) {
		fprintf(stderr, PROG ": --load %s: %s\n", path, why);
		return 2;
	}
	if (!n) {
		fprintf(stderr, PROG ": --load %s: the library registered no dput strategy "
			"(register them from a constructor or from dcsim_plugin_init())\n", path);
		return 2;
	}
	return 0;
}

static void list_all(void)
{
	printf("workloads:\n");
	for (unsigned int i = 0; i < bench_nr_workloads; i++)
		printf("  %-8s %s\n", bench_workloads[i]->name, bench_workloads[i]->models);
	printf("strategies:\n  %s\n", bench_strategy_list());
	printf("bounds (always measured):\n");
	printf("  %-12s %s\n", "floor", bench_bound_floor.models);
	printf("  %-12s %s\n", "cmpxchg", bench_bound_cmpxchg.models);
	printf("  %-12s %s\n", "spin", bench_bound_spin.models);
	printf("  %-12s %s\n", "raw-lockref", bench_bound_lockref.models);
}

static void host_info(struct bench_host *h, const struct bench_hostmon *mon)
{
	struct dcsim_htm_info info;
	struct utsname u;
	time_t now = time(NULL);

	memset(h, 0, sizeof(*h));
	dcsim_htm_get_info(&info);
	snprintf(h->cpu, sizeof(h->cpu), "%s", info.cpu[0] ? info.cpu : "unknown CPU");
	if (!info.cpu[0] || !strcmp(info.cpu, "unknown")) {
		/* builds without an HTM backend do not read the brand string */
		FILE *f = fopen("/proc/cpuinfo", "r");
		char line[256];

		while (f && fgets(line, sizeof(line), f)) {
			char *colon = strchr(line, ':');

			if (colon && (!strncmp(line, "model name", 10) || !strncmp(line, "cpu\t", 4))) {
				colon += 1 + (colon[1] == ' ');
				colon[strcspn(colon, "\n")] = 0;
				snprintf(h->cpu, sizeof(h->cpu), "%s", colon);
				break;
			}
		}
		if (f)
			fclose(f);
	}
	h->online_cpus = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	h->htm_backend = dcsim_htm_backend_name(info.backend);
	h->htm_policy = dcsim_htm_policy_name(info.policy);
	h->htm_cpu = info.cpu_has_htm;
	h->htm_none = info.backend == DCSIM_HTM_BACKEND_NONE;
	h->htm_live = info.live;
	h->rtm_always_abort = info.x86_rtm_always_abort;
	if (uname(&u) == 0)
		snprintf(h->kernel, sizeof(h->kernel), "%s %s", u.release, u.machine);
	strftime(h->when, sizeof(h->when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	h->version = DCSIM_VERSION;
	h->dentry_size = bench_dentry_size();
	bench_hostmon_end(mon, h);
}

static void make_cmdline(struct bench_config *cfg, int argc, char **argv)
{
	size_t off = 0;

	cfg->cmdline[0] = 0;
	for (int i = 0; i < argc && off < sizeof(cfg->cmdline); i++) {
		const char *a = i ? argv[i] : PROG;
		bool q = strpbrk(a, " \t'\"$") != NULL;

		off += snprintf(cfg->cmdline + off, sizeof(cfg->cmdline) - off, "%s%s%s%s",
				i ? " " : "", q ? "'" : "", a, q ? "'" : "");
	}
}

static void default_threads(struct bench_config *cfg, unsigned int ncpu)
{
	cfg->nr_threads = 0;
	for (unsigned int t = 1; t < ncpu && cfg->nr_threads < 31; t *= 2)
		cfg->threads[cfg->nr_threads++] = t;
	cfg->threads[cfg->nr_threads++] = ncpu ? ncpu : 1;
}

static int default_cpus(struct bench_config *cfg)
{
	cpu_set_t set;

	cfg->nr_cpus = 0;
	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (int c = 0; c < CPU_SETSIZE && cfg->nr_cpus < BENCH_MAX_THREADS; c++)
		if (CPU_ISSET(c, &set))
			cfg->cpus[cfg->nr_cpus++] = c;
	return 0;
}

/* --save FILE.json: the JSON report besides the one -f asked for.  Return: 0 or -1. */
static int save_json(struct bench_config *cfg, const struct bench_host *host, const char *path)
{
	enum bench_format fmt = cfg->format;
	struct bench_out o;

	if (bench_out_open(&o, path, "--save"))
		return -1;
	cfg->format = BENCH_FMT_JSON;
	bench_report(cfg, host, o.f);
	cfg->format = fmt;
	return bench_out_commit(&o);
}

/*
 * The end of a timed or --sharing run: the report to @out (-o, or stdout
 * when its f is NULL), the --save copy, the model's warnings, and the
 * rename of the output into place.  Return: 1 if saving or writing
 * failed, else 0.
 */
static int finish_run(struct bench_config *cfg, const struct bench_host *host,
		      struct bench_out *out, const char *save)
{
	int failed = 0;

	bench_report(cfg, host, out->f ? out->f : stdout);
	if (save && save_json(cfg, host, save))
		failed = 1;
	if (dcsim_warn_count())
		fprintf(stderr, PROG ": the model raised %lu warning(s) during the run\n",
			dcsim_warn_count());
	if (out->f && bench_out_commit(out))
		failed = 1;
	return failed;
}

/* -o for a report of saved files (--compare, --from): kept only when @err is 0. */
static int finish_redraw(struct bench_out *out, int err)
{
	if (!out->f)
		return err;
	if (err) {
		bench_out_abort(out);
		fprintf(stderr, PROG ": -o %s left as it was\n", out->path);
		return err;
	}
	return bench_out_commit(out) ? 1 : 0;
}

enum {
	OPT_SEED = 256, OPT_HTM, OPT_PIN, OPT_NO_PIN, OPT_CPUS, OPT_DEPTH, OPT_FANOUT,
	OPT_LEAVES, OPT_FILES, OPT_SHRINK_BATCH, OPT_SHRINK_US, OPT_UNLINK_PCT, OPT_DIRS, OPT_MIX,
	OPT_PLOT, OPT_PROGRESS, OPT_NO_PROGRESS, OPT_COLD, OPT_REF_WALK, OPT_PRIVATE_TREE,
	OPT_HASH_BITS, OPT_CI_WIDTH, OPT_TIME_BUDGET, OPT_MAX_REPS, OPT_WARMUP, OPT_COMPARE, OPT_LOAD, OPT_SHARING, OPT_FROM,
	OPT_SAVE, OPT_CALL_RCU,
};

/* ---- the command line: one table, one entry per option ---- */

static struct bench_config cfg;

/* What the options set outside cfg. */
static struct {
	const char *workloads, *strategies, *baseline, *htm, *cpus, *output, *compare, *from, *save;
	int progress;		/* --progress 1, --no-progress 0, else -1: stderr is a tty */
	bool list, duration_set, budget_set, max_reps_set;
} cli = { .baseline = "locked", .progress = -1 };

enum opt_kind {
	OK_UINT,	/* an unsigned int in [min, max] at dst */
	OK_STR,		/* the argument at dst (const char *) */
	OK_SET,		/* true at dst (bool) */
	OK_CLEAR,	/* false at dst (bool) */
	OK_FN,		/* fn(argument) */
};

/* An option handler.  Return: 0, 2 (said why), or OPT_EXIT_OK (done: exit 0). */
#define OPT_EXIT_OK	(-1)

struct bench_opt {
	const char *name;
	int val;		/* the short option, or OPT_* */
	enum opt_kind kind;
	void *dst;
	unsigned long long min, max;
	bool *given;		/* set to true when the option is given */
	int (*fn)(const char *arg);
};

static int opt_threads(const char *arg)
{
	int n = bench_parse_list(arg, 1, BENCH_MAX_THREADS, cfg.threads, DCSIM_ARRAY_SIZE(cfg.threads));

	if (n < 0)
		return bench_bad("--threads wants a comma list of thread counts in 1..%u (at most %zu of "
			   "them), got '%s'", BENCH_MAX_THREADS, DCSIM_ARRAY_SIZE(cfg.threads), arg);
	cfg.nr_threads = 0;
	for (int i = 0; i < n; i++) {
		bool dup = false;

		for (unsigned int j = 0; j < cfg.nr_threads; j++)
			dup |= cfg.threads[j] == cfg.threads[i];
		if (!dup)	/* 1,2,1 measures 1 once */
			cfg.threads[cfg.nr_threads++] = cfg.threads[i];
	}
	return 0;
}

static int opt_duration(const char *arg)
{
	double d;

	if (dcsim_parse_double(arg, -HUGE_VAL, HUGE_VAL, &d))
		return bench_bad("--duration wants seconds, e.g. 0.1, got '%s'", arg);
	if (d <= 0)
		return bench_bad("--duration must be positive, got '%s'", arg);
	if (d > 3600)
		return bench_bad("--duration: %s s per cell is more than an hour", arg);
	cfg.duration_s = d;
	cli.duration_set = true;
	cfg.ops = 0;
	return 0;
}

static int opt_ops(const char *arg)
{
	unsigned long long v;

	if (bench_parse_uint(arg, 1, 1ull << 40, &v))
		return bench_bad("--ops wants a positive operation count, got '%s'", arg);
	cfg.ops = v;
	return 0;
}

static int opt_seed(const char *arg)
{
	unsigned long long v;

	if (bench_parse_uint(arg, 0, ULLONG_MAX, &v))
		return bench_bad("--seed wants a whole number, got '%s'", arg);
	cfg.seed = v;
	return 0;
}

static int opt_call_rcu(const char *arg)
{
	if (!strcmp(arg, "global"))
		cfg.call_rcu = DCSIM_RCU_CB_GLOBAL;
	else if (!strcmp(arg, "percpu"))
		cfg.call_rcu = DCSIM_RCU_CB_PER_CPU;
	else
		return bench_bad("--call-rcu wants global or percpu, got '%s'", arg);
	return 0;
}

static int opt_mix(const char *arg)
{
	return bench_parse_mix(&cfg, arg);
}

static int opt_format(const char *arg)
{
	if (!strcmp(arg, "table"))
		cfg.format = BENCH_FMT_TABLE;
	else if (!strcmp(arg, "csv"))
		cfg.format = BENCH_FMT_CSV;
	else if (!strcmp(arg, "json"))
		cfg.format = BENCH_FMT_JSON;
	else
		return bench_bad("--format must be table, csv or json, got '%s'", arg);
	return 0;
}

static int opt_progress(const char *arg)
{
	(void)arg;
	cli.progress = 1;
	return 0;
}

static int opt_no_progress(const char *arg)
{
	(void)arg;
	cli.progress = 0;
	return 0;
}

static int opt_ci_width(const char *arg)
{
	if (bench_parse_double(arg, 0, 1, true, &cfg.ci_width))
		return bench_bad("--ci-width wants the largest relative ci95 width of a ratio, in (0, 1] "
			   "or as a percentage, e.g. 0.05 or 5%%, got '%s'", arg);
	return 0;
}

static int opt_time_budget(const char *arg)
{
	if (bench_parse_double(arg, 0, 86400, false, &cfg.time_budget_s))
		return bench_bad("--time-budget wants seconds in (0, 86400], got '%s'", arg);
	cli.budget_set = true;
	return 0;
}

static int opt_warmup(const char *arg)
{
	/* 0 is allowed: (min, max] with min just below it */
	if (bench_parse_double(arg, -1e-300, 0.9, true, &cfg.warmup))
		return bench_bad("--warmup wants the share of a cell to discard, 0..0.9 (e.g. 0.1 or "
			   "10%%), got '%s'", arg);
	cfg.warmup = fmax(cfg.warmup, 0);
	return 0;
}

static int opt_help(const char *arg)
{
	(void)arg;
	usage(stdout);
	return OPT_EXIT_OK;
}

static const struct bench_opt bench_opts[] = {
	{ "workloads", 'w', OK_STR, &cli.workloads },
	{ "strategies", 's', OK_STR, &cli.strategies },
	{ "threads", 't', OK_FN, .fn = opt_threads },
	{ "duration", 'd', OK_FN, .fn = opt_duration },
	{ "ops", 'n', OK_FN, .fn = opt_ops },
	{ "reps", 'r', OK_UINT, &cfg.reps, 1, BENCH_MAX_REPS },
	{ "baseline", 'b', OK_STR, &cli.baseline },
	{ "seed", OPT_SEED, OK_FN, .fn = opt_seed },
	{ "htm", OPT_HTM, OK_STR, &cli.htm },
	{ "pin", OPT_PIN, OK_SET, &cfg.pin },
	{ "no-pin", OPT_NO_PIN, OK_CLEAR, &cfg.pin },
	{ "cpus", OPT_CPUS, OK_STR, &cli.cpus },
	{ "call-rcu", OPT_CALL_RCU, OK_FN, .fn = opt_call_rcu },
	{ "depth", OPT_DEPTH, OK_UINT, &cfg.shape.depth, 1, 16 },
	{ "fanout", OPT_FANOUT, OK_UINT, &cfg.shape.fanout, 1, 64 },
	{ "leaves", OPT_LEAVES, OK_UINT, &cfg.shape.leaves, 1, 4096 },
	{ "cold", OPT_COLD, OK_SET, &cfg.shape.cold },
	{ "ref-walk", OPT_REF_WALK, OK_SET, &cfg.shape.ref_walk },
	{ "private-tree", OPT_PRIVATE_TREE, OK_SET, &cfg.shape.private_tree },
	{ "hash-bits", OPT_HASH_BITS, OK_UINT, &cfg.shape.hash_bits, 4, 24 },
	{ "files", OPT_FILES, OK_UINT, &cfg.shape.files, 1, 1u << 20 },
	{ "shrink-batch", OPT_SHRINK_BATCH, OK_UINT, &cfg.shape.shrink_batch, 1, 1u << 20 },
	{ "shrink-us", OPT_SHRINK_US, OK_UINT, &cfg.shape.shrink_us, 0, 10000000 },
	{ "unlink-pct", OPT_UNLINK_PCT, OK_UINT, &cfg.shape.unlink_pct, 0, 100 },
	{ "dirs", OPT_DIRS, OK_UINT, &cfg.shape.dirs, 1, 1u << 16 },
	{ "mix", OPT_MIX, OK_FN, .fn = opt_mix },
	{ "format", 'f', OK_FN, .fn = opt_format },
	{ "output", 'o', OK_STR, &cli.output },
	{ "plot", OPT_PLOT, OK_STR, &cfg.plot },
	{ "progress", OPT_PROGRESS, OK_FN, .fn = opt_progress },
	{ "no-progress", OPT_NO_PROGRESS, OK_FN, .fn = opt_no_progress },
	{ "ci-width", OPT_CI_WIDTH, OK_FN, .fn = opt_ci_width },
	{ "time-budget", OPT_TIME_BUDGET, OK_FN, .fn = opt_time_budget },
	{ "max-reps", OPT_MAX_REPS, OK_UINT, &cfg.max_reps, 1, BENCH_MAX_REPS,
	  .given = &cli.max_reps_set },
	{ "warmup", OPT_WARMUP, OK_FN, .fn = opt_warmup },
	{ "compare", OPT_COMPARE, OK_STR, &cli.compare },
	/* Loaded at once, so that --list and --strategies after it see its strategies. */
	{ "load", OPT_LOAD, OK_FN, .fn = load_plugin },
	{ "sharing", OPT_SHARING, OK_SET, &cfg.sharing },
	{ "from", OPT_FROM, OK_STR, &cli.from },
	{ "save", OPT_SAVE, OK_STR, &cli.save },
	/* Listed after the loop, so that --load after --list counts too. */
	{ "list", 'l', OK_SET, &cli.list },
	{ "help", 'h', OK_FN, .fn = opt_help },
};

/* Apply option @val with @arg.  Return: 0, 2 (said why) or OPT_EXIT_OK. */
static int opt_apply(int val, const char *arg)
{
	const struct bench_opt *o = NULL;

	for (size_t i = 0; i < DCSIM_ARRAY_SIZE(bench_opts) && !o; i++)
		if (bench_opts[i].val == val)
			o = &bench_opts[i];
	if (!o) {
		fputs("(try '" PROG " --help')\n", stderr);
		return 2;
	}
	if (o->given)
		*o->given = true;
	switch (o->kind) {
	case OK_UINT:
		return bench_opt_uint(o->name, arg, o->min, o->max, o->dst) ? 2 : 0;
	case OK_STR:
		*(const char **)o->dst = arg;
		return 0;
	case OK_SET:
	case OK_CLEAR:
		*(bool *)o->dst = o->kind == OK_SET;
		return 0;
	default:
		return o->fn(arg);
	}
}

int main(int argc, char **argv)
{
	struct option lopts[DCSIM_ARRAY_SIZE(bench_opts) + 1];
	struct bench_hostmon mon;
	unsigned int ncpu, maxthr = 0;
	struct bench_host host;
	struct bench_out out = { .f = NULL, .fd = -1, .slot = -1 };
	const char *workloads, *strategies, *baseline, *htm_arg, *cpus_arg, *output, *compare;
	const char *from, *save;
	int c, err, failed;

	for (size_t i = 0; i < DCSIM_ARRAY_SIZE(bench_opts); i++)
		lopts[i] = (struct option){ bench_opts[i].name,
			bench_opts[i].kind == OK_SET || bench_opts[i].kind == OK_CLEAR ||
			bench_opts[i].fn == opt_progress || bench_opts[i].fn == opt_no_progress ||
			bench_opts[i].fn == opt_help ? no_argument : required_argument,
			NULL, bench_opts[i].val };
	lopts[DCSIM_ARRAY_SIZE(bench_opts)] = (struct option){ NULL, 0, NULL, 0 };
	make_cmdline(&cfg, argc, argv);
	/* An interrupt removes the temporary outputs: the old files stay whole. */
	bench_out_signals();
	cfg.reps = 5;
	cfg.warmup = 0.1;
	cfg.time_budget_s = 300;
	cfg.duration_s = 0.06;
	cfg.seed = 1;
	cfg.pin = true;
	cfg.shape = (struct bench_shape){
		.depth = 4, .fanout = 4, .leaves = 8, .files = 64,
		.shrink_batch = 64, .shrink_us = 200, .unlink_pct = 25, .dirs = 4,
	};

	while ((c = getopt_long(argc, argv, "w:s:t:d:n:r:b:f:o:lh", lopts, NULL)) != -1) {
		err = opt_apply(c, optarg);
		if (err)
			return err == OPT_EXIT_OK ? 0 : err;
	}
	workloads = cli.workloads;
	strategies = cli.strategies;
	baseline = cli.baseline;
	htm_arg = cli.htm;
	cpus_arg = cli.cpus;
	output = cli.output;
	compare = cli.compare;
	from = cli.from;
	save = cli.save;
	if (cli.list) {
		list_all();
		return 0;
	}
	if (compare) {
		/* --compare A.json B.json: no measurement, only the two reports */
		if (optind == argc)
			return bench_bad("--compare wants two JSON reports: --compare A.json B.json");
		if (optind + 1 < argc)
			return bench_bad("unexpected argument '%s' after --compare A B", argv[optind + 1]);
		/* The inputs are read first; -o is renamed into place only on success. */
		if (output && bench_out_open(&out, output, "-o"))
			return 2;
		err = bench_compare(compare, argv[optind], cfg.format, cfg.plot,
				    out.f ? out.f : stdout);
		return finish_redraw(&out, err);
	}
	if (optind < argc)
		return bench_bad("unexpected argument '%s'", argv[optind]);
	if (from) {
		/* --from FILE.json: no measurement, the saved run's reports */
		if (cfg.sharing || save)
			return bench_bad("--from redraws a saved run: no --sharing or --save with it");
		if (output && bench_out_open(&out, output, "-o"))
			return 2;
		err = bench_from(from, cfg.format, cfg.plot, out.f ? out.f : stdout);
		return finish_redraw(&out, err);
	}
	if (cfg.sharing && !bench_sharing_supported())
		return bench_bad("--sharing counts writes through the instrumented build's access hook: "
			   "build with meson setup build-instr -Dinstrument=true and run "
			   "build-instr/bench/dcsim-bench --sharing");
	if (cfg.sharing && (cfg.ci_width > 0 || cfg.plot))
		return bench_bad("--sharing counts writes, it times nothing: no --ci-width or --plot");
	if (!(cfg.ci_width > 0) && (cli.budget_set || cli.max_reps_set))
		return bench_bad("--time-budget and --max-reps belong to the adaptive mode: give "
			   "--ci-width too");
	if (cfg.ci_width > 0) {
		if (!cli.max_reps_set)
			cfg.max_reps = cfg.reps > BENCH_ADAPTIVE_MAX_REPS ? cfg.reps :
				       BENCH_ADAPTIVE_MAX_REPS;
		if (cfg.max_reps < cfg.reps)
			return bench_bad("--max-reps %u is below --reps %u", cfg.max_reps, cfg.reps);
		if (cfg.reps < 3)
			return bench_bad("--ci-width needs --reps of at least 3 to start from, got %u",
				   cfg.reps);
	} else {
		cfg.max_reps = cfg.reps;
	}

	/* HTM policy first: it decides what the HTM strategies will do. */
	err = dcsim_htm_init();
	if (err == -EINVAL && !htm_arg)
		return bench_bad("DCSIM_HTM in the environment must be auto, off or force");
	if (cfg.sharing) {
		/* the observer's own writes would abort every transaction */
		if (htm_arg && strcmp(htm_arg, "off"))
			return bench_bad("--sharing cannot see inside a transaction: --htm off only");
		dcsim_htm_set_policy(DCSIM_HTM_OFF);
	} else if (htm_arg) {
		enum dcsim_htm_policy pol;

		if (dcsim_htm_policy_parse(htm_arg, &pol))
			return bench_bad("--htm must be auto, off or force, got '%s'", htm_arg);
		err = dcsim_htm_set_policy(pol);
		if (err == -ENOTSUP) {
			struct dcsim_htm_info info;

			dcsim_htm_get_info(&info);
			fprintf(stderr, PROG ": --htm force refused: %s; HTM strategies run "
				"their fallbacks\n", info.backend == DCSIM_HTM_BACKEND_NONE ?
				"this build has no HTM backend" :
				"the CPU cannot execute transactions");
		}
	}

	ncpu = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	if (default_cpus(&cfg) || !cfg.nr_cpus) {
		cfg.nr_cpus = 0;
		cfg.pin = false;
	}
	if (cpus_arg) {
		unsigned int tmp[BENCH_MAX_THREADS];
		int n = bench_parse_list(cpus_arg, 0, CPU_SETSIZE - 1, tmp, BENCH_MAX_THREADS);

		if (n < 0)
			return bench_bad("--cpus wants a comma list of CPU numbers, got '%s'", cpus_arg);
		for (int i = 0; i < n; i++) {
			bool allowed = false;

			for (unsigned int j = 0; j < cfg.nr_cpus; j++)
				allowed |= cfg.cpus[j] == (int)tmp[i];
			if (!allowed)
				return bench_bad("--cpus: CPU %u is not online or not allowed here", tmp[i]);
		}
		for (int i = 0; i < n; i++)
			cfg.cpus[i] = (int)tmp[i];
		cfg.nr_cpus = (unsigned int)n;
	}
	if (!cfg.nr_threads && cfg.sharing) {
		/* the workers take turns: any count runs on any host */
		cfg.threads[0] = 2;
		cfg.threads[1] = 4;
		cfg.nr_threads = 2;
	}
	if (!cfg.nr_threads)
		default_threads(&cfg, cfg.nr_cpus ? cfg.nr_cpus : ncpu);

	/* Subjects: the bounds, then the strategies; groups: bounds, then workloads. */
	cfg.subjects[0] = (struct bench_subject){ "floor", BENCH_BOUND, NULL, &bench_bound_floor };
	cfg.subjects[1] = (struct bench_subject){ "cmpxchg", BENCH_BOUND, NULL,
						  &bench_bound_cmpxchg };
	cfg.subjects[2] = (struct bench_subject){ "spin", BENCH_BOUND, NULL, &bench_bound_spin };
	cfg.subjects[3] = (struct bench_subject){ "raw-lockref", BENCH_BOUND, NULL,
						  &bench_bound_lockref };
	cfg.nr_subjects = BENCH_NR_BOUNDS;
	cfg.groups[0] = (struct bench_group){ .name = "bounds", .first_subject = 0,
					      .nr_subjects = BENCH_NR_BOUNDS };
	cfg.nr_groups = 1;
	err = bench_strategies_add(&cfg, strategies);
	if (err)
		return err;
	err = bench_parse_workloads(&cfg, workloads);
	if (err)
		return err;
	if (cfg.nr_subjects == BENCH_NR_BOUNDS && cfg.nr_groups > 1)
		return bench_bad("no strategy selected");
	for (unsigned int g = 1; g < cfg.nr_groups; g++) {
		cfg.groups[g].first_subject = BENCH_NR_BOUNDS;
		cfg.groups[g].nr_subjects = cfg.nr_subjects - BENCH_NR_BOUNDS;
	}
	cfg.baseline = 0;
	if (cfg.nr_subjects > BENCH_NR_BOUNDS) {
		unsigned int s;

		for (s = BENCH_NR_BOUNDS; s < cfg.nr_subjects; s++)
			if (!strcmp(cfg.subjects[s].name, baseline))
				break;
		if (s == cfg.nr_subjects) {
			/* the default baseline need not be among --strategies */
			if (strcmp(baseline, "locked") || !strategies)
				return bench_bad("--baseline '%s' is not one of the selected strategies",
					   baseline);
			s = BENCH_NR_BOUNDS;
		}
		cfg.baseline = s;
	}
	if (!cfg.shape.mix[0] && !cfg.shape.mix[1] && !cfg.shape.mix[2] && !cfg.shape.mix[3])
		bench_parse_mix(&cfg, "hot=1,final=2,walk=6,churn=1");

	for (unsigned int i = 0; i < cfg.nr_threads; i++)
		if (cfg.threads[i] > maxthr)
			maxthr = cfg.threads[i];
	if (maxthr > ncpu && !cfg.sharing)
		fprintf(stderr, PROG ": note: %u threads on %u CPUs: oversubscribed, "
			"lock holders get preempted\n", maxthr, ncpu);

	cfg.progress = cli.progress >= 0 ? cli.progress : isatty(STDERR_FILENO);

	if (output && bench_out_open(&out, output, "-o"))
		return 2;

	/* The workloads misuse nothing; a warning would be a model bug worth seeing. */
	dcsim_warn_reset();
	if (cfg.sharing) {
		bench_hostmon_start(&mon);
		failed = bench_sharing_run(&cfg);
		host_info(&host, &mon);
		return finish_run(&cfg, &host, &out, save) || failed;
	}
	if (bench_build_rows(&cfg)) {
		fputs(PROG ": out of memory\n", stderr);
		bench_out_abort(&out);
		return 1;
	}
	/*
	 * The default run must stay short on a big host too: more CPUs mean
	 * more thread counts, so shrink the cell (not the comparison) to keep
	 * the whole run near half a minute; ~10 ms per cell goes to setup.
	 */
	if (!cli.duration_set && !cfg.ops) {
		double d = 25.0 / (cfg.reps * cfg.nr_rows) - 0.01;

		cfg.duration_s = d < 0.02 ? 0.02 : d > 0.06 ? 0.06 : d;
	}
	if (bench_placement(&cfg, maxthr) || bench_pool_start(&cfg, maxthr)) {
		bench_out_abort(&out);
		return 1;
	}
	bench_hostmon_start(&mon);
	failed = bench_run_all(&cfg);
	bench_pool_stop();

	host_info(&host, &mon);
	if (host.busy)
		fprintf(stderr, PROG ": warning: the host was busy during the run (%s); "
			"the intervals say how much that cost\n", host.busy_why);
	if (finish_run(&cfg, &host, &out, save))
		failed = 1;
	if (cfg.plot && bench_plot(&cfg, &host, cfg.plot))
		failed = 1;
	return failed;
}
