/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_SRC_THREAD_H
#define DCSIM_SRC_THREAD_H

/*
 * Per-thread state, internal to the library: a small slot number (for
 * per-thread arrays inside caches) and the statistics block.  Created on
 * first use, retired by a pthread key destructor when the thread exits.
 * Task-local (<dcsim/task-local.h>): a logical thread of the explorer
 * running on a shared pthread has its own, retired when it ends.
 */

#include <stdbool.h>
#include <stdint.h>

#include <dcsim/stats.h>

#define DCSIM_MAX_THREADS	256

struct dcsim_thread {
	struct dcsim_thread *next;	/* registry, under the registry mutex */
	unsigned int slot;		/* 0 .. DCSIM_MAX_THREADS-1 */
	struct dcsim_stats stats;	/* written by this thread only */
};

extern __thread struct dcsim_thread *dcsim_self __attribute__((tls_model("initial-exec")));

/*
 * A one-entry per-thread cache for per-object, per-thread counter blocks
 * (a dcache's statistics, src/model/stats.h:dstat_block()): the object
 * the thread counted in last and its block there.  It saves finding the
 * thread's slot and the object's array on every event.  Objects must not
 * be freed and reallocated at the same address while threads count in
 * them (dcaches never are: destroyed ones stay in a graveyard).  Cleared
 * when the thread state is retired, since a new state may get a new slot.
 */
struct dcsim_thread_blk {
	const void *owner;
	void *block;
};

extern __thread struct dcsim_thread_blk dcsim_self_blk __attribute__((tls_model("initial-exec")));

struct dcsim_thread *dcsim_thread_create(void);

/*
 * dcsim_thread_exit_hook_set() - what runs first when a thread that has a
 * struct dcsim_thread exits, before the struct is freed: rcu.c sets its
 * unregistration (dcsim_rcu_thread_exit()) from a load-time constructor,
 * so that the thread layer does not call RCU by name.
 */
void dcsim_thread_exit_hook_set(void (*fn)(void));

/*
 * dcsim_thread_forget() - the caller (a pthread, or the logical thread
 * whose task-local copies are installed) never runs dcsim code again, but
 * does not exit: an explorer thread parked for good after a failed
 * execution.  Its counts go to the totals and its slot is freed, so that
 * parked threads do not use up the DCSIM_MAX_THREADS slots.  Its liburcu
 * registration stays.
 */
void dcsim_thread_forget(void);

static inline struct dcsim_thread *dcsim_thread_self(void)
{
	struct dcsim_thread *t = dcsim_self;

	if (dcsim_unlikely(!t))
		t = dcsim_thread_create();
	return t;
}

/* The calling thread's slot, 0 .. DCSIM_MAX_THREADS-1. */
static inline unsigned int dcsim_thread_slot(void)
{
	return dcsim_thread_self()->slot;
}

/*
 * Single writer: the count needs no atomic read-modify-write, only a store
 * that readers (dcsim_stats_read() from other threads) see whole.  On
 * x86-64 that is one add to memory, as the kernel's this_cpu_add(): its
 * store is a single aligned 8-byte write.  Elsewhere, and under TSan (which
 * must see the access as atomic), a relaxed load and store, which keep the
 * count readable without a data race.
 */
static inline void dcsim_counter_add(uint64_t *ctr, uint64_t n)
{
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
	__asm__ ("addq %1, %0" : "+m" (*ctr) : "er" (n) : "cc");
#else
	__atomic_store_n(ctr, __atomic_load_n(ctr, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
#endif
}

static inline void dcsim_stat_add(enum dcsim_stat stat, uint64_t n)
{
	dcsim_counter_add(&dcsim_thread_self()->stats.v[stat], n);
}

static inline void dcsim_stat_inc(enum dcsim_stat stat)
{
	dcsim_stat_add(stat, 1);
}

#endif /* DCSIM_SRC_THREAD_H */
