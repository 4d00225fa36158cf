// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Entry points for kernel-code/ (see kernel-code.h): the kernel's
 * dput(), dentry_kill(), retain_dentry() and fast_dput() compiled from the
 * tarball call these for what they leave to the rest of fs/dcache.c.
 */

#include <stddef.h>

#include "dcache.h"
#include "kernel-code.h"
#include "stats.h"

/* kernel-code/'s struct inode names only i_lock, at offset 0. */
_Static_assert(__builtin_offsetof(struct dcsim_inode, i_lock) == 0,
	       "dcsim_inode.i_lock must come first for the kernel code");

void dcsim_kc___dentry_kill(struct dcsim_dentry *d)
{
	struct dcsim_cache *c = d->d_cache;
	struct dcsim_dentry *parent = IS_ROOT(d) ? NULL : READ_ONCE(d->d_parent);

	__dentry_kill(d, parent);
	/*
	 * The put of the parent: dentry_kill()'s caller makes it next (as
	 * dcsim_dput_61() counts it), 6.1's shrink_dentry_list() made it
	 * before (__dput_to_list(), as the model's counts it).  Neither
	 * @d nor @parent may be touched now: the parent's count may already
	 * have let another thread kill and free it once we unlocked it.
	 */
	if (parent)
		dstat_inc(c, DCSIM_CS_PARENT_PUT);
}

unsigned int dcsim_kc_rename_read_begin(struct dcsim_dentry *d)
{
	return dcache_rename_read_begin(d->d_cache);
}

bool dcsim_kc_rename_read_retry(struct dcsim_dentry *d, unsigned int seq)
{
	return dcache_rename_read_retry(d->d_cache, seq);
}

void dcsim_kc_rename_lock_excl(struct dcsim_dentry *d)
{
	dcache_rename_lock_excl(d->d_cache);
}

void dcsim_kc_rename_unlock_excl(struct dcsim_dentry *d)
{
	dcache_rename_unlock_excl(d->d_cache);
}

void dcsim_kc___d_drop(struct dcsim_dentry *d)
{
	__d_drop(d);
}

void dcsim_kc_dentry_clear_inode(struct dcsim_dentry *d)
{
	dentry_clear_inode(d);
}

/*
 * The kill's own counters are kept here, at the one call every kill
 * makes: the model's __dentry_kill_68() counts the kill and the put of
 * the parent that follows (which the kernel code then does) alike.
 */
void dcsim_kc_dentry_unlist(struct dcsim_dentry *d)
{
	struct dcsim_cache *c = d->d_cache;
	struct dcsim_dentry *parent = IS_ROOT(d) ? NULL : READ_ONCE(d->d_parent);

	dentry_unlist(d, parent);
	dstat_inc(c, DCSIM_CS_KILL);
	if (parent)
		dstat_inc(c, DCSIM_CS_PARENT_PUT);
}

void dcsim_kc_warn(const char *file, int line, const char *func, const char *cond)
{
	dcsim_warn_report(file, line, func, cond);
}

/* ---- list_lru for the kernel's LRU helpers (include/linux/list_lru.h) ---- */

void dcsim_kc_nr_negative_add(struct dcsim_dentry *d, long n)
{
	dstat_add(d->d_cache, DCSIM_CS_NR_NEGATIVE, n);
}

bool dcsim_kc_list_lru_add(struct dcsim_cache *c, struct dcsim_list_head *item)
{
	dcsim_spin_lock(&c->lru_lock);
	if (!dlist_empty(item)) {
		dcsim_spin_unlock(&c->lru_lock);
		return false;
	}
	dlist_add_tail(item, &c->lru);
	dcsim_spin_unlock(&c->lru_lock);
	dstat_inc(c, DCSIM_CS_LRU_ADD);
	dstat_inc(c, DCSIM_CS_NR_LRU);
	return true;
}

bool dcsim_kc_list_lru_del(struct dcsim_cache *c, struct dcsim_list_head *item)
{
	dcsim_spin_lock(&c->lru_lock);
	if (dlist_empty(item)) {
		dcsim_spin_unlock(&c->lru_lock);
		return false;
	}
	dlist_del_init(item);
	dcsim_spin_unlock(&c->lru_lock);
	dstat_inc(c, DCSIM_CS_LRU_DEL);
	dstat_add(c, DCSIM_CS_NR_LRU, -1);
	return true;
}

void dcsim_kc_list_lru_isolate(struct dcsim_cache *c, struct dcsim_list_head *item)
{
	dlist_del_init(item);
	dstat_inc(c, DCSIM_CS_LRU_DEL);
	dstat_add(c, DCSIM_CS_NR_LRU, -1);
}

void dcsim_kc_list_lru_isolate_move(struct dcsim_cache *c, struct dcsim_list_head *item,
				    struct dcsim_list_head *head)
{
	dlist_move(item, head);
	dstat_inc(c, DCSIM_CS_LRU_DEL);
	dstat_add(c, DCSIM_CS_NR_LRU, -1);
}

/*
 * The kernel reads nr_items without the lock: a hint for "walk again".
 * Here the list itself, read once without lru_lock, serves: the shrink
 * loop that asks takes lru_lock on its next walk anyway.  That loop
 * (shrink_dcache_sb()) polls it with nothing else to wait on: what is
 * left are entries whose d_lock another CPU holds, so a non-empty answer
 * is a spin, and the explorer lets the holder run.
 */
unsigned long dcsim_kc_list_lru_count(struct dcsim_cache *c)
{
	if (dlist_empty(&c->lru))
		return 0;
	dcsim_cpu_relax();
	return 1;
}

/* The kernel's enum lru_status (kernel-code/include/kc/list.h). */
enum { KC_LRU_REMOVED, KC_LRU_REMOVED_RETRY, KC_LRU_ROTATE, KC_LRU_SKIP, KC_LRU_RETRY, KC_LRU_STOP };

unsigned long dcsim_kc_list_lru_walk(struct dcsim_cache *c, dcsim_kc_lru_walk_cb isolate, void *arg,
				     unsigned long *nr_to_walk, bool prune)
{
	struct dcsim_list_head *cur, *next;
	unsigned long isolated = 0;

	dcsim_spin_lock(&c->lru_lock);
restart:
	/* list_for_each_safe(): the next entry is read before the callback. */
	for (cur = READ_ONCE(c->lru.next); cur != &c->lru; cur = next) {
		next = READ_ONCE(cur->next);
		if (!*nr_to_walk)
			break;
		--*nr_to_walk;
		if (prune)
			dstat_inc(c, DCSIM_CS_PRUNE_SCAN);
		switch (isolate(cur, c, &c->lru_lock, arg)) {
		case KC_LRU_REMOVED_RETRY:
			isolated++;
			goto restart;
		case KC_LRU_REMOVED:
			isolated++;
			break;
		case KC_LRU_ROTATE:
			dlist_move_tail(cur, &c->lru);
			if (prune)
				dstat_inc(c, DCSIM_CS_PRUNE_ROTATE);
			break;
		case KC_LRU_SKIP:
			/*
			 * The isolate callbacks skip only a d_lock they could
			 * not trylock: as the model's walk, label it, so that the
			 * explorer knows this execution has no serial twin.
			 */
			dcache_cover(DCSIM_COVER_LRU_SKIP);
			break;
		case KC_LRU_RETRY:
			goto restart;
		case KC_LRU_STOP:
			goto out;
		default:
			WARN_ON_ONCE(1);	/* not an enum lru_status */
			goto out;
		}
	}
out:
	dcsim_spin_unlock(&c->lru_lock);
	return isolated;
}

void dcsim_kc_dentry_free(struct dcsim_dentry *d)
{
	dentry_free(d);
}
