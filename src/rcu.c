// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * RCU on liburcu's membarrier flavour, with lazy reader registration.
 *
 * urcu-memb makes rcu_read_lock() a plain per-thread counter update; the
 * writer side uses sys_membarrier (or falls back to a full barrier on each
 * read-side boundary) to see readers.  Registration is needed once per
 * thread before its first read-side section, which we do on demand.
 */

/*
 * _LGPL_SOURCE: inline liburcu's read-side fast paths (a per-thread nesting
 * count and a compiler barrier with sys_membarrier) instead of calling into
 * the library twice per dput.  dcsim is LGPL-2.1-or-later, as liburcu asks.
 * Not under TSan: inlined, liburcu's deliberately racy reader/writer
 * handshake would be instrumented on our side only and reported; out of
 * line it stays invisible and the annotations below describe it.
 */
#if !defined(__SANITIZE_THREAD__)
#define _LGPL_SOURCE
#endif
#include <urcu/urcu-memb.h>
#include <urcu/call-rcu.h>

#include <dcsim/rcu.h>

#include "internal.h"
#include "rcu-internal.h"
#include "thread.h"

/* What struct dcsim_rcu_head really holds. */
struct dcsim_rcu_thunk {
	struct rcu_head head;
	dcsim_rcu_cb_t func;
};

_Static_assert(sizeof(struct dcsim_rcu_head) >= sizeof(struct dcsim_rcu_thunk),
	       "dcsim_rcu_head must hold liburcu's rcu_head and a callback");

static dcsim_rcu_defer_hook_t defer_hook;

/*
 * ThreadSanitizer cannot see liburcu's ordering (the library is not
 * instrumented), so we tell it what RCU guarantees, instead of suppressing
 * its reports: every read-side critical section happens-before every
 * callback that runs after a later grace period (release on unlock, acquire
 * before the callback), and a call_rcu() caller's writes happen-before its
 * callback (release on the head, acquire on it in the worker).
 */
static char rcu_tsan_gp;	/* the sync object standing for grace periods */
#if defined(__SANITIZE_THREAD__)
/* Declared by <dcsim/atomic.h> for its TSan fences; defined once, here. */
int dcsim_tsan_fence_word;
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define rcu_tsan_acquire(p)	__tsan_acquire(p)
#define rcu_tsan_release(p)	__tsan_release(p)
#else
#define rcu_tsan_acquire(p)	((void)(p))
#define rcu_tsan_release(p)	((void)(p))
#endif

static inline void rcu_thread_online(void)
{
	struct dcsim_thread *t = __dcsim_thread();

	if (unlikely(!t->rcu_registered)) {
		urcu_memb_register_thread();
		t->rcu_registered = true;
	}
}

void __dcsim_rcu_thread_exit(struct dcsim_thread *t)
{
	if (t->rcu_registered) {
		urcu_memb_unregister_thread();
		t->rcu_registered = false;
	}
}

void dcsim_rcu_read_lock(void)
{
	rcu_thread_online();
	__dcsim_sp_fence(DCSIM_ACC_RCU_LOCK);
	urcu_memb_read_lock();
}

void dcsim_rcu_read_unlock(void)
{
	rcu_tsan_release(&rcu_tsan_gp);
	urcu_memb_read_unlock();
	__dcsim_sp_fence(DCSIM_ACC_RCU_UNLOCK);
}

static void rcu_thunk_call(struct rcu_head *head)
{
	struct dcsim_rcu_thunk *thunk = dcsim_container_of(head, struct dcsim_rcu_thunk, head);

	rcu_tsan_acquire(thunk);
	rcu_tsan_acquire(&rcu_tsan_gp);
	thunk->func((struct dcsim_rcu_head *)(void *)thunk);
}

void dcsim_call_rcu(struct dcsim_rcu_head *head, dcsim_rcu_cb_t func)
{
	dcsim_rcu_defer_hook_t hook = __atomic_load_n(&defer_hook, __ATOMIC_ACQUIRE);
	struct dcsim_rcu_thunk *thunk;

	if (hook) {
		hook(head, func);
		return;
	}
	thunk = (struct dcsim_rcu_thunk *)(void *)head;
	rcu_thread_online();
	thunk->func = func;
	rcu_tsan_release(thunk);
	urcu_memb_call_rcu(&thunk->head, rcu_thunk_call);
}

void dcsim_synchronize_rcu(void)
{
	urcu_memb_synchronize_rcu();
}

void dcsim_rcu_barrier(void)
{
	rcu_thread_online();
	urcu_memb_barrier();
}

void dcsim_rcu_set_defer_hook(dcsim_rcu_defer_hook_t hook)
{
	__atomic_store_n(&defer_hook, hook, __ATOMIC_RELEASE);
}
