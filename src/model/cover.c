// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Labelled slow paths and planted faults of the cache model
 * (<dcsim/dcache-cover.h>): their names in every build, their counts and
 * the fault switch in the instrumented flavour.
 */

#include <stdint.h>
#include <string.h>

#include "dcache.h"

/* ---- labelled paths and planted faults (instrumented builds) --------------------- */

static const char *const cover_names[DCSIM_COVER_NR] = {
	[DCSIM_COVER_HUSK_LEFT] = "husk_left",
	[DCSIM_COVER_HUSK_FREED] = "husk_freed",
	[DCSIM_COVER_SHRINK_BUSY] = "shrink_busy",
	[DCSIM_COVER_KILL_RETRY] = "kill_retry",
	[DCSIM_COVER_KILL_LOCK_PARENT] = "kill_lock_parent",
	[DCSIM_COVER_KILL_KEPT] = "kill_kept",
	[DCSIM_COVER_KILL_INODE_SLOW] = "kill_inode_slow",
	[DCSIM_COVER_RELOCK] = "relock",
	[DCSIM_COVER_RELOCK_FAIL] = "relock_fail",
	[DCSIM_COVER_LRU_SKIP] = "lru_skip",
	[DCSIM_COVER_LRU_BUSY] = "lru_busy",
	[DCSIM_COVER_PARENT_ON_SHRINK] = "parent_on_shrink",
	[DCSIM_COVER_SHRINK_PARENT_WAIT] = "shrink_parent_wait",
	[DCSIM_COVER_SHRINK_PARENT_VICTIM] = "shrink_parent_victim",
	[DCSIM_COVER_LOCK_FOR_KILL_SLOW] = "lock_for_kill_slow",
	[DCSIM_COVER_LOCK_FOR_KILL_FALSE] = "lock_for_kill_false",
	[DCSIM_COVER_LOOKUP_RETRY] = "lookup_retry",
	[DCSIM_COVER_DGET_PARENT_SLOW] = "dget_parent_slow",
	[DCSIM_COVER_HTM_LOCKED] = "htm_locked",
	[DCSIM_COVER_HTM_UNHASHED] = "htm_unhashed",
	[DCSIM_COVER_HTM_NOLRU] = "htm_nolru",
	[DCSIM_COVER_HTM_KILL] = "htm_kill",
	[DCSIM_COVER_HTM_BADCOUNT] = "htm_badcount",
	[DCSIM_COVER_HTM_NOTREF] = "htm_notref",
	[DCSIM_COVER_WALK_RCU_MISS] = "walk_rcu_miss",
	[DCSIM_COVER_WALK_RCU_SEQ] = "walk_rcu_seq",
	[DCSIM_COVER_WALK_RCU_DEAD] = "walk_rcu_dead",
	[DCSIM_COVER_WALK_RCU_LEGIT] = "walk_rcu_legit",
};

const char *dcsim_dcache_cover_name(enum dcsim_dcache_cover label)
{
	if ((unsigned int)label >= DCSIM_COVER_NR)
		return NULL;
	return cover_names[label];
}

/* The faults by name: "husk-freed-early" (dcsim-check --fault, corpus/). */
static const char *const fault_names[DCSIM_DCACHE_FAULT_NR] = {
	[DCSIM_DCACHE_FAULT_NONE] = "none",
	[DCSIM_DCACHE_FAULT_HUSK_FREED_EARLY] = "husk-freed-early",
	[DCSIM_DCACHE_FAULT_WALK_NO_SEQ_RECHECK] = "walk-no-seq-recheck",
	[DCSIM_DCACHE_FAULT_LRU_ACCOUNTING] = "89dc77bcdabf-lru-accounting",
	[DCSIM_DCACHE_FAULT_SHRINK_ALL_RECOUNT] = "shrink-dcache-sb-unused-count",
	[DCSIM_DCACHE_FAULT_NO_COND_RESCHED] = "restore-cond-resched",
	[DCSIM_DCACHE_FAULT_NEGATIVE_COUNT] = "aabfe57ebaa7-negative-count",
	[DCSIM_DCACHE_FAULT_LOCK_PARENT_STALE] = "c2338f2dc7c1-lock-parent-stale",
	[DCSIM_DCACHE_FAULT_SHRINK_PARENT_TRYLOCK] = "046b961b45f9-shrink-parent-trylock",
	[DCSIM_DCACHE_FAULT_ANCESTOR_TRYLOCK] = "b2b80195d882-ancestor-trylock",
	[DCSIM_DCACHE_FAULT_INODE_TRYLOCK] = "3b3f09f48ba7-inode-trylock",
	[DCSIM_DCACHE_FAULT_SHRINK_I_LOCK_INVERSION] = "planted-shrink-i-lock-inversion",
};

const char *dcsim_dcache_fault_name(enum dcsim_dcache_fault fault)
{
	if ((unsigned int)fault >= DCSIM_DCACHE_FAULT_NR)
		return NULL;
	return fault_names[fault];
}

int dcsim_dcache_fault_lookup(const char *name)
{
	for (int i = 0; i < DCSIM_DCACHE_FAULT_NR; i++)
		if (fault_names[i] && !strcmp(fault_names[i], name))
			return i;
	return -1;
}

#if DCSIM_INSTRUMENT
/* Relaxed, not schedule points: counting must not change the interleaving. */
static uint64_t cover_count[DCSIM_COVER_NR];
static enum dcsim_dcache_fault dcache_fault;

void dcache_cover_hit(enum dcsim_dcache_cover label)
{
	__atomic_fetch_add(&cover_count[label], 1, __ATOMIC_RELAXED);
}

void dcsim_dcache_cover_read(uint64_t *out)
{
	for (unsigned int i = 0; i < DCSIM_COVER_NR; i++)
		out[i] = __atomic_load_n(&cover_count[i], __ATOMIC_RELAXED);
}

void dcsim_dcache_cover_reset(void)
{
	for (unsigned int i = 0; i < DCSIM_COVER_NR; i++)
		__atomic_store_n(&cover_count[i], 0, __ATOMIC_RELAXED);
}

void dcsim_dcache_set_fault(enum dcsim_dcache_fault fault)
{
	__atomic_store_n(&dcache_fault, fault, __ATOMIC_RELAXED);
}

bool dcache_faulty(enum dcsim_dcache_fault fault)
{
	return __atomic_load_n(&dcache_fault, __ATOMIC_RELAXED) == fault;
}
#endif
