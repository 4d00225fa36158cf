/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct dentry and the d_flags vocabulary of include/linux/dcache.h (6.1;
 * 6.12 has the same values for the flags named here),
 * laid over dcsim's struct dcsim_dentry (<dcsim/dentry.h>).
 *
 * Only the fields that the extracted code touches are named: d_flags,
 * d_seq, d_hash (d_unhashed()), d_parent, d_sb (dcsim's d_cache: the
 * superblock is the cache, kc/list.h), d_op, d_lockref, d_lru, d_sib,
 * d_children and d_inode, each at the offset of its dcsim twin (the
 * padding is computed from dcsim's layout and every offset is asserted),
 * so the kernel code reads and writes dcsim dentries in place.  dcsim
 * keeps the kernel's 6.1 flag values, also asserted.  d_inode is dcsim's
 * d_inode, and struct inode is dcsim's stub inode, of which only i_lock
 * (its first field) is named.
 *
 * What the extraction leaves out is served by dcsim's own code (the shims
 * at the end, each tree table's shims line; docs/kernel.md, "What stays
 * dcsim's").
 */
#ifndef _KC_DCACHE_H
#define _KC_DCACHE_H

#include <kc/compiler.h>
#include <kc/bug.h>
#include <kc/rcupdate.h>
#include <linux/htm.h>
#include <linux/lockref.h>
#include <kc/list.h>

#include <dcsim/dentry.h>

#define DCACHE_OP_DELETE	0x00000008
#define DCACHE_OP_PRUNE		0x00000010
#define DCACHE_DISCONNECTED	0x00000020
#define DCACHE_REFERENCED	0x00000040
#define DCACHE_DONTCACHE	0x00000080
#define DCACHE_GENOCIDE		0x00000200
#define DCACHE_SHRINK_LIST	0x00000400
#define DCACHE_DENTRY_KILLED	0x00008000
#define DCACHE_LRU_LIST		0x00080000
#define DCACHE_MAY_FREE		0x00800000 /* 6.1; dcsim's 6.1 kill sets it (src/model/kill.c) */
#define DCACHE_ENTRY_TYPE	0x00700000
#define DCACHE_MISS_TYPE	0x00000000
#define DCACHE_PAR_LOOKUP	0x10000000 /* never set in dcsim */

_Static_assert(DCACHE_OP_DELETE == DCSIM_DCACHE_OP_DELETE &&
	       DCACHE_OP_PRUNE == DCSIM_DCACHE_OP_PRUNE &&
	       DCACHE_DISCONNECTED == DCSIM_DCACHE_DISCONNECTED &&
	       DCACHE_REFERENCED == DCSIM_DCACHE_REFERENCED &&
	       DCACHE_DONTCACHE == DCSIM_DCACHE_DONTCACHE &&
	       DCACHE_GENOCIDE == DCSIM_DCACHE_GENOCIDE &&
	       DCACHE_SHRINK_LIST == DCSIM_DCACHE_SHRINK_LIST &&
	       DCACHE_DENTRY_KILLED == DCSIM_DCACHE_DENTRY_KILLED &&
	       DCACHE_LRU_LIST == DCSIM_DCACHE_LRU_LIST &&
	       DCACHE_ENTRY_TYPE == DCSIM_DCACHE_ENTRY_TYPE &&
	       DCACHE_MISS_TYPE == DCSIM_DCACHE_MISS_TYPE, "6.1 d_flags values");

struct dentry;

struct hlist_bl_node {
	struct hlist_bl_node *next, **pprev;
};

/* dcsim's struct dcsim_inode starts with i_lock (asserted in src/model/kernel-code.c). */
struct inode {
	spinlock_t i_lock;
};

struct dentry_operations {
	int (*d_delete)(const struct dentry *);
	void (*d_prune)(struct dentry *);
	void (*d_release)(struct dentry *);
};

#define __KC_GAP(from, to)							\
	(__builtin_offsetof(struct dcsim_dentry, to) -				\
	 __builtin_offsetof(struct dcsim_dentry, from) -			\
	 sizeof(((struct dcsim_dentry *)0)->from))

struct dentry {
	unsigned int d_flags;
	unsigned int d_seq;
	struct hlist_bl_node d_hash;
	struct dentry *d_parent;
	char __kc_gap0[__KC_GAP(d_parent, d_cache)];
	struct super_block *d_sb;	/* dcsim's d_cache (kc/list.h) */
	const struct dentry_operations *d_op;
	char __kc_gap1[__KC_GAP(d_op, d_lockref)];
	struct lockref d_lockref;
	char __kc_gap2[__KC_GAP(d_lockref, d_lru)];
	struct list_head d_lru;		/* LRU or shrink list */
	struct hlist_head d_children;
	char __kc_gap3[__KC_GAP(d_children, d_sib)];	/* the rest of dcsim's d_rcu */
	struct hlist_node d_sib;	/* the parent's children */
	struct inode *d_inode;		/* NULL: negative */
	char __kc_tail[sizeof(struct dcsim_dentry) - sizeof(struct inode *) -
		       __builtin_offsetof(struct dcsim_dentry, d_inode)];
} __attribute__((aligned(DCSIM_CACHELINE)));

#define d_lock			d_lockref.lock

#define __KC_SAME(f)								\
	_Static_assert(__builtin_offsetof(struct dentry, f) ==			\
		       __builtin_offsetof(struct dcsim_dentry, f) &&		\
		       sizeof(((struct dentry *)0)->f) ==			\
		       sizeof(((struct dcsim_dentry *)0)->f), "dentry field " #f)
__KC_SAME(d_flags);
__KC_SAME(d_seq);
__KC_SAME(d_hash);
__KC_SAME(d_parent);
__KC_SAME(d_op);
_Static_assert(__builtin_offsetof(struct dentry, d_sb) ==
	       __builtin_offsetof(struct dcsim_dentry, d_cache), "d_sb is d_cache");
__KC_SAME(d_lru);
__KC_SAME(d_sib);
__KC_SAME(d_children);
__KC_SAME(d_lockref);
__KC_SAME(d_inode);
_Static_assert(__builtin_offsetof(struct hlist_bl_node, pprev) ==
	       __builtin_offsetof(struct dcsim_hash_node, pprev), "d_hash.pprev");
_Static_assert(__builtin_offsetof(struct dentry_operations, d_delete) ==
	       __builtin_offsetof(struct dcsim_dentry_operations, d_delete) &&
	       __builtin_offsetof(struct dentry_operations, d_prune) ==
	       __builtin_offsetof(struct dcsim_dentry_operations, d_prune) &&
	       __builtin_offsetof(struct dentry_operations, d_release) ==
	       __builtin_offsetof(struct dcsim_dentry_operations, d_release) &&
	       sizeof(struct dentry_operations) == sizeof(struct dcsim_dentry_operations),
	       "d_op: dcsim's operations");
_Static_assert(sizeof(struct dentry) == sizeof(struct dcsim_dentry), "dentry size");

static __always_inline struct dcsim_dentry *kc_dcsim(struct dentry *dentry)
{
	return (struct dcsim_dentry *)(void *)dentry;
}

#define IS_ROOT(x)		((x) == (x)->d_parent)
#define DENTRY_D_LOCK_NESTED	1

static __always_inline int hlist_bl_unhashed(const struct hlist_bl_node *h)
{
	return !h->pprev;
}

static __always_inline int d_unhashed(const struct dentry *dentry)
{
	return hlist_bl_unhashed(&dentry->d_hash);
}

static __always_inline int d_in_lookup(const struct dentry *dentry)
{
	return dentry->d_flags & DCACHE_PAR_LOOKUP;
}

static __always_inline bool d_is_negative(const struct dentry *dentry)
{
	return (READ_ONCE(dentry->d_flags) & DCACHE_ENTRY_TYPE) == DCACHE_MISS_TYPE;
}

/*
 * The per-CPU counters of fs/dcache.c: nr_dentry and nr_dentry_unused per
 * thread here, read by nothing (dcsim's own counters are kept by its
 * list_lru and kill code; docs/kernel.md).  nr_dentry_negative goes to
 * the model's nr_negative, which dcsim_cache_verify() checks: every
 * this_cpu_*() of it in the extracted code is in a function on a `dentry`.
 */
#define this_cpu_inc(var)	KC_PCPU_ADD_##var(1)
#define this_cpu_dec(var)	KC_PCPU_ADD_##var(-1)
#define KC_PCPU_ADD_nr_dentry(n)	kc_this_cpu_add(__builtin_offsetof(struct kc_pcpu, nr_dentry), n)
#define KC_PCPU_ADD_nr_dentry_unused(n)	\
	kc_this_cpu_add(__builtin_offsetof(struct kc_pcpu, nr_dentry_unused), n)
#define KC_PCPU_ADD_nr_dentry_negative(n)	dcsim_kc_nr_negative_add(kc_dcsim(dentry), n)

#define BUG_ON(cond)		do { if (unlikely(cond)) __builtin_trap(); } while (0)

/*
 * d_seq (a seqcount_spinlock_t in the kernel) is dcsim's plain counter,
 * bumped by 2 by dcsim's __d_drop() (write_seqcount_invalidate()).
 */
static __always_inline unsigned int raw_seqcount_begin(const unsigned int *s)
{
	unsigned int seq = READ_ONCE(*s);

	/* raw_read_seqcount(): the reads of the section come after the sample. */
	smp_rmb();
	return seq & ~1u;
}

static __always_inline int read_seqcount_retry(const unsigned int *s, unsigned int start)
{
	/* The section's reads come before the second sample. */
	smp_rmb();
	return unlikely(READ_ONCE(*s) != start);
}

/*
 * What the extraction leaves to dcsim (src/model/kernel-code.c), with the
 * kernel's contracts; which tree extracts what is its table's business
 * (kernel-code/trees/), and docs/kernel.md says why the rest stays dcsim's.
 */
#define dentry_free(dentry)	dcsim_kc_dentry_free(kc_dcsim(dentry))
#ifdef KC_TREE_K612
#define __d_drop(kc_d)		dcsim_kc___d_drop(kc_dcsim(kc_d))
#define dentry_unlink_inode(kc_d) (KC_SITE(), kc_dentry_unlink_inode_rcu(kc_dcsim(kc_d)))
#define dentry_unlist(kc_d)	kc_dentry_unlist(kc_dcsim(kc_d))
#define cond_resched_tasks_rcu_qs()	do { } while (0)
/*
 * d_walk(), shrink_dcache_parent(), d_invalidate() and d_delete() (6.12)
 * with what they name from include/linux/dcache.h, seqlock.h, sched.h
 * and the mount code.  dcsim has no mounts and no cursors (DCACHE_MOUNTED
 * and DCACHE_DENTRY_CURSOR are never set, so find_submount() finds nothing
 * and detach_mounts() is never reached).
 *
 * rename_lock is the cache's (dcsim_d_move() writes it; the kernel's is
 * global): d_walk() is its one reader here, and its start, `parent`,
 * names the cache.  include/linux/seqlock.h's read_seqbegin_or_lock()
 * samples the sequence (even seq) or, on the second pass (seq odd, after
 * a rename made the first one retry), takes the writers' lock;
 * need_seqretry() is true when an unlocked pass saw a rename;
 * done_seqretry() drops the lock a locked pass took.
 */
#define DCACHE_CANT_MOUNT	0x00000100
#define DCACHE_MOUNTED		0x00010000
#define DCACHE_DENTRY_CURSOR	0x20000000
#define read_seqbegin_or_lock(lock, seq)					\
	do {									\
		if (!(*(seq) & 1))						\
			*(seq) = dcsim_kc_rename_read_begin(kc_dcsim(parent));	\
		else								\
			(KC_SITE(), dcsim_kc_rename_lock_excl(kc_dcsim(parent))); \
	} while (0)
#define need_seqretry(lock, seq)	\
	(!((seq) & 1) && dcsim_kc_rename_read_retry(kc_dcsim(parent), (seq)))
#define done_seqretry(lock, seq)						\
	do {									\
		if ((seq) & 1)							\
			(KC_SITE(), dcsim_kc_rename_unlock_excl(kc_dcsim(parent))); \
	} while (0)
/*
 * lockdep's annotations of d_walk()'s lock handover, to dcsim's lock order
 * validator (kc/spinlock.h: the map is the lock).
 */
#define spin_release(map, ip) \
	dcsim_spin_note(DCSIM_SPIN_ANNOTATE_RELEASE, &(map)->lock, 0u, __func__, __LINE__)
#define spin_acquire(map, s, t, ip)						\
	dcsim_spin_note((t) ? DCSIM_SPIN_ANNOTATE_TRYACQUIRE : DCSIM_SPIN_ANNOTATE_ACQUIRE, \
			&(map)->lock, (s), __func__, __LINE__)
/*
 * No scheduler tick: need_resched() is never true.  cond_resched() occurs
 * once in the extracted code, in shrink_dcache_parent(), right before
 * "if (!data.found) break;": where the loop waits for what others must
 * finish (dentries on their shrink lists, or dying).  It is dcsim's
 * cond_resched() (kc_cond_resched()): the explorer takes it as a pause of a
 * busy wait, as cpu_relax(), which tells it that this thread waits, and
 * with strict priorities as the point where the thread gives its CPU back
 * to one it preempted, as the kernel's does.  Only when
 * the loop goes on: the explorer takes a second cpu_relax() with no other
 * thread's write in between for a thread blocked for good, which the last
 * round (nothing found) would be; with no hint at all, PCT lets the
 * walker starve the thread it waits for.  Naming data.found, it fails to
 * compile anywhere else.
 */
#define need_resched()			0
#define cond_resched()			do { if (data.found) kc_cond_resched(); } while (0)
#define detach_mounts(victim)		BUG_ON(victim)

static __always_inline struct dentry *d_first_child(const struct dentry *dentry)
{
	return hlist_entry_safe(dentry->d_children.first, struct dentry, d_sib);
}

static __always_inline bool d_mountpoint(const struct dentry *dentry)
{
	return dentry->d_flags & DCACHE_MOUNTED;
}

static __always_inline struct dentry *dget_dlock(struct dentry *dentry)
{
	dentry->d_lockref.count++;
	return dentry;
}
#else
/* 6.1: d_lock, i_lock if positive and the parent's d_lock held; drops them all. */
#define __dentry_kill(kc_d)	kc_dentry_kill_61(kc_dcsim(kc_d))
/* d_delete(): d_lock (and i_lock for the second) held, as in 6.12 above */
#define __d_drop(kc_d)		dcsim_kc___d_drop(kc_dcsim(kc_d))
#define dentry_unlink_inode(kc_d) (KC_SITE(), kc_dentry_unlink_inode(kc_dcsim(kc_d)))
#define DCACHE_CANT_MOUNT	0x00000100
#endif

/* Patch 0003's counters, as built with CONFIG_DCACHE_HTM_STATS=n. */
#define dcache_htm_count(stat)		do { } while (0)
#define dcache_htm_count_abort(status)	((void)(status))

#endif
