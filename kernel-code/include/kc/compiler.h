/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compiler and type vocabulary of the kernel (include/linux/compiler*.h,
 * types.h, build_bug.h, asm/barrier.h, cmpxchg), as the extracted
 * fs/dcache.c and lib/lockref.c use it.
 *
 * READ_ONCE()/WRITE_ONCE() are volatile accesses as in the kernel, and
 * every other access of the kernel code is a plain C access: in the check
 * build the kernel code is compiled with -fsanitize=thread, and the
 * ThreadSanitizer hooks (tsan-hooks.c) turn each of them into a dcsim
 * schedule point.  The cmpxchg is a GCC atomic builtin, which the same
 * instrumentation replaces by a hook call.
 */
#ifndef _KC_COMPILER_H
#define _KC_COMPILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint32_t u32;
typedef uint64_t u64;
typedef uint64_t aligned_u64 __attribute__((aligned(8)));

#ifndef __always_inline
#define __always_inline		inline __attribute__((always_inline))
#endif
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define barrier()		__asm__ __volatile__("" ::: "memory")

#define noinline		__attribute__((noinline))
/*
 * The kernel keeps ftrace, KCSAN, KASAN and KCOV out of fast_dput_htm(),
 * whose calls would abort the transaction.  Here they mean nothing, and
 * must not: the instrumented build's -fsanitize=thread is not KCSAN but the
 * explorer's eyes (tsan-hooks.c), and a no_sanitize_thread body would hide
 * the transaction's accesses from the schedule and from the undo log.
 */
#define notrace
#define __no_kcsan
#define __no_sanitize_address
#define __no_sanitize_coverage

#define __releases(x)
#define __acquires(x)
#define __must_hold(x)
#define might_sleep()		do { } while (0)

#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), "BUILD_BUG_ON(" #cond ")")

#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, val)	do { *(volatile __typeof__(x) *)&(x) = (val); } while (0)

/* try_cmpxchg64_relaxed(): on failure *@oldp is updated, as in the kernel. */
#define try_cmpxchg64_relaxed(ptr, oldp, new)					\
	__atomic_compare_exchange_n((ptr), (oldp), (new), false,		\
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED)

#include <kc/glue.h>

#define smp_rmb()		kc_smp_rmb()
#define smp_wmb()		kc_smp_wmb()
#define smp_mb()		kc_smp_mb()
/* Not in the extracted 6.1 code; corpus entry f5fe24ef17b5 puts it back. */
#define cpu_relax()		kc_cpu_relax()

#endif
