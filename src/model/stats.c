// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Per-cache statistics (<dcsim/cache.h>): one counter block per thread
 * slot, summed when read.  The inline counting half is in stats.h.
 */

#include <string.h>

#include "dcache.h"
#include "stats.h"

/* ---- statistics ----------------------------------------------------------- */

static const char *const stat_names[DCSIM_CS_NR] = {
	[DCSIM_CS_DPUT] = "dput",
	[DCSIM_CS_DPUT_LOCKED] = "dput_locked",
	[DCSIM_CS_DPUT_CAS] = "dput_cas",
	[DCSIM_CS_DPUT_HTM] = "dput_htm",
	[DCSIM_CS_DPUT_WARN] = "dput_warn",
	[DCSIM_CS_PARENT_PUT] = "parent_put",
	[DCSIM_CS_KILL_RETRY] = "kill_retry",
	[DCSIM_CS_HTM_ATTEMPT] = "htm_attempt",
	[DCSIM_CS_HTM_COMMIT] = "htm_commit",
	[DCSIM_CS_HTM_ABORT] = "htm_abort",
	[DCSIM_CS_HTM_ABORT_LOCKED] = "htm_abort_locked",
	[DCSIM_CS_HTM_ABORT_UNHASHED] = "htm_abort_unhashed",
	[DCSIM_CS_HTM_ABORT_NOLRU] = "htm_abort_nolru",
	[DCSIM_CS_HTM_ABORT_KILL] = "htm_abort_kill",
	[DCSIM_CS_HTM_ABORT_BADCOUNT] = "htm_abort_badcount",
	[DCSIM_CS_HTM_ABORT_NOTREF] = "htm_abort_notref",
	[DCSIM_CS_HTM_ABORT_CONFLICT] = "htm_abort_conflict",
	[DCSIM_CS_HTM_ABORT_CAPACITY] = "htm_abort_capacity",
	[DCSIM_CS_HTM_ABORT_OTHER] = "htm_abort_other",
	[DCSIM_CS_ALLOC] = "alloc",
	[DCSIM_CS_KILL] = "kill",
	[DCSIM_CS_FREE] = "free",
	[DCSIM_CS_LOOKUP] = "lookup",
	[DCSIM_CS_LOOKUP_HIT] = "lookup_hit",
	[DCSIM_CS_LOOKUP_RETRY] = "lookup_retry",
	[DCSIM_CS_LRU_ADD] = "lru_add",
	[DCSIM_CS_LRU_DEL] = "lru_del",
	[DCSIM_CS_PRUNE_SCAN] = "prune_scan",
	[DCSIM_CS_PRUNE_ROTATE] = "prune_rotate",
	[DCSIM_CS_WALK] = "walk",
	[DCSIM_CS_WALK_RCU] = "walk_rcu",
	[DCSIM_CS_WALK_UNLAZY] = "walk_unlazy",
	[DCSIM_CS_NR_DENTRY] = "nr_dentry",
	[DCSIM_CS_NR_HASHED] = "nr_hashed",
	[DCSIM_CS_NR_LRU] = "nr_lru",
	[DCSIM_CS_NR_NEGATIVE] = "nr_negative",
};

const char *dcsim_cache_stat_name(enum dcsim_cache_stat stat)
{
	if ((unsigned int)stat >= DCSIM_CS_NR)
		return NULL;
	return stat_names[stat];
}

/*
 * The first count of @slot in @c: zero its block (the cache was made
 * without zeroing any), publish it, and raise the high-water mark that
 * bounds the readers' walk.
 */
void dstat_first_use(struct dcsim_cache *c, unsigned int slot)
{
	uint32_t nr = __atomic_load_n(&c->nr_slots, __ATOMIC_RELAXED);

	/* Atomic stores, as every other write of a counter: a reset may run. */
	for (unsigned int s = 0; s < DCSIM_CS_NR; s++)
		__atomic_store_n(&c->pcpu[slot].v[s], 0, __ATOMIC_RELAXED);
	/* Release: a reader that sees the slot in use sees its zeroed block. */
	__atomic_store_n(&c->slot_used[slot], 1, __ATOMIC_RELEASE);
	while (nr < slot + 1 &&
	       !__atomic_compare_exchange_n(&c->nr_slots, &nr, slot + 1, false,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

/* dstat_block() when the thread last counted in another cache (or never). */
struct dcache_pcpu *dstat_block_slow(struct dcsim_cache *c)
{
	unsigned int slot = dcsim_thread_slot();
	struct dcache_pcpu *p = &c->pcpu[slot];

	/* Its own thread (or a reset, at quiescence) sets the flag: relaxed will do. */
	if (unlikely(!__atomic_load_n(&c->slot_used[slot], __ATOMIC_RELAXED)))
		dstat_first_use(c, slot);
	dcsim_self_blk.owner = c;
	dcsim_self_blk.block = p;
	return p;
}

/* Whether @slot's block of @c is zeroed and counting (acquire: see above). */
static bool dstat_slot_used(const struct dcsim_cache *c, unsigned int slot)
{
	return __atomic_load_n(&c->slot_used[slot], __ATOMIC_ACQUIRE);
}

void dcsim_cache_stats_read(const struct dcsim_cache *c, struct dcsim_cache_stats *out)
{
	uint32_t nr;

	memset(out, 0, sizeof(*out));
	if (WARN_ON_ONCE(!dcache_alive(c)))
		return;
	nr = __atomic_load_n(&c->nr_slots, __ATOMIC_ACQUIRE);
	for (unsigned int t = 0; t < nr; t++) {
		/* Below the mark but not zeroed yet: nothing counted there. */
		if (!dstat_slot_used(c, t))
			continue;
		for (unsigned int s = 0; s < DCSIM_CS_NR; s++)
			out->v[s] += (int64_t)__atomic_load_n(&c->pcpu[t].v[s], __ATOMIC_RELAXED);
	}
}

void dcsim_cache_stats_reset(struct dcsim_cache *c)
{
	if (WARN_ON_ONCE(!dcache_alive(c)))
		return;
	/* Fold the gauges into slot 0 so that they survive the reset. */
	struct dcsim_cache_stats sum;

	dcsim_cache_stats_read(c, &sum);
	/* Slot 0 keeps the gauges: zero it first if it never counted. */
	if (!dstat_slot_used(c, 0))
		dstat_first_use(c, 0);
	for (unsigned int t = 0; t < DCSIM_MAX_THREADS; t++)
		if (dstat_slot_used(c, t))
			for (unsigned int s = 0; s < DCSIM_CS_NR; s++)
				__atomic_store_n(&c->pcpu[t].v[s], 0, __ATOMIC_RELAXED);
	for (unsigned int s = DCSIM_CS_NR_DENTRY; s < DCSIM_CS_NR; s++)
		__atomic_store_n(&c->pcpu[0].v[s], (uint64_t)sum.v[s], __ATOMIC_RELAXED);
}

void dstat_dput_slow(struct dcsim_cache *c, enum dcsim_dput_path path)
{
	struct dcache_pcpu *p;

	if (path == DCSIM_DPUT_PATH_WARNED && !dcache_alive(c))
		return;
	p = dstat_block(c);
	dcsim_counter_add(&p->v[DCSIM_CS_DPUT], 1);
	dcsim_counter_add(&p->v[dstat_dput_path_stat[path]], 1);
}
