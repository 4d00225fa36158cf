// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The corpus runner (dcsim_checker_corpus()): the upstream bugs of
 * corpus/ put through the suites, one row per bug.
 *
 * An entry is a .bug file (corpus/README.md).  The runner reads from
 * it what to run and what to expect, and nothing else: no entry has code
 * of its own here.
 *
 *   strategies:  the strategies that carry the bug (default for kind (a):
 *                the variant <tree>-<name>, k61-htm-<name> after the HTM
 *                series, which a plugin registers, kernel-code/corpus-plugin.c)
 *   fixed:       the strategies with the fix, which must pass: kind (c)'s
 *                fixed code, or for a planted fault the same model without
 *                it (the fault is planted only on the strategies)
 *   suites:      diff, misuse, stress, explore or explore:SCN,SCN,...
 *   plant:       a model fault to plant (dcsim_dcache_fault_lookup())
 *   budget:      quick, default or soak: the entry's own, when its bug
 *                needs more executions than the run's budget gives
 *   sched:       fair, strict, rt or window: the explorer's scheduling (strict
 *                priorities for busy-wait livelocks, <dcsim/explore.h>)
 *   expect:      caught, pass, expected-fail or missed
 *
 * Each (strategy, suite) runs in a child process of the checkers' runner
 * (<dcsim/child.h>), so that a bug which crashes the process is a failure
 * seen, not the end of the run; a time limit turns a hang outside the
 * explorer (whose watchdog sees its own) into one too, and the row says
 * which it was (crash or hang) from how the child ended, with the replay
 * of the execution it was in.  The child's report goes to a temporary
 * file: a failure's first "replay:" line is the row's, the rest is copied
 * to opts->report.
 */

#include <limits.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <inttypes.h>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dcsim/checker.h>
#include <dcsim/child.h>
#include <dcsim/dcache-cover.h>
#include <dcsim/explore-dcache.h>
#include <dcsim/parse.h>
#include <dcsim/strategy.h>

/* corpus.py refuses longer values of the fields read here (FIELD_MAX). */
#define FIELD_LEN	1024
#define MAX_RUNS	24
/* One run of a suite on a strategy, at most; a hang beyond it is a failure. */
#define RUN_TIMEOUT_S	300
/* Lines of a failing run's report copied to opts->report. */
#define REPORT_LINES	40

struct bug {
	char name[128];
	unsigned int suites_line, plant_line;	/* where the .bug has them */
	char commit[FIELD_LEN], class[FIELD_LEN], kind[FIELD_LEN], tree[FIELD_LEN];
	char after[FIELD_LEN], expect[FIELD_LEN], needs[FIELD_LEN];
	char strategies[FIELD_LEN], fixed[FIELD_LEN], suites[FIELD_LEN], plant[FIELD_LEN];
	char budget[FIELD_LEN], sched[FIELD_LEN];
};

struct run {
	const char *strategy;
	char suite[FIELD_LEN];
	bool fixed;			/* the strategy with the fix: must pass */
	int outcome;			/* 0 passed, 1 failed, 2 error */
	char why[256];			/* what failed, one line */
	char replay[1024];
	unsigned long first;		/* struct dcsim_checker_result.first_failure */
	double seconds;
	enum dcsim_child_end end;	/* how its child process ended */
};

/* The field @key of @b, or NULL for one the runner does not read. */
static char *field(struct bug *b, const char *key)
{
	static const struct {
		const char *key;
		size_t off;
	} map[] = {
		{ "commit", offsetof(struct bug, commit) },
		{ "class", offsetof(struct bug, class) },
		{ "kind", offsetof(struct bug, kind) },
		{ "tree", offsetof(struct bug, tree) },
		{ "after", offsetof(struct bug, after) },
		{ "expect", offsetof(struct bug, expect) },
		{ "needs", offsetof(struct bug, needs) },
		{ "strategies", offsetof(struct bug, strategies) },
		{ "fixed", offsetof(struct bug, fixed) },
		{ "suites", offsetof(struct bug, suites) },
		{ "plant", offsetof(struct bug, plant) },
		{ "budget", offsetof(struct bug, budget) },
		{ "sched", offsetof(struct bug, sched) },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].key, key))
			return (char *)b + map[i].off;
	return NULL;
}

/*
 * corpus/corpus.py, the one parser of the .bug format: $DCSIM_CORPUS_PY,
 * else the corpus folder's own copy, else the source tree's.
 */
static void corpus_py(const char *dir, char *out, size_t len)
{
	const char *env = getenv("DCSIM_CORPUS_PY");

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return;
	}
	snprintf(out, len, "%s/corpus.py", dir);
	if (!access(out, R_OK))
		return;
	snprintf(out, len, "%s", DCSIM_CORPUS_PY_DEFAULT);
}

/*
 * The entries of @dir, as corpus.py --dump gives them (its head comment
 * has the format), into a new array in @out.  corpus.py judges every
 * field and value and says what is wrong on stderr; this only reads its
 * output, and refuses anything it did not expect.  Return: the count,
 * -ENOENT (no entry), -EINVAL (corpus.py refused the corpus, or its
 * output is not the format), or -errno.
 */
static int read_dump(const char *dir, struct bug **out, FILE *prog)
{
	char py[PATH_MAX], *line = NULL;
	struct bug *b = NULL, *cur = NULL;
	size_t cap = 0, n = 0;
	ssize_t len;
	int p[2], status, rc = 0;
	bool header = false;
	unsigned int lineno = 0;
	pid_t pid;
	FILE *f;

	corpus_py(dir, py, sizeof(py));
	if (pipe(p))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		close(p[0]);
		close(p[1]);
		return rc;
	}
	if (pid == 0) {
		close(p[0]);
		dup2(p[1], 1);
		execlp("python3", "python3", py, "--dump", dir, (char *)NULL);
		fprintf(stderr, "dcsim-check: --corpus: cannot run python3 %s: %s\n", py,
			strerror(errno));
		_exit(127);
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	if (!f) {
		close(p[0]);
		waitpid(pid, &status, 0);
		return -ENOMEM;
	}
	while (!rc && (len = getline(&line, &cap, f)) >= 0) {
		char *sp, *dst, *val;
		uint64_t at;

		lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if ((size_t)len != strlen(line)) {
			rc = -EINVAL;
			break;
		}
		if (!header) {
			header = !strcmp(line, "dcsim-corpus-dump 2");
			rc = header ? 0 : -EINVAL;
			continue;
		}
		if (!strncmp(line, "entry ", 6) && !cur) {
			struct bug *nb = realloc(b, (n + 1) * sizeof(*b));

			if (!nb || strlen(line + 6) >= sizeof(b->name)) {
				rc = nb ? -EINVAL : -ENOMEM;
				if (nb)
					b = nb;
				break;
			}
			b = nb;
			cur = &b[n++];
			memset(cur, 0, sizeof(*cur));
			snprintf(cur->name, sizeof(cur->name), "%s", line + 6);
			continue;
		}
		if (!strcmp(line, "end") && cur) {
			cur = NULL;
			continue;
		}
		sp = strchr(line, ' ');
		if (!cur || !sp) {
			rc = -EINVAL;
			break;
		}
		*sp = '\0';
		val = strchr(sp + 1, ' ');
		if (!val) {
			rc = -EINVAL;
			break;
		}
		*val = '\0';
		if (dcsim_parse_u64(sp + 1, 1, UINT_MAX, &at)) {
			rc = -EINVAL;
			break;
		}
		sp = val;
		if (!strcmp(line, "suites"))
			cur->suites_line = (unsigned int)at;
		if (!strcmp(line, "plant"))
			cur->plant_line = (unsigned int)at;
		dst = field(cur, line);
		/* corpus.py refuses these; a dump that has them is not its. */
		if (!dst || *dst || strlen(sp + 1) >= FIELD_LEN) {
			rc = -EINVAL;
			break;
		}
		memcpy(dst, sp + 1, strlen(sp + 1) + 1);
	}
	free(line);
	fclose(f);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!rc && (cur || !header))
		rc = -EINVAL;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(prog, "dcsim-check: --corpus %s: %s %s refused the corpus (above)\n", dir,
			"python3", py);
		rc = -EINVAL;
	} else if (rc) {
		fprintf(prog, "dcsim-check: --corpus %s: %s --dump: line %u is not the dump "
			"format\n", dir, py, lineno);
	}
	if (!rc && !n)
		rc = -ENOENT;
	if (rc) {
		free(b);
		return rc;
	}
	*out = b;
	return (int)n;
}

/* Run @suite on @s in this process.  Return: as the suite. */
static int suite_run(const char *suite, const struct dcsim_dput_strategy *s,
		     struct dcsim_checker_opts *o, struct dcsim_checker_result *res)
{
	if (!strcmp(suite, "diff"))
		return dcsim_checker_diff(s, o, res);
	if (!strcmp(suite, "misuse"))
		return dcsim_checker_misuse(s, o, res);
	if (!strcmp(suite, "stress"))
		return dcsim_checker_stress(s, 0, 0, 0, o, res);
	if (!strcmp(suite, "explore"))
		return dcsim_checker_explore(s, o, res);
	if (!strncmp(suite, "explore:", 8)) {
		o->scenarios = suite + 8;
		return dcsim_checker_explore(s, o, res);
	}
	return -EINVAL;
}

/*
 * The @first (else the last) "replay: " line of the child's report @f
 * into @out, without the prefix: the child's own words for its people,
 * kept as the row's replay text; how the run ended is never read here.
 */
static void find_replay(FILE *f, char *out, size_t len, bool first)
{
	char line[2048];

	out[0] = '\0';
	if (!f)
		return;
	rewind(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "replay: ", 8) && (!first || !out[0])) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(out, len, "%.1000s", line + 8);
		}
}

/*
 * One run of a suite on a strategy, at most (seconds); a hang beyond it
 * is a failure.  DCSIM_CORPUS_TIMEOUT changes it (a test's planted hang).
 */
static unsigned int run_timeout(void)
{
	const char *e = getenv("DCSIM_CORPUS_TIMEOUT");
	uint64_t v;

	if (e && *e && !dcsim_parse_u64(e, 1, 86400, &v))
		return (unsigned int)v;
	return RUN_TIMEOUT_S;
}

static void copy_report(FILE *from, FILE *to, const struct bug *b, const struct run *r)
{
	char line[2048];
	unsigned int n = 0;

	fprintf(to, "---- corpus %s: %s on %s%s%s ----\n", b->name, r->suite, r->strategy,
		b->plant[0] ? ", fault " : "", b->plant);
	rewind(from);
	while (fgets(line, sizeof(line), from)) {
		if (n++ < REPORT_LINES)
			fputs(line, to);
		else if (!strncmp(line, "replay: ", 8))
			fputs(line, to);
	}
	if (n > REPORT_LINES)
		fprintf(to, "(%u more lines of the report cut)\n", n - REPORT_LINES);
}

/* What a corpus child runs (a dcsim_child_fn's argument). */
struct run_arg {
	const struct bug *b;
	const struct run *r;
	const struct dcsim_dput_strategy *s;
	int fault;
	const struct dcsim_checker_opts *o0;
	const char *prefix;
};

/* The suite's own replay options (the fallback of dcsim_child_replay()). */
static void suite_options(const struct run *r, char *buf, size_t len)
{
	bool scn = !strncmp(r->suite, "explore:", 8);

	snprintf(buf, len, "--suites %.200s%s%.200s", scn ? "explore" : r->suite,
		 scn ? " --scenarios " : "", scn ? r->suite + 8 : "");
}

static int run_body(void *arg, struct dcsim_checker_where *where, void *out)
{
	const struct run_arg *a = arg;
	struct dcsim_checker_opts o = *a->o0;
	char opts[500];
	int rc;

	if (a->b->budget[0])
		dcsim_checker_budget_parse(a->b->budget, &o.budget);
	if (a->b->sched[0])
		o.explore_sched = a->b->sched;
	o.report = stderr;
	o.progress = stderr;
	o.quiet = false;
	o.replay_prefix = a->prefix;
	o.where = where;
	if (a->fault > 0)
		dcsim_dcache_set_fault(a->fault);
	rc = suite_run(a->r->suite, a->s, &o, out);
	if (rc >= 0) {
		suite_options(a->r, opts, sizeof(opts));
		fprintf(stderr, "replay: %s %s\n", a->prefix, opts);
	}
	return rc;
}

/* The first "check:" line of @f, the check that failed before a crash or a hang. */
static void first_check(FILE *f, char *out, size_t len)
{
	char line[2048];

	out[0] = '\0';
	rewind(f);
	while (!out[0] && fgets(line, sizeof(line), f))
		if (!strncmp(line, "check: ", 7))
			snprintf(out, len, "; before it: %.*s", (int)strcspn(line + 7, "\n"),
				 line + 7);
}

static void run_one(const struct bug *b, struct run *r, const struct dcsim_dput_strategy *s,
		    int fault, const struct dcsim_checker_opts *o0)
{
	struct dcsim_checker_result res;
	char prefix[700], opts[500], check[160];
	struct run_arg a = { .b = b, .r = r, .s = s, .fault = fault, .o0 = o0, .prefix = prefix };
	struct dcsim_child c = {
		.fn = run_body, .arg = &a, .res = &res, .res_size = sizeof(res),
		.timeout_s = run_timeout(),
	};
	FILE *rep;
	int rc;

	r->outcome = 2;
	snprintf(prefix, sizeof(prefix), "%.400s --strategy %.100s%s%.60s%s%.10s%s%.10s",
		 o0->replay_prefix ? o0->replay_prefix : "dcsim-check", s->name,
		 fault > 0 ? " --fault " : "", fault > 0 ? b->plant : "",
		 b->budget[0] ? " --budget " : "", b->budget,
		 b->sched[0] ? " --sched " : "", b->sched);
	fflush(o0->report ? o0->report : stdout);
	rc = dcsim_child_run(&c);
	if (rc) {
		snprintf(r->why, sizeof(r->why), "child process: %s", strerror(-rc));
		dcsim_child_free(&c);
		return;
	}
	r->seconds = c.seconds;
	r->end = c.end;
	rep = dcsim_child_report(&c);
	switch (c.end) {
	case DCSIM_CHILD_DONE:
		if (c.status <= 1) {
			r->outcome = c.status;
			r->first = res.first_failure;
			snprintf(r->why, sizeof(r->why), "%.250s", res.failure);
			break;
		}
		/* The suite could not run. */
		__attribute__((fallthrough));
	case DCSIM_CHILD_LOST: {
		char line[2048], last[200] = "";

		/* Its own last word says why (a bad option, a scenario it does not have). */
		while (rep && fgets(line, sizeof(line), rep))
			if (line[0] != '\n')
				snprintf(last, sizeof(last), "%.*s", (int)strcspn(line, "\n"), line);
		snprintf(r->why, sizeof(r->why), "the suite could not run (%s, exit %d): %s",
			 dcsim_child_end_name(&c), c.status, last[0] ? last : "no message");
		break;
	}
	case DCSIM_CHILD_HUNG:
		first_check(rep, check, sizeof(check));
		r->outcome = 1;
		snprintf(r->why, sizeof(r->why), "hung: %s (signal %d)%s", c.where.exec.hung ?
			 "the explorer's watchdog aborted it" : "no result within the time limit",
			 c.signal, check);
		break;
	default:
		first_check(rep, check, sizeof(check));
		r->outcome = 1;
		snprintf(r->why, sizeof(r->why), "crashed: the process died of signal %d (%s)%s",
			 c.signal, strsignal(c.signal), check);
		break;
	}
	suite_options(r, opts, sizeof(opts));
	if (r->outcome == 1 && c.end == DCSIM_CHILD_DONE) {
		/*
		 * A failure the suite reported: its own replay line (the exact
		 * one, written before the generic one this child adds).
		 */
		find_replay(rep, r->replay, sizeof(r->replay), true);
		if (!r->replay[0])
			snprintf(r->replay, sizeof(r->replay), "%.500s %.500s", prefix, opts);
	} else if (r->outcome == 1) {
		/* A crash or a hang ends the report before its replay: the execution it was in. */
		dcsim_child_replay(&c, prefix, opts, r->replay, sizeof(r->replay));
	} else {
		find_replay(rep, r->replay, sizeof(r->replay), false);
	}
	if (r->outcome == 1 && !o0->quiet && rep)
		copy_report(rep, o0->report ? o0->report : stdout, b, r);
	dcsim_child_free(&c);
}

/* Split @list (space-separated) into @out; return the count. */
/* Words per list field (strategies, fixed, suites); corpus.py refuses more. */
#define MAX_WORDS	16

static size_t words(char *list, char **out, size_t max)
{
	size_t n = 0;

	for (char *save = NULL, *t = strtok_r(list, " \t", &save); t && n < max;
	     t = strtok_r(NULL, " \t", &save))
		out[n++] = t;
	return n;
}

static const char *variant_prefix(const struct bug *b)
{
	if (!strcmp(b->tree, "6.12"))
		return b->after[0] ? "k612-htm" : "k612";
	return b->after[0] ? "k61-htm" : "k61";
}

enum verdict { V_CAUGHT, V_MISSED, V_EXPECTED_FAIL, V_PASSED, V_FLAGGED, V_FIXED_FAILS,
	       V_NOT_SHOWN, V_NOT_RUN, V_ERROR };
static const char *const verdict_names[] = {
	"caught", "missed", "expected-fail", "passed", "flagged", "fixed-fails",
	"not-shown", "not-run", "error",
};

struct tally {
	unsigned long n[V_ERROR + 1];
	unsigned long entries, disagree;
};

static void one_bug(struct bug *b, const struct dcsim_checker_opts *o, FILE *table,
		    struct tally *t)
{
	char strategies[FIELD_LEN], fixed[FIELD_LEN], suites[FIELD_LEN], variant[300];
	char *strat[MAX_WORDS], *fix[MAX_WORDS], *suite[MAX_WORDS], reason[FIELD_LEN + 256] = "";
	struct run runs[MAX_RUNS];
	size_t ns, nf, nsu, nr = 0;
	const struct run *caught = NULL, *bad = NULL;
	enum verdict v;
	double secs = 0;
	int fault = 0;
	bool agree;

	snprintf(strategies, sizeof(strategies), "%s", b->strategies);
	snprintf(fixed, sizeof(fixed), "%s", b->fixed);
	snprintf(suites, sizeof(suites), "%s", b->suites);
	ns = words(strategies, strat, MAX_WORDS);
	nf = words(fixed, fix, MAX_WORDS);
	nsu = words(suites, suite, MAX_WORDS);
	if (!ns && !strcmp(b->kind, "a")) {
		snprintf(variant, sizeof(variant), "%s-%s", variant_prefix(b), b->name);
		strat[ns++] = variant;
	}
	if (b->plant[0]) {
		fault = dcsim_dcache_fault_lookup(b->plant);
		if (fault <= 0)
			snprintf(reason, sizeof(reason), "no model fault '%s' (dcsim_dcache_fault_lookup())",
				 b->plant);
	}
	if (!reason[0] && (!ns || !nsu))
		snprintf(reason, sizeof(reason), "nothing to run: needs %s", b->needs);
	for (size_t i = 0; !reason[0] && i < ns + nf; i++) {
		const char *name = i < ns ? strat[i] : fix[i - ns];

		if (!dcsim_strategy_lookup(name))
			snprintf(reason, sizeof(reason), "strategy %s is not registered (not built, or "
				 "dcsim-check without --load of the kernel-code corpus plugin)", name);
	}
	for (size_t i = 0; !reason[0] && i < ns + nf; i++) {
		const struct dcsim_dput_strategy *s = dcsim_strategy_lookup(i < ns ? strat[i] :
									       fix[i - ns]);

		for (size_t k = 0; k < nsu && nr < MAX_RUNS; k++) {
			struct run *r = &runs[nr++];

			memset(r, 0, sizeof(*r));
			r->strategy = s->name;
			r->fixed = i >= ns;
			snprintf(r->suite, sizeof(r->suite), "%s", suite[k]);
			/* The fixed side of a planted fault is the model without it. */
			run_one(b, r, s, r->fixed ? 0 : fault, o);
			secs += r->seconds;
			if (r->outcome == 2 && !bad)
				bad = r;
			else if (r->outcome == 1 && !r->fixed && !caught)
				caught = r;
			else if (r->outcome == 1 && r->fixed && !bad)
				bad = r;
		}
	}
	/* What happened. */
	if (reason[0]) {
		v = V_NOT_RUN;
	} else if (bad && bad->outcome == 2) {
		v = V_ERROR;
	} else if (!strcmp(b->expect, "pass")) {
		v = caught ? V_FLAGGED : V_PASSED;
	} else if (nf && !strcmp(b->expect, "caught")) {
		/* Caught on the strategies, and the fix (fixed:) passes the same suites. */
		v = bad ? V_FIXED_FAILS : caught ? V_CAUGHT : V_MISSED;
	} else if (nf) {
		bool all = true;

		/* Latent: every unfixed strategy fails one of the suites, every fixed one passes. */
		for (size_t i = 0; i < ns; i++) {
			bool failed = false;

			for (size_t k = 0; k < nr; k++)
				if (!runs[k].fixed && !strcmp(runs[k].strategy, strat[i]) &&
				    runs[k].outcome == 1)
					failed = true;
			all &= failed;
		}
		v = bad ? V_FIXED_FAILS : all ? V_EXPECTED_FAIL : caught ? V_NOT_SHOWN : V_MISSED;
	} else {
		v = caught ? V_CAUGHT : V_MISSED;
	}
	if (!strcmp(b->expect, "caught"))
		agree = v == V_CAUGHT;
	else if (!strcmp(b->expect, "pass"))
		agree = v == V_PASSED;
	else if (!strcmp(b->expect, "expected-fail"))
		agree = v == V_EXPECTED_FAIL;
	else if (!strcmp(b->expect, "missed"))
		agree = v == V_MISSED || v == V_NOT_RUN;
	else
		agree = false;
	t->entries++;
	t->n[v]++;
	if (!agree)
		t->disagree++;
	{
		const struct run *shown = caught ? caught : bad;
		char first[64] = "";

		if (shown && shown->outcome == 1 && shown->first)
			snprintf(first, sizeof(first), "%lu %s", shown->first,
				 !strcmp(shown->suite, "diff") ? "traces" :
				 !strcmp(shown->suite, "misuse") ? "runs" : "executions");
		else if (shown && shown->outcome == 1)
			snprintf(first, sizeof(first), "%s", shown->end == DCSIM_CHILD_CRASHED ?
				 "a crash" : shown->end == DCSIM_CHILD_HUNG ? "a hang" : "-");
		fprintf(table, "| %s | %s | %s | %s%s | %s | %s%s%s | %s | %.1f | %s |\n",
			b->name, b->commit, b->class, verdict_names[v],
			agree ? "" : " (DISAGREES)", b->expect,
			shown ? shown->suite : "-", shown ? " on " : "",
			shown ? shown->strategy : "", first[0] ? first : "-", secs,
			reason[0] ? reason : shown && shown->replay[0] ? shown->replay :
			shown ? shown->why : "-");
		if (shown && shown->why[0] && !o->quiet)
			fprintf(o->report ? o->report : stdout, "corpus %s: %s on %s: %s\n", b->name,
				shown->suite, shown->strategy, shown->why);
		fflush(table);
	}
}

/*
 * The names of @b that exist nowhere in this build (corpus.py cannot know
 * them): a model fault, an explore scenario.  Said as FILE:LINE: field.
 * Return: 0, or -EINVAL: a typo must stop the run, not become a row that
 * agrees with "missed".
 */
static int entry_names(const char *dir, const struct bug *b, FILE *prog)
{
	const char *l = b->suites;
	int bad = 0;

	if (b->plant[0] && dcsim_dcache_fault_lookup(b->plant) <= 0) {
		fprintf(prog, "dcsim-check: %s/%s.bug:%u: plant: no model fault '%s' (dcsim-check "
			"--fault takes the same names)\n", dir, b->name, b->plant_line, b->plant);
		bad = -EINVAL;
	}
	while ((l = strstr(l, "explore:"))) {
		l += 8;
		for (;;) {
			size_t len = strcspn(l, ", \t");
			int scn = 0;

			while (scn < DCSIM_DSCN_NR &&
			       (strlen(dcsim_dcache_scenario_name(scn)) != len ||
				strncmp(l, dcsim_dcache_scenario_name(scn), len)))
				scn++;
			if (scn == DCSIM_DSCN_NR) {
				fprintf(prog, "dcsim-check: %s/%s.bug:%u: suites: no explore scenario "
					"'%.*s'\n", dir, b->name, b->suites_line, (int)len, l);
				bad = -EINVAL;
			}
			if (l[len] != ',')
				break;
			l += len + 1;
		}
	}
	return bad;
}

int dcsim_checker_corpus(const char *dir, const struct dcsim_checker_opts *o, FILE *table)
{
	struct bug *bugs = NULL;
	struct tally t = { 0 };
	int n;

	if (!dir || !o || !table)
		return -EINVAL;
	n = read_dump(dir, &bugs, o->progress ? o->progress : stderr);
	if (n < 0)
		return n;
	for (int i = 0, bad = 0; i <= n; i++) {
		if (i < n) {
			bad |= entry_names(dir, &bugs[i], o->progress ? o->progress : stderr);
			continue;
		}
		if (bad) {
			free(bugs);
			return -EINVAL;
		}
	}
	fprintf(table, "| entry | commit | class | result | expect | suite | to the first failure "
		"| seconds | replay |\n|---|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < n; i++)
		one_bug(&bugs[i], o, table, &t);
	free(bugs);
	fprintf(table, "\ncorpus: %lu entries: %lu caught, %lu expected-fail, %lu passed "
		"(controls), %lu missed, %lu not run; %lu flagged, %lu fixed-fails, %lu not-shown, "
		"%lu errors; %lu disagree with their expect: field\n", t.entries, t.n[V_CAUGHT],
		t.n[V_EXPECTED_FAIL], t.n[V_PASSED], t.n[V_MISSED], t.n[V_NOT_RUN], t.n[V_FLAGGED],
		t.n[V_FIXED_FAILS], t.n[V_NOT_SHOWN], t.n[V_ERROR], t.disagree);
	return t.disagree ? 1 : 0;
}
