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
 * Exit: 0 every check passed, 1 a check failed (a report, ending in one
 * "replay:" line), 2 bad usage (unknown option or strategy, a library that
 * does not load, a kernel patch that does not apply or build), 77 the
 * --kernel-tree tarball is missing (the message names the package).
 * Progress and reports go to stderr; stdout has only the stress suite's
 * result row (and --list, --help).
 */

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dcsim/checker.h>
#include <dcsim/dcache-cover.h>
#include <dcsim/explore.h>
#include <dcsim/parse.h>
#include <dcsim/strategy.h>

#define MAX_LOADS	8
#define MAX_PATCHES	16

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
	      "                   [--diff-steps N] [--jobs N] [--shard I/N] [--no-pin]\n"
	      "                   [--scenario NAME --explore-mode random|pct --execution-seed N\n"
	      "                    [--pct-steps K]] [--scenarios A,B,...] [--fault NAME]\n"
	      "                   [--sched fair|strict|rt|window] [--window-dump FILE]\n"
	      "                   [--window-target FUNC:LINE[:hold]] [--handoff fiber|ucontext|pthread]\n"
	      "       dcsim-check [--load LIB.so]... --corpus DIR [--budget B]\n"
	      "       dcsim-check --kernel-tree 6.1|6.12|TARBALL --kernel-patch FILE...\n"
	      "                   [--suites ...] [--seed N] [--budget ...] [--jobs N] ...\n"
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

/* An option's number in [min, max] (<dcsim/parse.h>); a message and -1 if not. */
static int opt_u64(const char *opt, const char *arg, uint64_t min, uint64_t max, uint64_t *out)
{
	int rc = dcsim_parse_u64(arg, min, max, out);

	if (rc)
		fprintf(stderr, "dcsim-check: bad %s '%s': %s (want a whole number in %" PRIu64
			"..%" PRIu64 ")\n", opt, arg, dcsim_parse_strerror(rc), min, max);
	return rc ? -1 : 0;
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

/*
 * The units of a --jobs run, handed out at run time: a fast process takes
 * more of them, where a static split (unit i to process i % N) leaves the
 * run as slow as its slowest share.  Shared by the processes (MAP_SHARED);
 * every field is only touched with __atomic builtins, since the processes
 * read and write it at the same time.
 */
struct unit_pool {
	unsigned long next;	/* ordinal (among the shard's units) of the next unit to take */
	unsigned long stop;	/* lowest failing unit so far; ULONG_MAX: none */
	unsigned long cur[];	/* per process: the unit it runs (or ran last); ULONG_MAX: none */
};

/* One process's view of the pool: dcsim_checker_opts.take_unit's argument. */
struct unit_taker {
	struct unit_pool *pool;
	unsigned int idx;	/* this process */
	unsigned long seen;	/* units of the shard offered so far */
	unsigned long mine;	/* ordinal taken from the pool, not yet reached */
	bool have, done;
};

/*
 * dcsim_checker_opts.take_unit: the suite offers its shard's units in
 * increasing order, the same sequence in every process; each process
 * takes ordinals from the shared counter and runs the unit it reaches
 * with that ordinal.  So each unit runs exactly once, and each process
 * runs its units in increasing order.  Above a unit that failed (in any
 * process) nothing is taken: the lowest failing unit, which a --jobs 1
 * run reports, is below it, and every unit below it still runs.
 */
static bool take_unit(void *arg, unsigned long unit)
{
	struct unit_taker *t = arg;
	unsigned long k = t->seen++;

	if (t->done)
		return false;
	if (!t->have) {
		/* Relaxed: the counter only has to hand out each ordinal once. */
		t->mine = __atomic_fetch_add(&t->pool->next, 1, __ATOMIC_RELAXED);
		t->have = true;
	}
	if (k < t->mine)
		return false;
	t->have = false;
	/* Relaxed: a stale (higher) stop only runs a unit in vain, never skips a needed one. */
	if (unit > __atomic_load_n(&t->pool->stop, __ATOMIC_RELAXED)) {
		t->done = true;
		return false;
	}
	/*
	 * Published before the unit runs: the parent may kill this process
	 * once a failure below it is known (run_jobs()); release pairs with
	 * the parent's acquire, though the unit is all it needs to see.
	 */
	__atomic_store_n(&t->pool->cur[t->idx], unit, __ATOMIC_RELEASE);
	return true;
}

/* Lower the pool's stop to @unit, if that is lower. */
static void unit_pool_failed(struct unit_pool *pool, unsigned long unit)
{
	unsigned long old = __atomic_load_n(&pool->stop, __ATOMIC_RELAXED);

	while (unit < old && !__atomic_compare_exchange_n(&pool->stop, &old, unit, false,
							  __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

struct job {
	pid_t pid;
	FILE *out;		/* the child's stderr: progress and report */
	int fd;			/* its struct dcsim_checker_result */
	bool live;		/* not waited for yet */
	bool got;		/* the result arrived (else it crashed) */
	bool cut;		/* killed: all it had left was above a failure */
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
 * Suite @bit on @jobs processes, which take the units of shard @shard of
 * @nshards from a shared pool.  Return: 0, 1 (a check failed, one report
 * printed), 2 (an error).
 */
static int run_jobs(unsigned int bit, const char *suite, const struct dcsim_dput_strategy *s,
		    const struct dcsim_checker_opts *o0, unsigned int jobs, unsigned int shard,
		    unsigned int nshards, bool no_pin)
{
	struct job *j = calloc(jobs, sizeof(*j));
	size_t pool_len = sizeof(struct unit_pool) + jobs * sizeof(unsigned long);
	struct unit_pool *pool;
	unsigned long runs = 0, commits = 0;
	struct job *first = NULL;
	bool crashed = false, error = false;
	unsigned int live = 0;

	if (!j)
		return 2;
	pool = mmap(NULL, pool_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (pool == MAP_FAILED)
		return free(j), fprintf(stderr, "dcsim-check: --jobs: mmap: %s\n", strerror(errno)), 2;
	pool->next = 0;
	pool->stop = ULONG_MAX;
	for (unsigned int i = 0; i < jobs; i++)
		pool->cur[i] = ULONG_MAX;
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
			struct unit_taker t = { .pool = pool, .idx = i };
			struct dcsim_checker_result res;
			int rc;

			close(p[0]);
			/* The explorer writes its part of a report to fd 2 itself. */
			dup2(fileno(j[i].out), 2);
			/*
			 * One CPU each for the explorations (src/engine/pin.c);
			 * a single process keeps the explorer's default, the
			 * CPU it runs on, so that two shards started on one
			 * machine tend to get different CPUs.
			 */
			if (jobs > 1 && !no_pin)
				dcsim_explore_set_pin((int)i);
			o.shard = shard;
			o.nshards = nshards;
			o.take_unit = take_unit;
			o.take_arg = &t;
			rc = run_suite(bit, s, &o, &res);
			if (rc == 1 && res.failures)
				unit_pool_failed(pool, res.failed_unit);
			__atomic_store_n(&pool->cur[i], ULONG_MAX, __ATOMIC_RELEASE);
			fflush(stderr);
			if (write(p[1], &res, sizeof(res)) != (ssize_t)sizeof(res))
				_exit(2);
			_exit(rc < 0 ? 2 : rc);
		}
		close(p[1]);
		j[i].fd = p[0];
		j[i].live = true;
		live++;
	}
	while (live) {
		int status;
		pid_t pid = waitpid(-1, &status, 0);
		unsigned long stop;
		unsigned int i;

		if (pid < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "dcsim-check: waitpid: %s\n", strerror(errno));
			error = true;
			break;
		}
		for (i = 0; i < jobs && j[i].pid != pid; i++)
			;
		if (i == jobs || !j[i].live)
			continue;
		j[i].live = false;
		j[i].status = status;
		live--;
		/* It wrote its result before it exited: the pipe holds it. */
		j[i].got = read(j[i].fd, &j[i].res, sizeof(j[i].res)) == (ssize_t)sizeof(j[i].res);
		close(j[i].fd);
		/*
		 * A process whose current unit is above the lowest failure has
		 * nothing left to do that could change the report (it takes
		 * units in increasing order): stop it now rather than after a
		 * long unit.
		 */
		stop = __atomic_load_n(&pool->stop, __ATOMIC_ACQUIRE);
		for (unsigned int k = 0; k < jobs && stop != ULONG_MAX; k++) {
			unsigned long cur = __atomic_load_n(&pool->cur[k], __ATOMIC_ACQUIRE);

			if (j[k].live && !j[k].cut && cur != ULONG_MAX && cur > stop &&
			    !kill(j[k].pid, SIGKILL))
				j[k].cut = true;
		}
	}
	for (unsigned int i = 0; i < jobs; i++) {
		if (j[i].live) {
			/* Only after a waitpid() error: do not leave it behind. */
			kill(j[i].pid, SIGKILL);
			waitpid(j[i].pid, &j[i].status, 0);
			close(j[i].fd);
			j[i].cut = true;
		}
		if (j[i].cut && !j[i].got)
			continue;
		if (!j[i].got || !WIFEXITED(j[i].status)) {
			crashed = true;
			continue;
		}
		if (WEXITSTATUS(j[i].status) == 2)
			error = true;
		runs += j[i].res.runs;
		commits += j[i].res.htm_commits;
		/* Each stopped at its first failure: the lowest is the unsplit run's. */
		if (j[i].res.failures && (!first || j[i].res.failed_unit < first->res.failed_unit))
			first = &j[i];
	}
	munmap(pool, pool_len);
	for (unsigned int i = 0; i < jobs; i++) {
		/* A crash (signal) has no result: its whole output is the report. */
		if (&j[i] == first || (!j[i].cut && (!j[i].got || !WIFEXITED(j[i].status) ||
						     WEXITSTATUS(j[i].status) == 2)))
			copy_out(j[i].out, stderr);
		fclose(j[i].out);
	}
	if (crashed && !first)
		/* Its report (a crash, a watchdog) has the explorer's replay, not ours. */
		fprintf(stderr, "dcsim-check: FAIL: %s, strategy %s: a process died\n"
			"replay: %s --suites %s --seed %" PRIu64 "\n", suite, s->name,
			o0->replay_prefix, suite, o0->seed);
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

/* Where kpatch.py and the shims are: see the head comment. */
static int kc_paths(char *root, size_t rlen, char *incs, size_t ilen)
{
	const char *env = getenv("DCSIM_KC_ROOT");
	char exe[PATH_MAX], dir[PATH_MAX], probe[PATH_MAX + 64];
	ssize_t n;

	if (env && *env) {
		const char *inc = getenv("DCSIM_KC_INCLUDE");

		if (!inc || !*inc) {
			fputs("dcsim-check: DCSIM_KC_ROOT needs DCSIM_KC_INCLUDE (the directory "
			      "holding dcsim/checker.h)\n", stderr);
			return -1;
		}
		snprintf(root, rlen, "%s", env);
		snprintf(incs, ilen, "%s", inc);
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		if (!strcmp(exe, DCSIM_KC_BUILD_EXE)) {
			/* The build tree's program: the source tree's kernel-code/. */
			snprintf(root, rlen, "%s", DCSIM_KC_SRC_ROOT);
			snprintf(incs, ilen, "%s:%s", DCSIM_KC_SRC_INCLUDE, DCSIM_KC_BUILD_INCLUDE);
			return 0;
		}
		snprintf(dir, sizeof(dir), "%s", exe);
		slash = strrchr(dir, '/');
		if (slash && DCSIM_KC_ROOT_REL[0]) {
			*slash = '\0';
			/* A relocated prefix (DESTDIR, a moved tree): beside the program. */
			snprintf(probe, sizeof(probe), "%s/%s/kernel-code/kpatch.py", dir,
				 DCSIM_KC_ROOT_REL);
			if (!access(probe, R_OK) &&
			    (size_t)snprintf(root, rlen, "%s/%s", dir, DCSIM_KC_ROOT_REL) < rlen &&
			    (size_t)snprintf(incs, ilen, "%s/%s", dir, DCSIM_KC_INCLUDE_REL) < ilen)
				return 0;
		}
	}
	snprintf(root, rlen, "%s", DCSIM_KC_ROOT_ABS);
	snprintf(incs, ilen, "%s", DCSIM_KC_INCLUDE_ABS);
	snprintf(probe, sizeof(probe), "%s/kernel-code/kpatch.py", root);
	if (access(probe, R_OK)) {
		fprintf(stderr, "dcsim-check: --kernel-patch: %s not found: this dcsim-check was "
			"installed without kernel-code/ (a cross or sanitizer build?); set "
			"DCSIM_KC_ROOT and DCSIM_KC_INCLUDE\n", probe);
		return -1;
	}
	return 0;
}

/*
 * Build (or find in the cache) TREE with @patches as a strategy, load it
 * and return its name in @name.  Return: 0, 2 (an error, said), 77 (the
 * tarball is missing, said).
 */
static int kernel_patch_strategy(const char *tree, const char *const *patches,
				 unsigned int npatches, char *name, size_t len)
{
	char root[PATH_MAX], incs[2 * PATH_MAX + 2], script[PATH_MAX + 32], cache[PATH_MAX];
	char line[2 * PATH_MAX], so[PATH_MAX], why[512];
	const char *argv[16 + 2 * MAX_PATCHES + 2 * 8];
	const char *env;
	unsigned int argc = 0;
	int p[2], status, got = 0;
	bool init;
	pid_t pid;
	FILE *f;

	if (kc_paths(root, sizeof(root), incs, sizeof(incs)))
		return 2;
	if ((env = getenv("DCSIM_CACHE_DIR")) && *env)
		snprintf(cache, sizeof(cache), "%s", env);
	else if ((env = getenv("XDG_CACHE_HOME")) && *env)
		snprintf(cache, sizeof(cache), "%s/dcsim", env);
	else if ((env = getenv("HOME")) && *env)
		snprintf(cache, sizeof(cache), "%s/.cache/dcsim", env);
	else
		return fputs("dcsim-check: --kernel-patch: no cache directory: set "
			     "DCSIM_CACHE_DIR, XDG_CACHE_HOME or HOME\n", stderr), 2;
	snprintf(script, sizeof(script), "%s/kernel-code/kpatch.py", root);
	argv[argc++] = "python3";
	argv[argc++] = script;
	argv[argc++] = "--root";
	argv[argc++] = root;
	argv[argc++] = "--cache";
	argv[argc++] = cache;
	argv[argc++] = "--tree";
	argv[argc++] = tree;
	for (char *s = incs, *save = NULL, *t; (t = strtok_r(s, ":", &save)) && argc < 30; s = NULL) {
		argv[argc++] = "--include";
		argv[argc++] = t;
	}
	for (unsigned int i = 0; i < npatches; i++) {
		argv[argc++] = "--patch";
		argv[argc++] = patches[i];
	}
	argv[argc] = NULL;
	if (pipe(p))
		return fprintf(stderr, "dcsim-check: pipe: %s\n", strerror(errno)), 2;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return fprintf(stderr, "dcsim-check: fork: %s\n", strerror(errno)), 2;
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "dcsim-check: --kernel-patch: cannot run python3: %s\n",
			strerror(errno));
		_exit(2);
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		char n[256];

		/* "KPATCH <shared object> <strategy>" */
		if (sscanf(line, "KPATCH %4095s %255s", so, n) == 2) {
			snprintf(name, len, "%s", n);
			got = 1;
		} else {
			fputs(line, stderr);
		}
	}
	if (f)
		fclose(f);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return fputs("dcsim-check: --kernel-patch: kpatch.py died\n", stderr), 2;
	if (WEXITSTATUS(status) == 77)
		return 77;
	if (WEXITSTATUS(status) || !got) {
		fprintf(stderr, "dcsim-check: --kernel-tree %s: the patched tree was not built "
			"(above: why); no strategy registered\n", tree);
		return 2;
	}
	if (dcsim_strategy_load(so, &init, why, sizeof(why)) < 0 || !dcsim_strategy_lookup(name)) {
		fprintf(stderr, "dcsim-check: --kernel-patch: %s did not register %s: %s\n", so,
			name, why);
		return 2;
	}
	fprintf(stderr, "dcsim-check: loaded %s as strategy %s\n", so, name);
	return 0;
}

static int parse_shard(const char *arg, unsigned int *i, unsigned int *n)
{
	const char *slash = strchr(arg, '/');
	char first[32];
	uint64_t a, b;

	if (!slash || (size_t)(slash - arg) >= sizeof(first))
		return -1;
	snprintf(first, sizeof(first), "%.*s", (int)(slash - arg), arg);
	if (dcsim_parse_u64(first, 0, UINT_MAX, &a) ||
	    dcsim_parse_u64(slash + 1, 1, UINT_MAX / 1024, &b) || a >= b)
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
		{ "kernel-tree", required_argument, NULL, 'T' },
		{ "kernel-patch", required_argument, NULL, 'P' },
		{ "scenarios", required_argument, NULL, 'C' },
		{ "fault", required_argument, NULL, 'f' },
		{ "corpus", required_argument, NULL, 'K' },
		{ "sched", required_argument, NULL, 'y' },
		{ "window-dump", required_argument, NULL, 'W' },
		{ "window-target", required_argument, NULL, 'Z' },
		{ "no-pin", no_argument, NULL, 'N' },
		{ "handoff", required_argument, NULL, 'H' },
		{ "list", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *loads[MAX_LOADS], *name = NULL, *trace = NULL, *budget_name = NULL;
	const char *kpatches[MAX_PATCHES], *ktree = NULL;
	unsigned int nkpatches = 0;
	char kname[256];
	const char *corpus = NULL, *fault_name = NULL;
	unsigned int nloads = 0, which = S_DIFF | S_EXPLORE | S_STRESS | S_MISUSE;
	const struct dcsim_dput_strategy *s;
	struct dcsim_checker_opts o;
	char replay[2048] = "dcsim-check";
	bool list = false, no_pin = false;
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
			if (opt_u64("--seed", optarg, 0, UINT64_MAX, &o.seed))
				return 2;
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
			if (opt_u64("--execution-seed", optarg, 0, UINT64_MAX, &o.execution_seed))
				return 2;
			break;
		case 'p': {
			uint64_t v;

			if (opt_u64("--pct-steps", optarg, 1, UINT32_MAX, &v))
				return 2;
			o.pct_steps = (unsigned long)v;
			break;
		}
		case 'd': {
			uint64_t v;

			if (opt_u64("--diff-steps", optarg, 1, 1000, &v))
				return 2;
			o.diff_steps = (unsigned int)v;
			break;
		}
		case 'j': {
			uint64_t v;

			if (opt_u64("--jobs", optarg, 1, 1024, &v))
				return 2;
			jobs = (unsigned int)v;
			break;
		}
		case 'x':
			if (parse_shard(optarg, &shard, &nshards))
				return bad_usage("bad --shard '%s' (want I/N, 0 <= I < N)", optarg);
			break;
		case 'T':
			ktree = optarg;
			break;
		case 'P': {
			/* Absolute, so that a replay line works from anywhere. */
			char *abs = realpath(optarg, NULL);

			if (nkpatches == MAX_PATCHES)
				return bad_usage("at most %s --kernel-patch", "16");
			if (!abs)
				return bad_usage("--kernel-patch %s: no such file", optarg);
			kpatches[nkpatches++] = abs;
			break;
		}
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
		case 'y': {
			enum dcsim_explore_sched sch;

			if (dcsim_explore_sched_parse(optarg, &sch))
				return bad_usage("bad --sched '%s' (want fair, strict, rt or window)", optarg);
			o.explore_sched = optarg;
			break;
		}
		case 'H': {	/* how logical threads switch: results do not depend on it */
			enum dcsim_explore_handoff ho;

			if (dcsim_explore_handoff_parse(optarg, &ho))
				return bad_usage("bad --handoff '%s' (want fiber, ucontext or pthread)", optarg);
			dcsim_explore_set_handoff(ho);
			break;
		}
		case 'W':
			o.window_dump = optarg;
			break;
		case 'Z': {
			const char *colon = strchr(optarg, ':');
			char *end;

			if (!colon || colon == optarg || (strtol(colon + 1, &end, 10), end == colon + 1) ||
			    (*end && strcmp(end, ":hold")))
				return bad_usage("bad --window-target '%s' (want FUNC:LINE or "
						 "FUNC:LINE:hold)", optarg);
			o.window_target = optarg;
			break;
		}
		case 'N':
			no_pin = true;
			dcsim_explore_set_pin(DCSIM_EXPLORE_PIN_OFF);
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

		int got = dcsim_strategy_load(loads[i], &init, why, sizeof(why));

		if (got < 0) {
			fprintf(stderr, "dcsim-check: --load %s: %s\n", loads[i], why);
			return 2;
		}
		if (!got) {
			fprintf(stderr, "dcsim-check: --load %s: the library registered no dput "
				"strategy (register them from a constructor or from "
				"dcsim_plugin_init())\n", loads[i]);
			return 2;
		}
		fprintf(stderr, "dcsim-check: loaded %s%s\n", loads[i],
			init ? " (dcsim_plugin_init() called)" : "");
		append_word(replay, sizeof(replay), "--load");
		append_word(replay, sizeof(replay), loads[i]);
	}
	if (!ktree != !nkpatches)
		return bad_usage("%s", "--kernel-tree and --kernel-patch go together");
	if (ktree) {
		int rc = kernel_patch_strategy(ktree, kpatches, nkpatches, kname, sizeof(kname));

		if (rc)
			return rc;
		if (name && strcmp(name, kname)) {
			fprintf(stderr, "dcsim-check: --strategy %s: the --kernel-patch build is "
				"named %s\n", name, kname);
			return 2;
		}
		name = kname;
		append_word(replay, sizeof(replay), "--kernel-tree");
		append_word(replay, sizeof(replay), ktree);
		for (unsigned int i = 0; i < nkpatches; i++) {
			append_word(replay, sizeof(replay), "--kernel-patch");
			append_word(replay, sizeof(replay), kpatches[i]);
		}
	}
	if (list) {
		list_strategies(stdout);
		return 0;
	}
	if (corpus) {
		int rc;

		if (name || trace || o.scenario || o.scenarios || fault_name || o.explore_sched)
			return bad_usage("%s", "--corpus takes its strategies, suites, faults and "
					 "scheduling from the .bug files: no --strategy, --trace, "
					 "--scenario(s), --fault or --sched");
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
	if (o.explore_sched) {
		append_word(replay, sizeof(replay), "--sched");
		append_word(replay, sizeof(replay), o.explore_sched);
	}
	if (o.window_target) {
		append_word(replay, sizeof(replay), "--window-target");
		append_word(replay, sizeof(replay), o.window_target);
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
		/*
		 * A kernel patch's diff and explore run in a child process even
		 * with one job: a crash or a hang (the watchdog aborts) in the
		 * patched code is then a report with our replay line.
		 */
		if (jobs > 1 || nshards > 1 || ktree) {
			bool split = suites[i].bit == S_DIFF || suites[i].bit == S_EXPLORE;

			/* Stress and misuse have no seed space to split: shard 0 runs them. */
			if (!split && shard)
				continue;
			if (split && !o.scenario) {
				rc = run_jobs(suites[i].bit, suites[i].name, s, &o, jobs, shard, nshards,
					      no_pin);
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
