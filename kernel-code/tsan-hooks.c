// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Instrumented build: the ThreadSanitizer entry points, defined here instead of
 * by libtsan, for the objects built with -fsanitize=thread (dput.c and
 * lockref-funcs.c, i.e. the kernel's code and nothing else).
 *
 * GCC's instrumentation calls __tsan_readN/__tsan_writeN before every
 * plain load or store it cannot prove thread-local, and replaces every
 * __atomic builtin by __tsan_atomicN_<op>(), which must perform the
 * operation.  Each hook here reports the access to dcsim_sched_point()
 * first: outside a simulated transaction that is an explorer schedule
 * point (another logical thread may run before the access); inside one it
 * saves the bytes a store will overwrite for the rollback, and may inject
 * an abort.  So "dentry->d_lockref.count--" in the kernel's source is a
 * load and a store, each interleavable and each undone by an abort, like
 * every DCSIM_READ_ONCE()/DCSIM_WRITE_ONCE() of the library.
 *
 * Atomics are performed seq_cst whatever order the code asked for: the
 * explorer runs one logical thread at a time, so the order argument
 * changes nothing there, and free-running threads of an instrumented build only
 * get more ordering than they asked for.
 */

#include <stdint.h>

#include <dcsim/atomic.h>

#include <kc/funcs.h>

/*
 * The instrumented code's address after the call to this hook, and its
 * frame: this file is built with frame pointers, so the hook's own frame
 * holds the caller's frame pointer first.
 */
#define PC()	__builtin_return_address(0)
#define FP()	(*(void *const *const *)__builtin_frame_address(0))

/*
 * The access is named by its kernel function and, where the function has a
 * line table (kpatch.py builds), by its line of fs/dcache.c, the call in
 * the patched function that led to it, and whether a changed line ran
 * (kc_step_frame()).
 */
static inline void sp_at(enum dcsim_access acc, const volatile void *a, unsigned int size,
			 const void *pc, void *const *fp)
{
	struct dcsim_step_frame f;
	const struct dcsim_step_frame *old;
	int line;
	const char *where = kc_func_where(pc, &line);

	if (!line) {
		dcsim_sched_point(acc, a, size, where, line);
		return;
	}
	kc_step_frame(pc, fp, false, &f);
	old = dcsim_step_frame_set(&f);
	dcsim_sched_point(acc, a, size, where, line);
	dcsim_step_frame_set(old);
}

#define sp(acc, a, size, pc)	sp_at((acc), (a), (size), (pc), FP())

/* Declared here: these have no header outside libtsan. */
#define KC_TSAN_API __attribute__((visibility("default")))

KC_TSAN_API void __tsan_init(void);
KC_TSAN_API void __tsan_func_entry(void *pc);
KC_TSAN_API void __tsan_func_exit(void);
KC_TSAN_API void __tsan_read_range(void *a, unsigned long size);
KC_TSAN_API void __tsan_write_range(void *a, unsigned long size);
KC_TSAN_API void __tsan_atomic_thread_fence(int mo);
KC_TSAN_API void __tsan_atomic_signal_fence(int mo);

void __tsan_init(void)
{
}

void __tsan_func_entry(void *pc)
{
	/* @pc is the caller's; our own return address lies in the entered function. */
	(void)pc;
	kc_func_entered(__builtin_return_address(0));
}

void __tsan_func_exit(void)
{
}

#define KC_PLAIN(n)								\
KC_TSAN_API void __tsan_read##n(void *a);					\
KC_TSAN_API void __tsan_write##n(void *a);					\
KC_TSAN_API void __tsan_unaligned_read##n(void *a);				\
KC_TSAN_API void __tsan_unaligned_write##n(void *a);				\
KC_TSAN_API void __tsan_volatile_read##n(void *a);				\
KC_TSAN_API void __tsan_volatile_write##n(void *a);				\
void __tsan_read##n(void *a) { sp(DCSIM_ACC_LOAD, a, n, PC()); }		\
void __tsan_write##n(void *a) { sp(DCSIM_ACC_STORE, a, n, PC()); }		\
void __tsan_unaligned_read##n(void *a) { sp(DCSIM_ACC_LOAD, a, n, PC()); }	\
void __tsan_unaligned_write##n(void *a) { sp(DCSIM_ACC_STORE, a, n, PC()); }	\
void __tsan_volatile_read##n(void *a) { sp(DCSIM_ACC_LOAD, a, n, PC()); }	\
void __tsan_volatile_write##n(void *a) { sp(DCSIM_ACC_STORE, a, n, PC()); }

KC_PLAIN(1)
KC_PLAIN(2)
KC_PLAIN(4)
KC_PLAIN(8)
KC_PLAIN(16)

void __tsan_read_range(void *a, unsigned long size)
{
	sp(DCSIM_ACC_LOAD, a, (unsigned int)size, PC());
}

void __tsan_write_range(void *a, unsigned long size)
{
	sp(DCSIM_ACC_STORE, a, (unsigned int)size, PC());
}

#define KC_ATOMIC(bits, T)							\
KC_TSAN_API T __tsan_atomic##bits##_load(const volatile T *a, int mo);		\
KC_TSAN_API void __tsan_atomic##bits##_store(volatile T *a, T v, int mo);	\
KC_TSAN_API T __tsan_atomic##bits##_exchange(volatile T *a, T v, int mo);	\
KC_TSAN_API T __tsan_atomic##bits##_fetch_add(volatile T *a, T v, int mo);	\
KC_TSAN_API T __tsan_atomic##bits##_fetch_sub(volatile T *a, T v, int mo);	\
KC_TSAN_API T __tsan_atomic##bits##_fetch_and(volatile T *a, T v, int mo);	\
KC_TSAN_API T __tsan_atomic##bits##_fetch_or(volatile T *a, T v, int mo);	\
KC_TSAN_API T __tsan_atomic##bits##_fetch_xor(volatile T *a, T v, int mo);	\
KC_TSAN_API T __tsan_atomic##bits##_fetch_nand(volatile T *a, T v, int mo);	\
KC_TSAN_API int __tsan_atomic##bits##_compare_exchange_strong(volatile T *a,	\
	T *c, T v, int mo, int fmo);						\
KC_TSAN_API int __tsan_atomic##bits##_compare_exchange_weak(volatile T *a,	\
	T *c, T v, int mo, int fmo);						\
KC_TSAN_API T __tsan_atomic##bits##_compare_exchange_val(volatile T *a,	\
	T c, T v, int mo, int fmo);						\
T __tsan_atomic##bits##_load(const volatile T *a, int mo)			\
{										\
	(void)mo;								\
	sp(DCSIM_ACC_LOAD, a, sizeof(T), PC());					\
	return __atomic_load_n(a, __ATOMIC_SEQ_CST);				\
}										\
void __tsan_atomic##bits##_store(volatile T *a, T v, int mo)			\
{										\
	(void)mo;								\
	sp(DCSIM_ACC_STORE, a, sizeof(T), PC());				\
	__atomic_store_n(a, v, __ATOMIC_SEQ_CST);				\
}										\
T __tsan_atomic##bits##_exchange(volatile T *a, T v, int mo)			\
{										\
	(void)mo;								\
	sp(DCSIM_ACC_RMW, a, sizeof(T), PC());					\
	return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);			\
}										\
KC_RMW(bits, T, fetch_add, __atomic_fetch_add)					\
KC_RMW(bits, T, fetch_sub, __atomic_fetch_sub)					\
KC_RMW(bits, T, fetch_and, __atomic_fetch_and)					\
KC_RMW(bits, T, fetch_or, __atomic_fetch_or)					\
KC_RMW(bits, T, fetch_xor, __atomic_fetch_xor)					\
KC_RMW(bits, T, fetch_nand, __atomic_fetch_nand)				\
/* One schedule point and one strong CAS for the three forms; @pc is the	\
 * instrumented caller's.  weak never fails spuriously here: a spurious	\
 * failure is a retry the explorer would only have to schedule again. */	\
static inline int kc_cas##bits(volatile T *a, T *c, T v, const void *pc,	\
				void *const *fp)				\
{										\
	sp_at(DCSIM_ACC_RMW, a, sizeof(T), pc, fp);				\
	return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST,	\
					   __ATOMIC_SEQ_CST);			\
}										\
int __tsan_atomic##bits##_compare_exchange_strong(volatile T *a, T *c, T v,	\
						  int mo, int fmo)		\
{										\
	(void)mo, (void)fmo;							\
	return kc_cas##bits(a, c, v, PC(), FP());					\
}										\
int __tsan_atomic##bits##_compare_exchange_weak(volatile T *a, T *c, T v,	\
						int mo, int fmo)		\
{										\
	(void)mo, (void)fmo;							\
	return kc_cas##bits(a, c, v, PC(), FP());					\
}										\
T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T c, T v,		\
					     int mo, int fmo)			\
{										\
	(void)mo, (void)fmo;							\
	kc_cas##bits(a, &c, v, PC(), FP());						\
	return c;								\
}

#define KC_RMW(bits, T, op, builtin)						\
T __tsan_atomic##bits##_##op(volatile T *a, T v, int mo)			\
{										\
	(void)mo;								\
	sp(DCSIM_ACC_RMW, a, sizeof(T), PC());					\
	return builtin(a, v, __ATOMIC_SEQ_CST);					\
}

KC_ATOMIC(8, uint8_t)
KC_ATOMIC(16, uint16_t)
KC_ATOMIC(32, uint32_t)
KC_ATOMIC(64, uint64_t)

void __tsan_atomic_thread_fence(int mo)
{
	(void)mo;
	sp(DCSIM_ACC_FENCE, NULL, 0, PC());
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void __tsan_atomic_signal_fence(int mo)
{
	(void)mo;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}
