// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The measuring harness: a pool of pinned worker threads that run one cell
 * at a time.
 *
 * The workers live for the whole run rather than one cell, so that the
 * library's per-thread state (statistics block, RCU registration) is made
 * once and thread creation never falls inside a measurement.  A cell goes:
 *
 *   main: setup -> wake workers
 *   workers: thread_init, then wait at the start line
 *   main: release the start line into the warm-up
 *   workers: run --warmup's share of the cell untimed, then wait again
 *   main: snapshot counters, set the deadline, release the timed part
 *   workers: run batches until the deadline (or the op count), stamp the end
 *   main: when all stopped, snapshot counters again, release thread_fini
 *   workers: thread_fini, report done;  main: teardown
 *
 * Counter snapshots are taken only while every worker waits, so the library's
 * single-writer counters are stable when read.  Main sleeps on a condition
 * variable meanwhile; workers at the start line yield rather than spin, so
 * on a 2-CPU host they leave main the CPU it needs to release them.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

struct worker_result {
	uint64_t ops;
	uint64_t start_ns, end_ns;	/* CLOCK_MONOTONIC */
	uint64_t cpu_ns;		/* CPU time the worker got meanwhile */
} dcsim_cacheline_aligned;

static struct {
	pthread_t tid[BENCH_MAX_THREADS];
	unsigned int nr;
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* main -> workers: a new cell */
	pthread_cond_t done_cond;	/* workers -> main: a phase counter moved */
	unsigned long gen;	/* bumped per cell, under lock */
	bool quit;
	/* the current cell: written by main before gen is bumped */
	struct bench_cell *cell;
	uint64_t ops_per_thread;
	/* phase counters and flags, accessed with __atomic */
	unsigned int ready, warmed, stopped, finished;
	int warm, go, fini;
	uint64_t warm_deadline_ns, warm_ops, deadline_ns;
	struct worker_result res[BENCH_MAX_THREADS];
} pool = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
	.done_cond = PTHREAD_COND_INITIALIZER,
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Main sleeps on the condition variable while workers run: a yielding main
 * thread would share a CPU with a worker on a small host and, worse, could
 * preempt a ticket-lock holder and turn a contended cell into a convoy.
 */
/*
 * The thread's own CPU time: what ns/op is computed from.  On a shared host
 * a worker may be descheduled mid-cell; wall time would then charge the
 * other tenants' work to the strategy, CPU time does not.  (Spinning on a
 * lock whose holder was preempted still counts, as it should.)
 */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void wait_count(unsigned int *ctr, unsigned int target)
{
	pthread_mutex_lock(&pool.lock);
	while (__atomic_load_n(ctr, __ATOMIC_ACQUIRE) < target)
		pthread_cond_wait(&pool.done_cond, &pool.lock);
	pthread_mutex_unlock(&pool.lock);
}

/* Workers: count in and wake main; only outside the measured loop. */
static void count_in(unsigned int *ctr)
{
	pthread_mutex_lock(&pool.lock);
	__atomic_add_fetch(ctr, 1, __ATOMIC_RELEASE);
	pthread_cond_signal(&pool.done_cond);
	pthread_mutex_unlock(&pool.lock);
}

static void wait_flag(int *flag)
{
	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE))
		sched_yield();
}

/*
 * The measured loop.  Batches grow until one takes ~20us, so the clock is
 * read rarely enough to cost under 1% even for the ~10ns floor, yet the
 * deadline is overshot by at most a batch.
 */
static uint64_t worker_measure(struct bench_cell *cell, struct bench_worker *w,
			       struct worker_result *r)
{
	const struct bench_workload *wl = cell->wl;
	uint64_t limit = pool.ops_per_thread;
	uint64_t deadline = __atomic_load_n(&pool.deadline_ns, __ATOMIC_RELAXED);
	uint64_t batch = 16, ops = 0, t0, t, c0 = cpu_ns();

	r->start_ns = t0 = now_ns();
	for (;;) {
		uint64_t n = batch;

		if (limit && ops + n > limit)
			n = limit - ops;
		wl->run(cell, w, n);
		ops += n;
		t = now_ns();
		if (limit ? ops >= limit : t >= deadline)
			break;
		if (t - t0 < 20000 && batch < (1u << 20))
			batch *= 2;
		t0 = t;
	}
	r->end_ns = t;
	r->cpu_ns = cpu_ns() - c0;
	return ops;
}

/*
 * The warm-up, discarded: the first operations of a cell run on a fresh
 * tree (cold caches, first-touch page faults, the lockref line still in the
 * main thread's cache) and, on a just-woken CPU, at a lower clock.  All
 * workers warm up together, so the contended steady state is reached before
 * the clock and the counters start.
 */
static void worker_warm(struct bench_cell *cell, struct bench_worker *w)
{
	uint64_t deadline = __atomic_load_n(&pool.warm_deadline_ns, __ATOMIC_RELAXED);
	uint64_t left = pool.warm_ops, batch = 16;

	if (cell->cfg->warmup <= 0)
		return;
	if (left) {
		while (left) {
			uint64_t n = left < batch ? left : batch;

			cell->wl->run(cell, w, n);
			left -= n;
			batch *= 2;
		}
		return;
	}
	/* batches grow while they take under ~20us, as in worker_measure() */
	for (uint64_t t0 = now_ns(), t; t0 < deadline; t0 = t) {
		cell->wl->run(cell, w, batch);
		t = now_ns();
		if (t - t0 < 20000 && batch < (1u << 20))
			batch *= 2;
	}
}

void bench_worker_init(const struct bench_cell *cell, struct bench_worker *w, unsigned int id)
{
	memset(w, 0, sizeof(*w));
	w->id = id;
	w->nthreads = cell->nthreads;
	/* distinct nonzero streams per thread, reproducible from --seed */
	w->rng = (cell->cfg->seed + 1) * 0x9e3779b97f4a7c15ull + id * 0xbf58476d1ce4e5b9ull;
	if (!w->rng)
		w->rng = 1;
}

static void *worker_main(void *arg)
{
	unsigned int id = (unsigned int)(uintptr_t)arg;
	unsigned long seen = 0;

	for (;;) {
		struct bench_cell *cell;
		struct bench_worker w;
		bool quit;

		pthread_mutex_lock(&pool.lock);
		while (pool.gen == seen && !pool.quit)
			pthread_cond_wait(&pool.cond, &pool.lock);
		seen = pool.gen;
		cell = pool.cell;
		quit = pool.quit;
		pthread_mutex_unlock(&pool.lock);
		if (quit)
			break;
		if (id >= cell->nthreads)
			continue;

		bench_worker_init(cell, &w, id);
		if (cell->wl->thread_init)
			cell->wl->thread_init(cell, &w);
		count_in(&pool.ready);
		wait_flag(&pool.warm);
		worker_warm(cell, &w);
		count_in(&pool.warmed);
		wait_flag(&pool.go);

		pool.res[id].ops = worker_measure(cell, &w, &pool.res[id]);

		count_in(&pool.stopped);
		wait_flag(&pool.fini);
		if (cell->wl->thread_fini)
			cell->wl->thread_fini(cell, &w);
		count_in(&pool.finished);
	}
	return NULL;
}

/*
 * Helpers apart from workers, as the 16-core runs wanted: the
 * shrinker and the call_rcu thread, left to float, land on a worker's CPU
 * (the call_rcu thread even inherits the CPU mask of the worker that
 * queued the first callback) and preempt it, and a preempted ticket-lock
 * holder stalls every waiter.  When the widest cell leaves a CPU of --cpus
 * free, the last one is the helpers' and workers keep to the rest.  On a
 * host with no CPU to spare they float, and the report says which cells
 * are oversubscribed.  Per-CPU callbacks (--call-rcu percpu) are bound to
 * every CPU by design, as the kernel runs callbacks on the CPU that queued
 * them: they are not counted as helpers.
 */
int bench_placement(struct bench_config *cfg, unsigned int maxthr)
{
	int err;

	cfg->nr_worker_cpus = cfg->nr_cpus;
	cfg->helper_cpu = -1;
	if (cfg->pin && cfg->nr_cpus > maxthr) {
		cfg->helper_cpu = cfg->cpus[cfg->nr_cpus - 1];
		cfg->nr_worker_cpus = cfg->nr_cpus - 1;
	}
	err = dcsim_rcu_callbacks_setup(cfg->call_rcu, cfg->helper_cpu);
	if (err)
		fprintf(stderr, "dcsim-bench: cannot set up %s callbacks: %s\n",
			cfg->call_rcu == DCSIM_RCU_CB_PER_CPU ? "per-CPU" : "global", strerror(-err));
	return err;
}

unsigned int bench_cell_helpers(const struct bench_config *cfg, const struct bench_group *g)
{
	unsigned int n = cfg->call_rcu == DCSIM_RCU_CB_GLOBAL && g->wl;

	return n + (g->wl && g->wl->helper);
}

bool bench_oversubscribed(const struct bench_config *cfg, const struct bench_group *g,
			  unsigned int nthreads)
{
	unsigned int cpus = cfg->nr_cpus ? cfg->nr_cpus : 1;

	if (cfg->helper_cpu >= 0)	/* helpers apart: workers against their CPUs */
		return nthreads > cfg->nr_worker_cpus;
	return nthreads + bench_cell_helpers(cfg, g) > cpus;
}

int bench_pool_start(struct bench_config *cfg, unsigned int nworkers)
{
	if (nworkers > BENCH_MAX_THREADS)
		return -EINVAL;
	for (unsigned int i = 0; i < nworkers; i++) {
		pthread_attr_t attr;
		int err;

		pthread_attr_init(&attr);
		if (cfg->pin && cfg->nr_cpus) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(cfg->cpus[i % (cfg->nr_worker_cpus ? cfg->nr_worker_cpus :
							   cfg->nr_cpus)], &set);
			pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		}
		err = pthread_create(&pool.tid[i], &attr, worker_main, (void *)(uintptr_t)i);
		pthread_attr_destroy(&attr);
		if (err) {
			fprintf(stderr, "dcsim-bench: cannot start worker %u: %s\n", i, strerror(err));
			pool.nr = i;
			bench_pool_stop();
			return -err;
		}
		pool.nr = i + 1;
	}
	return 0;
}

void bench_pool_stop(void)
{
	pthread_mutex_lock(&pool.lock);
	pool.quit = true;
	pthread_cond_broadcast(&pool.cond);
	pthread_mutex_unlock(&pool.lock);
	for (unsigned int i = 0; i < pool.nr; i++)
		pthread_join(pool.tid[i], NULL);
	pool.nr = 0;
}

struct helper_arg {
	struct bench_cell *cell;
	int stop;		/* __atomic: read by the helper, set by main */
};

static void *helper_main(void *arg)
{
	struct helper_arg *h = arg;

	h->cell->wl->helper(h->cell, &h->stop);
	return NULL;
}

static void counts_sub(struct bench_counts *a, const struct bench_counts *b)
{
	for (unsigned int i = 0; i < DCSIM_CS_NR; i++)
		a->v[i] -= b->v[i];
}

int bench_run_cell(struct bench_config *cfg, const struct bench_workload *wl,
		   const struct bench_subject *subj, unsigned int nthreads,
		   struct bench_sample *out)
{
	struct bench_cell cell = {
		.cfg = cfg, .wl = wl, .subj = subj, .nthreads = nthreads,
	};
	struct dcsim_stats before;
	struct bench_counts cbefore = { 0 };
	struct helper_arg harg = { .cell = &cell };
	pthread_t helper;
	bool have_helper = false;
	uint64_t first = UINT64_MAX, last = 0;
	int err;

	if (nthreads > pool.nr)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (wl->setup) {
		err = wl->setup(&cell);
		if (err)
			return err;
	}

	__atomic_store_n(&pool.ready, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pool.warmed, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pool.warm, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pool.stopped, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pool.finished, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pool.go, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pool.fini, 0, __ATOMIC_RELAXED);
	pool.ops_per_thread = cfg->ops;
	pool.warm_ops = (uint64_t)((double)cfg->ops * cfg->warmup);
	if (cfg->ops && cfg->warmup > 0 && !pool.warm_ops)
		pool.warm_ops = 1;

	pthread_mutex_lock(&pool.lock);
	pool.cell = &cell;
	pool.gen++;
	pthread_cond_broadcast(&pool.cond);
	pthread_mutex_unlock(&pool.lock);

	wait_count(&pool.ready, nthreads);
	if (wl->helper) {
		pthread_attr_t attr;

		pthread_attr_init(&attr);
		if (cfg->helper_cpu >= 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(cfg->helper_cpu, &set);
			pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		}
		__atomic_store_n(&harg.stop, 0, __ATOMIC_RELAXED);
		if (pthread_create(&helper, &attr, helper_main, &harg) == 0)
			have_helper = true;
		pthread_attr_destroy(&attr);
	}
	__atomic_store_n(&pool.warm_deadline_ns,
			 now_ns() + (uint64_t)(cfg->duration_s * cfg->warmup * 1e9), __ATOMIC_RELAXED);
	__atomic_store_n(&pool.warm, 1, __ATOMIC_RELEASE);
	wait_count(&pool.warmed, nthreads);
	/*
	 * Every worker waits at the start line: their counters are stable.  A
	 * helper (churn's shrinker) runs on through the warm-up and this read;
	 * its counters are single-writer and read atomically, so the deltas
	 * still count exactly its events between the two reads.
	 */
	dcsim_stats_read(&before);
	if (wl->collect)
		wl->collect(&cell, &cbefore);
	__atomic_store_n(&pool.deadline_ns, now_ns() + (uint64_t)(cfg->duration_s * 1e9),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&pool.go, 1, __ATOMIC_RELEASE);

	wait_count(&pool.stopped, nthreads);
	if (have_helper) {
		__atomic_store_n(&harg.stop, 1, __ATOMIC_RELAXED);
		pthread_join(helper, NULL);
	}
	dcsim_stats_read(&out->st);
	for (unsigned int i = 0; i < DCSIM_STAT_NR; i++)
		out->st.v[i] -= before.v[i];
	for (unsigned int i = 0; i < DCSIM_ARRAY_SIZE(out->st.htm_explicit_code); i++)
		out->st.htm_explicit_code[i] -= before.htm_explicit_code[i];
	if (wl->collect) {
		wl->collect(&cell, &out->c);
		counts_sub(&out->c, &cbefore);
	}
	__atomic_store_n(&pool.fini, 1, __ATOMIC_RELEASE);
	wait_count(&pool.finished, nthreads);

	out->thr_ops_min = UINT64_MAX;
	for (unsigned int i = 0; i < nthreads; i++) {
		const struct worker_result *r = &pool.res[i];

		out->ops += r->ops;
		out->thr_busy_ns += (double)(r->end_ns - r->start_ns);
		out->thr_cpu_ns += (double)r->cpu_ns;
		if (r->ops < out->thr_ops_min)
			out->thr_ops_min = r->ops;
		if (r->ops > out->thr_ops_max)
			out->thr_ops_max = r->ops;
		if (r->start_ns < first)
			first = r->start_ns;
		if (r->end_ns > last)
			last = r->end_ns;
	}
	out->wall_ns = (double)(last - first);
	out->ops_s = out->wall_ns > 0 ? out->ops * 1e9 / out->wall_ns : NAN;
	/* CPU time, not wall: see cpu_ns() */
	out->ns_op = out->ops ? out->thr_cpu_ns / out->ops : NAN;
	out->done = true;

	if (wl->teardown)
		wl->teardown(&cell);
	return 0;
}
