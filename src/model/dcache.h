/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_SRC_DCACHE_H
#define DCSIM_SRC_DCACHE_H

/*
 * Internal interface of the dentry cache model (src/model/).  Not installed.
 *
 * Naming follows fs/dcache.c: __foo() means "the caller holds the locks
 * foo() would take"; d_lock is dentry->d_lockref.lock.
 */

#include <stdint.h>

#include <dcsim/cache.h>
#include <dcsim/dentry.h>
#include <dcsim/htm.h>
#include <dcsim/lockdep.h>
#include <dcsim/lockref.h>
#include <dcsim/rcu.h>
#include <dcsim/spinlock.h>
#include <dcsim/strategy.h>

#include "../base/internal.h"
#include "../base/rwsem.h"
#include "../base/thread.h"
#include "cover.h"

/*
 * 3.x..6.7's DCACHE_MAY_FREE (6.1's value; dcsim's public flags do not
 * name it): set by the model's 6.1 kill on a husk it leaves on a shrink
 * list, for the kernel's 6.1 shrink_dentry_list() (strategy k61).
 */
#define DCACHE_MAY_FREE		0x00800000u

#define DCACHE_MAGIC_ALIVE	0x44434143u	/* "DCAC" */
#define DCACHE_MAGIC_DEAD	0xdeadcac3u

/*
 * One thread's counters for one cache; a cache line (or more) of its own.
 * Not zeroed when the cache is made: a slot's first use zeroes its block
 * (dstat_first_use()), so that a cache costs the blocks its threads use,
 * not all DCSIM_MAX_THREADS of them.
 */
struct dcache_pcpu {
	uint64_t v[DCSIM_CS_NR];
} dcsim_cacheline_aligned;

struct dcache_bucket {
	dcsim_spinlock_t lock;		/* models the hlist_bl bit lock */
	struct dcsim_dentry *first;	/* RCU-published */
};

struct dcsim_cache {
	/* read-mostly: every operation checks magic and calls the strategy */
	uint32_t magic;
	enum dcsim_retain_style retain_style;
	const struct dcsim_dput_strategy *strategy;
	/* the strategy's ->ops: NULL members (or NULL) run the model's code */
	const struct dcsim_dcache_ops *ops;
	struct dcache_bucket *hash;
	uint32_t hash_mask;
	struct dcache_pcpu *pcpu;	/* [DCSIM_MAX_THREADS], zeroed on first use */
	uint32_t nr_slots;		/* slots below this may be in use */
	struct dcsim_cache *grave_next;	/* destroyed caches, kept until exit */

	/*
	 * Written by every d_alloc(): a line of its own, so that allocating
	 * does not evict the read-mostly fields above from every other CPU
	 * (issue 19: it shared line 0 with magic, strategy and hash).
	 */
	uint64_t next_id dcsim_cacheline_aligned;	/* atomic */

	/* the LRU (list_lru with a single node) */
	dcsim_spinlock_t lru_lock dcsim_cacheline_aligned;
	struct dcsim_list_head lru;	/* oldest at ->next */

	/* root dentries (the kernel's s_roots / s_root) */
	dcsim_spinlock_t roots_lock dcsim_cacheline_aligned;
	struct dcsim_hlist_node *roots;

	/*
	 * models fs/dcache.c's rename_lock (a seqlock_t; the kernel's is
	 * global, one per cache here): the writer's spinlock, which also
	 * serialises the renames (as s_vfs_rename_mutex does), and its
	 * sequence, odd while a rename is under way (rename.c).
	 */
	dcsim_spinlock_t rename_lock dcsim_cacheline_aligned;
	uint32_t rename_seq;

	/*
	 * Which pcpu blocks are zeroed and counting: set (release) by the
	 * slot's first use after it zeroed the block, read (acquire) by the
	 * readers, which skip a block that is not.  Written once per slot.
	 */
	uint8_t slot_used[DCSIM_MAX_THREADS] dcsim_cacheline_aligned;
};

/*
 * models struct inode, reduced to what the dcache locks: i_lock (taken
 * before d_lock, or trylocked under it) and the number of aliases.  Freed
 * after a grace period: lock_for_kill() and shrink_lock_dentry() lock an
 * inode they read under d_lock after dropping d_lock, under RCU.
 */
/*
 * Cache-line aligned, with i_magic set while allocated: the explorer's RCU
 * model tells a queued inode apart by both (describe.c) and poisons it
 * until its grace period is over, as it does a freed dentry.
 */
struct dcsim_inode {
	dcsim_spinlock_t i_lock;
	uint32_t i_count;		/* dentries whose d_inode is this; under i_lock */
	struct dcsim_rcu_head i_rcu;
	/*
	 * A directory's create lock, standing for i_rwsem held exclusive
	 * (dcsim_inode_lock()).  The inode is one cache line of its own, so
	 * the lock shares it only with this directory's i_lock and i_count,
	 * which change when the directory itself is linked or unlinked, never
	 * when its children are: creators in different directories write
	 * different lines.
	 *
	 * A sleeping lock (src/base/rwsem.h): a short spin, then a futex sleep,
	 * as the kernel's rwsem writer spins briefly and then sleeps; nobody
	 * takes it shared (lookups are lockless, and the kernel's shared
	 * holders, lookup_slow(), create when they miss).  In the instrumented build
	 * it is the ticket spinlock, each access a schedule point, so the
	 * explorer still interleaves two creators (a futex wait would block a
	 * logical thread behind the explorer, which runs one at a time).
	 */
	dcsim_rwsem_t i_rwsem;
	uint32_t i_magic;		/* DCACHE_INODE_MAGIC */
} dcsim_cacheline_aligned;

#define DCACHE_INODE_MAGIC	0x1d0de5ffu

/* ---- small helpers -------------------------------------------------------- */

static inline bool dcache_alive(const struct dcsim_cache *c)
{
	return c && READ_ONCE(((struct dcsim_cache *)c)->magic) == DCACHE_MAGIC_ALIVE;
}

/*
 * Macros, so that the lock order validator (<dcsim/lockdep.h>) sees the
 * caller's function and line.  d_lock_nested() takes a dentry's d_lock
 * while another dentry's is held in lock order (a child's under its
 * parent's): DENTRY_D_LOCK_NESTED, as lock_parent() and
 * shrink_lock_dentry() take it.
 */
#define DCACHE_D_LOCK_NESTED	1

/* lock-classes.c: each lock's class, given where it is initialised */
extern const struct dcsim_lock_class dcache_class_d_lock, dcache_class_i_lock,
	dcache_class_i_rwsem, dcache_class_lru_lock, dcache_class_hash_lock,
	dcache_class_roots_lock, dcache_class_rename_lock;
#define d_lock(d)		dcsim_spin_lock(&(d)->d_lockref.lock)
#define d_lock_nested(d)	dcsim_spin_lock_nested(&(d)->d_lockref.lock, DCACHE_D_LOCK_NESTED)
#define d_trylock(d)		dcsim_spin_trylock(&(d)->d_lockref.lock)

static inline void d_unlock(struct dcsim_dentry *d)
{
	dcsim_spin_unlock(&d->d_lockref.lock);
}

/*
 * The model's lock operations name their caller's place (function, line)
 * for the explorer's window-directed mode (<dcsim/spinlock.h>:
 * dcsim_spin_site(); nothing in the normal build).  Defined after the
 * helpers above, so that those name their caller, not themselves.
 */
#undef d_lock
#undef d_lock_nested
#undef d_trylock
#undef dcsim_spin_lock
#undef dcsim_spin_lock_nested
#undef dcsim_spin_trylock
#define dcsim_spin_lock(l)	(dcsim_spin_site(__func__, __LINE__), \
				 dcsim_spin_lock_at((l), 0u, __func__, __LINE__))
#define dcsim_spin_lock_nested(l, sub) (dcsim_spin_site(__func__, __LINE__), \
				 dcsim_spin_lock_at((l), (sub), __func__, __LINE__))
#define dcsim_spin_trylock(l)	(dcsim_spin_site(__func__, __LINE__), \
				 dcsim_spin_trylock_at((l), __func__, __LINE__))
#define dcsim_spin_unlock(l)	(dcsim_spin_site(__func__, __LINE__), dcsim_spin_unlock(l))
#define d_lock(d)		dcsim_spin_lock(&(d)->d_lockref.lock)
#define d_lock_nested(d)	dcsim_spin_lock_nested(&(d)->d_lockref.lock, DCACHE_D_LOCK_NESTED)
#define d_trylock(d)		dcsim_spin_trylock(&(d)->d_lockref.lock)
#define d_unlock(d)		(dcsim_spin_site(__func__, __LINE__), d_unlock(d))

static inline int32_t d_cnt(struct dcsim_dentry *d)
{
	return READ_ONCE(d->d_lockref.count);
}

/* Only under d_lock: the lockref cmpxchg never succeeds while it is held. */
static inline void d_set_cnt(struct dcsim_dentry *d, int32_t cnt)
{
	WRITE_ONCE(d->d_lockref.count, cnt);
}

static inline uint32_t d_flags_read(struct dcsim_dentry *d)
{
	return READ_ONCE(d->d_flags);
}

/* models d_is_negative(); d_lock held for a stable answer */
static inline bool d_negative(struct dcsim_dentry *d)
{
	return (d_flags_read(d) & DCSIM_DCACHE_ENTRY_TYPE) == DCSIM_DCACHE_MISS_TYPE;
}

/* d_flags is written only under d_lock (or in a transaction that saw it free). */
static inline void __d_set_flags(struct dcsim_dentry *d, uint32_t f)
{
	WRITE_ONCE(d->d_flags, READ_ONCE(d->d_flags) | f);
}

static inline void __d_clear_flags(struct dcsim_dentry *d, uint32_t f)
{
	WRITE_ONCE(d->d_flags, READ_ONCE(d->d_flags) & ~f);
}

static inline bool d_unhashed(struct dcsim_dentry *d)
{
	return READ_ONCE(d->d_hash.pprev) == NULL;
}

static inline bool IS_ROOT(struct dcsim_dentry *d)
{
	return READ_ONCE(d->d_parent) == d;
}

/* ->d_prune() (d_lock held, DCACHE_OP_PRUNE) and ->d_release() (no lock), as __dentry_kill() calls them. */
static inline void d_prune(struct dcsim_dentry *d)
{
	if (unlikely(d_flags_read(d) & DCSIM_DCACHE_OP_PRUNE))
		READ_ONCE(d->d_op)->d_prune(d);
}

static inline void d_release(struct dcsim_dentry *d)
{
	const struct dcsim_dentry_operations *op = READ_ONCE(d->d_op);

	if (op && op->d_release)
		op->d_release(d);
}

/*
 * ---- d_seq: the dentry's seqcount (include/linux/seqlock.h) -------------
 *
 * Writers hold d_lock.  __d_drop() adds 2 (write_seqcount_invalidate():
 * whoever matched the dentry before the unhash must not trust the match);
 * dentry_unlink_inode() makes it odd while the type and d_inode change and
 * even again after (raw_write_seqcount_begin()/end()).  Readers are the
 * RCU lookups: they sample, read what the sample guards, and recheck.
 */

/*
 * models raw_seqcount_begin(): a sample with the low bit cleared, so that a
 * sample taken inside a write section can never pass d_seq_retry(); used in
 * hash chains, where waiting for a writer is not worth it.
 */
static inline uint32_t d_seq_raw_begin(struct dcsim_dentry *d)
{
	uint32_t seq = READ_ONCE(d->d_seq);

	/* The fields this sample guards are read after it (pairs with the writers' wmb). */
	smp_rmb();
	return seq & ~1u;
}

/* models read_seqcount_begin(): wait out a write section, then sample. */
static inline uint32_t d_seq_begin(struct dcsim_dentry *d)
{
	uint32_t seq;

	/* Odd: d_inode and the type are changing under d_lock; it ends soon. */
	while (unlikely((seq = READ_ONCE(d->d_seq)) & 1))
		cpu_relax();
	/* As in d_seq_raw_begin(): what the sample guards is read after it. */
	smp_rmb();
	return seq;
}

/* models read_seqcount_retry(): true if @d was written since @seq was sampled. */
static inline bool d_seq_retry(struct dcsim_dentry *d, uint32_t seq)
{
	/* The reads the sample guarded are complete before d_seq is read again. */
	smp_rmb();
	return unlikely(READ_ONCE(d->d_seq) != seq);
}

/* models raw_write_seqcount_begin(); d_lock held. */
static inline void __d_seq_write_begin(struct dcsim_dentry *d)
{
	WRITE_ONCE(d->d_seq, READ_ONCE(d->d_seq) + 1);
	/* Odd before the guarded stores: a reader that sees them sees odd or later. */
	smp_wmb();
}

/* models raw_write_seqcount_end(); d_lock held. */
static inline void __d_seq_write_end(struct dcsim_dentry *d)
{
	/* The guarded stores before the even value: a reader that sees it sees them. */
	smp_wmb();
	WRITE_ONCE(d->d_seq, READ_ONCE(d->d_seq) + 1);
}

/* ---- lists (every pointer store through WRITE_ONCE) ---------------------- */

static inline void dlist_init(struct dcsim_list_head *h)
{
	WRITE_ONCE(h->next, h);
	WRITE_ONCE(h->prev, h);
}

static inline bool dlist_empty(struct dcsim_list_head *h)
{
	return READ_ONCE(h->next) == h;
}

static inline void __dlist_insert(struct dcsim_list_head *n, struct dcsim_list_head *prev,
				  struct dcsim_list_head *next)
{
	WRITE_ONCE(next->prev, n);
	WRITE_ONCE(n->next, next);
	WRITE_ONCE(n->prev, prev);
	WRITE_ONCE(prev->next, n);
}

static inline void dlist_add(struct dcsim_list_head *n, struct dcsim_list_head *h)
{
	__dlist_insert(n, h, READ_ONCE(h->next));
}

static inline void dlist_add_tail(struct dcsim_list_head *n, struct dcsim_list_head *h)
{
	__dlist_insert(n, READ_ONCE(h->prev), h);
}

static inline void dlist_del_init(struct dcsim_list_head *n)
{
	struct dcsim_list_head *next = READ_ONCE(n->next), *prev = READ_ONCE(n->prev);

	WRITE_ONCE(next->prev, prev);
	WRITE_ONCE(prev->next, next);
	dlist_init(n);
}

static inline void dlist_move(struct dcsim_list_head *n, struct dcsim_list_head *h)
{
	dlist_del_init(n);
	dlist_add(n, h);
}

static inline void dlist_move_tail(struct dcsim_list_head *n, struct dcsim_list_head *h)
{
	dlist_del_init(n);
	dlist_add_tail(n, h);
}

#define d_lru_entry(p)	dcsim_container_of(p, struct dcsim_dentry, d_lru)
#define d_sib_entry(p)	dcsim_container_of(p, struct dcsim_dentry, d_sib)

static inline void hlist_add_head(struct dcsim_hlist_node *n, struct dcsim_hlist_node **head)
{
	struct dcsim_hlist_node *first = READ_ONCE(*head);

	WRITE_ONCE(n->next, first);
	if (first)
		WRITE_ONCE(first->pprev, &n->next);
	WRITE_ONCE(n->pprev, head);
	WRITE_ONCE(*head, n);
}

/*
 * models include/linux/list.h:__hlist_del() as 6.8+'s dentry_unlist()
 * uses it: off the list, but n->next still leads to the sibling that
 * followed, so that a d_walk() ascending from @n after its kill resumes
 * there (under RCU, skipping the killed ones).  pprev is cleared: @n is
 * on no list.
 */
static inline void __hlist_del_keep_next(struct dcsim_hlist_node *n)
{
	struct dcsim_hlist_node *next = READ_ONCE(n->next), **pprev = READ_ONCE(n->pprev);

	WRITE_ONCE(*pprev, next);
	if (next)
		WRITE_ONCE(next->pprev, pprev);
	WRITE_ONCE(n->pprev, NULL);
}

static inline void hlist_del(struct dcsim_hlist_node *n)
{
	struct dcsim_hlist_node *next = READ_ONCE(n->next), **pprev = READ_ONCE(n->pprev);

	WRITE_ONCE(*pprev, next);
	if (next)
		WRITE_ONCE(next->pprev, pprev);
	WRITE_ONCE(n->next, NULL);
	WRITE_ONCE(n->pprev, NULL);
}

/* ---- cache.c ------------------------------------------------------------- */

void d_lru_add(struct dcsim_dentry *d);
void d_lru_del(struct dcsim_dentry *d);
void d_shrink_add(struct dcsim_dentry *d, struct dcsim_list_head *list);
void d_shrink_del(struct dcsim_dentry *d);
void __d_drop(struct dcsim_dentry *d);
void dcache_d_rehash_locked(struct dcsim_dentry *d);	/* __d_rehash(): d_lock held */
uint32_t d_hash_name(const char *name, size_t len);
struct dcsim_dentry *__d_lookup_rcu(struct dcsim_dentry *parent, const char *name, uint32_t len,
				    uint32_t hash, uint32_t *seqp);
void dentry_unlist(struct dcsim_dentry *d, struct dcsim_dentry *parent);
void dentry_free(struct dcsim_dentry *d);
/* inode.c: a new stub inode (count 0, unlocked), NULL when out of memory */
struct dcsim_inode *inode_alloc(void);
void inode_free(struct dcsim_inode *inode);
/* inode.c: d_inode and the type bits; @inode's i_lock and d_lock held */
void __d_set_inode(struct dcsim_dentry *d, struct dcsim_inode *inode, uint32_t type);
void dentry_unlink_inode(struct dcsim_dentry *d);
void dentry_clear_inode(struct dcsim_dentry *d);
bool dentry_may_free(struct dcsim_dentry *d);
void __dentry_kill(struct dcsim_dentry *d, struct dcsim_dentry *parent);
struct dcsim_dentry *__dentry_kill_68(struct dcsim_dentry *d);	/* dput-retain.c */
struct dcsim_dentry *dentry_kill(struct dcsim_dentry *d);
bool retain_dentry(struct dcsim_dentry *d, enum dcsim_retain_style style);

/* ---- strategies ----------------------------------------------------------- */

extern const struct dcsim_dput_strategy dcsim_dput_locked_strategy;
extern const struct dcsim_dput_strategy dcsim_dput_lockref_strategy;
extern const struct dcsim_dput_strategy dcsim_dput_rtm_strategy;
extern const struct dcsim_dput_strategy dcsim_dput_fast_strategy;
extern const struct dcsim_dput_strategy dcsim_dput_retain_strategy;
extern const struct dcsim_dput_strategy dcsim_dput_fast_htm_strategy;
extern const struct dcsim_dput_strategy dcsim_dput_fast_htm_all_strategy;
extern const struct dcsim_dput_strategy dcsim_dput_retain_htm_strategy;

/* Which puts of the 6.1 (or 6.8+) loop try the fast-htm transaction first. */
enum fast_htm {
	FAST_HTM_NONE,		/* fast: none */
	FAST_HTM_FINAL,		/* fast-htm, retain-htm: only one that would reach zero */
	FAST_HTM_ALL,		/* fast-htm-all: every put (the first design) */
};

/* dput-fast.c: the 6.1 dput loop, optionally with the fast-htm transaction. */
enum dcsim_dput_path dcsim_dput_61(struct dcsim_dentry *d, enum fast_htm htm);
/* dput-retain.c: the 6.8+ dput loop, optionally with the same transaction. */
enum dcsim_dput_path dcsim_dput_68(struct dcsim_dentry *d, enum fast_htm htm);
/* dput-fast-htm.c: the transaction; true if the put is complete. */
bool fast_dput_txn(struct dcsim_dentry *d);
/* dput-fast-htm.c: whether this put is one for the transaction (fast-htm). */
bool fast_dput_wants_txn(struct dcsim_dentry *d);

/* shrink.c */
unsigned long shrink_dentry_list(struct dcsim_cache *c, struct dcsim_list_head *list);
/* The model's prune_dcache_sb(), shrink_dcache_sb() and d_invalidate(): the default ops. */
unsigned long dcache_prune(struct dcsim_cache *c, unsigned long nr_to_scan);
unsigned long dcache_shrink_all(struct dcsim_cache *c);
void dcache_d_invalidate(struct dcsim_dentry *d);
/* models fs/dcache.c:shrink_dcache_parent(): kills every unused descendant of @parent */
void dcache_shrink_dcache_parent(struct dcsim_dentry *parent);

/* rename.c: rename_lock's read side (read_seqbegin() and kin) */
uint32_t dcache_rename_read_begin(struct dcsim_cache *c);
bool dcache_rename_read_retry(struct dcsim_cache *c, uint32_t seq);
void dcache_rename_lock_excl(struct dcsim_cache *c);
void dcache_rename_unlock_excl(struct dcsim_cache *c);

/*
 * Instrumented flavour: record a new dentry's name for the explorer's reports
 * (describe.c, the model's instrumented-only glue); nothing otherwise.
 */
#if DCSIM_INSTRUMENT
void dcache_name_dentry(const struct dcsim_dentry *d);
#else
#define dcache_name_dentry(d)	do { } while (0)
#endif

#endif /* DCSIM_SRC_DCACHE_H */
