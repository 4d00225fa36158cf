/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_SRC_DCACHE_KERNEL_CODE_H
#define DCSIM_SRC_DCACHE_KERNEL_CODE_H

/*
 * NOT API, not installed: the entry points through which the
 * kernel's own dput() code, compiled in user space by kernel-code/
 * (strategies k61, k61-htm and k612), reaches the parts of the model it does not
 * bring itself.  Exported (the dcsim_kc_ prefix) only because the test
 * programs link the shared library; nothing else may call them.
 */

#include <stdbool.h>

#include <dcsim/compiler.h>
#include <dcsim/dentry.h>
#include <dcsim/spinlock.h>

/*
 * What a kernel-code strategy brings besides its dput() (the ->ops of its
 * struct dcsim_dput_strategy): the kernel's own shrinker, walks and
 * lookups of its tree, behind the public entry points of <dcsim/cache.h>
 * and <dcsim/dentry.h>, which call them once the cache is known alive.  A
 * NULL member is the model's own code (src/model/).  dput is not here:
 * it stays the strategy's ->dput, so that no strategy's put pays for an
 * indirection.
 */
struct dcsim_dcache_ops {
	/* prune_dcache_sb() + shrink_dentry_list(); Return: dentries killed */
	unsigned long (*prune)(struct dcsim_cache *cache, unsigned long nr_to_scan);
	/* shrink_dcache_sb(); Return: dentries killed */
	unsigned long (*shrink_all)(struct dcsim_cache *cache);
	/* dget_parent(): the caller holds a reference on @dentry */
	struct dcsim_dentry *(*get_parent)(struct dcsim_dentry *dentry);
	/* d_invalidate() */
	void (*invalidate)(struct dcsim_dentry *dentry);
	/*
	 * d_delete(): only for a positive @dentry the caller holds a
	 * reference on (dcsim_d_delete() keeps the rest in the model)
	 */
	void (*d_delete)(struct dcsim_dentry *dentry);
	/* d_genocide() + shrink_dcache_parent() (dcsim_d_genocide()) */
	void (*genocide)(struct dcsim_dentry *root);
};

/*
 * models fs/dcache.c:__dentry_kill(): d_lock and (unless a root) the
 * parent's d_lock held; kills, drops both locks, frees after a grace period.
 * The caller (the kernel's dentry_kill()) puts the parent next.
 */
DCSIM_API void dcsim_kc___dentry_kill(struct dcsim_dentry *dentry);

/*
 * rename_lock of @dentry's cache (the kernel's is global; src/model/
 * rename.c), for d_walk(): read_seqbegin() (waits out a rename, then
 * samples), read_seqretry() (a rename ran since @seq), and
 * read_seqlock_excl() / read_sequnlock_excl() (no rename runs meanwhile).
 */
DCSIM_API unsigned int dcsim_kc_rename_read_begin(struct dcsim_dentry *dentry);
DCSIM_API bool dcsim_kc_rename_read_retry(struct dcsim_dentry *dentry, unsigned int seq);
DCSIM_API void dcsim_kc_rename_lock_excl(struct dcsim_dentry *dentry);
DCSIM_API void dcsim_kc_rename_unlock_excl(struct dcsim_dentry *dentry);

/* models fs/dcache.c:__d_drop() (the hash table is dcsim's): d_lock held. */
DCSIM_API void dcsim_kc___d_drop(struct dcsim_dentry *dentry);

/*
 * models the part of fs/dcache.c:dentry_unlink_inode() under d_lock and
 * i_lock, and its iput(): the dentry goes negative, the last alias frees
 * the inode after a grace period.  Both locks stay held (the caller, an
 * RCU reader while it holds them, drops them).
 */
DCSIM_API void dcsim_kc_dentry_clear_inode(struct dcsim_dentry *dentry);

/*
 * models fs/dcache.c:dentry_unlist() (6.8+): d_lock and the parent's
 * d_lock held; marks it killed and takes it off its parent's children,
 * or a root off the cache's roots (dcsim's s_roots stand-in).  Counts the
 * kill and, for a child, the put of the parent that the caller makes.
 */
DCSIM_API void dcsim_kc_dentry_unlist(struct dcsim_dentry *dentry);

/*
 * list_lru (include/linux/list_lru.h) for the kernel's LRU helpers: dcsim's
 * one list per cache under its lru_lock, with the model's LRU counters.
 * models mm/list_lru.c:list_lru_add(): false if @item is on a list already.
 */
DCSIM_API bool dcsim_kc_list_lru_add(struct dcsim_cache *cache, struct dcsim_list_head *item);
/*
 * The kernel's this_cpu_inc()/_dec() of nr_dentry_negative, by the
 * extracted LRU helpers (d_lru_add() ...) on @dentry: the model's
 * nr_negative, which its own __d_instantiate() and
 * __d_clear_type_and_inode() (src/model/inode.c) keep beside them.
 */
DCSIM_API void dcsim_kc_nr_negative_add(struct dcsim_dentry *dentry, long n);
/* models mm/list_lru.c:list_lru_del(): false if @item is on no list. */
DCSIM_API bool dcsim_kc_list_lru_del(struct dcsim_cache *cache, struct dcsim_list_head *item);
/* models list_lru_isolate(): inside a walk's callback, lru_lock held. */
DCSIM_API void dcsim_kc_list_lru_isolate(struct dcsim_cache *cache, struct dcsim_list_head *item);
/* models list_lru_isolate_move(): to @head (a private list), lru_lock held. */
DCSIM_API void dcsim_kc_list_lru_isolate_move(struct dcsim_cache *cache,
					      struct dcsim_list_head *item,
					      struct dcsim_list_head *head);
/* models list_lru_count(): a lockless read, as the kernel's nr_items. */
DCSIM_API unsigned long dcsim_kc_list_lru_count(struct dcsim_cache *cache);

/* The isolate callback of a walk, with @lock the lru_lock it holds; an enum lru_status. */
typedef int (*dcsim_kc_lru_walk_cb)(struct dcsim_list_head *item, struct dcsim_cache *cache,
				    dcsim_spinlock_t *lock, void *arg);

/*
 * models mm/list_lru.c:__list_lru_walk_one() on the cache's one list:
 * lru_lock held, up to *@nr_to_walk entries from the oldest, each handed to
 * @isolate, LRU_ROTATE moved to the tail.  @prune: count the scans and
 * rotations as dcsim_prune() does (DCSIM_CS_PRUNE_SCAN, _ROTATE).
 * Return: the number of entries isolate removed.
 */
DCSIM_API unsigned long dcsim_kc_list_lru_walk(struct dcsim_cache *cache, dcsim_kc_lru_walk_cb isolate,
					       void *arg, unsigned long *nr_to_walk, bool prune);

/* models fs/dcache.c:dentry_free(): killed, on no list, no lock held; freed after a grace period. */
DCSIM_API void dcsim_kc_dentry_free(struct dcsim_dentry *dentry);

/* A WARN of the kernel code, counted with the library's (<dcsim/warn.h>); @file NULL: count only. */
DCSIM_API void dcsim_kc_warn(const char *file, int line, const char *func, const char *cond);

#endif /* DCSIM_SRC_DCACHE_KERNEL_CODE_H */
