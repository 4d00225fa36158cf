// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The teardown of a filesystem that pins its dentries: models
 * fs/dcache.c:d_genocide() and its callback d_genocide_kill(), followed by
 * shrink_dcache_parent(), as kill_litter_super() (fs/super.c) and
 * simple_fill_super()'s error path (fs/libfs.c) run them.
 *
 * ramfs and tmpfs keep every positive, hashed dentry in core with one
 * reference of their own, taken at create (simple_mknod()'s "extra count")
 * and dropped at unlink (simple_unlink()), before d_delete() makes the
 * dentry negative or unhashes it.  At unmount nobody else drops those
 * pins: d_genocide() walks the tree and drops one reference from every
 * positive, hashed dentry below the root, marking it DCACHE_GENOCIDE so
 * that a second walk does not drop it twice.  A negative or unhashed one
 * carries no pin and is skipped with its subtree (the callback's
 * D_WALK_SKIP).  The pins dropped, shrink_dcache_parent() kills whatever is
 * unused.
 *
 * The model's walk holds the d_lock of every dentry on the path from the
 * root down (as collect() in shrink.c does), where the kernel's d_walk()
 * holds only the directory it walks and the child it looks at; the
 * decisions under each child's d_lock are the kernel's.  A cache whose
 * strategy brings the kernel's code (6.12: d_walk(), d_genocide_kill(),
 * shrink_dcache_parent()) runs that instead (src/model/kernel-code.h).
 */

#include "dcache.h"
#include "kernel-code.h"

/*
 * models fs/dcache.c:d_genocide_kill() on every child of @dir and below:
 * @dir's d_lock held (and its ancestors' up to the walk's top); each
 * child's d_lock is taken as subclass @depth + 1, the validator's view of a
 * chain of nested d_locks in tree order.
 */
static void genocide_walk(struct dcsim_dentry *dir, unsigned int depth)
{
	struct dcsim_hlist_node *n;

	/* The children list is stable: @dir's d_lock is held. */
	for (n = READ_ONCE(dir->d_children); n; n = READ_ONCE(n->next)) {
		struct dcsim_dentry *d = d_sib_entry(n);

		dcsim_spin_lock_nested(&d->d_lockref.lock,
				       depth + 1 < DCSIM_LOCK_SUBCLASS_MAX ? depth + 1 :
				       DCSIM_LOCK_SUBCLASS_MAX - 1);
		/*
		 * No pin on it: the filesystem dropped it when it unlinked
		 * the dentry (negative, or unhashed by d_delete()), or a kill
		 * has it (unhashed before it is marked dead; a strategy that
		 * kills from retain marks it dead first).  Skip it and what
		 * lies below.
		 */
		if (d_unhashed(d) || d_negative(d) || d_cnt(d) < 0) {
			d_unlock(d);
			continue;
		}
		if (!(d_flags_read(d) & DCSIM_DCACHE_GENOCIDE)) {
			__d_set_flags(d, DCSIM_DCACHE_GENOCIDE);
			/*
			 * The pin goes without a put: the count may reach 0
			 * off the LRU; shrink_dcache_parent() below finds it.
			 */
			d_set_cnt(d, d_cnt(d) - 1);
		}
		if (READ_ONCE(d->d_children))
			genocide_walk(d, depth + 1);
		d_unlock(d);
	}
}

/* models fs/dcache.c:d_genocide() + shrink_dcache_parent() */
static void dcache_d_genocide(struct dcsim_dentry *root)
{
	d_lock(root);
	genocide_walk(root, 0);
	d_unlock(root);
	dcache_shrink_dcache_parent(root);
}

void dcsim_d_genocide(struct dcsim_dentry *root)
{
	struct dcsim_cache *c = root->d_cache;

	if (WARN_ON_ONCE(!dcache_alive(c)))
		return;
	if (c->ops && c->ops->genocide)
		c->ops->genocide(root);
	else
		dcache_d_genocide(root);
}
