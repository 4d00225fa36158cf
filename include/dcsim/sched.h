/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_SCHED_H
#define DCSIM_SCHED_H

/*
 * The scheduler's side of a busy wait: cond_resched().
 *
 * In the kernel cond_resched() is where a thread that runs without
 * sleeping offers its CPU to whoever is waiting for it (on a kernel
 * without full preemption, the only place it does).  A retry loop that
 * waits for another thread to finish something, and that may run on the
 * CPU that thread was preempted from, must call it, or the other thread
 * never gets to finish (fs/dcache.c's shrink_dcache_parent() is the
 * historic case).
 *
 * User space needs no such call: the OS preempts every thread.  So in the
 * normal build dcsim_cond_resched() is nothing.  In the instrumented build it is
 * a schedule point (DCSIM_ACC_RESCHED) that the explorer treats as a
 * cpu_relax() (a pause in a busy wait), and that its strict-priority mode
 * (<dcsim/explore.h>, "Scheduling") treats as the one point where the
 * thread gives its CPU back to a thread it preempted.  The model calls it
 * where fs/dcache.c does, in loops that wait for other threads.
 */

#include <dcsim/atomic.h>

#define dcsim_cond_resched()	dcsim_sp_fence(DCSIM_ACC_RESCHED)

#endif /* DCSIM_SCHED_H */
