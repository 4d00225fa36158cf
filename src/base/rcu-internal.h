/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_SRC_RCU_INTERNAL_H
#define DCSIM_SRC_RCU_INTERNAL_H

#include <stdbool.h>

struct dcsim_thread;
struct dcsim_rcu_head;

/*
 * Register the calling thread with liburcu, if not done yet, and note
 * whether the inline read side of rcu-read.h may serve it.
 */
void dcsim_rcu_thread_online_slow(void);

/*
 * The calling thread is registered and liburcu uses sys_membarrier: the
 * inline read side of rcu-read.h may serve it.  Set by
 * dcsim_rcu_thread_online_slow(), cleared when the thread exits; its
 * own thread's only, so a plain TLS flag.
 */
extern __thread bool dcsim_rcu_membarrier_ok __attribute__((tls_model("initial-exec")));

/*
 * liburcu's wake-up of a writer that waits for readers (a system call),
 * out of line for rcu-read.h's inline read side.
 */
void dcsim_rcu_wake_up_gp(void);

/* Called from the thread destructor: unregister from liburcu if needed. */
void dcsim_rcu_thread_exit(void);

/*
 * dcsim_rcu_tsan_before_free() - TSan builds: order the caller's accesses
 * so far before the callback that @head will be queued with.  For a
 * reference holder about to drop its reference: the kernel's put is a
 * relaxed cmpxchg and orders nothing, yet what the holder did precedes the
 * free, because the free waits for a grace period (a full barrier on every
 * CPU) that TSan cannot see.  Nothing else is ordered by it: an access
 * after the put is still reported against the free.
 */
#if defined(__SANITIZE_THREAD__)
void dcsim_rcu_tsan_before_free(struct dcsim_rcu_head *head);
#else
static inline void dcsim_rcu_tsan_before_free(struct dcsim_rcu_head *head)
{
	(void)head;
}
#endif

#endif
