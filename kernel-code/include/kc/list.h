/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The doubly linked lists of include/linux/list.h and the list_lru API of
 * include/linux/list_lru.h, as far as the extracted fs/dcache.c uses them.
 *
 * struct list_head has the layout of dcsim's struct dcsim_list_head
 * (asserted), so a dentry's d_lru is one list whichever code links it.  The
 * list operations are the kernel's (the same stores, WRITE_ONCE() where
 * the kernel has it, list_empty() a READ_ONCE()).
 *
 * list_lru is dcsim's (src/model/kernel-code.c): one list per cache under
 * the cache's lru_lock, no NUMA nodes, no memcg, the counters dcsim keeps
 * (docs/kernel.md says why).  The superblock is dcsim's cache:
 * dentry->d_sb is struct dentry's view of dcsim's d_cache, and
 * &sb->s_dentry_lru is the cache itself, which the calls below pass on.
 */
#ifndef _KC_LIST_H
#define _KC_LIST_H

#include <kc/compiler.h>
#include <kc/spinlock.h>

#include <dcsim/dentry.h>

struct list_head {
	struct list_head *next, *prev;
};

_Static_assert(sizeof(struct list_head) == sizeof(struct dcsim_list_head) &&
	       __builtin_offsetof(struct list_head, prev) ==
	       __builtin_offsetof(struct dcsim_list_head, prev), "list_head is dcsim_list_head");

struct hlist_node {
	struct hlist_node *next, **pprev;
};

struct hlist_head {
	struct hlist_node *first;
};

#define container_of(ptr, type, member)						\
	((type *)(void *)((char *)(ptr) - __builtin_offsetof(type, member)))
#define list_entry(ptr, type, member)	container_of(ptr, type, member)

/* The hlist walks of 6.8+'s d_walk() (plain reads, as the kernel's). */
#define hlist_entry(ptr, type, member)	container_of(ptr, type, member)
#define hlist_entry_safe(ptr, type, member) __extension__ ({			\
	__typeof__(ptr) ____ptr = (ptr);					\
	____ptr ? hlist_entry(____ptr, type, member) : NULL;			\
})
#define hlist_for_each_entry_from(pos, member)					\
	for (; pos; pos = hlist_entry_safe((pos)->member.next, __typeof__(*(pos)), member))
#define hlist_for_each_entry_continue(pos, member)				\
	for (pos = hlist_entry_safe((pos)->member.next, __typeof__(*(pos)), member); \
	     pos;								\
	     pos = hlist_entry_safe((pos)->member.next, __typeof__(*(pos)), member))

static __always_inline int hlist_empty(const struct hlist_head *h)
{
	return !READ_ONCE(h->first);
}
#define LIST_HEAD_INIT(name)		{ &(name), &(name) }
#define LIST_HEAD(name)			struct list_head name = LIST_HEAD_INIT(name)

static __always_inline void INIT_LIST_HEAD(struct list_head *list)
{
	WRITE_ONCE(list->next, list);
	WRITE_ONCE(list->prev, list);
}

static __always_inline int list_empty(const struct list_head *head)
{
	return READ_ONCE(head->next) == head;
}

static __always_inline void __list_add(struct list_head *new, struct list_head *prev,
				       struct list_head *next)
{
	next->prev = new;
	new->next = next;
	new->prev = prev;
	WRITE_ONCE(prev->next, new);
}

static __always_inline void list_add(struct list_head *new, struct list_head *head)
{
	__list_add(new, head, head->next);
}

static __always_inline void list_add_tail(struct list_head *new, struct list_head *head)
{
	__list_add(new, head->prev, head);
}

static __always_inline void __list_del(struct list_head *prev, struct list_head *next)
{
	next->prev = prev;
	WRITE_ONCE(prev->next, next);
}

static __always_inline void list_del_init(struct list_head *entry)
{
	__list_del(entry->prev, entry->next);
	INIT_LIST_HEAD(entry);
}

static __always_inline void list_move(struct list_head *list, struct list_head *head)
{
	__list_del(list->prev, list->next);
	list_add(list, head);
}

/* ---- list_lru (dcsim's: src/model/kernel-code.c) ---- */

enum lru_status {
	LRU_REMOVED,		/* item removed from list */
	LRU_REMOVED_RETRY,	/* item removed, but lock has been dropped and reacquired */
	LRU_ROTATE,		/* item referenced, give another pass */
	LRU_SKIP,		/* item cannot be locked, skip */
	LRU_RETRY,		/* item not freeable; may drop the lock, returns it held */
	LRU_STOP,		/* stop the walk; may drop the lock, returns it held */
};

/* Opaque: a pointer to one is dcsim's struct dcsim_cache. */
struct list_lru {
	char kc_opaque;
};

struct list_lru_one;

/* The superblock is dcsim's cache; its dentry LRU is the cache's LRU. */
struct super_block {
	struct list_lru s_dentry_lru;
};

struct shrink_control {
	unsigned long nr_to_scan;
};

typedef enum lru_status (*list_lru_walk_cb)(struct list_head *item, struct list_lru_one *list,
					    spinlock_t *lock, void *cb_arg);

#define kc_lru_cache(lru)	((struct dcsim_cache *)(void *)(lru))
#define kc_lru_list(l)		((struct dcsim_list_head *)(void *)(l))

#define list_lru_add_obj(lru, item)	dcsim_kc_list_lru_add(kc_lru_cache(lru), kc_lru_list(item))
#define list_lru_del_obj(lru, item)	dcsim_kc_list_lru_del(kc_lru_cache(lru), kc_lru_list(item))
/* 6.1's names for the same */
#define list_lru_add(lru, item)		list_lru_add_obj(lru, item)
#define list_lru_del(lru, item)		list_lru_del_obj(lru, item)
#define list_lru_isolate(one, item)						\
	dcsim_kc_list_lru_isolate(kc_lru_cache(one), kc_lru_list(item))
#define list_lru_isolate_move(one, item, head)					\
	dcsim_kc_list_lru_isolate_move(kc_lru_cache(one), kc_lru_list(item), kc_lru_list(head))
#define list_lru_count(lru)		dcsim_kc_list_lru_count(kc_lru_cache(lru))
/*
 * list_lru_walk_one()'s loop is dcsim's (dcsim_kc_list_lru_walk()); it
 * calls the kernel's isolate callback through this trampoline, with the
 * kernel's types.
 */
struct kc_lru_walk {
	list_lru_walk_cb isolate;
	void *arg;
};

static inline int kc_lru_walk_one(struct dcsim_list_head *item, struct dcsim_cache *c,
				  dcsim_spinlock_t *lock, void *w)
{
	struct kc_lru_walk *k = w;

	return k->isolate((struct list_head *)(void *)item, (struct list_lru_one *)(void *)c,
			  (spinlock_t *)(void *)lock, k->arg);
}

/* The shrinker's walk (prune_dcache_sb()): counts its scans and rotations. */
#define list_lru_shrink_walk(lru, sc, isolate_cb, cb_arg) __extension__ ({		struct kc_lru_walk __kc_w = { (isolate_cb), (cb_arg) };				dcsim_kc_list_lru_walk(kc_lru_cache(lru), kc_lru_walk_one, &__kc_w,				       &(sc)->nr_to_scan, true);			})
#define list_lru_walk(lru, isolate_cb, cb_arg, nr) __extension__ ({			struct kc_lru_walk __kc_w = { (isolate_cb), (cb_arg) };				unsigned long __kc_nr = (nr);							dcsim_kc_list_lru_walk(kc_lru_cache(lru), kc_lru_walk_one, &__kc_w,				       &__kc_nr, false);				})

#endif
