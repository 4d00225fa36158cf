/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The calls from the kernel code into dcsim (locks, barriers, HTM status,
 * WARN) and the per-thread tallies the k61 strategies report their
 * dcsim_dput_path from.
 *
 * Instrumented build: these are out of line (glue.c, compiled WITHOUT
 * -fsanitize=thread), so dcsim's own atomics inside them are schedule
 * points once, through <dcsim/atomic.h>, and never also through a
 * ThreadSanitizer hook.  Normal build: the same bodies, static inline, so
 * k61 pays what the library's strategies pay in dcsim-bench.
 */
#ifndef _KC_GLUE_H
#define _KC_GLUE_H

#include <stdbool.h>
#include <stddef.h>

#include <dcsim/atomic.h>
#include <dcsim/htm.h>
#include <dcsim/rcu.h>
#include <dcsim/sched.h>
#include <dcsim/spinlock.h>

#include "../../../src/model/kernel-code.h"

/* What the current dput() did, for its dcsim_dput_path. */
struct kc_tally {
	unsigned long locks;		/* spin_lock() or a successful spin_trylock() */
	unsigned long commits;		/* committed transactions */
	unsigned long warns;		/* WARN_ON*() that fired */
	unsigned long kills;		/* kills (dentry_unlist() calls): the shrinkers' return values */
};

extern __thread struct kc_tally kc_tally;

/* fs/dcache.c's per-CPU counters, per thread (kc/dcache.h: this_cpu_inc()). */
struct kc_pcpu {
	long nr_dentry, nr_dentry_unused, nr_dentry_negative;
};
extern __thread struct kc_pcpu kc_pcpu;

void kc_warn(int *once, const char *file, int line, const char *func, const char *cond);
unsigned int kc_htm_status(dcsim_htm_status_t st);

#if DCSIM_INSTRUMENT
#define KC_GLUE_FN
void kc_spin_lock(dcsim_spinlock_t *l, unsigned int subclass, const char *func, int line);
bool kc_spin_trylock(dcsim_spinlock_t *l, const char *func, int line);
void kc_spin_unlock(dcsim_spinlock_t *l);
bool kc_spin_is_locked(dcsim_spinlock_t *l);
void kc_spin_lock_rcu(dcsim_spinlock_t *l, unsigned int subclass, const char *func, int line);
bool kc_spin_trylock_rcu(dcsim_spinlock_t *l, const char *func, int line);
void kc_spin_unlock_rcu(dcsim_spinlock_t *l);
void kc_dentry_unlink_inode_rcu(struct dcsim_dentry *d);
void kc_dentry_unlink_inode(struct dcsim_dentry *d);
void kc_dentry_unlist(struct dcsim_dentry *d);
void kc_dentry_kill_61(struct dcsim_dentry *d);
void kc_smp_rmb(void);
void kc_smp_wmb(void);
void kc_smp_mb(void);
void kc_cpu_relax(void);
void kc_cond_resched(void);
void kc_htm_committed(void);
unsigned long kc_kills(void);
void kc_this_cpu_add(size_t off, long n);
#else
#define KC_GLUE_FN static inline __attribute__((always_inline))
/* Only the instrumented build has traces whose steps name a frame (glue.c). */
#define KC_FRAME_BEGIN()	do { } while (0)
#define KC_FRAME_END()		do { } while (0)
#include <kc/glue-impl.h>
#endif

#endif
