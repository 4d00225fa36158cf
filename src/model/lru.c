// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The LRU and the decision to keep an unused dentry on it: what a final
 * put does when the dentry stays cached.  Models fs/dcache.c's
 * d_lru_add(), d_lru_del(), d_shrink_add(), d_shrink_del() and
 * retain_dentry().  The locking rules are at the top of cache.c.
 */

#include "dcache.h"
#include "stats.h"

/* ---- LRU helpers (d_lock held); models fs/dcache.c d_lru_add() etc. ------ */

void d_lru_add(struct dcsim_dentry *d)
{
	struct dcsim_cache *c = d->d_cache;

	if (WARN_ON_ONCE(d_flags_read(d) & (DCSIM_DCACHE_LRU_LIST | DCSIM_DCACHE_SHRINK_LIST)))
		return;
	__d_set_flags(d, DCSIM_DCACHE_LRU_LIST);
	dcsim_spin_lock(&c->lru_lock);
	dlist_add_tail(&d->d_lru, &c->lru);
	dcsim_spin_unlock(&c->lru_lock);
	dstat_inc(c, DCSIM_CS_LRU_ADD);
	dstat_inc(c, DCSIM_CS_NR_LRU);
	if (d_negative(d))
		dstat_inc(c, DCSIM_CS_NR_NEGATIVE);
}

void d_lru_del(struct dcsim_dentry *d)
{
	struct dcsim_cache *c = d->d_cache;

	if (WARN_ON_ONCE((d_flags_read(d) & (DCSIM_DCACHE_LRU_LIST | DCSIM_DCACHE_SHRINK_LIST)) !=
			 DCSIM_DCACHE_LRU_LIST))
		return;
	__d_clear_flags(d, DCSIM_DCACHE_LRU_LIST);
	dcsim_spin_lock(&c->lru_lock);
	dlist_del_init(&d->d_lru);
	dcsim_spin_unlock(&c->lru_lock);
	dstat_inc(c, DCSIM_CS_LRU_DEL);
	dstat_add(c, DCSIM_CS_NR_LRU, -1);
	if (d_negative(d))
		dstat_add(c, DCSIM_CS_NR_NEGATIVE, -1);
}

void d_shrink_add(struct dcsim_dentry *d, struct dcsim_list_head *list)
{
	if (WARN_ON_ONCE(d_flags_read(d) & (DCSIM_DCACHE_LRU_LIST | DCSIM_DCACHE_SHRINK_LIST)))
		return;
	__d_set_flags(d, DCSIM_DCACHE_LRU_LIST | DCSIM_DCACHE_SHRINK_LIST);
	dlist_add(&d->d_lru, list);
}

void d_shrink_del(struct dcsim_dentry *d)
{
	uint32_t both = DCSIM_DCACHE_LRU_LIST | DCSIM_DCACHE_SHRINK_LIST;

	if (WARN_ON_ONCE((d_flags_read(d) & both) != both))
		return;
	dlist_del_init(&d->d_lru);
	__d_clear_flags(d, both);
}

/* ---- retain or kill ------------------------------------------------------- */

/*
 * models fs/dcache.c:retain_dentry() of 6.1: d_lock held, count == 1 (the
 * caller's reference).  Return: true if the dentry stays cached; the
 * caller's reference is then dropped (decremented, as the kernel does, so
 * that a wrong count is not papered over) and the LRU state updated.
 * False: the caller must kill it.
 * @style selects what a final put does to a dentry not yet on the LRU.
 */
bool retain_dentry(struct dcsim_dentry *d, enum dcsim_retain_style style)
{
	uint32_t f = d_flags_read(d);

	if (d_unhashed(d))
		return false;
	if (f & DCSIM_DCACHE_DISCONNECTED)
		return false;
	if (f & DCSIM_DCACHE_OP_DELETE) {
		const struct dcsim_dentry_operations *op = READ_ONCE(d->d_op);

		if (op->d_delete(d))
			return false;
	}
	if (f & DCSIM_DCACHE_DONTCACHE)
		return false;
	d_set_cnt(d, d_cnt(d) - 1);
	if (!(f & DCSIM_DCACHE_LRU_LIST)) {
		d_lru_add(d);
		if (style == DCSIM_RETAIN_ALWAYS_REFERENCED)
			__d_set_flags(d, DCSIM_DCACHE_REFERENCED);
	} else if (!(f & DCSIM_DCACHE_REFERENCED)) {
		__d_set_flags(d, DCSIM_DCACHE_REFERENCED);
	}
	return true;
}
