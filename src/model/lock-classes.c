// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The lock classes of the cache model, for the lock order
 * validator (<dcsim/lockdep.h>, docs/lock-order.md).  Each lock is given
 * its class where the model initialises it (d_alloc(), inode_alloc(),
 * dcsim_cache_create()); the kernel code (kernel-code/) locks the model's
 * objects, so its locks are these too.  A class is a static object: its
 * address is its identity, as a struct lock_class_key is lockdep's.
 *
 * rename_lock is the writer's spinlock of the cache's rename seqlock
 * (rename.c): taken first, with no d_lock held, by a rename and by the
 * locked pass of a tree walk.  The create lock (i_rwsem, exclusive only) is a class: a sleeping lock
 * taken with no spinlock held, so it may come first in any chain.
 */

#include "dcache.h"

const struct dcsim_lock_class dcache_class_d_lock = { "d_lock" };
const struct dcsim_lock_class dcache_class_i_lock = { "i_lock" };
const struct dcsim_lock_class dcache_class_i_rwsem = { "i_rwsem" };
const struct dcsim_lock_class dcache_class_lru_lock = { "lru_lock" };
const struct dcsim_lock_class dcache_class_hash_lock = { "hash_lock" };
const struct dcsim_lock_class dcache_class_roots_lock = { "roots_lock" };
const struct dcsim_lock_class dcache_class_rename_lock = { "rename_lock" };
