// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * --sharing: the machine-independent scaling figure.  For each workload,
 * strategy and thread count, the atomic RMWs and the stores per op made to
 * cache lines (64 bytes) that more than one thread writes.  Every such write
 * moves the line between CPUs on a real machine, so the figure predicts what
 * a many-core run will see: 0 scales, anything above 0 has a line every op
 * of every thread queues for.
 *
 * How: in the instrumented build every shared access goes through a schedule point
 * (<dcsim/atomic.h>), and dcsim_access_observer_set() lets this file see
 * those of ordinary threads.  The observer keeps, per thread, a count of
 * RMWs and stores per line; after the cell, the lines written by more than
 * one thread are found and their writes summed.  The normal build has no
 * schedule points, so --sharing is refused there and costs it nothing.
 *
 * The workers are real threads (their RCU registration, thread slots and
 * per-thread blocks are the real ones), but they take turns: one op each,
 * round robin, handed on under a mutex.  So the figure is a property of the
 * code, not of timing: no cmpxchg fails for contention and retries, every
 * machine gives the same numbers, and 4 or 16 threads run on 2 CPUs alike.
 * Round robin at op granularity still puts every line that two threads' ops
 * write into two threads' tables.  What a concurrent run adds on top
 * (failed cmpxchg retries, spinning on a held lock) only grows with
 * contention, so the figure is a lower bound of the shared writes.
 *
 * What it cannot see: accesses not made through <dcsim/atomic.h> (glibc
 * malloc and free, liburcu's own queues and counters, pthread mutexes such
 * as the bench's create_lock, the model's per-thread statistics, which use
 * __atomic directly), and the inside of hardware transactions (the policy
 * is set to off: the observer's own writes would abort every transaction).
 * Helper threads (churn's shrinker, liburcu's call_rcu thread) run
 * concurrently, not in turn; their writes are recorded and counted
 * (reported apart as "helpers"), so churn and mixed vary a little from run
 * to run.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/atomic.h>
#include <dcsim/config.h>
#include <dcsim/htm.h>
#if DCSIM_INSTRUMENT
#include <dcsim/explore.h>
#endif

#include "bench.h"

#define LINE_SHIFT	6	/* 64-byte cache lines */
#define MAX_RECORDERS	(BENCH_MAX_THREADS + 16)

bool bench_sharing_supported(void)
{
	return DCSIM_INSTRUMENT;
}

#if DCSIM_INSTRUMENT

/* One line's writes by one thread. */
struct line_count {
	uintptr_t line;		/* address >> LINE_SHIFT; 0: empty slot */
	uint32_t rmw, stores;
};

/* One thread's table: open addressing, grown at half full. */
struct recorder {
	pthread_mutex_t lock;	/* a helper may record while main merges */
	bool worker;
	struct line_count *v;
	size_t cap, used;
};

static struct {
	pthread_mutex_t lock;	/* recorder attach and merge */
	unsigned long gen;	/* bumped per cell: stale thread-local recorders */
	int on;			/* __atomic: recording */
	struct recorder *rec[MAX_RECORDERS];
	unsigned int nr;
	unsigned int lost;	/* threads beyond MAX_RECORDERS, not counted */
} sh = { .lock = PTHREAD_MUTEX_INITIALIZER };

static __thread struct recorder *self_rec;
static __thread unsigned long self_gen;

static size_t hash_line(uintptr_t line, size_t cap)
{
	return (size_t)((line * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

static struct line_count *table_slot(struct line_count *v, size_t cap, uintptr_t line)
{
	size_t i = hash_line(line, cap);

	while (v[i].line && v[i].line != line)
		i = (i + 1) & (cap - 1);
	return &v[i];
}

/* rec->lock held.  Return: false when out of memory (the write is lost). */
static bool table_grow(struct recorder *rec)
{
	size_t ncap = rec->cap ? rec->cap * 2 : 1024;
	struct line_count *nv = calloc(ncap, sizeof(*nv));

	if (!nv)
		return false;
	for (size_t i = 0; i < rec->cap; i++)
		if (rec->v[i].line)
			*table_slot(nv, ncap, rec->v[i].line) = rec->v[i];
	free(rec->v);
	rec->v = nv;
	rec->cap = ncap;
	return true;
}

static struct recorder *attach(bool worker)
{
	struct recorder *rec = calloc(1, sizeof(*rec));

	if (!rec)
		return NULL;
	pthread_mutex_init(&rec->lock, NULL);
	rec->worker = worker;
	pthread_mutex_lock(&sh.lock);
	if (sh.nr == MAX_RECORDERS) {
		sh.lost++;
		pthread_mutex_unlock(&sh.lock);
		free(rec);
		return NULL;
	}
	sh.rec[sh.nr++] = rec;
	self_rec = rec;
	self_gen = sh.gen;
	pthread_mutex_unlock(&sh.lock);
	return rec;
}

/*
 * The observer: on the accessing thread, before the access.  It makes no
 * access through <dcsim/atomic.h> itself (it would be called again).
 */
static void observe(enum dcsim_access acc, const volatile void *addr, unsigned int size)
{
	struct recorder *rec;
	struct line_count *lc;
	uintptr_t line;

	(void)size;
	if (!__atomic_load_n(&sh.on, __ATOMIC_RELAXED) || !addr)
		return;
	if (acc != DCSIM_ACC_STORE && acc != DCSIM_ACC_RMW && acc != DCSIM_ACC_RMW_RELAXED)
		return;
	rec = self_rec;
	if (!rec || self_gen != __atomic_load_n(&sh.gen, __ATOMIC_RELAXED)) {
		/* a thread no worker: a helper, liburcu's call_rcu thread */
		rec = attach(false);
		if (!rec)
			return;
	}
	line = (uintptr_t)addr >> LINE_SHIFT;
	pthread_mutex_lock(&rec->lock);
	if ((rec->used + 1) * 2 > rec->cap && !table_grow(rec)) {
		pthread_mutex_unlock(&rec->lock);
		return;
	}
	lc = table_slot(rec->v, rec->cap, line);
	if (!lc->line) {
		lc->line = line;
		rec->used++;
	}
	if (acc == DCSIM_ACC_STORE)
		lc->stores++;
	else
		lc->rmw++;
	pthread_mutex_unlock(&rec->lock);
}

/* Main, between cells: drop every recorder (no recording is on). */
static void recorders_reset(void)
{
	pthread_mutex_lock(&sh.lock);
	for (unsigned int i = 0; i < sh.nr; i++) {
		struct recorder *rec = sh.rec[i];

		/* a helper may still be inside observe() for the last cell */
		pthread_mutex_lock(&rec->lock);
		pthread_mutex_unlock(&rec->lock);
		pthread_mutex_destroy(&rec->lock);
		free(rec->v);
		free(rec);
	}
	sh.nr = 0;
	sh.lost = 0;
	__atomic_add_fetch(&sh.gen, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&sh.lock);
}

/* Which thread owns a line so far; shared once a second one writes it. */
struct line_owner {
	uintptr_t line;
	unsigned int owner;
	bool shared;
};

/* Main, recording off: sum the writes to lines more than one thread wrote. */
static int merge(struct bench_share *out)
{
	struct line_owner *m;
	size_t cap = 1024, total = 0;

	pthread_mutex_lock(&sh.lock);
	for (unsigned int r = 0; r < sh.nr; r++)
		total += sh.rec[r]->used;
	while (cap < 2 * total + 2)
		cap *= 2;
	m = calloc(cap, sizeof(*m));
	if (!m) {
		pthread_mutex_unlock(&sh.lock);
		return -ENOMEM;
	}
	for (unsigned int r = 0; r < sh.nr; r++) {
		struct recorder *rec = sh.rec[r];

		pthread_mutex_lock(&rec->lock);
		for (size_t i = 0; i < rec->cap; i++) {
			uintptr_t line = rec->v[i].line;
			size_t k;

			if (!line)
				continue;
			for (k = hash_line(line, cap); m[k].line && m[k].line != line;
			     k = (k + 1) & (cap - 1))
				;
			if (!m[k].line) {
				m[k] = (struct line_owner){ .line = line, .owner = r };
			} else if (m[k].owner != r && !m[k].shared) {
				m[k].shared = true;
				out->lines++;
			}
		}
		pthread_mutex_unlock(&rec->lock);
	}
	for (unsigned int r = 0; r < sh.nr; r++) {
		struct recorder *rec = sh.rec[r];

		pthread_mutex_lock(&rec->lock);
		for (size_t i = 0; i < rec->cap; i++) {
			const struct line_count *lc = &rec->v[i];
			size_t k;

			if (!lc->line)
				continue;
			out->writes += lc->rmw + lc->stores;
			for (k = hash_line(lc->line, cap); m[k].line != lc->line;
			     k = (k + 1) & (cap - 1))
				;
			if (!m[k].shared)
				continue;
			out->rmw += lc->rmw;
			out->stores += lc->stores;
			if (!rec->worker)
				out->helper += lc->rmw + lc->stores;
		}
		pthread_mutex_unlock(&rec->lock);
	}
	out->lost_threads = sh.lost;
	pthread_mutex_unlock(&sh.lock);
	free(m);
	return 0;
}

/* One cell: the workers take turns, one op each. */
struct share_cell {
	struct bench_cell *cell;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t step, warm_steps, total_steps;	/* under lock */
};

struct share_thread {
	struct share_cell *sc;
	unsigned int id;
};

static void *share_worker(void *arg)
{
	struct share_thread *t = arg;
	struct share_cell *sc = t->sc;
	struct bench_cell *cell = sc->cell;
	unsigned int n = cell->nthreads;
	struct bench_worker w;

	bench_worker_init(cell, &w, t->id);
	if (cell->wl->thread_init)
		cell->wl->thread_init(cell, &w);
	attach(true);
	pthread_mutex_lock(&sc->lock);
	for (;;) {
		while (sc->step < sc->total_steps && sc->step % n != t->id)
			pthread_cond_wait(&sc->cond, &sc->lock);
		if (sc->step >= sc->total_steps)
			break;
		/* our turn: nobody else runs an op until we hand on */
		if (sc->step == sc->warm_steps)
			__atomic_store_n(&sh.on, 1, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&sc->lock);
		cell->wl->run(cell, &w, 1);
		pthread_mutex_lock(&sc->lock);
		if (++sc->step == sc->total_steps)
			__atomic_store_n(&sh.on, 0, __ATOMIC_RELAXED);
		pthread_cond_broadcast(&sc->cond);
	}
	pthread_mutex_unlock(&sc->lock);
	if (cell->wl->thread_fini)
		cell->wl->thread_fini(cell, &w);
	return NULL;
}

struct helper_arg {
	struct bench_cell *cell;
	int stop;
};

static void *share_helper(void *arg)
{
	struct helper_arg *h = arg;

	h->cell->wl->helper(h->cell, &h->stop);
	return NULL;
}

static int share_cell_run(struct bench_config *cfg, const struct bench_workload *wl,
			  const struct bench_subject *subj, unsigned int nthreads,
			  uint64_t ops, uint64_t warm, struct bench_share *out)
{
	struct bench_cell cell = { .cfg = cfg, .wl = wl, .subj = subj, .nthreads = nthreads };
	struct share_cell sc = {
		.cell = &cell, .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER,
		.warm_steps = warm * nthreads, .total_steps = (warm + ops) * nthreads,
	};
	struct share_thread t[BENCH_MAX_THREADS];
	pthread_t tid[BENCH_MAX_THREADS];
	struct helper_arg harg = { .cell = &cell };
	pthread_t helper;
	bool have_helper = false;
	unsigned int started = 0;
	int err = 0;

	recorders_reset();
	if (wl->setup) {
		err = wl->setup(&cell);
		if (err)
			return err;
	}
	/* the helper starts first: the workers' first turn may need it */
	if (wl->helper && pthread_create(&helper, NULL, share_helper, &harg) == 0)
		have_helper = true;
	for (unsigned int i = 0; i < nthreads; i++) {
		t[i] = (struct share_thread){ .sc = &sc, .id = i };
		err = pthread_create(&tid[i], NULL, share_worker, &t[i]);
		if (err) {
			fprintf(stderr, "dcsim-bench: --sharing: cannot start worker %u: %s\n", i,
				strerror(err));
			/* let the started ones finish: no turn is waited for past the end */
			pthread_mutex_lock(&sc.lock);
			sc.total_steps = sc.step;
			pthread_cond_broadcast(&sc.cond);
			pthread_mutex_unlock(&sc.lock);
			err = -err;
			break;
		}
		started++;
	}
	for (unsigned int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	__atomic_store_n(&sh.on, 0, __ATOMIC_RELAXED);
	if (have_helper) {
		__atomic_store_n(&harg.stop, 1, __ATOMIC_RELAXED);
		pthread_join(helper, NULL);
	}
	if (!err) {
		out->ops = ops * nthreads;
		err = merge(out);
		out->done = !err;
	}
	if (wl->teardown)
		wl->teardown(&cell);
	recorders_reset();
	return err;
}

int bench_sharing_run(struct bench_config *cfg)
{
	uint64_t ops = cfg->ops ? cfg->ops : BENCH_SHARING_OPS;
	uint64_t warm = (uint64_t)((double)ops * cfg->warmup);
	unsigned int n = 0, total, done = 0;
	int failed = 0;

	if (cfg->warmup > 0 && !warm)
		warm = 1;
	cfg->share_ops = ops;
	cfg->share_warm = warm;
	total = (cfg->nr_groups - 1) * (cfg->nr_subjects - BENCH_NR_BOUNDS) * cfg->nr_threads;
	cfg->share = calloc(total ? total : 1, sizeof(*cfg->share));
	if (!cfg->share)
		return 1;
	dcsim_access_observer_set(observe);
	for (unsigned int g = 1; g < cfg->nr_groups; g++)
		for (unsigned int ti = 0; ti < cfg->nr_threads; ti++)
			for (unsigned int s = BENCH_NR_BOUNDS; s < cfg->nr_subjects; s++) {
				struct bench_share *r = &cfg->share[n++];
				int err;

				r->group = cfg->groups[g].name;
				r->subject = cfg->subjects[s].name;
				r->threads = cfg->threads[ti];
				if (cfg->progress) {
					fprintf(stderr, "\r\033[K[%3u%%] sharing %-6s t=%-3u %-12s",
						done * 100 / total, r->group, r->threads, r->subject);
					fflush(stderr);
				}
				err = share_cell_run(cfg, cfg->groups[g].wl, &cfg->subjects[s],
						     r->threads, ops, warm, r);
				done++;
				if (err) {
					fprintf(stderr, "dcsim-bench: --sharing %s/%s/%u threads: %s\n",
						r->group, r->subject, r->threads, strerror(-err));
					failed = 1;
				}
			}
	dcsim_access_observer_set(NULL);
	cfg->nr_share = n;
	if (cfg->progress)
		fprintf(stderr, "\r\033[K");
	return failed;
}

#else /* !DCSIM_INSTRUMENT */

int bench_sharing_run(struct bench_config *cfg)
{
	(void)cfg;
	fprintf(stderr, "dcsim-bench: --sharing needs the instrumented build\n");
	return 2;
}

#endif
