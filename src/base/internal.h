/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_SRC_INTERNAL_H
#define DCSIM_SRC_INTERNAL_H

/*
 * Kernel-style short names for use inside src/ only, so the models read
 * like the code they mirror.  Not installed.
 */

#include <stdbool.h>

#include <dcsim/atomic.h>
#include <dcsim/compiler.h>
#include <dcsim/sched.h>

#define READ_ONCE(x)		DCSIM_READ_ONCE(x)
#define WRITE_ONCE(x, v)	DCSIM_WRITE_ONCE(x, v)
#define smp_load_acquire(p)	dcsim_load_acquire(p)
#define smp_store_release(p, v)	dcsim_store_release(p, v)
#define smp_mb()		dcsim_smp_mb()
#define smp_rmb()		dcsim_smp_rmb()
#define smp_wmb()		dcsim_smp_wmb()
#define cpu_relax()		dcsim_cpu_relax()
#define cond_resched()		dcsim_cond_resched()
#define likely(x)		dcsim_likely(x)
#define unlikely(x)		dcsim_unlikely(x)

/*
 * Kernel-style warnings: print once per call site with the location, and
 * count every hit in a global counter that tests can read.
 */
void dcsim_warn_report(const char *file, int line, const char *func, const char *cond);
/* Every hit: counted and kept as the last warning; printed if @print. */
void dcsim_warn_hit(const char *file, int line, const char *func, const char *cond,
		      bool print);
/* dcsim_warn_set_quiet() in force: details after a warning are not printed either. */
bool dcsim_warn_quiet(void);

#define WARN_ON_ONCE(cond) __extension__ ({					\
	int __w = !!(cond);							\
	if (unlikely(__w)) {							\
		static int __warned;						\
		dcsim_warn_hit(__FILE__, __LINE__, __func__, #cond,		\
				 !__atomic_exchange_n(&__warned, 1, __ATOMIC_RELAXED)); \
	}									\
	unlikely(__w);								\
})

#endif /* DCSIM_SRC_INTERNAL_H */
