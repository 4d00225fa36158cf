/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_RCU_H
#define DCSIM_RCU_H

/*
 * RCU for dcsim, on liburcu's membarrier flavour (urcu-memb).
 *
 * Threads need no explicit registration: the first read-side critical
 * section of a thread registers it with liburcu, and the thread is
 * unregistered when it exits.  Readers never block or take a lock.
 *
 * In the instrumented build the read-side boundaries are schedule points, and
 * deferred callbacks are routed through a hook so the explorer can track
 * grace periods itself: a callback becomes ready once every logical thread
 * that was inside a read-side section at call_rcu() time has left it, and
 * the explorer runs it (or poisons the dentry it frees) at a schedule point
 * of its choice (<dcsim/explore.h>).
 */

#include <dcsim/compiler.h>

/*
 * Opaque: liburcu's struct rcu_head (two pointers), our callback, and (in
 * ThreadSanitizer builds) the readers the callback is ordered after.
 */
struct dcsim_rcu_head {
	void *opaque[4];
};

typedef void (*dcsim_rcu_cb_t)(struct dcsim_rcu_head *head);

DCSIM_API void dcsim_rcu_read_lock(void);
DCSIM_API void dcsim_rcu_read_unlock(void);

/** dcsim_call_rcu() - run @func(@head) after a grace period. */
DCSIM_API void dcsim_call_rcu(struct dcsim_rcu_head *head, dcsim_rcu_cb_t func);

/** dcsim_synchronize_rcu() - wait for pre-existing readers; not from a reader. */
DCSIM_API void dcsim_synchronize_rcu(void);

/** dcsim_rcu_barrier() - wait until every queued callback has run. */
DCSIM_API void dcsim_rcu_barrier(void);

/* Where dcsim_call_rcu() queues callbacks, and which threads run them. */
enum dcsim_rcu_callbacks {
	/* one queue and one thread for every caller (liburcu's default) */
	DCSIM_RCU_CB_GLOBAL,
	/*
	 * a queue and a thread per CPU, the thread bound to its CPU; a caller
	 * queues on the CPU it runs on, as the kernel's per-CPU callback lists
	 * (liburcu's create_all_cpu_call_rcu_data())
	 */
	DCSIM_RCU_CB_PER_CPU,
};

/**
 * dcsim_rcu_callbacks_setup() - choose how deferred callbacks are queued.
 * GLOBAL: the one callback thread is bound to @cpu (-1: to every CPU the
 * caller may run on, rather than to whichever CPU mask the thread that
 * first queued a callback had); PER_CPU: @cpu is ignored.  Switching from
 * PER_CPU to GLOBAL hands queued callbacks to the global queue.  Call it
 * from one thread while no other queues callbacks.
 * Return: 0; -EINVAL (unknown @mode, or @cpu not allowed to the caller);
 * -errno from liburcu (PER_CPU: ENOMEM, or ENOSYS without sched_getcpu()),
 * with the previous mode kept.
 */
DCSIM_API int dcsim_rcu_callbacks_setup(enum dcsim_rcu_callbacks mode, int cpu);

/*
 * Instrumented build: the explorer may take over deferred callbacks.  With a hook
 * installed, dcsim_call_rcu() hands the callback to it instead of liburcu.
 */
typedef void (*dcsim_rcu_defer_hook_t)(struct dcsim_rcu_head *head, dcsim_rcu_cb_t func);
DCSIM_API void dcsim_rcu_set_defer_hook(dcsim_rcu_defer_hook_t hook);

#endif /* DCSIM_RCU_H */
