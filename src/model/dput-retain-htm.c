// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Strategy "retain-htm": our kernel patch ported to 6.12 (series v3,
 * kernel/patches-6.12/, docs/kernel.md).  The 6.8+ dput() of "retain"
 * (dput-retain.c) with the transaction of fast-htm (dput-fast-htm.c) tried
 * first, and only for the final put that 6.12 takes d_lock for just to set
 * DCACHE_REFERENCED: retain_dentry(dentry, false) punts a hashed dentry on
 * the LRU without REFERENCED to the lock, and the locked retain_dentry()
 * then only sets the flag.  As fast-htm is fast plus the transaction,
 * retain-htm is retain plus the same transaction, placed where the kernel
 * patch places it: before lockref_put_return(), doing the decrement itself.
 *
 * Reads/writes: fast_dput_wants_txn() reads the count, d_flags and the
 * hash link without the lock (a hint).  The transaction reads the lockref
 * word (the lock must be free; it is in the read set, so a later d_lock
 * acquisition aborts us), the hash link and d_flags, and writes the count
 * and maybe d_flags; it refuses, in retain_dentry()'s order, with
 * LOCKED, BADCOUNT, UNHASHED, KILL (DISCONNECTED, OP_DELETE, DONTCACHE),
 * NOLRU (<dcsim/strategy.h>).  Any abort falls through to the unchanged
 * 6.8+ code: a lockless cmpxchg decrement, the lockless
 * retain_dentry(false), and d_lock with the count left at 0 when that
 * cannot decide.  Every other put is exactly "retain".
 *
 * The logic must stay identical to kernel/patches-6.12/0002; the
 * kernel-code strategy k612-htm runs that code step by step against this.
 */

#include "dcache.h"

/* models fs/dcache.c:dput() with fast_dput() of our 6.12 series */
static enum dcsim_dput_path dput_retain_htm(struct dcsim_dentry *d)
{
	return dcsim_dput_68(d, FAST_HTM_FINAL);
}

const struct dcsim_dput_strategy dcsim_dput_retain_htm_strategy = {
	.name = "retain-htm",
	.description = "6.8+ dput() plus a transaction for the final put of an unreferenced LRU dentry (series v3)",
	.dput = dput_retain_htm,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
	.flags = DCSIM_STRATEGY_USES_HTM | DCSIM_STRATEGY_LOCK_FOR_KILL,
};
