/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_LOCKDEP_H
#define DCSIM_LOCKDEP_H

/*
 * Lock classes for the lock order validator, in the explorer and on real
 * threads (instrumented build; docs/lock-order.md).
 *
 * The validator, as the kernel's lockdep, reasons about classes of locks,
 * not instances: "some d_lock held while some i_lock is taken" is one
 * acquired-before edge, whichever dentry and inode they were.  An edge
 * that closes a cycle of classes is a possible deadlock even if no
 * execution ever deadlocked, and the execution that added it fails.
 *
 * The engine knows no dentry, so the code it explores says which lock is
 * of which class: the model (and any user of the explorer) registers each
 * lock when it initialises it, with a class it owns (a static struct
 * dcsim_lock_class, whose address is the class's identity, as a
 * lock_class_key is lockdep's).  A lock never registered is not
 * validated.  Calls go one way: the model registers, the engine looks up.
 *
 * Subclasses: a class whose instances nest (a child's d_lock taken under
 * its parent's) is taken with dcsim_spin_lock_nested(lock, n)
 * (<dcsim/spinlock.h>); (class, n) is then a class of its own, as in
 * lockdep, and taking a class already held at the same subclass is
 * reported as possible recursive locking.
 *
 * In an exploration, registrations are forgotten when an execution begins
 * (the scenario's setup registers again what it builds).  Outside one
 * they go to the validator of real threads (dcsim_lockdep_begin(),
 * <dcsim/explore.h>), where they last for its scope.  The normal build
 * has no call.
 */

#include <stddef.h>

#include <dcsim/compiler.h>
#include <dcsim/config.h>

struct dcsim_lock_class {
	const char *name;	/* "d_lock", printed in reports */
};

/* The build flavour's registration calls: nothing in the normal build. */
#include <dcsim/flavour/lockdep.h>

#endif /* DCSIM_LOCKDEP_H */
