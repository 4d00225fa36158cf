/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_ATOMIC_H
#define DCSIM_ATOMIC_H

/*
 * dcsim memory model: the only way library code touches shared memory.
 *
 * Every access to a location that another thread may read or write goes
 * through one of these macros: READ_ONCE/WRITE_ONCE style relaxed accesses,
 * acquire/release accesses, read-modify-write operations and fences.  They
 * map onto the GCC __atomic builtins, so the compiler can neither tear nor
 * fuse them and ThreadSanitizer sees every one.
 *
 * In the instrumented build (meson -Dinstrument=true, which installs its own
 * <dcsim/flavour/atomic.h>) every macro first calls dcsim_sched_point().  The
 * deterministic explorer uses that call to decide which logical thread runs
 * next, and the simulated HTM uses it to log stores for rollback and to
 * inject aborts.  Code that bypasses this header is invisible to both, which
 * is why no shared access in src/ may do so.
 *
 * Ordering vocabulary follows the kernel: *_once is relaxed, *_acquire and
 * *_release are one-way barriers, the value-returning RMW operations
 * (xchg, cmpxchg, add_return) are fully ordered, and smp_rmb/smp_wmb/smp_mb
 * are the usual fences.
 */

#include <stdbool.h>
#include <stddef.h>

#include <dcsim/compiler.h>
#include <dcsim/config.h>

/* What a schedule point is about to do; reported to the explorer. */
enum dcsim_access {
	DCSIM_ACC_LOAD,
	DCSIM_ACC_STORE,
	DCSIM_ACC_RMW,
	DCSIM_ACC_FENCE,
	DCSIM_ACC_SPIN,		/* cpu_relax(): waiting for another thread */
	DCSIM_ACC_RCU_LOCK,
	DCSIM_ACC_RCU_UNLOCK,
	/*
	 * Kinds the weak-memory mode of the explorer tells apart (older
	 * callers of dcsim_sched_point() may keep using the ones above:
	 * DCSIM_ACC_FENCE counts as smp_mb(), DCSIM_ACC_RMW as fully ordered).
	 */
	DCSIM_ACC_RMW_RELAXED,	/* RMW that orders nothing (try_cmpxchg_relaxed) */
	DCSIM_ACC_LOAD_ACQUIRE,	/* smp_load_acquire() */
	DCSIM_ACC_RMB,		/* smp_rmb() */
	DCSIM_ACC_WMB,		/* smp_wmb() */
	/*
	 * cond_resched() (<dcsim/sched.h>): a busy wait's pause, as SPIN, that
	 * is also a voluntary preemption point: the explorer's strict-priority
	 * mode lets a thread that this one preempted run again there.
	 */
	DCSIM_ACC_RESCHED,
	DCSIM_ACC_NR
};

/*
 * The build flavour's part (<dcsim/flavour/atomic.h>): dcsim_sp_point(acc, p)
 * and dcsim_sp_fence(acc), the hook each macro below calls first.  Nothing
 * in the normal build; a call of dcsim_sched_point() in the instrumented one.
 */
#include <dcsim/flavour/atomic.h>

/* Relaxed single-copy-atomic accesses: the kernel's READ_ONCE/WRITE_ONCE. */
#define DCSIM_READ_ONCE(x) __extension__ ({					\
	dcsim_sp_point(DCSIM_ACC_LOAD, &(x));					\
	__atomic_load_n(&(x), __ATOMIC_RELAXED);				\
})

#define DCSIM_WRITE_ONCE(x, v) do {						\
	dcsim_sp_point(DCSIM_ACC_STORE, &(x));					\
	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED);				\
} while (0)

/*
 * A relaxed read that is no schedule point, for a check that walks shared
 * state at quiescence (no logical thread runs, so there is nothing for the
 * explorer to decide, nor a write to race with): the invariants' look at
 * every hash bucket, a thousand calls into the explorer otherwise.
 */
#define DCSIM_READ_QUIESCENT(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)

#define dcsim_load_acquire(p) __extension__ ({					\
	dcsim_sp_point(DCSIM_ACC_LOAD_ACQUIRE, (p));					\
	__atomic_load_n((p), __ATOMIC_ACQUIRE);					\
})

#define dcsim_store_release(p, v) do {						\
	dcsim_sp_point(DCSIM_ACC_STORE, (p));					\
	__atomic_store_n((p), (v), __ATOMIC_RELEASE);				\
} while (0)

/*
 * dcsim_try_cmpxchg() - compare *p with *oldp, store @new if equal.
 * Return: true on success; on failure *oldp holds the value found.
 * Acquire on failure so that a retry loop reads a consistent snapshot.
 */
#define dcsim_try_cmpxchg(p, oldp, new) __extension__ ({			\
	dcsim_sp_point(DCSIM_ACC_RMW, (p));						\
	__atomic_compare_exchange_n((p), (oldp), (new), false,			\
				    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);	\
})

/*
 * dcsim_try_cmpxchg_relaxed() - as dcsim_try_cmpxchg(), ordering nothing:
 * the kernel's try_cmpxchg64_relaxed() of lib/lockref.c.  Later loads may
 * be satisfied before it (the explorer's weak-memory mode lets them), so
 * a caller that must read after it pairs it with smp_rmb() or smp_mb().
 */
#define dcsim_try_cmpxchg_relaxed(p, oldp, new) __extension__ ({		\
	dcsim_sp_point(DCSIM_ACC_RMW_RELAXED, (p));					\
	__atomic_compare_exchange_n((p), (oldp), (new), false,			\
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);	\
})

/* dcsim_cmpxchg() - fully ordered; returns the value found at *p. */
#define dcsim_cmpxchg(p, old, new) __extension__ ({				\
	__typeof__(*(p)) dcsim_old_ = (old);					\
	dcsim_sp_point(DCSIM_ACC_RMW, (p));						\
	__atomic_compare_exchange_n((p), &dcsim_old_, (new), false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);	\
	dcsim_old_;								\
})

#define dcsim_xchg(p, v) __extension__ ({					\
	dcsim_sp_point(DCSIM_ACC_RMW, (p));						\
	__atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST);			\
})

/* Value-returning arithmetic: fully ordered, like the kernel's. */
#define dcsim_add_return(p, v) __extension__ ({					\
	dcsim_sp_point(DCSIM_ACC_RMW, (p));						\
	__atomic_add_fetch((p), (v), __ATOMIC_SEQ_CST);				\
})

#define dcsim_fetch_add(p, v) __extension__ ({					\
	dcsim_sp_point(DCSIM_ACC_RMW, (p));						\
	__atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST);				\
})

#define dcsim_fetch_add_acquire(p, v) __extension__ ({				\
	dcsim_sp_point(DCSIM_ACC_RMW, (p));						\
	__atomic_fetch_add((p), (v), __ATOMIC_ACQUIRE);				\
})

#define dcsim_fetch_or(p, v) __extension__ ({					\
	dcsim_sp_point(DCSIM_ACC_RMW, (p));						\
	__atomic_fetch_or((p), (v), __ATOMIC_SEQ_CST);				\
})

#define dcsim_fetch_and(p, v) __extension__ ({					\
	dcsim_sp_point(DCSIM_ACC_RMW, (p));						\
	__atomic_fetch_and((p), (v), __ATOMIC_SEQ_CST);				\
})

/* Non-returning arithmetic: relaxed, like the kernel's atomic_inc(). */
#define dcsim_atomic_add(p, v) do {						\
	dcsim_sp_point(DCSIM_ACC_RMW, (p));						\
	(void)__atomic_fetch_add((p), (v), __ATOMIC_RELAXED);			\
} while (0)

#define dcsim_atomic_sub(p, v) do {						\
	dcsim_sp_point(DCSIM_ACC_RMW, (p));						\
	(void)__atomic_fetch_sub((p), (v), __ATOMIC_RELAXED);			\
} while (0)

/*
 * Fences.  ThreadSanitizer does not model stand-alone fences, so under
 * -fsanitize=thread they become seq_cst RMWs on a dummy word: stronger than
 * needed, but TSan then sees the ordering instead of reporting a race that
 * the real fence prevents.
 */
#if defined(__SANITIZE_THREAD__)
DCSIM_API extern int dcsim_tsan_fence_word;
#define dcsim_fence_order(order) \
	((void)__atomic_fetch_add(&dcsim_tsan_fence_word, 0, __ATOMIC_SEQ_CST))
#else
#define dcsim_fence_order(order)	__atomic_thread_fence(order)
#endif

#define dcsim_smp_mb() do {							\
	dcsim_sp_fence(DCSIM_ACC_FENCE);					\
	dcsim_fence_order(__ATOMIC_SEQ_CST);					\
} while (0)

/* Orders earlier loads before later loads (and, here, before stores). */
#define dcsim_smp_rmb() do {							\
	dcsim_sp_fence(DCSIM_ACC_RMB);					\
	dcsim_fence_order(__ATOMIC_ACQUIRE);					\
} while (0)

/* Orders earlier stores (and loads) before later stores. */
#define dcsim_smp_wmb() do {							\
	dcsim_sp_fence(DCSIM_ACC_WMB);					\
	dcsim_fence_order(__ATOMIC_RELEASE);					\
} while (0)

/* Busy-wait hint; in the instrumented build it tells the explorer to run someone else. */
#if defined(__x86_64__) || defined(__i386__)
#define dcsim_relax_cpu()	__builtin_ia32_pause()
#elif defined(__powerpc64__)
/* "or 1,1,1" lowers SMT thread priority, the kernel's HMT_low(). */
#define dcsim_relax_cpu()	__asm__ __volatile__("or 1,1,1\n\tor 2,2,2" ::: "memory")
#else
#define dcsim_relax_cpu()	dcsim_barrier()
#endif

#define dcsim_cpu_relax() do {							\
	dcsim_sp_fence(DCSIM_ACC_SPIN);					\
	dcsim_relax_cpu();							\
} while (0)

#endif /* DCSIM_ATOMIC_H */
