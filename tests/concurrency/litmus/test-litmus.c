// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The explorer's own litmus runner (Debian 12 ships no herd7).
 *
 * Each test here mirrors one LKMM-style .litmus file of this directory,
 * written so that herd7 (tools/memory-model of the kernel) can also run
 * it: the threads below use dcsim's accessors for the kernel primitives of
 * the file, and the runner checks that the file's "exists" clause is the
 * one mirrored, so the two cannot drift apart unnoticed.  Every test is
 * explored in the relaxed-rmw memory mode with random walk and PCT; an
 * outcome expected "Sometimes" must be observed, one expected "Never"
 * must not.  SB+onces records a limit: LKMM allows its outcome, the
 * explorer cannot produce it (plain stores are never buffered).
 *
 * Usage: test-litmus <directory of the .litmus files>
 */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/atomic.h>
#include <dcsim/explore.h>

struct lstate {
	int x, y, c;
	int r[2][2];		/* r[thread][register] */
};

typedef void (*lthread_fn)(struct lstate *s);
typedef bool (*exists_fn)(const struct lstate *s);

struct litmus {
	const char *file;
	const char *exists;		/* the file's clause, verbatim */
	lthread_fn p[2];
	exists_fn cond;
	bool sometimes;			/* the explorer's expected result */
	const char *lkmm;		/* LKMM's result, for the table */
};

static void mp_p0(struct lstate *s)
{
	DCSIM_WRITE_ONCE(s->x, 1);
	dcsim_store_release(&s->c, 1);
}

static int cmpxchg_relaxed(int *p, int old, int new)
{
	(void)dcsim_try_cmpxchg_relaxed(p, &old, new);
	return old;
}

static void mp_rmb_p1(struct lstate *s)
{
	s->r[1][0] = cmpxchg_relaxed(&s->c, 1, 0);
	dcsim_smp_rmb();
	s->r[1][1] = DCSIM_READ_ONCE(s->x);
}

static void mp_none_p1(struct lstate *s)
{
	s->r[1][0] = cmpxchg_relaxed(&s->c, 1, 0);
	s->r[1][1] = DCSIM_READ_ONCE(s->x);
}

static void mp_mb_p1(struct lstate *s)
{
	s->r[1][0] = cmpxchg_relaxed(&s->c, 1, 0);
	dcsim_smp_mb();
	s->r[1][1] = DCSIM_READ_ONCE(s->x);
}

static void mp_full_p1(struct lstate *s)
{
	s->r[1][0] = dcsim_cmpxchg(&s->c, 1, 0);
	s->r[1][1] = DCSIM_READ_ONCE(s->x);
}

static bool mp_exists(const struct lstate *s)
{
	return s->r[1][0] == 1 && s->r[1][1] == 0;
}

static void sb_p0(struct lstate *s)
{
	DCSIM_WRITE_ONCE(s->x, 1);
	s->r[0][0] = DCSIM_READ_ONCE(s->y);
}

static void sb_p1(struct lstate *s)
{
	DCSIM_WRITE_ONCE(s->y, 1);
	s->r[1][0] = DCSIM_READ_ONCE(s->x);
}

static bool sb_exists(const struct lstate *s)
{
	return s->r[0][0] == 0 && s->r[1][0] == 0;
}

static const struct litmus tests[] = {
	{ "MP+poreleaseonce+rmwrelaxed-rmb", "exists (1:r0=1 /\\ 1:r1=0)",
	  { mp_p0, mp_rmb_p1 }, mp_exists, false, "Never" },
	{ "MP+poreleaseonce+rmwrelaxed-none", "exists (1:r0=1 /\\ 1:r1=0)",
	  { mp_p0, mp_none_p1 }, mp_exists, true, "Sometimes" },
	{ "MP+poreleaseonce+rmwrelaxed-mb", "exists (1:r0=1 /\\ 1:r1=0)",
	  { mp_p0, mp_mb_p1 }, mp_exists, false, "Never" },
	{ "MP+poreleaseonce+rmwfull", "exists (1:r0=1 /\\ 1:r1=0)",
	  { mp_p0, mp_full_p1 }, mp_exists, false, "Never" },
	{ "SB+onces", "exists (0:r0=0 /\\ 1:r1=0)",
	  { sb_p0, sb_p1 }, sb_exists, false, "Sometimes" },
};

static const struct litmus *cur;
static unsigned long seen;

static void *l_setup(void *arg)
{
	(void)arg;
	return calloc(1, sizeof(struct lstate));
}

static void l_thread(void *state, unsigned int tid)
{
	cur->p[tid](state);
}

static void l_check(void *state)
{
	if (cur->cond(state))
		seen++;
}

static void l_teardown(void *state)
{
	free(state);
}

/* The "exists" line of @dir/@name.litmus, or "" if the file is missing. */
static void file_exists_clause(const char *dir, const char *name, char *out, size_t len)
{
	char path[1024], line[512];
	FILE *f;

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s.litmus", dir, name);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "exists", 6)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(out, len, "%s", line);
			break;
		}
	}
	fclose(f);
}

static unsigned long explore(const struct litmus *t, enum dcsim_explore_mode mode,
			     enum dcsim_explore_memory mem, unsigned long iters)
{
	struct dcsim_scenario sc = {
		.name = t->file, .nthreads = 2, .setup = l_setup, .thread = l_thread,
		.check = l_check, .teardown = l_teardown,
	};
	struct dcsim_explore_opts o;

	dcsim_explore_opts_init(&o);

	dcsim_explore_opts_from_env(&o);
	o.mode = mode;
	o.memory = mem;
	o.iterations = iters;
	cur = t;
	seen = 0;
	if (dcsim_explore_run(&sc, &o, NULL) < 0)
		return (unsigned long)-1;
	return seen;
}

int main(int argc, char **argv)
{
	unsigned long iters = 2000 * dcsim_explore_scale();
	int failed = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s <directory of the .litmus files>\n", argv[0]);
		return 2;
	}
	printf("%-36s %-10s %-10s %12s %12s  %s\n", "test", "LKMM", "explorer", "random", "pct",
	       "verdict");
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		const struct litmus *t = &tests[i];
		char clause[512];
		unsigned long rnd, pct;
		bool ok;

		file_exists_clause(argv[1], t->file, clause, sizeof(clause));
		if (strcmp(clause, t->exists)) {
			printf("%s.litmus: exists clause '%s', the runner mirrors '%s'\n", t->file,
			       clause, t->exists);
			failed++;
			continue;
		}
		rnd = explore(t, DCSIM_EXPLORE_RANDOM, DCSIM_EXPLORE_MEM_RELAXED_RMW, iters);
		pct = explore(t, DCSIM_EXPLORE_PCT, DCSIM_EXPLORE_MEM_RELAXED_RMW, iters);
		ok = t->sometimes ? rnd > 0 && pct > 0 : rnd == 0 && pct == 0;
		printf("%-36s %-10s %-10s %5lu/%-6lu %5lu/%-6lu  %s\n", t->file, t->lkmm,
		       t->sometimes ? "Sometimes" : "Never", rnd, iters, pct, iters,
		       ok ? "ok" : "WRONG");
		failed += !ok;
	}
	/* Sequential consistency hides the missing barrier: the mode is what sees it. */
	if (explore(&tests[1], DCSIM_EXPLORE_RANDOM, DCSIM_EXPLORE_MEM_SC, iters)) {
		printf("%s observed under sequential consistency\n", tests[1].file);
		failed++;
	}
	return failed ? 1 : 0;
}
