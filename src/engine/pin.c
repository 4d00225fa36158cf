// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Pinning an exploration to one CPU.
 *
 * Why: the explorer runs one thread at a time and hands the baton from
 * thread to thread under ex->lock with a pthread_cond_signal() and a wait
 * (sched-point.c, pool.c, explore.c), thousands of times per execution.
 * Nothing runs in parallel, so a second CPU brings nothing; but when the
 * woken thread sits on another CPU's run queue, every hand-off costs an
 * inter-processor wakeup (an IPI, the other CPU leaving idle, the lock's
 * and the scenario's cache lines moving over), and the kernel spreads the
 * K+1 threads over the CPUs because each looks runnable in turn.  On one
 * run queue the hand-off is a plain context switch.  Measured on the
 * 2-core host (docs/testing.md): an unpinned dcsim-check explore spent
 * more than twice its user time in the kernel, and taskset -c 0 made it
 * 1.6 times faster.
 *
 * So dcsim_explore_run() pins the calling thread (the controller) before
 * it creates the pool, whose threads inherit the mask, and gives the
 * caller its mask back at the end.  The CPU comes from the caller's
 * allowed set: by default the one it runs on (the scheduler's choice, so
 * two independent explorers on a machine tend to get different CPUs, and
 * each exploration is placed anew); dcsim_explore_set_pin() makes it the
 * slot-th allowed CPU, which is what dcsim-check --jobs gives its i-th
 * process.  The explorer's results do not depend on the CPU: a schedule is
 * a function of the seed alone.  Pinning is an optimization only: if the
 * mask cannot be read or set (a seccomp filter, a cpuset that changed
 * under us), the exploration runs unpinned and says nothing.
 */

#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>

#include <dcsim/explore.h>

#include "internal.h"

/* DCSIM_EXPLORE_PIN_CURRENT, DCSIM_EXPLORE_PIN_OFF or a slot; set before any run. */
static int pin_slot = DCSIM_EXPLORE_PIN_CURRENT;

/* The controller's own mask while pinned: one exploration per process at a time. */
static struct pin_state {
	bool pinned;
	cpu_set_t old;
} pin;

void dcsim_explore_set_pin(int slot)
{
	__atomic_store_n(&pin_slot, slot < DCSIM_EXPLORE_PIN_OFF ? DCSIM_EXPLORE_PIN_CURRENT : slot,
			 __ATOMIC_RELAXED);
}

/* The @slot-th CPU of @set, modulo the number of CPUs in it; -1 if empty. */
static int nth_cpu(const cpu_set_t *set, unsigned int slot)
{
	int count = CPU_COUNT(set);

	if (count <= 0)
		return -1;
	slot %= (unsigned int)count;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, set) && !slot--)
			return cpu;
	return -1;
}

/*
 * Pin the calling thread to one CPU of its allowed set, saving the set.
 * Return: true if it is pinned (unpin with explore_unpin()).
 */
bool explore_pin(void)
{
	struct pin_state *p = &pin;
	int slot = __atomic_load_n(&pin_slot, __ATOMIC_RELAXED), cpu;
	cpu_set_t one;

	p->pinned = false;
	if (slot == DCSIM_EXPLORE_PIN_OFF)
		return false;
	if (pthread_getaffinity_np(pthread_self(), sizeof(p->old), &p->old))
		return false;
	if (CPU_COUNT(&p->old) <= 1)
		return false;	/* already on one CPU (taskset -c N): nothing to do */
	cpu = slot == DCSIM_EXPLORE_PIN_CURRENT ? sched_getcpu() : nth_cpu(&p->old,
									     (unsigned int)slot);
	if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &p->old))
		cpu = nth_cpu(&p->old, 0);
	if (cpu < 0)
		return false;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	p->pinned = !pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	return p->pinned;
}

/* Give the calling thread the allowed set explore_pin() saved. */
void explore_unpin(void)
{
	struct pin_state *p = &pin;

	/* A set that shrank meanwhile (cpuset) may refuse: the kernel's mask then stands. */
	if (p->pinned)
		(void)pthread_setaffinity_np(pthread_self(), sizeof(p->old), &p->old);
	p->pinned = false;
}
