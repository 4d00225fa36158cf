// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The model's stub inodes: what the dentry cache locks and counts of an
 * inode (i_lock, the alias count, the directory's create lock standing for
 * i_rwsem), giving a dentry its inode (d_instantiate(), d_add()) and taking
 * it away (dentry_unlink_inode()).  Models the inode side of fs/dcache.c
 * and include/linux/fs.h:inode_lock().  The locks and their order are in
 * the Usage/Ordering block of cache.c.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dcache.h"
#include "../base/rcu-internal.h"
#include "slab.h"
#include "stats.h"

_Static_assert(sizeof(struct dcsim_inode) == DCSIM_CACHELINE, "an inode is one cache line");

struct dcsim_inode *inode_alloc(void)
{
	struct dcsim_inode *inode = dcache_slab_alloc(DCACHE_SLAB_INODE);

	if (inode) {
		memset(inode, 0, sizeof(*inode));
		dcsim_spin_lock_init(&inode->i_lock);
		dcsim_lock_set_class(&inode->i_lock, &dcache_class_i_lock);
		inode->i_magic = DCACHE_INODE_MAGIC;
		dcsim_rwsem_init(&inode->i_rwsem);
		dcsim_lock_set_class(&inode->i_rwsem, &dcache_class_i_rwsem);
	}
	return inode;
}

/* An inode nobody else can reach: never published, or after its grace period. */
void inode_free(struct dcsim_inode *inode)
{
	dcache_slab_free(DCACHE_SLAB_INODE, inode);
}

static void inode_free_rcu(struct dcsim_rcu_head *head)
{
	inode_free(dcsim_container_of(head, struct dcsim_inode, i_rcu));
}

/*
 * Whether a dentry that changes type counts in nr_negative (the kernel's
 * nr_dentry_negative): only on the LRU proper.  One on a shrink list has
 * DCACHE_LRU_LIST too, but is not on the LRU and leaves the list without
 * d_lru_del() (aabfe57ebaa7, 6.10 and 6.1.y; the planted fault tests the
 * flag alone, as before it).  d_lock held.
 */
static bool counts_negative(struct dcsim_dentry *d)
{
	uint32_t f = d_flags_read(d) & (DCSIM_DCACHE_LRU_LIST | DCSIM_DCACHE_SHRINK_LIST);

	if (dcache_faulty(DCSIM_DCACHE_FAULT_NEGATIVE_COUNT))
		return f & DCSIM_DCACHE_LRU_LIST;
	return f == DCSIM_DCACHE_LRU_LIST;
}

/* models d_instantiate()'s __d_set_inode_and_type(): i_lock and d_lock held */
void __d_set_inode(struct dcsim_dentry *d, struct dcsim_inode *inode, uint32_t type)
{
	WRITE_ONCE(inode->i_count, READ_ONCE(inode->i_count) + 1);
	WRITE_ONCE(d->d_inode, inode);
	__d_set_flags(d, type);
	/* models __d_instantiate(): a negative on the LRU is one no more */
	if (counts_negative(d))
		dstat_add(d->d_cache, DCSIM_CS_NR_NEGATIVE, -1);
}

/*
 * The part dentry_unlink_inode() and dentry_clear_inode() share: d_lock
 * and the inode's i_lock held, both stay held.  The dentry becomes
 * negative inside a d_seq write section, and the inode loses an alias.
 * Return: the inode, and in @left the aliases it has left.
 */
static struct dcsim_inode *__dentry_detach_inode(struct dcsim_dentry *d, uint32_t *left)
{
	struct dcsim_inode *inode = READ_ONCE(d->d_inode);

	/*
	 * lockdep_assert_held(&inode->i_lock), where the explorer knows who
	 * holds what.  A kill that gets here without it (6.1's own
	 * shrink_lock_dentry() after a negative became positive while it
	 * relocked the parent) edits the inode's aliases unlocked and then
	 * unlocks an i_lock that it never took, someone else's if taken.
	 */
	dcsim_spin_assert_held(&inode->i_lock, "its inode's i_lock", "detaching the inode of dentry",
			       d->d_name);

	/*
	 * An RCU-walk that read the type (positive) before this must not
	 * legitimise the dentry after it: the odd d_seq and the bump make its
	 * recheck fail (fs/namei.c relies on the same write section).
	 */
	__d_seq_write_begin(d);
	__d_clear_flags(d, DCSIM_DCACHE_ENTRY_TYPE);
	WRITE_ONCE(d->d_inode, NULL);
	/* models __d_clear_type_and_inode(): a new negative on the LRU */
	if (counts_negative(d))
		dstat_inc(d->d_cache, DCSIM_CS_NR_NEGATIVE);
	__d_seq_write_end(d);
	*left = READ_ONCE(inode->i_count) - 1;
	WRITE_ONCE(inode->i_count, *left);
	return inode;
}

/*
 * models fs/dcache.c:dentry_unlink_inode() + iput(): d_lock and the
 * inode's i_lock held; drops i_lock (the kernel drops d_lock too, the
 * callers here keep it).  The dentry becomes negative; the last alias
 * frees the inode after a grace period.
 */
void dentry_unlink_inode(struct dcsim_dentry *d)
{
	uint32_t left;
	struct dcsim_inode *inode = __dentry_detach_inode(d, &left);

	dcsim_spin_unlock(&inode->i_lock);
	if (!left)
		dcsim_call_rcu(&inode->i_rcu, inode_free_rcu);
}

/*
 * dentry_unlink_inode() for the kernel's own __dentry_kill() (k612): the
 * same under d_lock and i_lock, but both stay held, for the kernel code
 * drops them itself (kernel-code/include/kc/glue-impl.h).  The last alias
 * queues the inode's free now: the caller's held i_lock is an RCU reader
 * in that tree, so the grace period waits for its unlock.
 */
void dentry_clear_inode(struct dcsim_dentry *d)
{
	uint32_t left;
	struct dcsim_inode *inode = __dentry_detach_inode(d, &left);

	if (!left)
		dcsim_call_rcu(&inode->i_rcu, inode_free_rcu);
}

/*
 * models fs/dcache.c:__d_instantiate()'s seqcount write section around
 * __d_set_inode_and_type(); d_lock held.  A lockless walker that sampled
 * d_seq while the dentry was negative sees it move and looks again.
 */
static void __d_instantiate(struct dcsim_dentry *d, struct dcsim_inode *inode, uint32_t type)
{
	/* raw_write_seqcount_begin(): odd before the inode is published... */
	WRITE_ONCE(d->d_seq, READ_ONCE(d->d_seq) + 1);
	smp_wmb();
	__d_set_inode(d, inode, type);
	/* ...and even again only after: raw_write_seqcount_end(). */
	smp_wmb();
	WRITE_ONCE(d->d_seq, READ_ONCE(d->d_seq) + 1);
}

/*
 * The inode of @dir, for its create lock.  The caller's reference keeps
 * d_inode stable: d_delete() makes a dentry negative only when the
 * reference it holds is the only one, so nobody else can while we hold
 * ours (it unhashes instead).
 */
static struct dcsim_inode *dir_inode(struct dcsim_dentry *dir)
{
	return READ_ONCE(dir->d_inode);
}

/* models include/linux/fs.h:inode_lock() of a directory */
int dcsim_inode_lock(struct dcsim_dentry *dir)
{
	struct dcsim_inode *inode;

	if (WARN_ON_ONCE(!dir || !dcache_alive(dir->d_cache)))
		return -EINVAL;
	inode = dir_inode(dir);
	if (WARN_ON_ONCE(!inode || d_cnt(dir) <= 0))
		return -EINVAL;		/* negative or unreferenced: no i_rwsem */
	dcsim_down_write(&inode->i_rwsem);
	return 0;
}

/* models include/linux/fs.h:inode_unlock() of a directory */
void dcsim_inode_unlock(struct dcsim_dentry *dir)
{
	struct dcsim_inode *inode;

	if (WARN_ON_ONCE(!dir || !dcache_alive(dir->d_cache)))
		return;
	inode = dir_inode(dir);
	/* Unlinked while locked (only its holder could): the lock went with it. */
	if (WARN_ON_ONCE(!inode))
		return;
	dcsim_up_write(&inode->i_rwsem);	/* warns itself if not held */
}

/*
 * models fs/namei.c:vfs_create() -> d_instantiate(): the hashed negative
 * dentry left by an unlink (or a failed lookup) becomes positive in place,
 * with a new inode: no allocation of a dentry, no kill, no LRU or hash
 * traffic.  i_lock of the new inode, then d_lock, as d_instantiate() does.
 */
int dcsim_d_instantiate(struct dcsim_dentry *d)
{
	struct dcsim_inode *inode, *dir;

	if (WARN_ON_ONCE(!d || !dcache_alive(d->d_cache)))
		return -EINVAL;
	/*
	 * The parent is pinned by our child's reference, and its inode with
	 * it (see dir_inode()); a rename of it is kept away by the create lock
	 * our caller holds (dcsim_d_move()), so d_parent is fixed.
	 */
	dir = IS_ROOT(d) ? NULL : dir_inode(READ_ONCE(d->d_parent));
	if (WARN_ON_ONCE(!dir || !dcsim_rwsem_is_locked(&dir->i_rwsem)))
		return -EINVAL;		/* a root, or the create lock not held */
	inode = inode_alloc();
	if (!inode)
		return -ENOMEM;
	/* A new inode: its i_lock is ours alone, taken first as the order says. */
	dcsim_spin_lock(&inode->i_lock);
	d_lock(d);
	if (WARN_ON_ONCE(d_cnt(d) <= 0 || d_unhashed(d) || READ_ONCE(d->d_inode))) {
		/* unreferenced, unhashed or positive: nothing changes */
		d_unlock(d);
		dcsim_spin_unlock(&inode->i_lock);
		inode_free(inode);
		return -EINVAL;
	}
	__d_instantiate(d, inode, DCSIM_DCACHE_REGULAR_TYPE);
	d_unlock(d);
	dcsim_spin_unlock(&inode->i_lock);
	return 0;
}

