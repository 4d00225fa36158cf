// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dcsim-bench-explore: how fast the checkers run (docs/explorer-speed.md).
 *
 *   dcsim-bench-explore [--strategies fast,k612] [--handoffs pthread,fiber]
 *                       [--budget quick|default|soak] [--iters N] [--reps N]
 *                       [--corpus DIR] [--json FILE] [--no-progress]
 *                       [--load LIB.so]...
 *
 * For each strategy and each hand-off (how the baton moves between logical
 * threads, <dcsim/explore.h>), the explore suite's explorations (every
 * scenario, random walk and PCT, every HTM setting the strategy has, the
 * budget's executions each, the suite's seeds) run in this process; per
 * scenario family it records executions, decisions (schedule points), wall
 * and CPU seconds (this process, all threads), so decisions/s,
 * executions/s and CPU microseconds per execution.  Each exploration's
 * schedule hash, failures and steps must agree across the hand-offs, or
 * the run says so and exits 1.  With --corpus, the corpus of upstream bugs
 * runs once per hand-off (quick budget, the corpus's own child processes):
 * its seconds and its table, whose "to the first failure" column is the
 * work each entry needs.
 *
 * One table on stdout, one row per strategy x hand-off with the baseline
 * (the first hand-off) beside it; --json FILE the whole report.  Every
 * figure of a run comes from the same binary and the same machine, one
 * hand-off after the other.  Exit 0, 1 (hand-offs disagree, or the corpus
 * does not match its expect: fields), 2 usage.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <dcsim/checker.h>
#include <dcsim/explore-dcache.h>
#include <dcsim/explore.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

#include "json.h"

#define MAX_LIST	8

struct clocks {
	double wall, cpu;
};

/* CPU seconds of the children waited for so far (the corpus's runs). */
static double children_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_CHILDREN, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static struct clocks clocks_now(void)
{
	struct timespec ts;
	struct rusage ru;
	struct clocks c;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	getrusage(RUSAGE_SELF, &ru);
	c.wall = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
	c.cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
		(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	return c;
}

/* Per scenario family: the sums over its explorations. */
struct family {
	unsigned long explorations, executions, steps, failures;
	double wall, cpu;
	uint64_t hash;		/* the explorations' schedule hashes, folded in order */
};

struct cell {
	struct family fam[DCSIM_DSCN_NR];
	struct family total;
};

static int split(char *s, const char **out, int max)
{
	int n = 0;

	for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ","))
		if (n < max)
			out[n++] = tok;
		else
			return -1;
	return n;
}

static void fam_add(struct family *f, const struct dcsim_explore_result *r, struct clocks d)
{
	f->explorations++;
	f->executions += r->executions;
	f->steps += r->steps;
	f->failures += r->failures;
	f->wall += d.wall;
	f->cpu += d.cpu;
	f->hash = (f->hash ^ r->schedule_hash) * 0x100000001b3ull + r->steps;
}

/* The explore suite's explorations (src/checker/suite-explore.c's seeds) on @s. */
static void run_suite(const struct dcsim_dput_strategy *s, enum dcsim_explore_handoff h,
		      unsigned long iters, struct cell *c, bool progress)
{
	static const enum dcsim_explore_htm htms[] = {
		DCSIM_EXPLORE_HTM_OFF, DCSIM_EXPLORE_HTM_COMMIT, DCSIM_EXPLORE_HTM_ABORTS,
	};
	static const enum dcsim_explore_mode modes[] = { DCSIM_EXPLORE_RANDOM, DCSIM_EXPLORE_PCT };
	const uint64_t seed = 20130930;	/* dcsim_checker_opts_init()'s */

	for (size_t hi = 0; hi < sizeof(htms) / sizeof(htms[0]); hi++) {
		if (htms[hi] != DCSIM_EXPLORE_HTM_OFF && !(s->flags & DCSIM_STRATEGY_USES_HTM))
			continue;
		for (int scn = 0; scn < DCSIM_DSCN_NR; scn++) {
			for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
				struct dcsim_explore_opts eo;
				struct dcsim_explore_result r;
				struct clocks t0, t1;

				dcsim_explore_opts_init(&eo);
				eo.mode = modes[m];
				eo.seed = seed + (uint64_t)scn * 1000 + m * 100 + hi;
				eo.iterations = iters;
				eo.htm = htms[hi];
				eo.abort_permille = 60;
				eo.quiet = true;
				eo.handoff = h;
				t0 = clocks_now();
				if (dcsim_explore_dcache(s, (enum dcsim_dcache_scenario)scn, &eo, &r) < 0)
					continue;
				t1 = clocks_now();
				if (r.skipped)
					continue;
				fam_add(&c->fam[scn], &r,
					(struct clocks){ t1.wall - t0.wall, t1.cpu - t0.cpu });
				fam_add(&c->total, &r,
					(struct clocks){ t1.wall - t0.wall, t1.cpu - t0.cpu });
			}
		}
		if (progress)
			fprintf(stderr, "dcsim-bench-explore: %s, %s, htm %s: %lu executions so far\n",
				s->name, dcsim_explore_handoff_name(h),
				dcsim_explore_htm_name(htms[hi]), c->total.executions);
	}
}

static json_t *fam_json(const struct family *f)
{
	json_t *o = json_object();

	json_object_set_new(o, "explorations", bj_uint(f->explorations));
	json_object_set_new(o, "executions", bj_uint(f->executions));
	json_object_set_new(o, "decisions", bj_uint(f->steps));
	json_object_set_new(o, "failures", bj_uint(f->failures));
	json_object_set_new(o, "wall_s", bj_real(f->wall));
	json_object_set_new(o, "cpu_s", bj_real(f->cpu));
	json_object_set_new(o, "executions_per_s", bj_real(f->executions / f->wall));
	json_object_set_new(o, "decisions_per_s", bj_real(f->steps / f->wall));
	json_object_set_new(o, "cpu_us_per_execution", bj_real(f->cpu * 1e6 / f->executions));
	return o;
}

static void usage(FILE *f)
{
	fputs("usage: dcsim-bench-explore [--strategies A,B] [--handoffs pthread,fiber,...]\n"
	      "                           [--budget quick|default|soak] [--iters N] [--reps N]\n"
	      "                           [--corpus DIR] [--json FILE] [--no-progress]\n"
	      "                           [--load LIB.so]...   (the corpus: kernel-code/libdcsim-kc-corpus.so)\n", f);
}

static int bad_usage(const char *msg, const char *arg)
{
	fprintf(stderr, "dcsim-bench-explore: %s '%s'\n", msg, arg);
	usage(stderr);
	return 2;
}

int main(int argc, char **argv)
{
	static const unsigned long budget_iters[] = { 60, 250, 2500 };
	char strat_buf[256] = "fast,k612", ho_buf[256] = "pthread,fiber";
	const char *strat_names[MAX_LIST], *ho_names[MAX_LIST];
	enum dcsim_explore_handoff hos[MAX_LIST];
	const struct dcsim_dput_strategy *strats[MAX_LIST];
	const char *json_path = NULL, *corpus = NULL;
	enum dcsim_checker_budget budget = DCSIM_BUDGET_QUICK;
	unsigned long iters = 0, reps = 1;
	bool progress = true;
	int ns, nh, disagree = 0;
	static struct cell cells[MAX_LIST][MAX_LIST];
	json_t *root = json_object(), *jruns = json_array(), *jcorpus = json_array();
	struct utsname un;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;

		if (!strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--no-progress")) {
			progress = false;
			continue;
		}
		if (!v)
			return bad_usage("option needs a value:", a);
		i++;
		if (!strcmp(a, "--strategies") && strlen(v) < sizeof(strat_buf)) {
			strcpy(strat_buf, v);
		} else if (!strcmp(a, "--handoffs") && strlen(v) < sizeof(ho_buf)) {
			strcpy(ho_buf, v);
		} else if (!strcmp(a, "--budget")) {
			if (dcsim_checker_budget_parse(v, &budget))
				return bad_usage("bad --budget", v);
		} else if (!strcmp(a, "--iters")) {
			errno = 0;
			iters = strtoul(v, &end, 0);
			if (errno || *end || !iters || v[0] == '-')
				return bad_usage("bad --iters", v);
		} else if (!strcmp(a, "--reps")) {
			errno = 0;
			reps = strtoul(v, &end, 0);
			if (errno || *end || !reps || reps > 100 || v[0] == '-')
				return bad_usage("bad --reps (1..100)", v);
		} else if (!strcmp(a, "--load")) {
			char why[512];
			bool init;

			if (dcsim_strategy_load(v, &init, why, sizeof(why)) < 0) {
				fprintf(stderr, "dcsim-bench-explore: --load %s: %s\n", v, why);
				return 2;
			}
		} else if (!strcmp(a, "--corpus")) {
			corpus = v;
		} else if (!strcmp(a, "--json")) {
			json_path = v;
		} else {
			return bad_usage("unknown option", a);
		}
	}
	if (!iters)
		iters = budget_iters[budget];
	ns = split(strat_buf, strat_names, MAX_LIST);
	nh = split(ho_buf, ho_names, MAX_LIST);
	if (ns <= 0 || nh <= 0)
		return bad_usage("want 1 to 8 names in", ns <= 0 ? "--strategies" : "--handoffs");
	for (int i = 0; i < ns; i++)
		if (!(strats[i] = dcsim_strategy_lookup(strat_names[i])))
			return bad_usage("no strategy (the kernel's code: --load "
					 "kernel-code/libdcsim-kc-corpus.so)", strat_names[i]);
	for (int i = 0; i < nh; i++)
		if (dcsim_explore_handoff_parse(ho_names[i], &hos[i]) ||
		    hos[i] == DCSIM_EXPLORE_HANDOFF_DEFAULT)
			return bad_usage("bad hand-off (want fiber, ucontext or pthread)", ho_names[i]);

	dcsim_warn_set_quiet(true);
	/*
	 * Repetitions alternate the hand-offs, so that a machine whose load
	 * changes during the run weighs on each alike; the figures are the
	 * sums over the repetitions.
	 */
	for (unsigned long rep = 0; rep < reps; rep++)
		for (int si = 0; si < ns; si++)
			for (int hi = 0; hi < nh; hi++)
				run_suite(strats[si], hos[hi], iters, &cells[si][hi], progress);

	printf("explore suite, %lu executions per exploration, %lu repetition(s)\n", iters, reps);
	printf("%-9s %-9s %7s %9s %10s %8s %11s %11s %12s %9s\n", "strategy", "handoff",
	       "explor.", "execs", "decisions", "wall_s", "execs/s", "decisions/s",
	       "cpu_us/exec", "speedup");
	for (int si = 0; si < ns; si++) {
		for (int hi = 0; hi < nh; hi++) {
			const struct family *t = &cells[si][hi].total, *b = &cells[si][0].total;
			double eps = t->executions / t->wall, beps = b->executions / b->wall;
			json_t *jr = json_object(), *jf = json_object();

			printf("%-9s %-9s %7lu %9lu %10lu %8.2f %11.0f %11.0f %12.1f %8.2fx\n",
			       strats[si]->name, dcsim_explore_handoff_name(hos[hi]),
			       t->explorations, t->executions, t->steps, t->wall, eps,
			       t->steps / t->wall, t->cpu * 1e6 / t->executions, eps / beps);
			for (int scn = 0; scn < DCSIM_DSCN_NR; scn++) {
				const struct family *f = &cells[si][hi].fam[scn];

				if (f->explorations)
					json_object_set_new(jf, dcsim_dcache_scenario_name(scn),
							    fam_json(f));
				if (f->hash != cells[si][0].fam[scn].hash ||
				    f->failures != cells[si][0].fam[scn].failures) {
					printf("  ^ %s/%s: %s and %s took different schedules\n",
					       dcsim_dcache_scenario_name(scn), strats[si]->name,
					       dcsim_explore_handoff_name(hos[0]),
					       dcsim_explore_handoff_name(hos[hi]));
					disagree++;
				}
			}
			json_object_set_new(jr, "strategy", bj_str(strats[si]->name));
			json_object_set_new(jr, "handoff", bj_str(dcsim_explore_handoff_name(hos[hi])));
			json_object_set_new(jr, "total", fam_json(t));
			json_object_set_new(jr, "speedup_executions_per_s", bj_real(eps / beps));
			json_object_set_new(jr, "families", jf);
			json_array_append_new(jruns, jr);
		}
	}

	for (int hi = 0; corpus && hi < nh; hi++) {
		struct dcsim_checker_opts o;
		struct clocks t0, t1;
		double c0, c1;
		char *table = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&table, &len);
		json_t *jc = json_object();
		int rc;

		if (!mem) {
			perror("dcsim-bench-explore: open_memstream");
			return 1;
		}
		if (progress)
			fprintf(stderr, "dcsim-bench-explore: corpus %s, %s\n", corpus,
				dcsim_explore_handoff_name(hos[hi]));
		dcsim_checker_opts_init(&o);
		o.quiet = true;
		/* The corpus's children are forks: they inherit the process's hand-off. */
		dcsim_explore_set_handoff(hos[hi]);
		fflush(stdout);
		t0 = clocks_now();
		c0 = children_cpu();
		rc = dcsim_checker_corpus(corpus, &o, mem);
		c1 = children_cpu();
		t1 = clocks_now();
		fclose(mem);
		printf("\ncorpus, hand-off %s: %.1f s wall, %.1f s CPU (its runs) (exit %d)\n%s",
		       dcsim_explore_handoff_name(hos[hi]), t1.wall - t0.wall, c1 - c0, rc,
		       table ? table : "");
		json_object_set_new(jc, "handoff", bj_str(dcsim_explore_handoff_name(hos[hi])));
		json_object_set_new(jc, "wall_s", bj_real(t1.wall - t0.wall));
		json_object_set_new(jc, "cpu_s", bj_real(c1 - c0));
		json_object_set_new(jc, "exit", json_integer(rc));
		json_object_set_new(jc, "table", bj_str(table));
		json_array_append_new(jcorpus, jc);
		free(table);
		if (rc)
			disagree++;
	}
	dcsim_explore_set_handoff(DCSIM_EXPLORE_HANDOFF_DEFAULT);

	if (!uname(&un))
		json_object_set_new(root, "host", bj_str(un.machine));
	json_object_set_new(root, "cpus_online", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	json_object_set_new(root, "iterations", bj_uint(iters));
	json_object_set_new(root, "repetitions", bj_uint(reps));
	json_object_set_new(root, "runs", jruns);
	json_object_set_new(root, "corpus", jcorpus);
	json_object_set_new(root, "disagreements", json_integer(disagree));
	if (json_path) {
		FILE *f = fopen(json_path, "w");

		if (!f || bench_json_dump(root, f)) {
			fprintf(stderr, "dcsim-bench-explore: cannot write %s\n", json_path);
			return 1;
		}
		fclose(f);
	}
	json_decref(root);
	return disagree ? 1 : 0;
}
