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
 * <dcsim/atomic.h>, so every lock operation is a schedule point in the check
 * build.
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
	DCSIM_SPIN_ACQUIRED,	/* a lock, or a trylock that took it */
	DCSIM_SPIN_RELEASED,	/* an unlock */
	DCSIM_SPIN_CONTENDED,	/* a failed trylock */
	/*
	 * A lock that has to wait: its ticket is taken, and the waiter, as
	 * the kernel's (preemption off from spin_lock() on), cannot be
	 * preempted, or every later ticket would wait for it.
	 */
	DCSIM_SPIN_WAITING,
};

#if DCSIM_INSTRUMENT
/*
 * dcsim_spin_note() - tell the checkers what a lock operation did
 * @ev:   what happened
 * @lock: the lock
 *
 * Returns at once outside an exploration; never a schedule point.
 */
DCSIM_API void dcsim_spin_note(enum dcsim_spin_event ev, const dcsim_spinlock_t *lock);

/*
 * dcsim_spin_assert_held() - lockdep_assert_held() for the explorer
 * @lock: the lock
 * @lock_name: what the lock is, for the report ("the inode's i_lock")
 * @what: what the caller is doing ("detaching the inode of dentry")
 * @object: the name of what it does it to, or NULL
 *
 * In an exploration, a logical thread that does not hold @lock (as
 * dcsim_spin_note() saw it taken and released) fails the execution here:
 * "T<n>: @what '@object' without holding @lock_name (T<m> holds it)" or
 * "(nobody holds it)".  Returns at once when that
 * is not known: outside an exploration, inside a simulated transaction
 * (its locks are not tracked), or past the tracked number of held locks.
 * Never a schedule point.
 */
DCSIM_API void dcsim_spin_assert_held(const dcsim_spinlock_t *lock, const char *lock_name,
				       const char *what, const char *object);
/*
 * dcsim_spin_site() - the next lock operations of the caller are made at
 * @func:@line (code whose lock calls go through wrappers names its own
 * place, as the kernel code's spin_lock() shims do); the explorer's
 * window-directed mode names lock-drop windows by it.  Never a schedule
 * point; nothing outside an exploration.
 */
DCSIM_API void dcsim_spin_site(const char *func, int line);
#else
#define dcsim_spin_note(ev, lock)	((void)0)
#define dcsim_spin_assert_held(lock, lock_name, what, object) \
	((void)(lock), (void)(lock_name), (void)(what), (void)(object))
#define dcsim_spin_site(func, line)	((void)0)
#endif

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
 * dcsim_spin_lock() - take a ticket and wait for it to be served.
 *
 * The fetch-add on the whole word carries out of bit 31 on tail wrap and
 * never into head, so head and tail stay independent 16-bit counters.
 */
static inline void dcsim_spin_lock(dcsim_spinlock_t *lock)
{
	uint32_t old = dcsim_fetch_add_acquire(&lock->val, 1u << DCSIM_TICKET_SHIFT);
	uint16_t ticket = (uint16_t)(old >> DCSIM_TICKET_SHIFT);

	unsigned int spins = 0;

	if (dcsim_likely((uint16_t)(old & DCSIM_TICKET_MASK) == ticket)) {
		dcsim_spin_note(DCSIM_SPIN_ACQUIRED, lock);
		return;
	}
	dcsim_spin_note(DCSIM_SPIN_WAITING, lock);
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
	dcsim_spin_note(DCSIM_SPIN_ACQUIRED, lock);
}

/**
 * dcsim_spin_trylock() - take the lock only if it is free now.
 * Return: true with the lock held, false without it.
 */
static inline bool dcsim_spin_trylock(dcsim_spinlock_t *lock)
{
	uint32_t old = DCSIM_READ_ONCE(lock->val);

	if ((old & DCSIM_TICKET_MASK) != (old >> DCSIM_TICKET_SHIFT) ||
	    !dcsim_try_cmpxchg(&lock->val, &old, old + (1u << DCSIM_TICKET_SHIFT))) {
		dcsim_spin_note(DCSIM_SPIN_CONTENDED, lock);
		return false;
	}
	dcsim_spin_note(DCSIM_SPIN_ACQUIRED, lock);
	return true;
}

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
	dcsim_spin_note(DCSIM_SPIN_RELEASED, lock);
}

#endif /* DCSIM_SPINLOCK_H */
