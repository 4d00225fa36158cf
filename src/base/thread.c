// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Per-thread state: slot allocation, statistics blocks and their sums,
 * and the exit-time cleanup (RCU unregistration, folding counters into the
 * totals of exited threads).
 */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/task-local.h>

#include "internal.h"
#include "thread.h"

/* initial-exec: a plain %fs-relative access, no __tls_get_addr call per op. */
__thread struct dcsim_thread *dcsim_self __attribute__((tls_model("initial-exec")));
__thread struct dcsim_thread_blk dcsim_self_blk __attribute__((tls_model("initial-exec")));

/* Registry of live threads and the totals of those that have exited. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dcsim_thread *registry;
static struct dcsim_stats exited;
static uint64_t slot_map[DCSIM_MAX_THREADS / 64];

static pthread_key_t thread_key;
static pthread_once_t thread_key_once = PTHREAD_ONCE_INIT;

static void stats_add(struct dcsim_stats *sum, const struct dcsim_stats *s)
{
	for (size_t i = 0; i < DCSIM_ARRAY_SIZE(s->v); i++)
		sum->v[i] += __atomic_load_n(&s->v[i], __ATOMIC_RELAXED);
	for (size_t i = 0; i < DCSIM_ARRAY_SIZE(s->htm_explicit_code); i++)
		sum->htm_explicit_code[i] +=
			__atomic_load_n(&s->htm_explicit_code[i], __ATOMIC_RELAXED);
}

/* Set once at load time, before any thread can exit; read at each exit. */
static void (*exit_hook)(void);

void dcsim_thread_exit_hook_set(void (*fn)(void))
{
	__atomic_store_n(&exit_hook, fn, __ATOMIC_RELEASE);
}

/* Fold @t's counts into the totals, free its slot and @t; the caller's copy goes. */
static void thread_retire(struct dcsim_thread *t)
{
	struct dcsim_thread **pp;

	pthread_mutex_lock(&registry_lock);
	for (pp = &registry; *pp; pp = &(*pp)->next) {
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	}
	stats_add(&exited, &t->stats);
	slot_map[t->slot / 64] &= ~(1ull << (t->slot % 64));
	pthread_mutex_unlock(&registry_lock);

	dcsim_self = NULL;
	dcsim_self_blk.owner = NULL;	/* its block was in t's slot */
	dcsim_self_blk.block = NULL;
	free(t);
}

/* The pthread key's destructor: the pthread exits. */
static void thread_destroy(void *arg)
{
	struct dcsim_thread *t = arg;
	void (*fn)(void) = __atomic_load_n(&exit_hook, __ATOMIC_ACQUIRE);

	if (fn)
		fn();
	thread_retire(t);
}

/*
 * A logical thread of the explorer that ran on a shared pthread ends, its
 * copies installed: its state goes, not the pthread's RCU registration.
 */
static void thread_task_exit(void)
{
	if (dcsim_self && dcsim_self != pthread_getspecific(thread_key))
		thread_retire(dcsim_self);
}

void dcsim_thread_forget(void)
{
	struct dcsim_thread *t = dcsim_self;

	if (!t)
		return;
	if (t == pthread_getspecific(thread_key))
		pthread_setspecific(thread_key, NULL);
	thread_retire(t);
}

static void *self_addr(void)
{
	return &dcsim_self;
}

static void *self_blk_addr(void)
{
	return &dcsim_self_blk;
}

/* Each logical thread has its own slot and statistics, as a pthread has. */
static struct dcsim_task_local self_tl = {
	.addr = self_addr, .size = sizeof(dcsim_self), .exit = thread_task_exit,
};
static struct dcsim_task_local self_blk_tl = {
	.addr = self_blk_addr, .size = sizeof(dcsim_self_blk),
};

/* ---- the registry of task-local variables (<dcsim/task-local.h>) ---- */

static struct dcsim_task_local *task_locals;

void dcsim_task_local_register(struct dcsim_task_local *tl)
{
	struct dcsim_task_local *head = __atomic_load_n(&task_locals, __ATOMIC_RELAXED);

	/* Release: a reader that sees @tl sees its fields. */
	do {
		tl->next = head;
	} while (!__atomic_compare_exchange_n(&task_locals, &head, tl, false, __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
}

struct dcsim_task_local *dcsim_task_locals(void)
{
	return __atomic_load_n(&task_locals, __ATOMIC_ACQUIRE);
}

__attribute__((constructor)) static void thread_task_locals_init(void)
{
	dcsim_task_local_register(&self_blk_tl);
	dcsim_task_local_register(&self_tl);
}

static void thread_key_init(void)
{
	if (pthread_key_create(&thread_key, thread_destroy)) {
		fputs("dcsim: pthread_key_create failed\n", stderr);
		abort();
	}
}

struct dcsim_thread *dcsim_thread_create(void)
{
	struct dcsim_thread *t;
	unsigned int slot = DCSIM_MAX_THREADS;

	pthread_once(&thread_key_once, thread_key_init);
	t = calloc(1, sizeof(*t));
	if (!t) {
		fputs("dcsim: out of memory for thread state\n", stderr);
		abort();
	}

	pthread_mutex_lock(&registry_lock);
	for (unsigned int i = 0; i < DCSIM_MAX_THREADS; i++) {
		if (!(slot_map[i / 64] & (1ull << (i % 64)))) {
			slot = i;
			slot_map[i / 64] |= 1ull << (i % 64);
			break;
		}
	}
	if (slot < DCSIM_MAX_THREADS) {
		t->slot = slot;
		t->next = registry;
		registry = t;
	}
	pthread_mutex_unlock(&registry_lock);

	if (slot == DCSIM_MAX_THREADS) {
		fprintf(stderr, "dcsim: more than %d threads use dcsim at once\n",
			DCSIM_MAX_THREADS);
		abort();
	}
	/*
	 * The key belongs to the pthread's own state: a logical thread that
	 * runs on a pthread which already has one (a fiber of the explorer,
	 * whose controller made its state first) is retired by its task-local
	 * exit instead.
	 */
	if (!pthread_getspecific(thread_key))
		pthread_setspecific(thread_key, t);
	dcsim_self = t;
	return t;
}

void dcsim_stats_read(struct dcsim_stats *out)
{
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&registry_lock);
	stats_add(out, &exited);
	for (struct dcsim_thread *t = registry; t; t = t->next)
		stats_add(out, &t->stats);
	pthread_mutex_unlock(&registry_lock);
}

void dcsim_stats_read_thread(struct dcsim_stats *out)
{
	memset(out, 0, sizeof(*out));
	stats_add(out, &dcsim_thread_self()->stats);
}

static void stats_zero(struct dcsim_stats *s)
{
	for (size_t i = 0; i < DCSIM_ARRAY_SIZE(s->v); i++)
		__atomic_store_n(&s->v[i], 0, __ATOMIC_RELAXED);
	for (size_t i = 0; i < DCSIM_ARRAY_SIZE(s->htm_explicit_code); i++)
		__atomic_store_n(&s->htm_explicit_code[i], 0, __ATOMIC_RELAXED);
}

void dcsim_stats_reset(void)
{
	pthread_mutex_lock(&registry_lock);
	stats_zero(&exited);
	for (struct dcsim_thread *t = registry; t; t = t->next)
		stats_zero(&t->stats);
	pthread_mutex_unlock(&registry_lock);
}

static const char *const stat_names[DCSIM_STAT_NR] = {
	[DCSIM_STAT_LOCKREF_RETRIES]	= "lockref_retries",
	[DCSIM_STAT_LOCKREF_FALLBACKS]	= "lockref_fallbacks",
	[DCSIM_STAT_HTM_ATTEMPTS]	= "htm_attempts",
	[DCSIM_STAT_HTM_COMMITS]	= "htm_commits",
	[DCSIM_STAT_HTM_ABORTS]		= "htm_aborts",
	[DCSIM_STAT_HTM_ABORT_FIRST + DCSIM_HTM_CAUSE_CONFLICT]	= "htm_abort_conflict",
	[DCSIM_STAT_HTM_ABORT_FIRST + DCSIM_HTM_CAUSE_CAPACITY]	= "htm_abort_capacity",
	[DCSIM_STAT_HTM_ABORT_FIRST + DCSIM_HTM_CAUSE_EXPLICIT]	= "htm_abort_explicit",
	[DCSIM_STAT_HTM_ABORT_FIRST + DCSIM_HTM_CAUSE_NESTED]	= "htm_abort_nested",
	[DCSIM_STAT_HTM_ABORT_FIRST + DCSIM_HTM_CAUSE_DEBUG]	= "htm_abort_debug",
	[DCSIM_STAT_HTM_ABORT_FIRST + DCSIM_HTM_CAUSE_UNKNOWN]	= "htm_abort_unknown",
	[DCSIM_STAT_HTM_ABORT_FIRST + DCSIM_HTM_CAUSE_DISABLED]	= "htm_abort_disabled",
};

const char *dcsim_stat_name(enum dcsim_stat stat)
{
	if ((unsigned int)stat >= DCSIM_STAT_NR)
		return NULL;
	return stat_names[stat];
}
