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
#define _GNU_SOURCE	/* pthread_{get,set}affinity_np() */
#include <errno.h>
#include <pthread.h>
#include <sched.h>

#include <urcu/urcu-memb.h>
#include <urcu/call-rcu.h>

#include <dcsim/rcu.h>
#include <dcsim/task-local.h>

#include "internal.h"
#include "rcu-internal.h"
#include "thread.h"

/* What struct dcsim_rcu_head really holds. */
struct dcsim_rcu_thunk {
	struct rcu_head head;
	dcsim_rcu_cb_t func;
	void *tsan_readers;	/* TSan builds: the readers at call_rcu() time */
};

_Static_assert(sizeof(struct dcsim_rcu_head) >= sizeof(struct dcsim_rcu_thunk),
	       "dcsim_rcu_head must hold liburcu's rcu_head and a callback");

static dcsim_rcu_defer_hook_t defer_hook;

/*
 * ThreadSanitizer cannot see liburcu's ordering (the library is not
 * instrumented), so we tell it what RCU guarantees, instead of suppressing
 * its reports, and no more.  A read-side section that began before a grace
 * period began ends before it ends, so a callback happens-after
 *  (a) every section that had ended when call_rcu() was called (as a lower
 *      bound of the grace period's start), and
 *  (b) the end of every section running at that time,
 * and after the call_rcu() caller's writes (release on the head, acquire
 * on it in the worker).  It is *not* ordered after sections that begin
 * after call_rcu(): an access made outside any section (a missing
 * rcu_read_lock()) that is not followed by the end of a section before
 * call_rcu() races with the free, and TSan reports it.  (One global sync
 * object released by each unlock and acquired by each callback, as before,
 * also ordered every section that ended while the grace period ran.)
 *
 * (a): each unlock releases rcu_tsan_gp; call_rcu() folds its clock into
 * the head from a private fiber, so that the caller itself acquires
 * nothing.  (b): each reader thread owns a slot with its own sync object,
 * released by its unlocks; the callback acquires the slots that were
 * inside a section at call_rcu() time (a bitmap per callback).  That
 * acquire also gets the slot's later releases, which can only hide a race,
 * not invent one.  A thread beyond RCU_TSAN_SLOTS uses the overflow object,
 * which every callback acquires.
 */
#if defined(__SANITIZE_THREAD__)
/* Declared by <dcsim/atomic.h> for its TSan fences; defined once, here. */
int dcsim_tsan_fence_word;
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned int flags);
void __tsan_switch_to_fiber(void *fiber, unsigned int flags);
#define TSAN_SWITCH_NO_SYNC	1u	/* __tsan_switch_to_fiber_no_sync */

#include <stdlib.h>

/*
 * A full barrier that TSan does not see: it rejects atomic_thread_fence(),
 * and an RMW on a shared word would synchronise every pair of callers.
 */
#if defined(__x86_64__)
#define rcu_tsan_mb()	__asm__ __volatile__("mfence" ::: "memory")
#elif defined(__aarch64__)
#define rcu_tsan_mb()	__asm__ __volatile__("dmb ish" ::: "memory")
#elif defined(__powerpc64__)
#define rcu_tsan_mb()	__asm__ __volatile__("sync" ::: "memory")
#else
#error "TSan build: add a full barrier for this architecture"
#endif

#define RCU_TSAN_SLOTS	256
#define RCU_TSAN_WORDS	(RCU_TSAN_SLOTS / 64)

/*
 * depth is read and written with relaxed atomics only: TSan turns a
 * seq_cst or acquire load into an acquire, which would order a reader's
 * accesses before every later call_rcu() caller (and so before its free)
 * and hide the very race this is for.  Barriers TSan cannot see order them
 * instead (rcu_tsan_mb()): see
 * rcu_tsan_snapshot() for which pairs with which.
 */
struct rcu_tsan_slot {
	int busy;		/* claimed by a live thread */
	int depth;		/* read-side nesting */
	char sync;		/* the sync object */
};

static struct rcu_tsan_slot rcu_tsan_slots[RCU_TSAN_SLOTS];
static char rcu_tsan_gp;	/* released by every unlock: (a) above */
static char rcu_tsan_overflow;
static __thread int rcu_tsan_self = -1;	/* slot, -2 for the overflow object */
static __thread void *rcu_tsan_fiber;	/* folds rcu_tsan_gp into a head */
static __thread char rcu_tsan_sync_gp;	/* the same for synchronize_rcu() */
#define rcu_tsan_sync_obj()	((void *)&rcu_tsan_sync_gp)

static struct rcu_tsan_slot *rcu_tsan_slot(void)
{
	if (rcu_tsan_self == -1) {
		rcu_tsan_self = -2;
		for (int i = 0; i < RCU_TSAN_SLOTS; i++) {
			int zero = 0;

			if (__atomic_compare_exchange_n(&rcu_tsan_slots[i].busy, &zero, 1, false,
							__ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
				rcu_tsan_self = i;
				break;
			}
		}
	}
	return rcu_tsan_self >= 0 ? &rcu_tsan_slots[rcu_tsan_self] : NULL;
}

static void rcu_tsan_enter(void)
{
	struct rcu_tsan_slot *sl = rcu_tsan_slot();

	if (sl)
		__atomic_add_fetch(&sl->depth, 1, __ATOMIC_RELAXED);
	/* Before the section's loads; pairs with rcu_tsan_snapshot()'s first fence. */
	rcu_tsan_mb();
}

static void rcu_tsan_exit(void)
{
	struct rcu_tsan_slot *sl = rcu_tsan_slot();

	__tsan_release(&rcu_tsan_gp);
	__tsan_release(sl ? (void *)&sl->sync : (void *)&rcu_tsan_overflow);
	/* The releases before the drop: rcu_tsan_snapshot() relies on it. */
	rcu_tsan_mb();
	if (sl)
		__atomic_sub_fetch(&sl->depth, 1, __ATOMIC_RELAXED);
}

static void rcu_tsan_thread_exit(void)
{
	if (rcu_tsan_self >= 0)
		__atomic_store_n(&rcu_tsan_slots[rcu_tsan_self].busy, 0, __ATOMIC_SEQ_CST);
	rcu_tsan_self = -1;
}

/*
 * At call_rcu(): return (b) the slots inside a section now, then (a) fold
 * the ends of all sections so far into @head's sync object, on a private
 * fiber so that the caller acquires nothing.
 *
 * The order matters.  rcu_tsan_exit() releases rcu_tsan_gp before it
 * drops the depth; a section whose exit falls between a fold taken first
 * and a depth scan taken after would be in neither set, and its accesses
 * would be reported as racing with the free.  Scanning first, a depth
 * seen as zero was dropped after that section's release, so the fold
 * that follows includes it.  The first barrier pairs with the one in
 * rcu_tsan_enter() (store buffering: our caller's unlinking store against
 * a reader's depth increment); the second keeps the relaxed scan before
 * the fold.  TSan sees neither barrier, so they hide no race.
 */
static uint64_t *rcu_tsan_snapshot(void *head)
{
	uint64_t *m = calloc(RCU_TSAN_WORDS, sizeof(*m));

	rcu_tsan_mb();
	for (int i = 0; m && i < RCU_TSAN_SLOTS; i++)
		if (__atomic_load_n(&rcu_tsan_slots[i].depth, __ATOMIC_RELAXED))
			m[i / 64] |= 1ull << (i % 64);
	rcu_tsan_mb();
	if (head) {
		void *self = __tsan_get_current_fiber();

		if (!rcu_tsan_fiber)
			rcu_tsan_fiber = __tsan_create_fiber(0);
		__tsan_switch_to_fiber(rcu_tsan_fiber, TSAN_SWITCH_NO_SYNC);
		__tsan_acquire(&rcu_tsan_gp);
		__tsan_release(head);
		__tsan_switch_to_fiber(self, TSAN_SWITCH_NO_SYNC);
	}
	return m;	/* NULL: then the callback acquires every slot */
}

/* After a grace period that began after @m was taken; frees @m. */
static void rcu_tsan_after_gp(uint64_t *m)
{
	for (int i = 0; i < RCU_TSAN_SLOTS; i++)
		if (!m || (m[i / 64] & (1ull << (i % 64))))
			__tsan_acquire(&rcu_tsan_slots[i].sync);
	__tsan_acquire(&rcu_tsan_overflow);
	free(m);
}
#define rcu_tsan_acquire(p)	__tsan_acquire(p)
#define rcu_tsan_release(p)	__tsan_release(p)
#else
#define rcu_tsan_acquire(p)	((void)(p))
#define rcu_tsan_release(p)	((void)(p))
#define rcu_tsan_enter()	((void)0)
#define rcu_tsan_exit()		((void)0)
#define rcu_tsan_thread_exit()	((void)0)
#define rcu_tsan_snapshot(head)	((void)(head), NULL)
#define rcu_tsan_sync_obj()	NULL
#define rcu_tsan_after_gp(m)	((void)(m))
#endif

__thread bool dcsim_rcu_membarrier_ok __attribute__((tls_model("initial-exec")));

/*
 * Registration with liburcu is the pthread's, not a logical thread's: the
 * explorer's fibers share their pthread's reader registration (and each
 * has its own nesting count, below), so this flag is plain thread-local
 * and never task-local.
 */
static __thread bool rcu_registered __attribute__((tls_model("initial-exec")));

void dcsim_rcu_thread_online_slow(void)
{
	(void)dcsim_thread_self();
	if (!rcu_registered) {
		urcu_memb_register_thread();
		rcu_registered = true;
	}
#if !defined(__SANITIZE_THREAD__)
	/*
	 * rcu-read.h's inline read side is compiled for sys_membarrier:
	 * let this thread use it only if liburcu does use sys_membarrier.
	 * (TSan builds never use it: the annotations are out of line.)
	 */
	dcsim_rcu_membarrier_ok = urcu_memb_has_sys_membarrier != 0;
#endif
}

static inline void rcu_thread_online(void)
{
	if (unlikely(!rcu_registered))
		dcsim_rcu_thread_online_slow();
}


void dcsim_rcu_thread_exit(void)
{
	dcsim_rcu_membarrier_ok = false;
	if (rcu_registered) {
		urcu_memb_unregister_thread();
		rcu_registered = false;
	}
	rcu_tsan_thread_exit();
}

/* An exiting thread leaves RCU before thread.c frees its struct. */
__attribute__((constructor)) static void rcu_thread_exit_ctor(void)
{
	dcsim_thread_exit_hook_set(dcsim_rcu_thread_exit);
}

#if !defined(__SANITIZE_THREAD__)
/*
 * The reader's nesting count (and grace-period phase) is a logical
 * thread's: two fibers of the explorer inside sections on one pthread
 * must not add up to one nesting, and a fiber abandoned inside a section
 * must not leave its pthread in one for good.  Only the count moves, not
 * the registration.  A liburcu writer elsewhere may see the pthread
 * quiescent while a parked fiber is inside a section; the explorer's
 * call_rcu() never reaches liburcu (dcsim_rcu_set_defer_hook()), so
 * no object that fiber may still read waits for such a writer.  TSan
 * builds keep liburcu's read side out of line, its state opaque: there
 * fibers share their pthread's count.
 */
static void *rcu_reader_ctr_addr(void)
{
	return (void *)&URCU_TLS(urcu_memb_reader).ctr;
}

static struct dcsim_task_local rcu_reader_tl = {
	.addr = rcu_reader_ctr_addr, .size = sizeof(URCU_TLS(urcu_memb_reader).ctr),
};

__attribute__((constructor)) static void rcu_task_local_init(void)
{
	dcsim_task_local_register(&rcu_reader_tl);
}
#endif

/*
 * What rcu-read.h's inline read side does, for any thread and with the
 * TSan annotations: the library's hot paths use that one.
 */
void dcsim_rcu_read_lock(void)
{
	rcu_thread_online();
	dcsim_sp_fence(DCSIM_ACC_RCU_LOCK);
	rcu_tsan_enter();
	urcu_memb_read_lock();
}

void dcsim_rcu_read_unlock(void)
{
	rcu_tsan_exit();
	urcu_memb_read_unlock();
	dcsim_sp_fence(DCSIM_ACC_RCU_UNLOCK);
}

/* rcu-read.h: the end of a section that a writer waits for. */
void dcsim_rcu_wake_up_gp(void)
{
#if !defined(__SANITIZE_THREAD__)
	urcu_common_wake_up_gp(&urcu_memb_gp);
#else
	/* Unreachable: TSan builds leave sections out of line (rcu-read.h). */
	WARN_ON_ONCE(1);
#endif
}

static void rcu_thunk_call(struct rcu_head *head)
{
	struct dcsim_rcu_thunk *thunk = dcsim_container_of(head, struct dcsim_rcu_thunk, head);

	rcu_tsan_acquire(thunk);
	rcu_tsan_after_gp(thunk->tsan_readers);
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
	thunk->tsan_readers = rcu_tsan_snapshot(thunk);
	rcu_tsan_release(thunk);
	urcu_memb_call_rcu(&thunk->head, rcu_thunk_call);
}

#if defined(__SANITIZE_THREAD__)
/* The sync object is the thunk itself, which rcu_thunk_call() acquires. */
void dcsim_rcu_tsan_before_free(struct dcsim_rcu_head *head)
{
	__tsan_release(head);
}
#endif

void dcsim_synchronize_rcu(void)
{
	void *readers = rcu_tsan_snapshot(rcu_tsan_sync_obj());

	urcu_memb_synchronize_rcu();
	rcu_tsan_acquire(rcu_tsan_sync_obj());
	rcu_tsan_after_gp(readers);
}

void dcsim_rcu_barrier(void)
{
	rcu_thread_online();
	urcu_memb_barrier();
}

int dcsim_rcu_callbacks_setup(enum dcsim_rcu_callbacks mode, int cpu)
{
	cpu_set_t set;
	int err;

	rcu_thread_online();
	switch (mode) {
	case DCSIM_RCU_CB_PER_CPU:
		/* On failure liburcu frees what it made: the global queue stays. */
		if (urcu_memb_create_all_cpu_call_rcu_data(0))
			return -(errno ? errno : ENOMEM);
		return 0;
	case DCSIM_RCU_CB_GLOBAL:
		if (pthread_getaffinity_np(pthread_self(), sizeof(set), &set))
			return -EINVAL;
		if (cpu >= 0) {
			if (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &set))
				return -EINVAL;
			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
		}
		/* Pending per-CPU callbacks move to the default queue. */
		urcu_memb_free_all_cpu_call_rcu_data();
		err = pthread_setaffinity_np(
			urcu_memb_get_call_rcu_thread(urcu_memb_get_default_call_rcu_data()),
			sizeof(set), &set);
		return -err;
	}
	return -EINVAL;
}

void dcsim_rcu_set_defer_hook(dcsim_rcu_defer_hook_t hook)
{
	__atomic_store_n(&defer_hook, hook, __ATOMIC_RELEASE);
}
