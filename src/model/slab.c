// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Object caches for dentries and inodes.
 * models mm/slub.c: the per-CPU freelist in front of kmem_cache_alloc() and
 * kmem_cache_free() (in its newer "sheaves" form: a per-CPU array of
 * objects refilled from, and spilled to, a per-node "barn" of full arrays).
 *
 * What is modelled:
 *   - the fast path touches only the caller's own memory: a thread pops
 *     from and pushes onto its loaded magazine (an array of MAG_OBJS
 *     objects, one per slab per thread), with no lock and no atomic, as
 *     this_cpu_cmpxchg on c->freelist touches only the CPU's own line;
 *   - a free on another thread (liburcu's call_rcu threads free every
 *     dentry and inode after its grace period) fills that thread's own
 *     magazine, which moves to a depot as a whole when full: one lock per
 *     MAG_OBJS frees, not one shared line per object (SLUB's remote free
 *     cmpxchg's the slab page's freelist per object; its sheaves batch);
 *   - the depots are per CPU (sched_getcpu()), as the barn is per node:
 *     with --call-rcu percpu each CPU's call_rcu thread spills on the CPU
 *     whose worker queued the callbacks, and that worker refills from
 *     there, so objects stay on their CPU as in the kernel, where a CPU
 *     runs its own RCU callbacks;
 *   - bounded memory: a depot keeps at most DEPOT_MAGS full magazines and
 *     gives the rest back to malloc (as SLUB discards empty slabs beyond
 *     min_partial); the last dentry cache's destroy, a thread's exit and
 *     the library's unload give everything back.
 * What is not: slab pages, partial lists, NUMA, object constructors,
 * debugging red zones (the instrumented build poisons instead, below), memcg
 * accounting and shrinking the caches under memory pressure.  Workers
 * that migrate between CPUs refill from whichever depot they are near.
 *
 * Instrumented build: a freed object is poisoned with 0x6b (POISON_FREE, as
 * slub_debug=P does) and checked when handed out again; a write after
 * free warns.  Sanitizer builds bypass the caches for plain
 * aligned_alloc() and free(), so that ASan and TSan see each use after
 * free, race and leak of the objects themselves.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/config.h>
#include <dcsim/task-local.h>

#include "dcache.h"
#include "slab.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SLAB_BYPASS	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SLAB_BYPASS	1
#endif
#endif
#ifndef SLAB_BYPASS
#define SLAB_BYPASS	0
#endif

#define MAG_OBJS	32	/* objects per magazine */
#define DEPOT_MAGS	8	/* full magazines a depot keeps; the rest go to malloc */
#define NR_DEPOTS	64	/* CPUs beyond it share depots (cpu % NR_DEPOTS) */
#define SLAB_POISON	0x6b	/* include/linux/poison.h:POISON_FREE */

static const size_t slab_size[DCACHE_SLAB_NR] = {
	[DCACHE_SLAB_DENTRY] = sizeof(struct dcsim_dentry),
	[DCACHE_SLAB_INODE] = sizeof(struct dcsim_inode),
};

static void *object_new(enum dcache_slab_id id)
{
	void *obj = aligned_alloc(DCSIM_CACHELINE, slab_size[id]);

	if (!obj)
		errno = ENOMEM;
	return obj;
}

#if SLAB_BYPASS

void *dcache_slab_alloc(enum dcache_slab_id id)
{
	return object_new(id);
}

void dcache_slab_free(enum dcache_slab_id id, void *obj)
{
	(void)id;
	free(obj);
}

void dcache_slab_cache_get(void)
{
}

void dcache_slab_cache_put(void)
{
}

#else

static const char *const slab_name[DCACHE_SLAB_NR] = {
	[DCACHE_SLAB_DENTRY] = "dentry",
	[DCACHE_SLAB_INODE] = "inode",
};

struct magazine {
	struct magazine *next;		/* in a depot */
	unsigned int n;			/* objects in obj[0 .. n-1] */
	void *obj[MAG_OBJS];
};

/* One CPU's depot of full magazines per slab; a line of its own. */
struct depot {
	pthread_mutex_t lock;
	struct magazine *full[DCACHE_SLAB_NR];
	unsigned int nr_full[DCACHE_SLAB_NR];
} __attribute__((aligned(DCSIM_CACHELINE)));

static struct depot depots[NR_DEPOTS];
/* DCSIM_SLAB=off: plain malloc and free, for comparison; read once. */
static bool slab_off;
static pthread_once_t depots_once = PTHREAD_ONCE_INIT;
static pthread_key_t slab_key;
static unsigned long nr_caches;		/* live dentry caches, __atomic */

/* The calling thread's loaded magazines: written by this thread only. */
struct slab_tls {
	struct magazine *mag[DCACHE_SLAB_NR];
	bool key_set;			/* slab_key will give them back at exit */
};

static __thread struct slab_tls slab_tls;

static void slab_thread_exit(void *arg);

static void depots_init(void)
{
	const char *env = getenv("DCSIM_SLAB");

	slab_off = env && !strcmp(env, "off");
	for (unsigned int i = 0; i < NR_DEPOTS; i++)
		pthread_mutex_init(&depots[i].lock, NULL);
	if (pthread_key_create(&slab_key, slab_thread_exit)) {
		fputs("dcsim: pthread_key_create failed (slab)\n", stderr);
		abort();
	}
}

static struct depot *this_depot(void)
{
	int cpu = sched_getcpu();

	return &depots[cpu < 0 ? 0 : (unsigned int)cpu % NR_DEPOTS];
}

static void mag_release_objects(struct magazine *m)
{
	for (unsigned int i = 0; i < m->n; i++)
		free(m->obj[i]);
	m->n = 0;
}

/* Instrumented build: poison a freed object, and check the poison on reuse. */
static void object_poison(enum dcache_slab_id id, void *obj)
{
	if (DCSIM_INSTRUMENT)
		memset(obj, SLAB_POISON, slab_size[id]);
}

static void object_check_poison(enum dcache_slab_id id, void *obj)
{
	const unsigned char *p = obj;

	if (!DCSIM_INSTRUMENT)
		return;
	for (size_t i = 0; i < slab_size[id]; i++) {
		if (p[i] != SLAB_POISON) {
			if (!dcsim_warn_quiet())
				fprintf(stderr, "dcsim: slab %s: object %p written after "
					"free (byte %zu is 0x%02x, not 0x%02x)\n",
					slab_name[id], obj, i, p[i], SLAB_POISON);
			WARN_ON_ONCE(1);
			return;
		}
	}
}

/* The thread's loaded magazine of @id, made on first use. */
static struct magazine *loaded_mag(enum dcache_slab_id id)
{
	struct magazine *m = slab_tls.mag[id];

	if (likely(m))
		return m;
	pthread_once(&depots_once, depots_init);
	if (slab_off)
		return NULL;
	m = malloc(sizeof(*m));
	if (!m)
		return NULL;
	m->n = 0;
	m->next = NULL;
	slab_tls.mag[id] = m;
	if (!slab_tls.key_set) {
		slab_tls.key_set = true;
		pthread_setspecific(slab_key, &slab_tls);
	}
	return m;
}

/*
 * Swap the empty loaded magazine for a full one from this CPU's depot.
 * Return: true if it did.
 */
static bool mag_refill(enum dcache_slab_id id, struct magazine *m)
{
	struct depot *dp = this_depot();
	struct magazine *full;

	pthread_mutex_lock(&dp->lock);
	full = dp->full[id];
	if (full) {
		dp->full[id] = full->next;
		dp->nr_full[id]--;
	}
	pthread_mutex_unlock(&dp->lock);
	if (!full)
		return false;
	free(m);
	slab_tls.mag[id] = full;
	return true;
}

/*
 * The loaded magazine is full: hand it to this CPU's depot as a whole and
 * load an empty one, or, with the depot at its bound, give its objects back
 * to malloc and keep it.
 */
static void mag_spill(enum dcache_slab_id id, struct magazine *m)
{
	struct depot *dp = this_depot();
	struct magazine *fresh = malloc(sizeof(*fresh));
	bool kept = false;

	if (fresh) {
		pthread_mutex_lock(&dp->lock);
		if (dp->nr_full[id] < DEPOT_MAGS) {
			m->next = dp->full[id];
			dp->full[id] = m;
			dp->nr_full[id]++;
			kept = true;
		}
		pthread_mutex_unlock(&dp->lock);
	}
	if (!kept) {
		free(fresh);
		mag_release_objects(m);
		return;
	}
	fresh->n = 0;
	fresh->next = NULL;
	slab_tls.mag[id] = fresh;
}

void *dcache_slab_alloc(enum dcache_slab_id id)
{
	struct magazine *m = loaded_mag(id);
	void *obj;

	if (unlikely(!m))
		return object_new(id);
	if (unlikely(!m->n) && !mag_refill(id, m))
		return object_new(id);
	m = slab_tls.mag[id];
	obj = m->obj[--m->n];
	object_check_poison(id, obj);
	return obj;
}

void dcache_slab_free(enum dcache_slab_id id, void *obj)
{
	struct magazine *m;

	if (!obj)
		return;
	object_poison(id, obj);
	m = loaded_mag(id);
	if (unlikely(!m)) {
		free(obj);
		return;
	}
	if (unlikely(m->n == MAG_OBJS)) {
		mag_spill(id, m);
		m = slab_tls.mag[id];
	}
	m->obj[m->n++] = obj;
}

/* Give the calling thread's magazines and their objects back to malloc. */
static void thread_mags_release(struct slab_tls *tls)
{
	for (unsigned int id = 0; id < DCACHE_SLAB_NR; id++) {
		struct magazine *m = tls->mag[id];

		if (!m)
			continue;
		mag_release_objects(m);
		free(m);
		tls->mag[id] = NULL;
	}
}

/* pthread key destructor: a thread that made magazines exits. */
static void slab_thread_exit(void *arg)
{
	struct slab_tls *tls = arg;

	thread_mags_release(tls);
	/* A later key destructor that frees again registers anew. */
	tls->key_set = false;
}

/*
 * The magazines are a logical thread's (<dcsim/task-local.h>): the
 * explorer's fibers on one pthread each have their own, as pthreads do,
 * and give them back when they end.
 */
static void *slab_tls_addr(void)
{
	return &slab_tls;
}

static void slab_task_exit(void)
{
	thread_mags_release(&slab_tls);
}

static struct dcsim_task_local slab_tl = {
	.addr = slab_tls_addr, .size = sizeof(slab_tls), .exit = slab_task_exit,
};

__attribute__((constructor)) static void slab_task_local_init(void)
{
	dcsim_task_local_register(&slab_tl);
}

/* Give every depot's magazines and objects back to malloc. */
static void depots_release(void)
{
	for (unsigned int i = 0; i < NR_DEPOTS; i++) {
		struct depot *dp = &depots[i];

		for (unsigned int id = 0; id < DCACHE_SLAB_NR; id++) {
			struct magazine *m;

			pthread_mutex_lock(&dp->lock);
			m = dp->full[id];
			dp->full[id] = NULL;
			dp->nr_full[id] = 0;
			pthread_mutex_unlock(&dp->lock);
			while (m) {
				struct magazine *next = m->next;

				mag_release_objects(m);
				free(m);
				m = next;
			}
		}
	}
}

void dcache_slab_cache_get(void)
{
	__atomic_add_fetch(&nr_caches, 1, __ATOMIC_RELAXED);
}

void dcache_slab_cache_put(void)
{
	if (__atomic_sub_fetch(&nr_caches, 1, __ATOMIC_ACQ_REL))
		return;
	/*
	 * The last cache is gone: nothing is allocated from the slabs until
	 * the next create.  Frees still queued behind a grace period land in
	 * their call_rcu thread's magazine, given back when it exits.
	 */
	thread_mags_release(&slab_tls);
	pthread_once(&depots_once, depots_init);
	depots_release();
}

/* Library unload or process exit: nothing stays behind for leak checkers. */
__attribute__((destructor)) static void slab_unload(void)
{
	thread_mags_release(&slab_tls);
	pthread_once(&depots_once, depots_init);
	depots_release();
}

#endif /* !SLAB_BYPASS */
