/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_SPINLOCK_H
#define DCSIM_SPINLOCK_H

/*
 * A 32-bit ticket spinlock, the shape of the kernel's pre-qspinlock x86
 * arch_spinlock_t.  Small enough that a lock and a 32-bit count share one
 * 64-bit word (see <dcsim/lockref.h>), which is what lets lockref update the
 * count with a single cmpxchg while proving that nobody holds the lock.
 *
 * Layout: the low 16 bits of the value are the ticket being served ("head"),
 * the high 16 bits the next ticket to hand out ("tail").  The lock is free
 * exactly when head == tail, a test that works on a raw value read at any
 * time: dcsim_spin_value_unlocked() mirrors arch_spin_value_unlocked().
 *
 * Ordering: lock is an acquire, unlock a release.  All accesses go through
 * <dcsim/atomic.h>, so every lock operation is a schedule point in the
 * instrumented build.
 */

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include <dcsim/atomic.h>
#include <dcsim/compiler.h>

typedef struct dcsim_spinlock {
	union {
		uint32_t val;
		struct {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			uint16_t head, tail;
#else
			uint16_t tail, head;
#endif
		} tickets;
	};
} dcsim_spinlock_t;

/*
 * Lock ownership, for the checkers (instrumented build only): the explorer's
 * strict-priority mode must know which logical thread holds which lock,
 * since a holder is never preempted and a livelock report names the
 * holder.  Each operation reports what it did right after the access that
 * did it (no schedule point in between); the normal build has no call.
 */
enum dcsim_spin_event {
	DCSIM_SPIN_ACQUIRED,	/* a lock */
	DCSIM_SPIN_RELEASED,	/* an unlock */
	DCSIM_SPIN_CONTENDED,	/* a failed trylock */
	/*
	 * A lock that has to wait: its ticket is taken, and the waiter, as
	 * the kernel's (preemption off from spin_lock() on), cannot be
	 * preempted, or every later ticket would wait for it.
	 */
	DCSIM_SPIN_WAITING,
	DCSIM_SPIN_TRYLOCKED,	/* a trylock that took it */
	/*
	 * Annotations for the lock order validator alone, as the kernel's
	 * spin_release() and spin_acquire() of a lockdep_map: nothing is
	 * taken or released, only the validator's view changes.  It forgets
	 * a held lock (RELEASE), or sees one held as taken now, with a
	 * subclass, as by a lock (ACQUIRE) or a trylock (TRYACQUIRE):
	 * d_walk()'s hand-over of a child's d_lock when it descends.
	 */
	DCSIM_SPIN_ANNOTATE_RELEASE,
	DCSIM_SPIN_ANNOTATE_ACQUIRE,
	DCSIM_SPIN_ANNOTATE_TRYACQUIRE,
};

/*
 * The lock order validator (<dcsim/lockdep.h>, instrumented build) also
 * wants where each lock was taken and its subclass, as lockdep's
 * spin_lock_nested(): dcsim_spin_lock(), dcsim_spin_lock_nested() and
 * dcsim_spin_trylock() are macros that pass their caller's function and
 * line.  The normal build drops them unread.
 */
#define DCSIM_LOCK_SUBCLASS_MAX	8

/*
 * The build flavour's dcsim_spin_note(), dcsim_spin_assert_held() and
 * dcsim_spin_site(): nothing in the normal build.
 */
#include <dcsim/flavour/spinlock.h>

#define DCSIM_SPINLOCK_UNLOCKED		((dcsim_spinlock_t){ .val = 0 })
#define DCSIM_TICKET_SHIFT		16
#define DCSIM_TICKET_MASK		0xffffu
/* Polls before a waiter starts yielding the CPU; see dcsim_spin_lock(). */
#define DCSIM_SPIN_YIELD_AFTER		64

static inline void dcsim_spin_lock_init(dcsim_spinlock_t *lock)
{
	DCSIM_WRITE_ONCE(lock->val, 0u);
}

/* True if @val, a lock value read at some point, was unlocked then. */
static inline bool dcsim_spin_value_unlocked(dcsim_spinlock_t val)
{
	return (val.val & DCSIM_TICKET_MASK) == (val.val >> DCSIM_TICKET_SHIFT);
}

static inline bool dcsim_spin_is_locked(dcsim_spinlock_t *lock)
{
	dcsim_spinlock_t v = { .val = DCSIM_READ_ONCE(lock->val) };

	return !dcsim_spin_value_unlocked(v);
}

/**
 * dcsim_spin_lock_at() - take a ticket and wait for it to be served.
 * @lock:     the lock
 * @subclass: lockdep subclass (0; DCSIM_LOCK_SUBCLASS_MAX - 1 at most)
 * @func:     caller's function, for the lock order validator
 * @line:     caller's line
 *
 * Called through dcsim_spin_lock() or dcsim_spin_lock_nested().  The
 * fetch-add on the whole word carries out of bit 31 on tail wrap and
 * never into head, so head and tail stay independent 16-bit counters.
 * Return: (void) with the lock held.
 */
static inline void dcsim_spin_lock_at(dcsim_spinlock_t *lock, unsigned int subclass,
				      const char *func, int line)
{
	uint32_t old = dcsim_fetch_add_acquire(&lock->val, 1u << DCSIM_TICKET_SHIFT);
	uint16_t ticket = (uint16_t)(old >> DCSIM_TICKET_SHIFT);

	unsigned int spins = 0;

	if (dcsim_likely((uint16_t)(old & DCSIM_TICKET_MASK) == ticket)) {
		dcsim_spin_note(DCSIM_SPIN_ACQUIRED, lock, subclass, func, line);
		return;
	}
	dcsim_spin_note(DCSIM_SPIN_WAITING, lock, subclass, func, line);
	/*
	 * Acquire on each poll: the winning read orders our critical section.
	 *
	 * Unlike the kernel, user space cannot disable preemption.  With more
	 * threads than CPUs a preempted holder, or a preempted waiter whose
	 * ticket is next, stalls every later ticket for a whole time slice,
	 * and since each newcomer then finds the lock held the convoy never
	 * drains.  So after a short spin a waiter yields its CPU to whoever
	 * the lock is waiting for.
	 */
	while (dcsim_load_acquire(&lock->tickets.head) != ticket) {
		dcsim_cpu_relax();
		/*
		 * Harmless under the instrumented build's explorer too: it runs one
		 * logical thread at a time, so yielding the CPU changes nothing
		 * there, while free-running threads of an instrumented build need it.
		 */
		if (dcsim_unlikely(++spins > DCSIM_SPIN_YIELD_AFTER))
			sched_yield();
	}
	dcsim_spin_note(DCSIM_SPIN_ACQUIRED, lock, subclass, func, line);
}

/* dcsim_spin_lock() - take @lock; see dcsim_spin_lock_at(). */
#define dcsim_spin_lock(lock)	dcsim_spin_lock_at((lock), 0u, __func__, __LINE__)

/*
 * dcsim_spin_lock_nested() - take @lock, of a class the caller already
 * holds an instance of, as subclass @subclass: the kernel's
 * spin_lock_nested(), e.g. a child's d_lock under its parent's
 * (DENTRY_D_LOCK_NESTED).  Only the validator tells it from dcsim_spin_lock().
 */
#define dcsim_spin_lock_nested(lock, subclass) \
	dcsim_spin_lock_at((lock), (subclass), __func__, __LINE__)

/**
 * dcsim_spin_trylock_at() - take the lock only if it is free now.
 * @lock: the lock
 * @func: caller's function, for the lock order validator
 * @line: caller's line
 *
 * Called through dcsim_spin_trylock().
 * Return: true with the lock held, false without it.
 */
static inline bool dcsim_spin_trylock_at(dcsim_spinlock_t *lock, const char *func, int line)
{
	uint32_t old = DCSIM_READ_ONCE(lock->val);

	if ((old & DCSIM_TICKET_MASK) != (old >> DCSIM_TICKET_SHIFT) ||
	    !dcsim_try_cmpxchg(&lock->val, &old, old + (1u << DCSIM_TICKET_SHIFT))) {
		dcsim_spin_note(DCSIM_SPIN_CONTENDED, lock, 0u, func, line);
		return false;
	}
	dcsim_spin_note(DCSIM_SPIN_TRYLOCKED, lock, 0u, func, line);
	return true;
}

#define dcsim_spin_trylock(lock)	dcsim_spin_trylock_at((lock), __func__, __LINE__)

/**
 * dcsim_spin_unlock_unheld() - the refusal of dcsim_spin_unlock() of a lock
 * that nobody holds: a kernel-style WARNING (counted, see <dcsim/warn.h>)
 * naming the lock, and nothing written.
 */
DCSIM_API void dcsim_spin_unlock_unheld(const dcsim_spinlock_t *lock);

/**
 * dcsim_spin_unlock() - release the lock.
 *
 * Only the owner writes head, so a release store of head + 1 is enough:
 * the 16-bit store cannot disturb a concurrent tail fetch-add.
 *
 * The whole word is read, not only head, for one check at no extra
 * access: while anyone holds the lock its ticket is taken, so tail !=
 * head, and a value with head == tail proves that nobody does.  Releasing
 * it anyway would move head past tail, and every later locker would wait
 * for a ticket that is never served (a silent hang): refuse with a
 * warning instead.  Like the kernel's assert_spin_locked(), this cannot
 * tell an unlock by a thread that does not hold a lock someone else holds.
 */
static inline void dcsim_spin_unlock(dcsim_spinlock_t *lock)
{
	dcsim_spinlock_t v = { .val = DCSIM_READ_ONCE(lock->val) };

	if (dcsim_unlikely(dcsim_spin_value_unlocked(v))) {
		dcsim_spin_unlock_unheld(lock);
		return;
	}
	dcsim_store_release(&lock->tickets.head, (uint16_t)(v.tickets.head + 1));
	dcsim_spin_note(DCSIM_SPIN_RELEASED, lock, 0u, NULL, 0);
}

#endif /* DCSIM_SPINLOCK_H */
