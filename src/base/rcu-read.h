/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_SRC_RCU_READ_H
#define DCSIM_SRC_RCU_READ_H

/*
 * The RCU read-side boundaries, inline, for the library's hot paths (a
 * dput that is not final enters and leaves one section and does nothing
 * else but a cmpxchg).  Not installed: users call dcsim_rcu_read_lock()
 * and dcsim_rcu_read_unlock() of <dcsim/rcu.h>, which are these bodies.
 *
 * What remains per section is liburcu-memb's own read side (a per-thread
 * nesting count and a compiler barrier; on the way out, the test for a
 * waiting writer), the test that the thread is registered, and in the
 * instrumented build the schedule point.
 * The kernel's rcu_read_lock() is a per-task count as well (PREEMPT_RCU)
 * or nothing at all.
 *
 * ThreadSanitizer builds keep the out-of-line calls: src/base/rcu.c annotates
 * liburcu's handshake there, and the library stays uninstrumented.
 */

#if !defined(__SANITIZE_THREAD__)
/*
 * _LGPL_SOURCE: inline liburcu's read-side fast paths (dcsim is
 * LGPL-2.1-or-later, as liburcu asks).
 *
 * CONFIG_RCU_FORCE_SYS_MEMBARRIER: compile them for a kernel with
 * sys_membarrier, where the reader's barriers are compiler barriers, with
 * no test of urcu_memb_has_sys_membarrier on each boundary.  They are
 * used only by a thread whose registration found sys_membarrier in use
 * (dcsim_rcu_membarrier_ok, set by rcu.c); any other thread takes the
 * out-of-line dcsim_rcu_read_lock(), which tests it.  A file that
 * includes this header must include no other liburcu header.
 */
#ifndef _LGPL_SOURCE
#define _LGPL_SOURCE
#endif
#define CONFIG_RCU_FORCE_SYS_MEMBARRIER
#include <urcu/urcu-memb.h>

#if defined(CONFIG_RCU_TLS)
/*
 * liburcu's per-thread reader state, accessed with the initial-exec model,
 * as dcsim's own (thread.h): one %fs-relative load instead of a
 * __tls_get_addr() call, which the linker may relax away but the compiler
 * has already paid for by saving registers around it.  liburcu is loaded
 * with libdcsim, and glibc places a library that is reached this way in
 * static TLS (on demand after dlopen(), as for libdcsim itself).
 */
extern __thread struct urcu_reader urcu_memb_reader __attribute__((tls_model("initial-exec")));
#endif
#endif

#include <dcsim/atomic.h>
#include <dcsim/rcu.h>

#include "internal.h"
#include "rcu-internal.h"

/*
 * rcu_read_membarrier_ok() - may the calling thread use
 * rcu_read_lock_membarrier() and rcu_read_unlock_membarrier()?  True once
 * it is registered and liburcu uses sys_membarrier; it stays so until the
 * thread exits, so one test serves a whole section.
 */
static inline bool rcu_read_membarrier_ok(void)
{
#if defined(__SANITIZE_THREAD__)
	return false;
#else
	return likely(dcsim_rcu_membarrier_ok);
#endif
}

/* Only where rcu_read_membarrier_ok(): liburcu's read side, inline. */
static inline void rcu_read_lock_membarrier(void)
{
#if !defined(__SANITIZE_THREAD__)
	dcsim_sp_fence(DCSIM_ACC_RCU_LOCK);
	urcu_memb_read_lock();
#endif
}

/*
 * rcu_read_unlock_membarrier_defer_wake() - liburcu-memb's
 * _urcu_memb_read_unlock() with sys_membarrier (its barriers are compiler
 * barriers), but for the wake-up of a waiting writer, left to the caller:
 * inline, that system call makes every caller save registers for it, and a
 * caller can make it a tail call.  The same stores and loads in the same
 * order, on the fields and constants of liburcu's static headers.
 * Return: true if the caller must call dcsim_rcu_wake_up_gp() (soon: a
 * writer sleeps until it does).
 */
static inline bool rcu_read_unlock_membarrier_defer_wake(void)
{
#if !defined(__SANITIZE_THREAD__)
	unsigned long tmp = URCU_TLS(urcu_memb_reader).ctr;
	bool wake = false;

	if (likely((tmp & URCU_GP_CTR_NEST_MASK) == URCU_GP_COUNT)) {
		/* The section before the store that ends it (smp_mb_slave()). */
		cmm_barrier();
		_CMM_STORE_SHARED(URCU_TLS(urcu_memb_reader).ctr, tmp - URCU_GP_COUNT);
		/* The store before the read of the writer's futex (smp_mb_slave()). */
		cmm_barrier();
		wake = uatomic_read(&urcu_memb_gp.futex) == -1;
	} else {
		_CMM_STORE_SHARED(URCU_TLS(urcu_memb_reader).ctr, tmp - URCU_GP_COUNT);
	}
	cmm_barrier();
	dcsim_sp_fence(DCSIM_ACC_RCU_UNLOCK);
	return unlikely(wake);
#else
	return false;
#endif
}

static inline void rcu_read_unlock_membarrier(void)
{
	if (rcu_read_unlock_membarrier_defer_wake())
		dcsim_rcu_wake_up_gp();
}

/* Any thread: inline where it may, out of line otherwise. */
static inline void rcu_read_lock_inline(void)
{
	if (rcu_read_membarrier_ok())
		rcu_read_lock_membarrier();
	else
		dcsim_rcu_read_lock();	/* unregistered (it registers), TSan, no membarrier */
}

static inline void rcu_read_unlock_inline(void)
{
	/*
	 * Usually the answer rcu_read_lock_inline() got.  It may have turned
	 * true since, if that call registered the thread: then both ends are
	 * liburcu's read side with sys_membarrier, out of line or inline, the
	 * same stores.  It never turns false while the thread lives.
	 */
	if (rcu_read_membarrier_ok())
		rcu_read_unlock_membarrier();
	else
		dcsim_rcu_read_unlock();
}

#endif /* DCSIM_SRC_RCU_READ_H */
