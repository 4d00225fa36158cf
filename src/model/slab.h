/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_SRC_DCACHE_SLAB_H
#define DCSIM_SRC_DCACHE_SLAB_H

/*
 * The model's object caches for dentries and inodes, standing for the
 * kernel's dentry_cache and inode_cachep kmem_caches (mm/slub.c): a
 * per-thread magazine in front of per-CPU depots, so that an allocation
 * and a free touch only the calling thread's memory, and a batch of
 * objects crosses threads once per magazine.  What is and is not modelled
 * is at the top of slab.c.
 *
 * Sanitizer builds (ASan, TSan) use plain aligned_alloc() and free(), so
 * that the sanitizers see every use after free and every leak as before.
 */

#include <stddef.h>

enum dcache_slab_id {
	DCACHE_SLAB_DENTRY,
	DCACHE_SLAB_INODE,
	DCACHE_SLAB_NR
};

/*
 * dcache_slab_alloc() - an object of the slab's size, cache-line aligned,
 * contents undefined (the caller initialises it).
 * Return: the object, or NULL with errno ENOMEM.
 */
void *dcache_slab_alloc(enum dcache_slab_id id);

/*
 * dcache_slab_free() - give back an object that nobody can reach any more
 * (after its grace period, or never published).  Any thread may free,
 * including liburcu's call_rcu threads.
 */
void dcache_slab_free(enum dcache_slab_id id, void *obj);

/*
 * dcache_slab_cache_get() / dcache_slab_cache_put() - a dentry cache is
 * created / destroyed.  When the last one goes, the depots and the calling
 * thread's magazines are given back to malloc.
 */
void dcache_slab_cache_get(void);
void dcache_slab_cache_put(void);

#endif
