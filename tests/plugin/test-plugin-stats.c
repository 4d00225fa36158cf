// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The per-cache HTM statistics of a strategy from a loaded module (check
 * build): plugin-txn puts non-final references in simulated transactions
 * and accounts them with dcsim_cache_htm_account(), so after explored
 * executions with forced commits the cache's commit count is non-zero, and
 * with injected aborts every attempt is a commit or an abort.  Then a few
 * dentry scenarios run on it, as on any registered strategy.
 *
 *	test-plugin-stats path/to/libdcsim-test-plugin.so
 */

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <dcsim/cache.h>
#include <dcsim/explore-dcache.h>
#include <dcsim/explore.h>
#include <dcsim/strategy.h>

struct state {
	struct dcsim_cache *cache;
	struct dcsim_dentry *root, *a;
};

static struct state st;
static struct dcsim_cache_stats total;	/* summed over executions in teardown */
static int failures;

static void expect(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	if (!ok)
		failures++;
}

static void *setup(void *arg)
{
	(void)arg;
	st.cache = dcsim_cache_create_named("plugin-txn");
	if (!st.cache)
		return NULL;
	st.root = dcsim_d_alloc_root(st.cache, "/");
	st.a = dcsim_d_alloc(st.root, "a");
	dcsim_d_add(st.a, true);
	/* Two extra references: both explored puts are non-final. */
	dcsim_dget(st.a);
	dcsim_dget(st.a);
	return &st;
}

static void thread(void *state, unsigned int tid)
{
	struct state *s = state;

	(void)tid;
	dcsim_dput(s->a);
}

static void check(void *state)
{
	struct state *s = state;

	dcsim_explore_assert(dcsim_d_count(s->a) == 1);
}

static void teardown(void *state)
{
	struct state *s = state;
	struct dcsim_cache_stats cs;

	dcsim_cache_stats_read(s->cache, &cs);
	for (unsigned int i = 0; i < DCSIM_CS_NR; i++)
		total.v[i] += cs.v[i];
	dcsim_dput(s->a);
	dcsim_dput(s->root);
	dcsim_cache_destroy(s->cache);
}

static int explore(enum dcsim_explore_htm htm, struct dcsim_explore_result *res)
{
	const struct dcsim_scenario sc = {
		.name = "plugin-stats",
		.nthreads = 2,
		.setup = setup,
		.thread = thread,
		.check = check,
		.teardown = teardown,
	};
	struct dcsim_explore_opts opts;

	dcsim_explore_opts_init(&opts);

	dcsim_explore_opts_from_env(&opts);
	opts.iterations = 50;
	opts.htm = htm;
	opts.abort_permille = 300;
	memset(&total, 0, sizeof(total));
	return dcsim_explore_run(&sc, &opts, res);
}

int main(int argc, char **argv)
{
	static const enum dcsim_dcache_scenario scns[] = {
		DCSIM_DSCN_FINAL_DPUTS, DCSIM_DSCN_DPUT_VS_DELETE, DCSIM_DSCN_LOOKUP_SHRINK,
	};
	struct dcsim_explore_result res;
	const struct dcsim_dput_strategy *s;
	int (*init)(void);
	void *h, *sym;

	if (argc != 2) {
		fprintf(stderr, "usage: %s PLUGIN.so\n", argv[0]);
		return 2;
	}
	h = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 2;
	}
	sym = dlsym(h, "dcsim_plugin_init");
	expect(sym != NULL, "the plugin defines dcsim_plugin_init()");
	if (!sym)
		return 1;
	memcpy(&init, &sym, sizeof(init));
	expect(init() == 0, "dcsim_plugin_init() registers its strategy");
	s = dcsim_strategy_lookup("plugin-txn");
	expect(s != NULL, "plugin-txn is registered");
	if (!s)
		return 1;

	expect(explore(DCSIM_EXPLORE_HTM_COMMIT, &res) == 0, "explored with forced commits");
	printf("sim-commit: %lu executions, %lu simulated commits; cache: %lld attempts, "
	       "%lld commits, %lld aborts\n", res.executions, res.htm_commits,
	       (long long)total.v[DCSIM_CS_HTM_ATTEMPT], (long long)total.v[DCSIM_CS_HTM_COMMIT],
	       (long long)total.v[DCSIM_CS_HTM_ABORT]);
	expect(total.v[DCSIM_CS_HTM_COMMIT] > 0, "per-cache commits counted");
	expect(total.v[DCSIM_CS_HTM_COMMIT] == (int64_t)(2 * res.executions),
	       "one commit per explored put");
	expect(total.v[DCSIM_CS_HTM_ABORT] == 0, "no abort counted when none is injected");

	expect(explore(DCSIM_EXPLORE_HTM_ABORTS, &res) == 0, "explored with injected aborts");
	printf("sim-aborts: %lu executions; cache: %lld attempts, %lld commits, %lld aborts\n",
	       res.executions, (long long)total.v[DCSIM_CS_HTM_ATTEMPT],
	       (long long)total.v[DCSIM_CS_HTM_COMMIT], (long long)total.v[DCSIM_CS_HTM_ABORT]);
	expect(total.v[DCSIM_CS_HTM_ABORT] > 0, "per-cache aborts counted");
	expect(total.v[DCSIM_CS_HTM_ATTEMPT] ==
	       total.v[DCSIM_CS_HTM_COMMIT] + total.v[DCSIM_CS_HTM_ABORT],
	       "every attempt is a commit or an abort");

	for (size_t i = 0; i < DCSIM_ARRAY_SIZE(scns); i++) {
		struct dcsim_explore_opts opts;
		char what[96];

		dcsim_explore_opts_init(&opts);

		dcsim_explore_opts_from_env(&opts);
		opts.iterations = 100;
		opts.htm = DCSIM_EXPLORE_HTM_ABORTS;
		snprintf(what, sizeof(what), "scenario %s passes on plugin-txn",
			 dcsim_dcache_scenario_name(scns[i]));
		expect(dcsim_explore_dcache(s, scns[i], &opts, &res) == 0, what);
	}
	return failures ? 1 : 0;
}
