// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reports name a dentry by where it is (src/model/describe.c): after a
 * rename, the moved dentry and the one below it are printed under the new
 * parent's path, not the path they were allocated under.
 *
 * One logical thread moves /d/f (with its child g) under /e, touches g's
 * and f's counts, and fails on purpose; the failure report, captured from
 * stderr, must print its steps on /e/f and /e/f/g and none on the
 * stale /d/f.  Instrumented build only.  Exit: 0 pass, 1 fail.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dcsim/cache.h>
#include <dcsim/dentry.h>
#include <dcsim/explore.h>

struct state {
	struct dcsim_cache *c;
	struct dcsim_dentry *root, *d, *e, *f, *g;
};

static void *setup(void *arg)
{
	struct state *s = calloc(1, sizeof(*s));

	(void)arg;
	if (!s)
		abort();
	s->c = dcsim_cache_create_named("lockref");
	s->root = dcsim_d_alloc_root(s->c, "/");
	s->d = dcsim_d_alloc(s->root, "d");
	s->e = dcsim_d_alloc(s->root, "e");
	s->f = dcsim_d_alloc(s->d, "f");
	s->g = dcsim_d_alloc(s->f, "g");
	if (!s->c || !s->root || !s->d || !s->e || !s->f || !s->g)
		abort();
	return s;
}

static void thread(void *state, unsigned int tid)
{
	struct state *s = state;

	(void)tid;
	if (dcsim_d_move(s->f, s->e)) {
		dcsim_explore_fail("test-explore-names: dcsim_d_move() refused the move");
		return;
	}
	dcsim_dput(dcsim_dget(s->g));
	dcsim_dput(dcsim_dget(s->f));
	dcsim_explore_fail("test-explore-names: the planted failure whose report is read");
}

static const struct dcsim_scenario sc = {
	.name = "names-after-rename", .nthreads = 1, .setup = setup, .thread = thread,
};

int main(void)
{
	struct dcsim_explore_opts o;
	struct dcsim_explore_result r;
	char *report = NULL;
	size_t len = 0;
	FILE *cap = tmpfile();
	int saved = dup(2), bad = 0;

	if (!cap || saved < 0)
		return perror("test-explore-names: tmpfile/dup"), 1;
	dcsim_explore_opts_init(&o);
	o.iterations = 1;
	o.report_steps = 100000;
	fflush(stderr);
	dup2(fileno(cap), 2);
	dcsim_explore_run(&sc, &o, &r);
	fflush(stderr);
	dup2(saved, 2);
	fseek(cap, 0, SEEK_END);
	len = (size_t)ftell(cap);
	rewind(cap);
	report = calloc(1, len + 1);
	if (!report || fread(report, 1, len, cap) != len)
		return perror("test-explore-names: reading the report"), 1;
	if (r.failures != 1 || !strstr(r.failure, "planted failure")) {
		printf("test-explore-names: FAIL: want the planted failure, got %lu failures: %s\n",
		       r.failures, r.failure);
		bad = 1;
	}
	if (!strstr(report, " /e/f.d_lock")) {
		printf("test-explore-names: FAIL: no step names the moved dentry /e/f\n");
		bad = 1;
	}
	if (!strstr(report, " /e/f/g.d_lockref")) {
		printf("test-explore-names: FAIL: no step names its child /e/f/g\n");
		bad = 1;
	}
	if (strstr(report, " /d/f")) {
		printf("test-explore-names: FAIL: a step names the stale path /d/f\n");
		bad = 1;
	}
	if (bad)
		printf("---- the report:\n%s", report);
	else
		printf("test-explore-names: a moved dentry and its child are named by their new path\n");
	free(report);
	fclose(cap);
	close(saved);
	return bad;
}
