// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The stress suite (dcsim_checker_stress()): real threads, random operation
 * mixes on one shared tree, then the invariants.
 *
 *   1. build /d0../dD-1, each with a few files, all cached and unused;
 *   2. T threads run random mixes of lookup, dget/dput, dget_parent,
 *      d_alloc+d_add of their own names, d_drop, d_delete, d_invalidate,
 *      DONTCACHE, path walks (RCU-walk, or ref-walk) from the root,
 *      holding up to a few references across operations, and the
 *      shrinker (dcsim_prune), for a number of operations or seconds; a
 *      walk that returns a negative leaf is a failure;
 *   3. join, drop what is held, then dcsim_cache_verify() with exact
 *      reference accounting (only the root's reference is outside);
 *   4. dcsim_shrink_all() must leave only the root, nothing leaked
 *      (allocs - frees == 1), no misuse warning; destroy the cache.
 *
 * It sees what real interleavings reach in the time given; a failure is
 * not replayable (the OS schedules), so the report's replay line reruns
 * the suite with the same seed, which may need a few runs.
 *
 * In an instrumented build the run is one scope of the lock order
 * validator of real threads (<dcsim/explore.h>): every lock the threads
 * take is validated, a possible deadlock is reported with both chains
 * and fails the run.  Should the threads then really deadlock (they stop
 * making progress after a report), the suite fails without waiting for
 * them: they are left spinning until the process exits.
 * In a normal build this file is compiled into tests/concurrency's
 * dcsim-stress directly; in an instrumented build it is part of the library.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dcsim/cache.h>
#include <dcsim/checker.h>
#include <dcsim/config.h>
#include <dcsim/dentry.h>
#include <dcsim/htm.h>
#include <dcsim/namei.h>
#include <dcsim/stats.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>
#if DCSIM_INSTRUMENT
#include <dcsim/explore.h>
#endif

#include "../base/rng.h"

#define MAX_THREADS	64
#define NR_DIRS		4
#define NR_FILES	6	/* shared names per directory */
#define NR_OWN		3	/* names each thread creates itself */
#define MAX_HELD	4

struct stress {
	struct dcsim_cache *cache;
	struct dcsim_dentry *root;
	long ops;
	double seconds;
	uint64_t seed;
	atomic_bool stop;
	atomic_ulong walk_negative;	/* walks that returned a negative leaf */
	atomic_uint finished;		/* workers past their last operation */
};

struct worker {
	struct stress *st;
	pthread_t pt;
	unsigned int id;
	uint64_t rng;
	struct dcsim_dentry *held[MAX_HELD];
	atomic_long done;		/* written by the worker, read by the waiter */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Keep a reference for later, or drop it if our hands are full. */
static void hold(struct worker *w, struct dcsim_dentry *d)
{
	unsigned int slot = (unsigned int)splitmix64_below(&w->rng, MAX_HELD);

	dcsim_dput(w->held[slot]);
	w->held[slot] = d;
}

static void one_op(struct worker *w)
{
	struct stress *st = w->st;
	uint64_t r = splitmix64_next(&w->rng);
	char name[32];
	struct dcsim_dentry *dir, *f, *p;
	unsigned int op = (unsigned int)(r % 100);

	snprintf(name, sizeof(name), "d%u", (unsigned int)((r >> 8) % NR_DIRS));
	if (((r >> 48) & 7) == 0) {
		/* A path walk to a shared or own name: its leaf must be positive. */
		char leaf[32];
		const char *path[2] = { name, leaf };

		if ((r >> 16) & 1)
			snprintf(leaf, sizeof(leaf), "f%u", (unsigned int)((r >> 20) % NR_FILES));
		else
			snprintf(leaf, sizeof(leaf), "t%u.%u", w->id, (unsigned int)((r >> 20) % NR_OWN));
		f = dcsim_path_walk(st->root, path, 2, ((r >> 52) & 3) ? 0 : DCSIM_WALK_REF);
		if (f && dcsim_d_is_negative(f))
			atomic_fetch_add(&st->walk_negative, 1);
		if (f && ((r >> 56) & 1))
			hold(w, f);
		else
			dcsim_dput(f);
		return;
	}
	dir = dcsim_d_lookup(st->root, name);
	if (!dir)
		return;		/* dirs are never dropped: only while being pruned */
	if ((r >> 16) & 1)
		snprintf(name, sizeof(name), "f%u", (unsigned int)((r >> 20) % NR_FILES));
	else
		snprintf(name, sizeof(name), "t%u.%u", w->id, (unsigned int)((r >> 20) % NR_OWN));
	f = dcsim_d_lookup(dir, name);
	if (!f && name[0] == 't') {
		/*
		 * Only the owner creates t<id>.* names, so a name is never
		 * hashed twice (the kernel's i_rwsem/d_alloc_parallel role);
		 * shared names, once dropped, stay gone.
		 */
		f = dcsim_d_alloc(dir, name);
		if (f)
			dcsim_d_add(f, (r >> 40) & 1);
	}
	if (!f) {
		if (op >= 95)
			dcsim_prune(st->cache, 8);
		dcsim_dput(dir);
		return;
	}
	if (op < 40) {
		/* lookup and put: the fast path every strategy is about */
	} else if (op < 55) {
		hold(w, dcsim_dget(f));
	} else if (op < 62) {
		p = dcsim_dget_parent(f);
		dcsim_dput(p);
	} else if (op < 70) {
		dcsim_d_drop(f);
	} else if (op < 78) {
		dcsim_d_delete(f);
	} else if (op < 80) {
		dcsim_d_invalidate(f);
	} else if (op < 82) {
		dcsim_d_set_flags(f, DCSIM_DCACHE_DONTCACHE);
	} else if (op < 90) {
		hold(w, f);
		f = NULL;
	} else {
		dcsim_prune(st->cache, 8);
	}
	dcsim_dput(f);
	dcsim_dput(dir);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct stress *st = w->st;
	double end = st->seconds > 0 ? now() + st->seconds : 0;

	for (long i = 0; st->ops <= 0 || i < st->ops; i++) {
		one_op(w);
		/* Only the worker writes it: a relaxed store, no locked add. */
		atomic_store_explicit(&w->done, atomic_load_explicit(&w->done, memory_order_relaxed) + 1,
				      memory_order_relaxed);
		if (end && !(i & 255) && now() > end)
			break;
	}
	for (unsigned int i = 0; i < MAX_HELD; i++) {
		dcsim_dput(w->held[i]);
		w->held[i] = NULL;
	}
	atomic_fetch_add(&st->finished, 1);
	return NULL;
}

#if DCSIM_INSTRUMENT
/*
 * Seconds without an operation done, after a lock order report or a
 * misuse warning, that mean the workers are stuck.
 */
#define STALL_SECONDS	2.0

/*
 * Wait for the workers.  Return: 0 when all are joined; 1 if the lock
 * order validator reported, or a misuse warning (more than @warn0) was
 * given, and then the workers stopped making progress (deadlocked as the
 * validator predicted, or spinning on a lock the misuse left held): they
 * are detached and left spinning.  Either report already fails the run,
 * so the wait only turns what would be a hang into that failure; without
 * one a slow run is waited for, however slow.
 */
static int wait_workers(struct stress *st, struct worker *w, unsigned int n, unsigned long warn0)
{
	const struct timespec tick = { 0, 20 * 1000 * 1000 };
	long last = -1;
	double since = now();

	while (atomic_load(&st->finished) < n) {
		long sum = 0;

		nanosleep(&tick, NULL);
		for (unsigned int i = 0; i < n; i++)
			sum += atomic_load_explicit(&w[i].done, memory_order_relaxed);
		if (sum != last) {
			last = sum;
			since = now();
		} else if (now() - since > STALL_SECONDS &&
			   (dcsim_lockdep_reports() || dcsim_warn_count() != warn0)) {
			for (unsigned int i = 0; i < n; i++)
				pthread_detach(w[i].pt);
			return 1;
		}
	}
	for (unsigned int i = 0; i < n; i++)
		pthread_join(w[i].pt, NULL);
	return 0;
}
#endif

#if DCSIM_INSTRUMENT
static void stress_lock_counts(struct dcsim_checker_result *res, const struct dcsim_lockdep_counts *lc)
{
	res->lock_acquisitions = lc->acquisitions;
	res->lock_trylocks = lc->trylocks;
	res->lock_edges = lc->edges;
}
#endif

static int build_tree(struct stress *st)
{
	char name[32];

	st->root = dcsim_d_alloc_root(st->cache, "root");
	if (!st->root)
		return -1;
	for (unsigned int i = 0; i < NR_DIRS; i++) {
		struct dcsim_dentry *dir;

		snprintf(name, sizeof(name), "d%u", i);
		dir = dcsim_d_alloc(st->root, name);
		if (!dir)
			return -1;
		dcsim_d_add(dir, true);
		for (unsigned int j = 0; j < NR_FILES; j++) {
			struct dcsim_dentry *f;

			snprintf(name, sizeof(name), "f%u", j);
			f = dcsim_d_alloc(dir, name);
			if (!f)
				return -1;
			dcsim_d_add(f, true);
			dcsim_dput(f);
		}
		/*
		 * Directories stay referenced by the test (like a cwd), so the
		 * shrinker never kills one from under a lookup in it.
		 */
	}
	return 0;
}

static void drop_dirs(struct stress *st)
{
	char name[32];

	for (unsigned int i = 0; i < NR_DIRS; i++) {
		struct dcsim_dentry *dir;

		snprintf(name, sizeof(name), "d%u", i);
		dir = dcsim_d_lookup(st->root, name);
		/* one for this lookup, one for build_tree()'s allocation */
		dcsim_dput(dir);
		dcsim_dput(dir);
	}
}

/* The invariants at quiescence, with only the root held. Return: 0 or 1. */
static int check_quiescent(struct stress *st, FILE *out, const char *strategy, const char *when)
{
	struct dcsim_held_ref held = { .dentry = st->root, .refs = 1 };
	char report[2048] = "";
	unsigned int bad;

	bad = dcsim_cache_verify(st->cache, &held, 1, DCSIM_VERIFY_REFS_EXACT, report, sizeof(report));
	if (!bad)
		return 0;
	fprintf(out, "dcsim-check: FAIL: stress, strategy %s: %u invariant violations %s:\n%s\n",
		strategy, bad, when, report);
	return 1;
}

int dcsim_checker_stress(const struct dcsim_dput_strategy *s, unsigned int nthreads, long ops,
		       double seconds, const struct dcsim_checker_opts *o, struct dcsim_checker_result *res)
{
	static const long budget_ops[] = { 20000, 200000, 2000000 };
	struct dcsim_checker_result local;
	FILE *out, *prog;
	uint64_t seed;
	struct dcsim_cache_config cfg = { .strategy = s };
	struct stress st = { .ops = ops, .seconds = seconds };
	struct worker *w;
	struct dcsim_cache_snapshot snap;
	struct dcsim_cache_stats cs;
	unsigned long warn0 = dcsim_warn_count(), killed;
	char replay[1024], lock_failure[sizeof(res->failure)] = "";
	long total = 0;
	double t0, t;
	int err = 0;

	if (!res)
		res = &local;
	memset(res, 0, sizeof(*res));
	if (!s || !o || nthreads > MAX_THREADS || (unsigned int)o->budget > DCSIM_BUDGET_SOAK)
		return -EINVAL;
	if (nthreads == 0) {
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

		nthreads = ncpu < 2 ? 2 : ncpu > MAX_THREADS ? MAX_THREADS : (unsigned int)ncpu;
	}
	w = calloc(nthreads, sizeof(*w));
	out = o->report ? o->report : stdout;
	prog = o->progress ? o->progress : stderr;
	seed = st.seed = o->seed;
	if (ops <= 0 && seconds <= 0)
		st.ops = ops = budget_ops[o->budget];
	if (o->replay_prefix)
		snprintf(replay, sizeof(replay), "%s --suites stress --seed %" PRIu64, o->replay_prefix,
			 seed);
	else
		snprintf(replay, sizeof(replay), "dcsim-check --strategy %s --suites stress --seed %"
			 PRIu64, s->name, seed);
	fprintf(prog, "dcsim-check: stress: %s: %u threads, %ld ops each%s, seed %#" PRIx64
		", HTM %s\n", s->name, nthreads, ops, seconds > 0 ? " (timed)" : "", seed,
		dcsim_htm_live() ? "live" : "off");
#if DCSIM_INSTRUMENT
	{
		char what[256];

		/* Before the cache exists: its locks register their classes in the scope. */
		snprintf(what, sizeof(what), "stress, strategy %s, %u threads, seed %" PRIu64,
			 s->name, nthreads, seed);
		dcsim_lockdep_begin(what, replay, o->quiet ? NULL : out);
	}
#endif
	st.cache = dcsim_cache_create(&cfg);
	if (!w || !st.cache || build_tree(&st)) {
		fprintf(out, "dcsim-check: FAIL: stress, strategy %s: setup failed\n", s->name);
#if DCSIM_INSTRUMENT
		dcsim_lockdep_end(NULL);
#endif
		free(w);
		return 1;
	}
	t0 = now();
	for (unsigned int i = 0; i < nthreads; i++) {
		w[i].st = &st;
		w[i].id = i;
		w[i].rng = seed ^ ((uint64_t)(i + 1) * 0xd1342543de82ef95ull);
		if (pthread_create(&w[i].pt, NULL, worker_main, &w[i])) {
			fprintf(out, "dcsim-check: stress: pthread_create failed\n");
			exit(2);
		}
	}
#if DCSIM_INSTRUMENT
	if (wait_workers(&st, w, nthreads, warn0)) {
		struct dcsim_lockdep_counts lc;
		char last[256];

		/* The scope stays open: its threads still spin in it. */
		dcsim_lockdep_read(&lc);
		stress_lock_counts(res, &lc);
		res->runs = 1;
		res->failures = 1;
		if (!dcsim_lockdep_reports()) {
			/* Stuck after a misuse warning: a lock it left held, most likely. */
			dcsim_warn_last(last, sizeof(last));
			if (snprintf(res->failure, sizeof(res->failure), "stress: %s: the threads "
				     "stopped after %lu misuse warnings, the last at %s", s->name,
				     dcsim_warn_count() - warn0, last) < 0)
				res->failure[0] = '\0';
			if (!o->quiet)
				fprintf(out, "dcsim-check: FAIL: stress, strategy %s: the threads "
					"stopped after the misuse warnings above (no operation for "
					"%.0f s; left spinning)\ncheck: %s\n(real threads: the OS "
					"schedules, so the replay may need a few runs)\nreplay: %s\n",
					s->name, STALL_SECONDS, res->failure, replay);
			return 1;
		}
		/* Cut to fit: the report above has it whole. */
		if (snprintf(res->failure, sizeof(res->failure), "stress: %s: deadlocked after the "
			     "lock order report: %s", s->name, lc.first) < 0)
			res->failure[0] = '\0';
		if (!o->quiet)
			fprintf(out, "dcsim-check: FAIL: stress, strategy %s: the threads stopped after "
				"the lock order validator's report above (for %.0f s: deadlocked, as "
				"it predicted; left spinning)\ncheck: %s\n(real threads: the OS "
				"schedules, so the replay may need a few runs)\nreplay: %s\n", s->name,
				STALL_SECONDS, lc.first, replay);
		return 1;
	}
#else
	for (unsigned int i = 0; i < nthreads; i++)
		pthread_join(w[i].pt, NULL);
#endif
	for (unsigned int i = 0; i < nthreads; i++)
		total += atomic_load(&w[i].done);
	t = now() - t0;

	/* Quiescent: the root's and the directories' references remain. */
	drop_dirs(&st);
	err |= check_quiescent(&st, out, s->name, "after the run");
	dcsim_cache_stats_read(st.cache, &cs);
	killed = dcsim_shrink_all(st.cache);
	err |= check_quiescent(&st, out, s->name, "after shrink-all");
	if (dcsim_cache_snapshot(st.cache, &snap) == 0) {
		if (snap.nr != 1 || snap.counters.allocs - snap.counters.frees != 1) {
			fprintf(out, "dcsim-check: FAIL: stress, strategy %s: shrink-all left %zu dentries, "
				"%" PRId64 " allocs - %" PRId64 " frees (want only the root)\n",
				s->name, snap.nr, snap.counters.allocs, snap.counters.frees);
			err = 1;
		}
		dcsim_cache_snapshot_release(&snap);
	}
	if (atomic_load(&st.walk_negative)) {
		fprintf(out, "dcsim-check: FAIL: stress, strategy %s: %lu path walks returned a "
			"negative leaf\n", s->name, (unsigned long)atomic_load(&st.walk_negative));
		err = 1;
	}
	dcsim_dput(st.root);
	dcsim_cache_destroy(st.cache);
#if DCSIM_INSTRUMENT
	{
		struct dcsim_lockdep_counts lc;

		dcsim_lockdep_end(&lc);
		stress_lock_counts(res, &lc);
		fprintf(prog, "dcsim-check: stress: %s: lock order: %lu validated acquisitions, %lu "
			"trylocks, %lu edges%s\n", s->name, lc.acquisitions, lc.trylocks, lc.edges,
			lc.cycles + lc.recursions ? ", REPORTED" : "");
		if (lc.cycles + lc.recursions) {
			fprintf(out, "dcsim-check: FAIL: stress, strategy %s: %lu possible circular "
				"locking dependencies, %lu possible recursive locking (the validator's "
				"report, with both chains, is above)\ncheck: %s\n", s->name, lc.cycles,
				lc.recursions, lc.first);
			if (!err && snprintf(lock_failure, sizeof(lock_failure), "stress: %s: lock "
					     "order: %s", s->name, lc.first) < 0)
				lock_failure[0] = '\0';
			err = 1;
		}
	}
#endif
	if (dcsim_warn_count() != warn0) {
		char last[200];

		dcsim_warn_last(last, sizeof(last));
		fprintf(out, "dcsim-check: FAIL: stress, strategy %s: %lu misuse warnings, the last at %s\n",
			s->name, dcsim_warn_count() - warn0, last);
		err = 1;
	}
	printf("strategy=%s threads=%u ops=%ld secs=%.2f mops=%.2f dput=%" PRId64
	       " dput_locked=%" PRId64 " htm_commit=%" PRId64 " htm_abort=%" PRId64
	       " kills=%" PRId64 " shrink_all_killed=%lu result=%s\n",
	       s->name, nthreads, total, t, (double)total / t / 1e6, cs.v[DCSIM_CS_DPUT],
	       cs.v[DCSIM_CS_DPUT_LOCKED], cs.v[DCSIM_CS_HTM_COMMIT], cs.v[DCSIM_CS_HTM_ABORT],
	       cs.v[DCSIM_CS_KILL], killed, err ? "FAIL" : "ok");
	fflush(stdout);
	free(w);
	res->runs = 1;
	res->failures = err ? 1 : 0;
	if (err) {
		if (lock_failure[0])
			snprintf(res->failure, sizeof(res->failure), "%s", lock_failure);
		else
			snprintf(res->failure, sizeof(res->failure), "stress: %s failed", s->name);
		fprintf(out, "(real threads: the OS schedules, so the replay may need a few runs)\n");
		fprintf(out, "replay: %s\n", replay);
	}
	return err;
}

