// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A short multi-threaded smoke test per strategy: threads look up, put,
 * re-create, drop and prune names under one directory while a pruner runs;
 * at quiescence the invariant checker must be clean and no warning raised.
 * (The systematic interleaving checks live in tests/concurrency.)
 */

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include <errno.h>
#include <unistd.h>

#include <dcsim/cache.h>
#include <dcsim/rcu.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

#include "harness.h"

#define NTHREADS	4	/* at most; no more than the CPUs online (main()) */
#define NNAMES		6

/*
 * Workers per run.  More workers than CPUs on ticket and queued locks
 * stall every waiter behind one that is off its CPU for a whole quantum:
 * on a loaded 2-core host 4 workers took 56 s where 2 take a few.
 */
static unsigned int nthreads = NTHREADS;

struct shared {
	struct dcsim_cache *c;
	struct dcsim_dentry *dir;
	uint64_t iters;
	uint64_t seed;
};

static const char *const names[NNAMES] = { "a", "b", "c", "d", "e", "f" };

static void *worker(void *arg)
{
	struct shared *sh = arg;
	struct dcsim_rng rng;

	dcsim_rng_seed(&rng, sh->seed ^ (uint64_t)pthread_self());
	for (uint64_t i = 0; i < sh->iters; i++) {
		const char *nm = names[dcsim_rng_below(&rng, NNAMES)];
		struct dcsim_dentry *d = dcsim_d_lookup(sh->dir, nm);
		unsigned int r = dcsim_rng_below(&rng, 100);

		if (!d) {
			/* Racy create: a duplicate name may be hashed twice, which is fine here. */
			d = dcsim_d_alloc(sh->dir, nm);
			if (r < 90)
				dcsim_d_add(d, true);
		} else if (r < 3) {
			dcsim_d_drop(d);
		} else if (r < 5) {
			dcsim_d_delete(d);
		} else if (r < 20) {
			struct dcsim_dentry *p = dcsim_dget_parent(dcsim_dget(d));

			dcsim_dput(d);
			dcsim_dput(p);
		}
		if (r % 50 == 7)
			dcsim_prune(sh->c, 4);
		dcsim_dput(d);
	}
	return NULL;
}

/*
 * One strategy's run: nthreads @worker threads under "/dir", then the
 * invariants with exactly the two references the test holds, no new warning,
 * and (@count) an empty cache after shrink_all, with the path counters.
 */
static void run_strategy(const struct dcsim_dput_strategy *s, void *(*worker_fn)(void *),
			 uint64_t iters, uint64_t seed, bool count)
{
	struct dcsim_cache_config cfg = { .strategy = s, .hash_bits = 2 };
	struct shared sh = { .c = dcsim_cache_create(&cfg), .iters = iters, .seed = seed };
	struct dcsim_dentry *root = dcsim_d_alloc_root(sh.c, "/");
	pthread_t t[NTHREADS];
	unsigned long w = dcsim_warn_count();
	char rep[4096];
	unsigned int v;

	sh.dir = dcsim_d_alloc(root, "dir");
	dcsim_d_add(sh.dir, true);
	for (unsigned int k = 0; k < nthreads; k++)
		assert_int_equal(pthread_create(&t[k], NULL, worker_fn, &sh), 0);
	for (unsigned int k = 0; k < nthreads; k++)
		pthread_join(t[k], NULL);
	{
		struct dcsim_held_ref h[] = { { root, 1 }, { sh.dir, 1 } };

		v = dcsim_cache_verify(sh.c, h, 2, DCSIM_VERIFY_REFS_EXACT, rep, sizeof(rep));
	}
	if (v)
		fprintf(stderr, "%s: %u violations\n%s", s->name, v, rep);
	assert_int_equal(v, 0);
	assert_int_equal(dcsim_warn_count(), w);
	dcsim_dput(sh.dir);
	dcsim_dput(root);
	dcsim_shrink_all(sh.c);
	if (count) {
		struct dcsim_cache_stats st;

		dcsim_cache_stats_read(sh.c, &st);
		assert_int_equal(st.v[DCSIM_CS_NR_DENTRY], 0);
		fprintf(stderr, "%-9s dput %ld locked %ld cas %ld htm %ld kills %ld retries %ld\n",
			s->name, (long)st.v[DCSIM_CS_DPUT], (long)st.v[DCSIM_CS_DPUT_LOCKED],
			(long)st.v[DCSIM_CS_DPUT_CAS], (long)st.v[DCSIM_CS_DPUT_HTM],
			(long)st.v[DCSIM_CS_KILL], (long)st.v[DCSIM_CS_KILL_RETRY]);
	}
	dcsim_cache_destroy(sh.c);
}

static void test_threads(void **state)
{
	uint64_t iters = dcsim_test_env_u64("DCSIM_THREAD_ITERS", 20000);
	uint64_t seed = dcsim_test_seed(1);

	(void)state;
	for (size_t i = 0; i < dcsim_strategy_count(); i++)
		run_strategy(dcsim_strategy_get(i), worker, iters, seed, true);
}

/*
 * Shared names changed only under the directory's create lock: a name found
 * negative there is instantiated in place, which must always succeed (a
 * refusal would warn), a positive one is sometimes unlinked, an absent one
 * made anew.  Lookups outside the lock race all of it.
 */
static void *create_worker(void *arg)
{
	struct shared *sh = arg;
	struct dcsim_rng rng;

	dcsim_rng_seed(&rng, sh->seed ^ (uint64_t)pthread_self());
	for (uint64_t i = 0; i < sh->iters; i++) {
		const char *nm = names[dcsim_rng_below(&rng, NNAMES)];
		unsigned int r = dcsim_rng_below(&rng, 100);
		struct dcsim_dentry *d;

		if (r < 30) {		/* a stat, no lock */
			dcsim_dput(dcsim_d_lookup(sh->dir, nm));
			continue;
		}
		assert_int_equal(dcsim_inode_lock(sh->dir), 0);
		d = dcsim_d_lookup(sh->dir, nm);
		if (!d) {
			d = dcsim_d_alloc(sh->dir, nm);
			assert_non_null(d);
			dcsim_d_add(d, true);
		} else if (dcsim_d_is_negative(d)) {
			assert_int_equal(dcsim_d_instantiate(d), 0);
		} else if (r < 70) {
			dcsim_d_delete(d);
		}
		dcsim_inode_unlock(sh->dir);
		if (r % 25 == 3)
			dcsim_prune(sh->c, 4);
		dcsim_dput(d);
	}
	return NULL;
}

/* Every strategy, once with per-CPU callback queues and once with the global one. */
static void test_create_in_place(void **state)
{
	uint64_t iters = dcsim_test_env_u64("DCSIM_THREAD_ITERS", 20000) / 2;
	uint64_t seed = dcsim_test_seed(1);

	(void)state;
	assert_int_equal(dcsim_rcu_callbacks_setup((enum dcsim_rcu_callbacks)7, -1), -EINVAL);
	assert_int_equal(dcsim_rcu_callbacks_setup(DCSIM_RCU_CB_GLOBAL, 1 << 20), -EINVAL);
	for (int mode = 0; mode < 2; mode++) {
		int err = dcsim_rcu_callbacks_setup(mode ? DCSIM_RCU_CB_GLOBAL : DCSIM_RCU_CB_PER_CPU, -1);

		assert_int_equal(err, 0);
		for (size_t i = 0; i < dcsim_strategy_count(); i++)
			run_strategy(dcsim_strategy_get(i), create_worker, iters, seed, false);
		dcsim_rcu_barrier();
	}
}

/*
 * The dentry and inode caches (src/model/slab.c): objects freed on the
 * call_rcu thread(s) come back, in magazines, to whichever thread allocates
 * next.  A batch far above one magazine and a depot's bound, allocated on
 * one thread, freed after a grace period, then allocated again on another:
 * every live dentry must be a distinct, freshly initialised object, and
 * nothing warns.  Run under ASan, the same test sees the plain allocator.
 */
#define SLAB_BATCH	3000

struct slab_round {
	struct dcsim_dentry *root;
	struct dcsim_dentry *d[SLAB_BATCH];
};

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;

	return x < y ? -1 : x > y;
}

static void *slab_alloc_round(void *arg)
{
	struct slab_round *r = arg;
	char name[32];

	for (unsigned int i = 0; i < SLAB_BATCH; i++) {
		snprintf(name, sizeof(name), "s%u", i);
		r->d[i] = dcsim_d_alloc(r->root, name);
		assert_non_null(r->d[i]);
		dcsim_d_add(r->d[i], i % 2);	/* half of them with an inode */
	}
	return NULL;
}

static void test_slab_reuse(void **state)
{
	static struct slab_round r;
	struct dcsim_cache *c = dcsim_cache_create_named("fast");
	unsigned long w = dcsim_warn_count();
	void *sorted[SLAB_BATCH];

	(void)state;
	assert_non_null(c);
	r.root = dcsim_d_alloc_root(c, "/");
	for (int round = 0; round < 3; round++) {
		pthread_t t;

		assert_int_equal(pthread_create(&t, NULL, slab_alloc_round, &r), 0);
		pthread_join(t, NULL);
		for (unsigned int i = 0; i < SLAB_BATCH; i++) {
			char name[32];

			snprintf(name, sizeof(name), "s%u", i);
			assert_string_equal(dcsim_d_name(r.d[i]), name);
			assert_int_equal(dcsim_d_count(r.d[i]), 1);
			assert_int_equal(dcsim_d_is_negative(r.d[i]), !(i % 2));
			sorted[i] = r.d[i];
		}
		qsort(sorted, SLAB_BATCH, sizeof(sorted[0]), cmp_ptr);
		for (unsigned int i = 1; i < SLAB_BATCH; i++)
			assert_true(sorted[i] != sorted[i - 1]);	/* handed out once */
		for (unsigned int i = 0; i < SLAB_BATCH; i++) {
			dcsim_d_drop(r.d[i]);
			dcsim_dput(r.d[i]);	/* killed: freed after a grace period */
		}
		dcsim_rcu_barrier();
	}
	assert_int_equal(dcsim_warn_count(), w);
	dcsim_dput(r.root);
	dcsim_cache_destroy(c);
	dcsim_rcu_barrier();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_create_in_place),
		cmocka_unit_test(test_slab_reuse),
	};

	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (cpus < NTHREADS)
		nthreads = cpus < 2 ? 2 : (unsigned int)cpus;
	nthreads = (unsigned int)dcsim_test_env_u64("DCSIM_STRESS_THREADS", nthreads);
	if (nthreads < 2 || nthreads > NTHREADS) {
		fprintf(stderr, "DCSIM_STRESS_THREADS must be 2..%d\n", NTHREADS);
		return 2;
	}
	fprintf(stderr, "test-dcache-threads: %u workers (%ld CPUs online)\n", nthreads, cpus);
	dcsim_test_print_htm("test-dcache-threads");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
