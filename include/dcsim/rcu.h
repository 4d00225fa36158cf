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
 * In the check build the read-side boundaries are schedule points, and
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

/*
 * Check build: the explorer may take over deferred callbacks.  With a hook
 * installed, dcsim_call_rcu() hands the callback to it instead of liburcu.
 */
typedef void (*dcsim_rcu_defer_hook_t)(struct dcsim_rcu_head *head, dcsim_rcu_cb_t func);
DCSIM_API void dcsim_rcu_set_defer_hook(dcsim_rcu_defer_hook_t hook);

#endif /* DCSIM_RCU_H */
