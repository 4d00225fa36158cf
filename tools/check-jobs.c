// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dcsim-check: the suites in child processes (--jobs, --shard, and every
 * --kernel-patch run), so that a crash or a hang in the code under test
 * is a failed check with a report, never the end of dcsim-check.
 *
 * The diff and explore suites' units (traces, explorations) are handed out
 * at run time from a shared pool: a fast process takes more of them, where
 * a static split (unit i to process i % N) leaves the run as slow as its
 * slowest share.  The processes are <dcsim/child.h>'s, the checkers' one
 * runner: each hands back its struct dcsim_checker_result, and how it
 * ended (done, crashed, hung, cut) comes as data; its stderr (progress,
 * report) goes to a file the parent copies out for the failure it reports.
 */

#define _GNU_SOURCE	/* nftw(), strsignal(), RTLD_DEFAULT */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dcsim/child.h>
#include <dcsim/explore.h>

#include "check.h"

int check_run_suite(unsigned int bit, const struct dcsim_dput_strategy *s,
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
 * Shared by the processes (MAP_SHARED); every field is only touched with
 * __atomic builtins, since the processes read and write it at the same time.
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
	 * once a failure below it is known, and names this unit if the
	 * process dies in it; release pairs with the parent's acquire.
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

/*
 * A unit's outcome as a process hands it to the parent: one write() to
 * the process's own unit file as the unit ends, so that the units before
 * a crash are kept.  For a unit that failed, the failure (flen bytes) and
 * the whole replay line (rlen bytes) follow the record.
 */
struct unit_rec {
	unsigned long index, executions;
	uint64_t seed;
	unsigned int kind, flen, rlen;
	char scenario[160], mode[16];
};

struct job {
	bool got;		/* the result arrived (else it crashed, hung or was cut) */
	unsigned long unit;	/* the unit it ran last (a crash's) */
	int status;		/* its exit status, when it exited */
	struct dcsim_checker_result res;
};

/* What one run_jobs() call shares with its helpers. */
struct jobs {
	unsigned int bit, n, shard, nshards;
	const char *suite;
	const struct dcsim_dput_strategy *s;
	const struct dcsim_checker_opts *o;
	bool split, no_pin;
	struct unit_pool *pool;
	size_t pool_len;
	struct job *j;
	struct dcsim_child *kid;	/* kid[i] runs job j[i] (<dcsim/child.h>) */
	FILE **units;			/* units[i]: process i's unit records */
	unsigned int *idx;		/* kid[i]'s body argument: i */
};

struct job_arg {
	struct jobs *js;
	unsigned int i;
};

static void copy_out(FILE *from, FILE *to)
{
	char buf[4096];
	size_t n;

	if (!from)
		return;
	rewind(from);
	while ((n = fread(buf, 1, sizeof(buf), from)) > 0)
		fwrite(buf, 1, n, to);
}

/* dcsim_checker_opts.unit_done, in the child: the unit's record to its file. */
static void unit_done(void *arg, const struct dcsim_checker_unit *u)
{
	const struct job_arg *a = arg;
	struct unit_rec r = {
		.index = u->index, .executions = u->executions, .seed = u->seed,
		.kind = u->failed ? CHECK_UNIT_CHECK : CHECK_UNIT_OK,
	};
	char buf[sizeof(r) + 512 + 2048], *p = buf;
	size_t len;

	snprintf(r.scenario, sizeof(r.scenario), "%s", u->scenario ? u->scenario : "");
	snprintf(r.mode, sizeof(r.mode), "%s", u->mode ? u->mode : "");
	if (u->failed) {
		r.flen = (unsigned int)strnlen(u->failure ? u->failure : "", 511);
		memcpy(buf + sizeof(r), u->failure ? u->failure : "", r.flen);
		r.rlen = (unsigned int)snprintf(buf + sizeof(r) + r.flen, 2048, "%s %s",
						a->js->o->replay_prefix, u->replay ? u->replay : "");
		if (r.rlen >= 2048)
			r.rlen = 2047;
	}
	memcpy(buf, &r, sizeof(r));
	len = sizeof(r) + r.flen + r.rlen;
	while (len) {
		ssize_t n = write(fileno(a->js->units[a->i]), p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;	/* the parent finds the record cut short, and stops there */
		p += n;
		len -= (size_t)n;
	}
}

/* Process @i's body (dcsim_child_fn): the suite, and its counts flushed. */
static int job_body(void *arg, struct dcsim_checker_where *where, void *out)
{
	struct job_arg *a = arg;
	struct jobs *js = a->js;
	unsigned int i = a->i;
	struct dcsim_checker_opts o = *js->o;
	struct unit_taker t = { .pool = js->pool, .idx = i };
	struct dcsim_checker_result *res = out;
	int rc;

	check_cov_suite(js->suite);
	/*
	 * One CPU each for the explorations (src/engine/pin.c); a single
	 * process keeps the explorer's default, the CPU it runs on, so that
	 * two shards started on one machine tend to get different CPUs.
	 */
	if (js->n > 1 && !js->no_pin)
		dcsim_explore_set_pin((int)i);
	if (js->split) {
		o.shard = js->shard;
		o.nshards = js->nshards;
		o.take_unit = take_unit;
		o.take_arg = &t;
	}
	o.where = where;
	o.unit_done = unit_done;
	o.unit_arg = a;
	rc = check_run_suite(js->bit, js->s, &o, res);
	if (rc == 1 && res->failures)
		unit_pool_failed(js->pool, res->failed_unit);
	__atomic_store_n(&js->pool->cur[i], ULONG_MAX, __ATOMIC_RELEASE);
	check_cov_flush();
	return rc;
}

static struct job_arg *job_args;

static int jobs_start(struct jobs *js)
{
	js->j = calloc(js->n, sizeof(*js->j));
	js->kid = calloc(js->n, sizeof(*js->kid));
	job_args = calloc(js->n, sizeof(*job_args));
	js->units = calloc(js->n, sizeof(*js->units));
	js->pool_len = sizeof(struct unit_pool) + js->n * sizeof(unsigned long);
	if (!js->j || !js->kid || !job_args || !js->units)
		return -1;
	for (unsigned int i = 0; i < js->n; i++) {
		js->units[i] = tmpfile();
		if (!js->units[i])
			return -1;
	}
	js->pool = mmap(NULL, js->pool_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			-1, 0);
	if (js->pool == MAP_FAILED)
		return js->pool = NULL, -1;
	js->pool->next = 0;
	js->pool->stop = ULONG_MAX;
	for (unsigned int i = 0; i < js->n; i++) {
		js->pool->cur[i] = ULONG_MAX;
		js->kid[i].fd = -1;
		js->kid[i].pid = -1;
		js->kid[i].end = DCSIM_CHILD_DONE;	/* not started */
	}
	for (unsigned int i = 0; i < js->n; i++) {
		struct dcsim_child *c = &js->kid[i];
		int rc;

		job_args[i] = (struct job_arg){ .js = js, .i = i };
		c->fn = job_body;
		c->arg = &job_args[i];
		c->res = &js->j[i].res;
		c->res_size = sizeof(js->j[i].res);
		rc = dcsim_child_start(c);
		if (rc) {
			c->end = DCSIM_CHILD_DONE;
			errno = -rc;
			return -1;
		}
	}
	return 0;
}

/*
 * A process whose current unit is above the lowest failure has nothing
 * left to do that could change the report (it takes units in increasing
 * order): stop it now rather than after a long unit.
 */
static void jobs_cut_above_failure(struct jobs *js)
{
	unsigned long stop = __atomic_load_n(&js->pool->stop, __ATOMIC_ACQUIRE);

	for (unsigned int k = 0; k < js->n && stop != ULONG_MAX; k++) {
		unsigned long cur = __atomic_load_n(&js->pool->cur[k], __ATOMIC_ACQUIRE);

		if (cur != ULONG_MAX && cur > stop)
			dcsim_child_cut(&js->kid[k]);
	}
}

/* Wait for every process; a crash or a hang is a failure at the unit it ran. Return: -1 on error. */
static int jobs_wait(struct jobs *js)
{
	for (;;) {
		int i = dcsim_child_wait(js->kid, js->n);
		struct job *j;

		if (i == -ECHILD)
			return 0;
		if (i == -EINTR)
			continue;
		if (i < 0) {
			fprintf(stderr, "dcsim-check: waitpid: %s\n", strerror(-i));
			/* Do not leave them behind. */
			for (unsigned int k = 0; k < js->n; k++)
				dcsim_child_cut(&js->kid[k]);
			while (dcsim_child_wait(js->kid, js->n) >= 0)
				;
			return -1;
		}
		j = &js->j[i];
		j->got = js->kid[i].end == DCSIM_CHILD_DONE;
		j->status = js->kid[i].status;
		j->unit = __atomic_load_n(&js->pool->cur[i], __ATOMIC_ACQUIRE);
		if (!j->got && js->kid[i].end != DCSIM_CHILD_CUT && j->unit != ULONG_MAX)
			unit_pool_failed(js->pool, j->unit);
		jobs_cut_above_failure(js);
	}
}

static bool job_crashed(const struct jobs *js, const struct job *j)
{
	enum dcsim_child_end e = js->kid[j - js->j].end;

	return e == DCSIM_CHILD_CRASHED || e == DCSIM_CHILD_HUNG || e == DCSIM_CHILD_LOST;
}

/* What the processes found together. */
struct jobs_tally {
	unsigned long runs, commits;
	unsigned long lock_acq, lock_try, lock_edges;	/* the lock order validator's, summed */
	const struct job *first;	/* the lowest failing unit's, a check's */
	const struct job *crash;	/* the lowest crashed (or hung) unit's */
	bool error;
};

static void jobs_tally(const struct jobs *js, struct jobs_tally *t)
{
	memset(t, 0, sizeof(*t));
	for (unsigned int i = 0; i < js->n; i++) {
		const struct job *j = &js->j[i];

		if (js->kid[i].end == DCSIM_CHILD_CUT)
			continue;
		if (job_crashed(js, j)) {
			if (!t->crash || j->unit < t->crash->unit)
				t->crash = j;
			continue;
		}
		if (j->status == 2)
			t->error = true;
		t->runs += j->res.runs;
		t->commits += j->res.htm_commits;
		t->lock_acq += j->res.lock_acquisitions;
		t->lock_try += j->res.lock_trylocks;
		t->lock_edges += j->res.lock_edges;
		/* Each stopped at its first failure: the lowest is the unsplit run's. */
		if (j->res.failures && (!t->first || j->res.failed_unit < t->first->res.failed_unit))
			t->first = j;
	}
	/* A check below the crash is the report a run without --jobs would give first. */
	if (t->crash && t->first && t->first->res.failed_unit < t->crash->unit)
		t->crash = NULL;
	else if (t->crash)
		t->first = NULL;
}

/*
 * The replay of @j's failure: an exploration's is the one execution it
 * ran last (the where record the process kept in shared memory: it stops
 * at its first failure); else the suite from its seed, which stops at the
 * same unit.
 */
static void jobs_replay(const struct jobs *js, const struct job *j, char *buf, size_t len)
{
	char fallback[128];

	snprintf(fallback, sizeof(fallback), "--suites %s --seed %" PRIu64, js->suite,
		 js->o->seed);
	if (js->bit != S_EXPLORE) {
		snprintf(buf, len, "%s %s", js->o->replay_prefix, fallback);
		return;
	}
	dcsim_child_replay(&js->kid[j - js->j], js->o->replay_prefix, fallback, buf, len);
}

/* A process that died: its report (the explorer's, from its crash handler or watchdog) is above. */
static void jobs_print_crash(const struct jobs *js, const struct job *j)
{
	const struct dcsim_child *c = &js->kid[j - js->j];
	char replay[4096];

	fprintf(stderr, "dcsim-check: FAIL: %s, strategy %s: the process running ", js->suite,
		js->s->name);
	if (j->unit != ULONG_MAX)
		fprintf(stderr, "unit %lu ", j->unit);
	else
		fputs("it ", stderr);
	if (c->end == DCSIM_CHILD_HUNG)
		fprintf(stderr, "hung: %s (signal %d)", c->where.exec.hung ?
			"the explorer's watchdog aborted it" : "killed at its time limit", c->signal);
	else if (c->end == DCSIM_CHILD_CRASHED)
		fprintf(stderr, "died of signal %d (%s)", c->signal, strsignal(c->signal));
	else
		fputs("ended without a result", stderr);
	fprintf(stderr, "\ncheck: the code under test %s: a failure\n",
		c->end == DCSIM_CHILD_HUNG ? "hung" : "crashed");
	jobs_replay(js, j, replay, sizeof(replay));
	fprintf(stderr, "replay: %s\n", replay);
}

#define MAX_RESULTS	16
static struct check_suite_result results[MAX_RESULTS];
static unsigned int nresults;

const struct check_suite_result *check_suite_results(unsigned int *n)
{
	*n = nresults;
	return results;
}

/* The one-line failure of @j's process, which crashed or hung. */
static void crash_line(const struct jobs *js, const struct job *j, char *buf, size_t len)
{
	const struct dcsim_child *c = &js->kid[j - js->j];

	snprintf(buf, len, "%s: the process %s (%s)", js->suite,
		 c->end == DCSIM_CHILD_HUNG ? "hung" : "crashed",
		 c->signal ? strsignal(c->signal) : "no result");
}

static struct check_unit *units_add(struct check_suite_result *r, unsigned long *cap)
{
	if (r->nunits == *cap) {
		unsigned long n = *cap ? 2 * *cap : 64;
		struct check_unit *u = realloc(r->units, n * sizeof(*u));

		if (!u)
			return NULL;
		r->units = u;
		*cap = n;
	}
	memset(&r->units[r->nunits], 0, sizeof(r->units[0]));
	return &r->units[r->nunits++];
}

static char *dup_n(FILE *f, unsigned int len)
{
	char *s = malloc(len + 1);

	if (s && fread(s, 1, len, f) != len) {
		free(s);
		return NULL;
	}
	if (s)
		s[len] = '\0';
	return s;
}

static int unit_cmp(const void *a, const void *b)
{
	const struct check_unit *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * @r's units: each process's records, a unit for each process that
 * crashed or hung in one, and for stress and misuse (one run, no units of
 * their own) the suite as one unit; in index order, up to the lowest
 * failing unit, where a --jobs 1 run stops: the same list for any --jobs.
 */
static void jobs_units(const struct jobs *js, const struct jobs_tally *t,
		       struct check_suite_result *r)
{
	unsigned long cap = 0, stop = ULONG_MAX, next = 0;
	struct check_unit *u;

	for (unsigned int i = 0; i < js->n; i++) {
		struct unit_rec rec;

		rewind(js->units[i]);
		while (fread(&rec, sizeof(rec), 1, js->units[i]) == 1) {
			char *failure = rec.flen || rec.rlen ? dup_n(js->units[i], rec.flen) : NULL;
			char *replay = rec.flen || rec.rlen ? dup_n(js->units[i], rec.rlen) : NULL;

			if ((rec.flen || rec.rlen) && (!failure || !replay))
				break;	/* cut short by a crash */
			u = units_add(r, &cap);
			if (!u)
				return;
			*u = (struct check_unit){
				.index = rec.index, .executions = rec.executions, .seed = rec.seed,
				.kind = rec.kind, .failure = failure, .replay = replay,
			};
			memcpy(u->scenario, rec.scenario, sizeof(u->scenario));
			memcpy(u->mode, rec.mode, sizeof(u->mode));
			u->scenario[sizeof(u->scenario) - 1] = u->mode[sizeof(u->mode) - 1] = '\0';
			if (rec.index >= next)
				next = rec.index + 1;
		}
	}
	for (unsigned int i = 0; i < js->n; i++) {
		const struct job *j = &js->j[i];
		const struct dcsim_child *c = &js->kid[i];
		char line[4096];

		if (!job_crashed(js, j) || !(u = units_add(r, &cap)))
			continue;
		u->index = j->unit != ULONG_MAX ? j->unit : next;
		u->kind = c->end == DCSIM_CHILD_HUNG ? CHECK_UNIT_HANG : CHECK_UNIT_CRASH;
		if (js->bit == S_EXPLORE) {
			snprintf(u->scenario, sizeof(u->scenario), "%s", c->where.scenario);
			snprintf(u->mode, sizeof(u->mode), "%s", c->where.mode);
		}
		crash_line(js, j, line, sizeof(line));
		u->failure = strdup(line);
		jobs_replay(js, j, line, sizeof(line));
		u->replay = strdup(line);
	}
	if (!r->nunits && (js->bit == S_STRESS || js->bit == S_MISUSE) && (u = units_add(r, &cap))) {
		u->executions = t->runs;
		u->seed = js->o->seed;
		if (t->first) {
			u->kind = CHECK_UNIT_CHECK;
			u->failure = strdup(t->first->res.failure);
			u->replay = strdup(r->replay);
		}
	}
	if (r->nunits)	/* qsort()'s base must not be NULL, even for no elements */
		qsort(r->units, r->nunits, sizeof(r->units[0]), unit_cmp);
	for (unsigned long k = 0; k < r->nunits; k++)
		if (r->units[k].kind != CHECK_UNIT_OK && r->units[k].index < stop)
			stop = r->units[k].index;
	while (r->nunits && r->units[r->nunits - 1].index > stop)
		r->nunits--;
}

static const char *const unit_kinds[] = {
	[CHECK_UNIT_OK] = NULL, [CHECK_UNIT_CHECK] = "check", [CHECK_UNIT_CRASH] = "crash",
	[CHECK_UNIT_HANG] = "hang",
};

/* A JSON string, or null. */
static void json_str_or_null(FILE *f, const char *s)
{
	if (s && *s)
		check_json_str(f, s);
	else
		fputs("null", f);
}

void check_json_unit(FILE *f, const char *suite, const char *strategy, const struct check_unit *u)
{
	fputs("{\"suite\": ", f);
	check_json_str(f, suite);
	fputs(", \"strategy\": ", f);
	check_json_str(f, strategy);
	fprintf(f, ", \"index\": %lu, \"scenario\": ", u->index);
	json_str_or_null(f, u->scenario);
	fputs(", \"mode\": ", f);
	json_str_or_null(f, u->mode);
	/* A process that died mid-unit left neither its seed nor its count. */
	if (u->kind == CHECK_UNIT_CRASH || u->kind == CHECK_UNIT_HANG)
		fputs(", \"seed\": null, \"executions\": null", f);
	else
		fprintf(f, ", \"seed\": %" PRIu64 ", \"executions\": %lu", u->seed, u->executions);
	fprintf(f, ", \"verdict\": \"%s\", \"kind\": ", u->kind == CHECK_UNIT_OK ? "ok" : "FAILED");
	json_str_or_null(f, unit_kinds[u->kind]);
	fputs(", \"failure\": ", f);
	json_str_or_null(f, u->kind == CHECK_UNIT_OK ? NULL : u->failure);
	fputs(", \"replay\": ", f);
	json_str_or_null(f, u->kind == CHECK_UNIT_OK ? NULL : u->replay);
	fputc('}', f);
}

/* Keep the suite's outcome for --json. */
static void jobs_record(const struct jobs *js, const struct jobs_tally *t, const char *verdict)
{
	struct check_suite_result *r;

	if (nresults == MAX_RESULTS)
		return;
	r = &results[nresults++];
	memset(r, 0, sizeof(*r));
	r->name = js->suite;
	r->verdict = verdict;
	r->runs = t->runs;
	r->commits = t->commits;
	r->processes = js->n;
	if (t->first || t->crash) {
		const struct job *j = t->first ? t->first : t->crash;

		if (t->first)
			snprintf(r->failure, sizeof(r->failure), "%s", j->res.failure);
		else
			crash_line(js, j, r->failure, sizeof(r->failure));
		jobs_replay(js, j, r->replay, sizeof(r->replay));
	} else if (!strcmp(verdict, "FAILED")) {
		snprintf(r->failure, sizeof(r->failure), "%s: HTM: no simulated transaction "
			 "committed", js->suite);
		jobs_replay(js, &js->j[0], r->replay, sizeof(r->replay));
	}
	jobs_units(js, t, r);
	/*
	 * The lowest failing unit is the suite's first failure: its own replay
	 * (a diff trace's seed, not the suite's) is the more exact, and the one
	 * --merge finds for the suite.
	 */
	if (r->nunits && r->units[r->nunits - 1].kind != CHECK_UNIT_OK) {
		const struct check_unit *u = &r->units[r->nunits - 1];

		if (u->failure)
			snprintf(r->failure, sizeof(r->failure), "%s", u->failure);
		if (u->replay)
			snprintf(r->replay, sizeof(r->replay), "%s", u->replay);
	}
}

/*
 * The reports: the lowest failure's, a crash's, an error's; one process's
 * whole output (its progress lines too, as a run in this process gives).
 */
static void jobs_print(const struct jobs *js, const struct jobs_tally *t)
{
	for (unsigned int i = 0; i < js->n; i++) {
		const struct job *j = &js->j[i];

		if (js->n == 1 || j == t->first || j == t->crash || (j->got && j->status == 2))
			copy_out(dcsim_child_report(&js->kid[i]), stderr);
	}
	if (t->crash)
		jobs_print_crash(js, t->crash);
}

static void jobs_free(struct jobs *js)
{
	if (js->pool)
		munmap(js->pool, js->pool_len);
	for (unsigned int i = 0; js->kid && i < js->n; i++)
		dcsim_child_free(&js->kid[i]);
	for (unsigned int i = 0; js->units && i < js->n; i++)
		if (js->units[i])
			fclose(js->units[i]);
	free(js->units);
	free(js->kid);
	free(js->j);
	free(job_args);
	job_args = NULL;
}

int check_run_jobs(unsigned int bit, const char *suite, const struct dcsim_dput_strategy *s,
		   const struct dcsim_checker_opts *o, unsigned int jobs, unsigned int shard,
		   unsigned int nshards, bool no_pin)
{
	struct jobs js = {
		.bit = bit, .suite = suite, .s = s, .o = o, .shard = shard, .nshards = nshards,
		.no_pin = no_pin, .split = (bit == S_DIFF || bit == S_EXPLORE) && !o->scenario,
	};
	struct jobs_tally t;
	const char *verdict;
	bool failed;

	js.n = js.split ? jobs : 1;
	if (jobs_start(&js) || jobs_wait(&js)) {
		fprintf(stderr, "dcsim-check: %s: child processes: %s\n", suite, strerror(errno));
		jobs_wait(&js);
		jobs_free(&js);
		return 2;
	}
	check_cov_ran(suite);
	jobs_tally(&js, &t);
	jobs_print(&js, &t);
	failed = t.first || t.crash;
	if (!failed && !t.error && nshards <= 1 && js.split && !o->scenario &&
	    (s->flags & DCSIM_STRATEGY_USES_HTM) && !t.commits) {
		/* The suites' own check, over all processes together. */
		fprintf(stderr, "dcsim-check: FAIL: %s, strategy %s, HTM sim-commit\ncheck: the "
			"strategy says DCSIM_STRATEGY_USES_HTM, but none of its transactions "
			"committed with simulated HTM committing: its HTM path was not checked\n"
			"replay: %s --suites %s --seed %" PRIu64 "\n", suite, s->name,
			o->replay_prefix, suite, o->seed);
		failed = true;
	}
	verdict = failed ? "FAILED" : t.error ? "ERROR" : "ok";
	jobs_record(&js, &t, verdict);
	if (nshards > 1 && js.split)
		printf("dcsim-check: shard %u/%u: %s: %s: %lu runs, %s, %lu simulated commits\n",
		       shard, nshards, suite, s->name, t.runs, verdict, t.commits);
	fprintf(stderr, "dcsim-check: %s: %s: %lu runs on %u process%s, %s", suite, s->name,
		t.runs, js.n, js.n > 1 ? "es" : "", verdict);
	/* Each unit's graph is its own (docs/lock-order.md): the sum is the same for any --jobs. */
	if (t.lock_acq || t.lock_try)
		fprintf(stderr, "; lock order: %lu validated acquisitions, %lu trylocks, %lu edges "
			"summed over %s", t.lock_acq, t.lock_try, t.lock_edges,
			bit == S_EXPLORE ? "explorations" : bit == S_DIFF ? "traces" : "runs");
	fputc('\n', stderr);
	jobs_free(&js);
	return t.error && !failed ? 2 : failed ? 1 : 0;
}
