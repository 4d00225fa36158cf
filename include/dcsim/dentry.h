/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_DENTRY_H
#define DCSIM_DENTRY_H

/*
 * Directory entries of the dcsim dentry cache, modelling struct dentry and
 * the reference operations of include/linux/dcache.h and fs/dcache.c.
 *
 * Semantics: a dentry carries a lockref (d_lock + reference count).  A
 * count > 0 means "in use"; 0 means "unused but cached" (hashed and on the
 * cache's LRU list); a negative count (DCSIM_LOCKREF_DEAD) means killed.
 * Every reference taken with dcsim_dget(), dcsim_dget_parent(),
 * dcsim_d_lookup(), dcsim_d_alloc() or dcsim_d_alloc_root() is dropped with
 * dcsim_dput(), which runs the cache's dput strategy (<dcsim/strategy.h>).
 * A child holds one reference on its parent until it is killed.
 *
 * Flags keep the kernel's 6.1 values and meanings.  The "type" bits stand in
 * for d_inode: a dentry is negative when (d_flags & DCSIM_DCACHE_ENTRY_TYPE)
 * is DCSIM_DCACHE_MISS_TYPE.  A positive dentry points to a stub inode
 * that holds only what the kill paths lock (i_lock) and a count of its
 * aliases; dcsim_d_add_link() gives a second name to the same inode.
 *
 * The structure is public only so that its size and layout can be checked;
 * use the accessors, never the fields.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dcsim/compiler.h>
#include <dcsim/lockref.h>
#include <dcsim/rcu.h>

struct dcsim_cache;
struct dcsim_dentry;
struct dcsim_inode;

/* d_flags: the kernel's 6.1 values (include/linux/dcache.h). */
#define DCSIM_DCACHE_OP_DELETE		0x00000008u /* d_op->d_delete is set (static) */
#define DCSIM_DCACHE_OP_PRUNE		0x00000010u /* d_op->d_prune is set (static) */
#define DCSIM_DCACHE_DISCONNECTED	0x00000020u /* never retained once unused */
#define DCSIM_DCACHE_REFERENCED		0x00000040u /* recently used, don't discard */
#define DCSIM_DCACHE_DONTCACHE		0x00000080u /* purge from cache on final dput */
#define DCSIM_DCACHE_GENOCIDE		0x00000200u /* d_genocide() dropped its pin */
#define DCSIM_DCACHE_SHRINK_LIST	0x00000400u /* on a private shrink list */
#define DCSIM_DCACHE_DENTRY_KILLED	0x00008000u /* killed, unlisted from the parent */
#define DCSIM_DCACHE_LRU_LIST		0x00080000u /* on the LRU (or a shrink list) */
#define DCSIM_DCACHE_ENTRY_TYPE		0x00700000u
#define DCSIM_DCACHE_MISS_TYPE		0x00000000u /* negative */
#define DCSIM_DCACHE_DIRECTORY_TYPE	0x00200000u
#define DCSIM_DCACHE_REGULAR_TYPE	0x00400000u
/* Model-only: dentry_free() has queued the memory for freeing. */
#define DCSIM_DCACHE_FREED		0x80000000u

/* Flags a user may set or clear with dcsim_d_set_flags()/dcsim_d_clear_flags(). */
#define DCSIM_DCACHE_USER_FLAGS		(DCSIM_DCACHE_DISCONNECTED | DCSIM_DCACHE_DONTCACHE)

/* Names shorter than this are stored inline (the kernel's DNAME_INLINE_LEN). */
#define DCSIM_DNAME_INLINE_LEN		40

/* Optional operations; models struct dentry_operations. */
struct dcsim_dentry_operations {
	/*
	 * ->d_delete(): called with d_lock held on the final put of a hashed
	 * dentry; nonzero means "kill it instead of caching it".  It must not
	 * call back into the cache.
	 */
	int (*d_delete)(const struct dcsim_dentry *dentry);
	/*
	 * ->d_prune(): called with d_lock held when the dentry is about to be
	 * unhashed and killed (DCSIM_DCACHE_OP_PRUNE).  ->d_release(): called
	 * after the kill, before the memory is freed (by the 6.8+ kills with
	 * no lock held, by the older ones with d_lock held).  Neither may
	 * call back into the cache.
	 */
	void (*d_prune)(struct dcsim_dentry *dentry);
	void (*d_release)(struct dcsim_dentry *dentry);
};

/* Private linkage types. */
struct dcsim_hash_node {			/* hash chain, walked under RCU */
	struct dcsim_dentry *next;
	struct dcsim_dentry **pprev;		/* NULL <=> unhashed */
};

struct dcsim_list_head {			/* LRU or shrink list */
	struct dcsim_list_head *next, *prev;
};

struct dcsim_hlist_node {			/* parent's list of children */
	struct dcsim_hlist_node *next, **pprev;
};

/*
 * struct dcsim_dentry - one cached name.  Layout (x86-64, 192 bytes):
 * cache line 0 and the start of line 1 hold what an RCU lookup reads
 * (flags, d_seq, hash link, parent, name); the lockref starts cache line 2,
 * as after kernel commit 18a5daf0e497, so reference-count traffic does not
 * bounce the lines lookups read.  docs/design.md has the full table.
 */
struct dcsim_dentry {
	/* RCU lookup touched fields */
	uint32_t d_flags;			/* protected by d_lock */
	uint32_t d_seq;				/* bumped by __d_drop(), instantiate */
	struct dcsim_hash_node d_hash;		/* bucket lock; RCU readers */
	struct dcsim_dentry *d_parent;		/* == self for a root */
	uint32_t d_name_hash;
	uint32_t d_name_len;
	const char *d_name;			/* d_iname or an allocation */
	unsigned char d_iname[DCSIM_DNAME_INLINE_LEN];
	/* rarely written */
	struct dcsim_cache *d_cache;
	const struct dcsim_dentry_operations *d_op;
	uint64_t d_id;				/* allocation order in the cache, from 1 */
	void *d_fsdata;				/* for the user */
	unsigned long d_time;			/* unused, as the kernel's d_time here */
	/* Ref lookup also touches the following (cache line 2) */
	struct dcsim_lockref d_lockref;		/* d_lock and the count */
	/*
	 * The RCU head reuses what nobody reads once dentry_free() has run:
	 * the dentry is on no LRU or shrink list then, and has no children.
	 * Not d_sib: the kernel's d_walk() (6.8+) ascends from a child that
	 * may have been killed and freed meanwhile through the d_sib.next
	 * that dentry_unlist() left, under rcu_read_lock() only.
	 */
	union {
		struct {
			struct dcsim_list_head d_lru;	/* LRU or shrink list */
			struct dcsim_hlist_node *d_children; /* first child; under d_lock */
		};
		struct dcsim_rcu_head d_rcu;	/* after the kill: deferred free */
	};
	struct dcsim_hlist_node d_sib;		/* parent's children; next kept after the kill */
	struct dcsim_inode *d_inode;		/* NULL <=> negative; d_lock + i_lock */
} dcsim_cacheline_aligned;

/* Accessors (lockless snapshots unless the caller holds the dentry stable). */
DCSIM_API int32_t dcsim_d_count(const struct dcsim_dentry *dentry);
DCSIM_API uint32_t dcsim_d_flags(const struct dcsim_dentry *dentry);
DCSIM_API bool dcsim_d_unhashed(const struct dcsim_dentry *dentry);
DCSIM_API bool dcsim_d_is_negative(const struct dcsim_dentry *dentry);
DCSIM_API bool dcsim_d_is_root(const struct dcsim_dentry *dentry);
DCSIM_API const char *dcsim_d_name(const struct dcsim_dentry *dentry);
DCSIM_API uint64_t dcsim_d_id(const struct dcsim_dentry *dentry);
/** dcsim_d_parent() - the parent; no reference is taken (see dcsim_dget_parent()). */
DCSIM_API struct dcsim_dentry *dcsim_d_parent(const struct dcsim_dentry *dentry);
DCSIM_API struct dcsim_cache *dcsim_d_cache(const struct dcsim_dentry *dentry);
DCSIM_API void *dcsim_d_fsdata(const struct dcsim_dentry *dentry);
DCSIM_API void dcsim_d_set_fsdata(struct dcsim_dentry *dentry, void *data);

/**
 * dcsim_d_alloc_root() - models d_make_root(): a new root, unhashed and
 * positive (a directory).
 * Return: the root with one reference held by the caller, or NULL (errno set:
 * EINVAL for a destroyed cache or a bad name, ENOMEM).
 */
DCSIM_API struct dcsim_dentry *dcsim_d_alloc_root(struct dcsim_cache *cache, const char *name);

/**
 * dcsim_d_alloc() - models d_alloc(): a new negative, unhashed child of
 * @parent.  Takes a reference on @parent (the caller must hold one).
 * Return: the child with one reference, or NULL (errno set).
 */
DCSIM_API struct dcsim_dentry *dcsim_d_alloc(struct dcsim_dentry *parent, const char *name);

/**
 * dcsim_d_set_op() - models d_set_d_op(): install operations before the
 * dentry is hashed; sets DCSIM_DCACHE_OP_DELETE if ->d_delete is given.
 */
DCSIM_API void dcsim_d_set_op(struct dcsim_dentry *dentry, const struct dcsim_dentry_operations *op);

/** dcsim_d_set_flags()/dcsim_d_clear_flags() - DCSIM_DCACHE_USER_FLAGS only, under d_lock. */
DCSIM_API void dcsim_d_set_flags(struct dcsim_dentry *dentry, uint32_t flags);
DCSIM_API void dcsim_d_clear_flags(struct dcsim_dentry *dentry, uint32_t flags);

/**
 * dcsim_d_add() - models d_add(): instantiate (positive: regular file type,
 * or negative) and hash.  The caller holds a reference.
 */
DCSIM_API void dcsim_d_add(struct dcsim_dentry *dentry, bool positive);

/**
 * dcsim_d_add_link() - models link(2) in the dcache: d_instantiate() of
 * the unhashed @dentry with @target's inode, then d_rehash().  The caller
 * holds references on both.
 * Return: 0, or -EINVAL (@target negative, @dentry hashed, dead or a root).
 */
DCSIM_API int dcsim_d_add_link(struct dcsim_dentry *dentry, struct dcsim_dentry *target);

/**
 * dcsim_inode_lock() - models inode_lock() on a directory: take @dir's
 * create lock, which stands for its i_rwsem held exclusive.  One lock per
 * directory, on the directory inode's own cache line.  Take it with no
 * other dcsim lock held; a parent's before a child's.  The caller holds a
 * reference on @dir (which keeps it positive: see dcsim_d_delete()).  The
 * model types any positive dentry's inode as able to hold children.
 * Return: 0 with the lock held; -EINVAL (warned) for a negative, dead or
 * unreferenced @dir or a destroyed cache, with nothing held.
 */
DCSIM_API int dcsim_inode_lock(struct dcsim_dentry *dir);

/**
 * dcsim_inode_unlock() - models inode_unlock(): release @dir's create lock.
 * Return: nothing; the lock released.  Releasing a lock nobody holds warns
 * and changes nothing.
 */
DCSIM_API void dcsim_inode_unlock(struct dcsim_dentry *dir);

/**
 * dcsim_d_instantiate() - models vfs_create()'s d_instantiate(): give the
 * hashed negative @dentry a new inode in place, under the inode's i_lock
 * and d_lock, as the kernel does after an unlink left the name negative
 * (d_delete() with count 1).  No dentry is allocated or killed and neither
 * the hash table nor the LRU is touched; d_seq moves, so a lockless walker
 * that saw the name negative looks again.  The caller holds a reference on
 * @dentry and its parent's create lock (dcsim_inode_lock()).
 * Return: 0, @dentry now positive (a regular file); -EINVAL with a warning
 * and nothing changed if @dentry is positive, unhashed, unreferenced, a
 * root, or its parent's create lock is free; -ENOMEM.
 */
DCSIM_API int dcsim_d_instantiate(struct dcsim_dentry *dentry);

/** dcsim_d_rehash() - models d_rehash(): hash an unhashed dentry. */
DCSIM_API void dcsim_d_rehash(struct dcsim_dentry *dentry);

/**
 * dcsim_d_lookup() - find the hashed child @name of @parent: an RCU walk of
 * the hash chain, then lockref_get_not_dead() and a d_seq recheck, as the
 * kernel's __d_lookup_rcu() + legitimize step.  The caller holds a reference
 * on @parent.
 * Return: the child with a new reference, or NULL.
 */
DCSIM_API struct dcsim_dentry *dcsim_d_lookup(struct dcsim_dentry *parent, const char *name);

/** dcsim_dget() - models dget(): one more reference; the caller holds one. */
DCSIM_API struct dcsim_dentry *dcsim_dget(struct dcsim_dentry *dentry);

/**
 * dcsim_dget_parent() - models dget_parent(): a referenced parent (the dentry
 * itself for a root).  The caller holds a reference on @dentry.
 */
DCSIM_API struct dcsim_dentry *dcsim_dget_parent(struct dcsim_dentry *dentry);

/**
 * dcsim_d_move() - models d_move() (rename(2) to another directory, or the
 * same, under the same name): rename_lock as a seqlock writer, the parents'
 * d_lock in the kernel's order, the dentry's nested; it is unhashed, moved
 * to @new_parent's children (the child's reference on its parent moves
 * with it) and hashed there again if it was hashed.  The caller holds a
 * reference on @dentry, on @new_parent and on the old parent, and, as the
 * kernel's lock_rename() does, keeps the two directories' other namespace
 * changes away (no hashed child @dentry's name exists in @new_parent).
 * Return: 0; -EINVAL for a root, a move into @dentry itself or below it,
 * or a dead directory (warned).
 */
DCSIM_API int dcsim_d_move(struct dcsim_dentry *dentry, struct dcsim_dentry *new_parent);

/**
 * dcsim_dput() - models dput(): drop a reference with the cache's strategy.
 * An unused dentry is retained (LRU) or killed, and a kill drops the
 * reference on the parent, walking up the tree.  dcsim_dput(NULL) is a no-op.
 * Misuse (a dead or zero-count dentry) warns and changes nothing.
 */
DCSIM_API void dcsim_dput(struct dcsim_dentry *dentry);

/** dcsim_d_drop() - models d_drop(): unhash; the last dput then kills it. */
DCSIM_API void dcsim_d_drop(struct dcsim_dentry *dentry);

/**
 * dcsim_d_delete() - models d_delete() (unlink): with count 1 the dentry
 * becomes negative and stays hashed (a later create may instantiate it in
 * place, dcsim_d_instantiate()); otherwise it is unhashed.
 */
DCSIM_API void dcsim_d_delete(struct dcsim_dentry *dentry);

/**
 * dcsim_d_invalidate() - models d_invalidate(): unhash, then (if positive)
 * kill every unused descendant as shrink_dcache_parent() does.
 */
DCSIM_API void dcsim_d_invalidate(struct dcsim_dentry *dentry);

/**
 * dcsim_d_genocide() - models d_genocide() followed by
 * shrink_dcache_parent(), the teardown of a filesystem that pins its
 * dentries (ramfs, tmpfs: the filesystem holds one reference on each
 * positive, hashed dentry from its create on; kill_litter_super() and
 * simple_fill_super()'s error path call the two in a row).
 * @root: the top of the tree; the caller holds a reference on it
 *
 * Every positive, hashed descendant of @root not marked yet is marked
 * DCSIM_DCACHE_GENOCIDE and loses one reference, the filesystem's pin;
 * a negative or unhashed one is skipped with what lies under it (the
 * filesystem dropped that pin when it unlinked it).  Then every unused
 * descendant is killed.  The caller must hold no pin it means to drop
 * itself: each positive, hashed, unmarked descendant must carry one.
 * Return: (void) no lock held.
 */
DCSIM_API void dcsim_d_genocide(struct dcsim_dentry *root);

#endif /* DCSIM_DENTRY_H */
