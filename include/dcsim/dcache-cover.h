/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_DCACHE_COVER_H
#define DCSIM_DCACHE_COVER_H

/*
 * The dentry cache model's labelled slow paths and planted faults (check
 * flavour): what a suite reached, and the bugs its checkers must catch.
 * The model owns them (src/model/cover.c); the explorer knows neither.
 */

#include <stdint.h>

#include <dcsim/compiler.h>

/*
 * Labelled slow paths of the cache model (src/model/cover.h), counted in
 * instrumented builds so that a suite can show which of them it reached.
 */
enum dcsim_dcache_cover {
	DCSIM_COVER_HUSK_LEFT,		/* a kill left a husk on another's shrink list */
	DCSIM_COVER_HUSK_FREED,		/* the shrink-list owner freed a husk */
	DCSIM_COVER_SHRINK_BUSY,	/* shrink-list entry in use again: only unlinked */
	DCSIM_COVER_KILL_RETRY,		/* 3.x dentry_kill(): trylock failed, dput restarted */
	DCSIM_COVER_KILL_LOCK_PARENT,	/* 6.1 dentry_kill(): trylock failed, __lock_parent() */
	DCSIM_COVER_KILL_KEPT,		/* 6.1 dentry_kill(): count moved while relocking: kept */
	DCSIM_COVER_KILL_INODE_SLOW,	/* a kill's i_lock trylock failed */
	DCSIM_COVER_RELOCK,		/* shrink_lock_dentry(): parent trylock failed */
	DCSIM_COVER_RELOCK_FAIL,	/* ... and the dentry was in use after the relock */
	DCSIM_COVER_LRU_SKIP,		/* dentry_lru_isolate(): d_lock trylock failed */
	DCSIM_COVER_LRU_BUSY,		/* the shrinker took an in-use dentry off the LRU */
	DCSIM_COVER_PARENT_ON_SHRINK,	/* __dput_to_list(): parent on a shrink list */
	DCSIM_COVER_SHRINK_PARENT_WAIT,	/* shrink_dcache_parent(): waits for others' lists */
	DCSIM_COVER_SHRINK_PARENT_VICTIM, /* select_collect2(): kills from another's list */
	DCSIM_COVER_LOCK_FOR_KILL_SLOW,	/* 6.8 lock_for_kill(): i_lock trylock failed */
	DCSIM_COVER_LOCK_FOR_KILL_FALSE, /* 6.8 lock_for_kill(): in use after relocking */
	DCSIM_COVER_LOOKUP_RETRY,	/* lookup: d_seq moved after the reference was taken */
	DCSIM_COVER_DGET_PARENT_SLOW,	/* dget_parent(): the lockless attempt failed */
	DCSIM_COVER_HTM_LOCKED,		/* explicit abort codes, via dcsim_cache_htm_account() */
	DCSIM_COVER_HTM_UNHASHED,
	DCSIM_COVER_HTM_NOLRU,
	DCSIM_COVER_HTM_KILL,
	DCSIM_COVER_HTM_BADCOUNT,
	DCSIM_COVER_HTM_NOTREF,
	DCSIM_COVER_WALK_RCU_MISS,	/* RCU-walk: a component not found, or negative */
	DCSIM_COVER_WALK_RCU_SEQ,	/* RCU-walk: a directory's d_seq moved under its lookup */
	DCSIM_COVER_WALK_RCU_DEAD,	/* RCU-walk: the leaf died before its reference */
	DCSIM_COVER_WALK_RCU_LEGIT,	/* RCU-walk: the leaf's d_seq moved after its reference */
	DCSIM_COVER_NR
};

/** dcsim_dcache_cover_name() - short stable label ("husk_left"), NULL if out of range. */
DCSIM_API const char *dcsim_dcache_cover_name(enum dcsim_dcache_cover label);

/**
 * dcsim_dcache_cover_read() - the process-wide count of each label since
 * the last reset, into @out[DCSIM_COVER_NR].  Instrumented builds only.
 */
DCSIM_API void dcsim_dcache_cover_read(uint64_t *out);

/** dcsim_dcache_cover_reset() - zero the label counts (no cache operation may run). */
DCSIM_API void dcsim_dcache_cover_reset(void);

/*
 * Planted faults of the cache model, for tests that show a checker
 * catches them (instrumented builds only; DCSIM_DCACHE_FAULT_NONE is the library).
 */
enum dcsim_dcache_fault {
	DCSIM_DCACHE_FAULT_NONE,
	/* a kill of a dentry on another thread's shrink list unlinks and frees it */
	DCSIM_DCACHE_FAULT_HUSK_FREED_EARLY,
	/* RCU-walk legitimises the leaf without the d_seq recheck after its reference */
	DCSIM_DCACHE_FAULT_WALK_NO_SEQ_RECHECK,
	/*
	 * 89dc77bcdabf (3.12): a move from the LRU to a shrink list leaves
	 * the LRU count (nr_dentry_unused) as it was
	 */
	DCSIM_DCACHE_FAULT_LRU_ACCOUNTING,
	/*
	 * "fs/dcache: Fix incorrect nr_dentry_unused accounting in
	 * shrink_dcache_sb()" (5.0): shrink_all subtracts what it moved from
	 * the LRU count a second time
	 */
	DCSIM_DCACHE_FAULT_SHRINK_ALL_RECOUNT,
	/*
	 * "restore cond_resched() in shrink_dcache_parent()" (4.17/4.18):
	 * shrink_dcache_parent() as it was before that fix and before
	 * 9bdebc2bd1c4 (5.3) let it kill dentries off others' shrink lists:
	 * when only those (or dying ones) are left it walks again at once,
	 * with no cond_resched()
	 */
	DCSIM_DCACHE_FAULT_NO_COND_RESCHED,
	/*
	 * aabfe57ebaa7 reverted (6.10, 6.1.y): a dentry that turns negative
	 * (or positive) counts in nr_negative when DCACHE_LRU_LIST is set,
	 * although on a shrink list it is not on the LRU proper
	 */
	DCSIM_DCACHE_FAULT_NEGATIVE_COUNT,
	/*
	 * c2338f2dc7c1 reverted (4.17): the shrinker locks the parent of a
	 * dentry on its list before it checks that the dentry is not dead,
	 * so a husk's stale d_parent, maybe freed long ago, is locked
	 */
	DCSIM_DCACHE_FAULT_LOCK_PARENT_STALE,
	/*
	 * 046b961b45f9 reverted (3.15): shrink_dentry_list() only trylocks
	 * the inode's i_lock and the parent's d_lock (it holds the child,
	 * against the lock order); on failure the dentry goes back on the
	 * list and the loop takes it again.  shrink_dcache_parent() is the
	 * loop of its time: it walks again while others' shrink lists hold
	 * dentries below it (cond_resched() between walks), taking none
	 */
	DCSIM_DCACHE_FAULT_SHRINK_PARENT_TRYLOCK,
	/*
	 * b2b80195d882 reverted (3.15): after a kill, shrink_dentry_list()
	 * puts the parent with lockref_put_or_lock() and kills it (and its
	 * ancestors) in place, only trylocking i_lock and the grandparent;
	 * on failure it unlocks, cpu_relax()es and tries again.
	 * shrink_dcache_parent() as for the fault above
	 */
	DCSIM_DCACHE_FAULT_ANCESTOR_TRYLOCK,
	/*
	 * 3b3f09f48ba7 reverted (4.17): shrink_dentry_list() takes the
	 * parent in order (lock_parent()) and only trylocks the inode's
	 * i_lock; on failure the dentry goes back on the list, and the loop
	 * takes it again
	 */
	DCSIM_DCACHE_FAULT_INODE_TRYLOCK,
	/*
	 * A planted lock inversion (no upstream bug): shrink_lock_dentry()
	 * takes the inode's i_lock with a blocking lock while it holds
	 * d_lock, against the order i_lock, then d_lock, that d_delete()
	 * and d_instantiate() keep: the lock order validator's test
	 */
	DCSIM_DCACHE_FAULT_SHRINK_I_LOCK_INVERSION,
	DCSIM_DCACHE_FAULT_NR
};

/** dcsim_dcache_fault_name() - short stable name ("husk-freed-early"), NULL if out of range. */
DCSIM_API const char *dcsim_dcache_fault_name(enum dcsim_dcache_fault fault);

/** dcsim_dcache_fault_lookup() - the fault named @name.  Return: it, or -1. */
DCSIM_API int dcsim_dcache_fault_lookup(const char *name);

/** dcsim_dcache_set_fault() - plant @fault in every cache of the process. */
DCSIM_API void dcsim_dcache_set_fault(enum dcsim_dcache_fault fault);

#endif /* DCSIM_DCACHE_COVER_H */
