// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The contended halves of the create lock's sleeping lock (rwsem.h):
 * the optimistic spin, the futex sleep and wake-up, and the refusal of an
 * up of a free lock.  The instrumented build has no such halves: its lock is the
 * ticket spinlock.
 */

#include <dcsim/config.h>

#if !DCSIM_INSTRUMENT

#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "rwsem.h"

/*
 * The futex operations, from the kernel's uapi linux/futex.h, which the
 * tree does not include (<linux/...> names kernel-code/'s shims here).
 */
#define FUTEX_WAIT_PRIVATE	(0 | 128)
#define FUTEX_WAKE_PRIVATE	(1 | 128)

/* Polls of a held lock before sleeping: rwsem_optimistic_spin()'s stand-in. */
#define RWSEM_SPIN	100

static void futex_wait(uint32_t *word, uint32_t val)
{
	/* Returns at once if *word != val: the wake-up cannot be missed. */
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

void dcsim_down_write_slow(dcsim_rwsem_t *sem)
{
	uint32_t v;

	/*
	 * Spin a little first: a create's critical section is short, and a
	 * running holder lets go sooner than a sleep and a wake-up take.
	 * The plain reads only decide when to try again; the cmpxchg decides.
	 */
	for (unsigned int i = 0; i < RWSEM_SPIN; i++) {
		v = DCSIM_READ_ONCE(sem->val);
		if (v == 0u && dcsim_cmpxchg(&sem->val, 0u, 1u) == 0u)
			return;
		if (v == 2u)
			break;		/* others sleep already: queue behind them */
		dcsim_cpu_relax();
	}
	/*
	 * Mark the word "held with sleepers" and sleep until it is free.  The
	 * xchg that finds it free is our acquire; we then hold it as 2, which
	 * costs our up one possibly needless wake-up, never a lost one.
	 */
	while (dcsim_xchg(&sem->val, 2u) != 0u)
		futex_wait(&sem->val, 2u);
}

void dcsim_up_write_wake(dcsim_rwsem_t *sem)
{
	syscall(SYS_futex, &sem->val, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void dcsim_up_write_unheld(dcsim_rwsem_t *sem)
{
	dcsim_warn_report(__FILE__, __LINE__, "dcsim_up_write",
			  "up of a create lock that is not held: refused");
	if (!dcsim_warn_quiet())
		fprintf(stderr, "dcsim:   lock %p, released from %p\n", (void *)sem,
			__builtin_return_address(0));
}

#endif /* !DCSIM_INSTRUMENT */
