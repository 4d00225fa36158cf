// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Rename (a move to another directory, under the same name) and the cache's
 * rename_lock.  Models fs/dcache.c:d_move() and __d_move() with the locking
 * of 6.1 and 6.12 (which agree on it), reduced to the case dcsim needs: no
 * target dentry (the new name is free; the kernel's target, a negative
 * dentry the lookup of the new name made, is what the caller would have
 * dropped), no exchange, no name copy.
 *
 * rename_lock (a seqlock_t in the kernel) is a writer's spinlock and a
 * sequence, odd while a rename is under way.  The readers are the walks
 * of the tree that follow d_parent upwards without holding the locks that
 * pin it: d_walk() (the kernel code's, 6.12) samples the sequence, walks,
 * and starts again with the lock held if a rename ran meanwhile
 * (read_seqbegin_or_lock(), need_seqretry(), done_seqretry()).
 *
 * What a rename changes, and under which locks (as __d_move()):
 *   - d_parent: under the old parent's d_lock, the new parent's and the
 *     dentry's own.  So a d_parent read under the dentry's d_lock is
 *     stable, and one read without it is confirmed by locking the parent
 *     read and reading d_parent again (__lock_parent(), dget_parent(),
 *     shrink_lock_dentry() recheck it so);
 *   - the hash chain: the dentry is unhashed from its old parent's bucket
 *     and hashed into the new one (the bucket depends on the parent), its
 *     d_seq odd meanwhile, so that a lockless lookup that matched it
 *     before the move rejects the match;
 *   - the children lists (d_sib) of both parents, and their counts: the
 *     child's reference moves from the old parent to the new.
 * The name does not change, so lookups may still read it unlocked.
 */

#include <errno.h>

#include "dcache.h"

/* ---- rename_lock: the read side ---------------------------------------- */

/* models read_seqbegin(&rename_lock): wait out a rename, then sample. */
uint32_t dcache_rename_read_begin(struct dcsim_cache *c)
{
	uint32_t seq;

	/* Odd: a rename is moving a dentry; it ends soon. */
	while (unlikely((seq = READ_ONCE(c->rename_seq)) & 1))
		cpu_relax();
	/* What the sample guards (d_parent links) is read after it. */
	smp_rmb();
	return seq;
}

/* models read_seqretry(&rename_lock, seq): true if a rename ran since @seq. */
bool dcache_rename_read_retry(struct dcsim_cache *c, uint32_t seq)
{
	/* The guarded reads are complete before the sequence is read again. */
	smp_rmb();
	return unlikely(READ_ONCE(c->rename_seq) != seq);
}

/* models read_seqlock_excl(&rename_lock): no rename runs until the unlock. */
void dcache_rename_lock_excl(struct dcsim_cache *c)
{
	dcsim_spin_lock(&c->rename_lock);
}

void dcache_rename_unlock_excl(struct dcsim_cache *c)
{
	dcsim_spin_unlock(&c->rename_lock);
}

/* ---- the rename ------------------------------------------------------------ */

/* @a is @d or one of its ancestors; rename_lock held, so d_parent is fixed. */
static bool d_is_ancestor(struct dcsim_dentry *a, struct dcsim_dentry *d)
{
	for (;;) {
		if (d == a)
			return true;
		if (IS_ROOT(d))
			return false;
		d = READ_ONCE(d->d_parent);
	}
}

/* models fs/dcache.c:__d_move(): rename_lock held, no other lock. */
static int __d_move(struct dcsim_dentry *d, struct dcsim_dentry *np)
{
	struct dcsim_dentry *op = READ_ONCE(d->d_parent);
	bool hashed;

	/* A directory into itself or below it: rename(2) refuses (EINVAL). */
	if (d_is_ancestor(d, np))
		return -EINVAL;
	/*
	 * The parents' d_lock in the kernel's order: an ancestor before its
	 * descendant; two unrelated directories, the new parent first (the
	 * writer's rename_lock keeps two renames from taking them in
	 * opposite orders).  Then the dentry itself, nested deeper.
	 */
	if (op == np) {
		d_lock(op);
	} else if (d_is_ancestor(op, np)) {
		d_lock(op);
		dcsim_spin_lock_nested(&np->d_lockref.lock, DCACHE_D_LOCK_NESTED);
	} else {
		d_lock(np);
		dcsim_spin_lock_nested(&op->d_lockref.lock, DCACHE_D_LOCK_NESTED);
	}
	dcsim_spin_lock_nested(&d->d_lockref.lock, 2);
	if (WARN_ON_ONCE(d_cnt(d) <= 0 || d_cnt(np) <= 0 || d_cnt(op) <= 1)) {
		/* The caller holds d, both directories (and so op beyond d's reference). */
		d_unlock(d);
		if (op != np)
			d_unlock(op);
		d_unlock(np);
		return -EINVAL;
	}
	/* write_seqcount_begin(&dentry->d_seq): a lookup's match of d is stale. */
	__d_seq_write_begin(d);
	hashed = !d_unhashed(d);
	if (hashed)
		__d_drop(d);
	WRITE_ONCE(d->d_parent, np);
	/* The child's reference moves with it; the caller's keeps op above 0. */
	d_set_cnt(np, d_cnt(np) + 1);
	d_set_cnt(op, d_cnt(op) - 1);
	hlist_del(&d->d_sib);
	hlist_add_head(&d->d_sib, &np->d_children);
	if (hashed)
		dcache_d_rehash_locked(d);
	/* Reports name it by its new path from here on. */
	dcache_name_dentry(d);
	__d_seq_write_end(d);
	if (op != np)
		d_unlock(op);
	d_unlock(np);
	d_unlock(d);
	return 0;
}

/* models fs/dcache.c:d_move() */
int dcsim_d_move(struct dcsim_dentry *d, struct dcsim_dentry *new_parent)
{
	struct dcsim_cache *c;
	int err;

	if (!d || !new_parent)
		return -EINVAL;
	c = d->d_cache;
	if (WARN_ON_ONCE(!dcache_alive(c) || new_parent->d_cache != c) || IS_ROOT(d))
		return -EINVAL;
	/* write_seqlock(): readers that sampled before see the sequence move. */
	dcsim_spin_lock(&c->rename_lock);
	WRITE_ONCE(c->rename_seq, READ_ONCE(c->rename_seq) + 1);
	/* Odd before the moves: a reader that sees one sees odd or later. */
	smp_wmb();
	err = __d_move(d, new_parent);
	/* The moves before the even value: a reader that sees it sees them. */
	smp_wmb();
	WRITE_ONCE(c->rename_seq, READ_ONCE(c->rename_seq) + 1);
	dcsim_spin_unlock(&c->rename_lock);
	return err;
}
