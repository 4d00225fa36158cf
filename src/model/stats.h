/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_SRC_MODEL_STATS_H
#define DCSIM_SRC_MODEL_STATS_H

/*
 * Per-cache statistics, the counting half (src/model/): inline adds to
 * the calling thread's block of counters; stats.c holds the slow paths
 * and the readers (<dcsim/cache.h>).  Internal to the model.
 */

#include <stdint.h>

#include "dcache.h"

void dstat_first_use(struct dcsim_cache *c, unsigned int slot);

/*
 * The calling thread's block of counters in @c.  Per-thread slot, single
 * writer: no shared cache line is written.  The first use of a slot raises
 * the cache's high-water mark (rare), so that readers sum only the slots
 * that can be non-zero.  The block is remembered per thread (thread.h:
 * dcsim_self_blk), so counting in the cache a thread counted in last costs a
 * compare and a load before the add.
 */
struct dcache_pcpu *dstat_block_slow(struct dcsim_cache *c);

static inline struct dcache_pcpu *dstat_block(struct dcsim_cache *c)
{
	if (likely(dcsim_self_blk.owner == c))
		return dcsim_self_blk.block;
	return dstat_block_slow(c);
}

static inline void dstat_add(struct dcsim_cache *c, enum dcsim_cache_stat s, int64_t n)
{
	dcsim_counter_add(&dstat_block(c)->v[s], (uint64_t)n);
}

static inline void dstat_inc(struct dcsim_cache *c, enum dcsim_cache_stat s)
{
	dstat_add(c, s, 1);
}

/* The counter of each dput path. */
static const uint8_t dstat_dput_path_stat[] = {
	[DCSIM_DPUT_PATH_CAS]		= DCSIM_CS_DPUT_CAS,
	[DCSIM_DPUT_PATH_HTM]		= DCSIM_CS_DPUT_HTM,
	[DCSIM_DPUT_PATH_LOCKED]	= DCSIM_CS_DPUT_LOCKED,
	[DCSIM_DPUT_PATH_WARNED]	= DCSIM_CS_DPUT_WARN,
};

/*
 * dstat_dput() when the thread's remembered block is another cache's, or
 * the put was refused (WARNED: perhaps on a destroyed cache, whose counters
 * are gone; counted only in a live one).  Out of line.
 */
void dstat_dput_slow(struct dcsim_cache *c, enum dcsim_dput_path path);

/*
 * A dput and the way it went: two adds to the thread's block.  Anything
 * else is a tail call, so that dcsim_dput() keeps only @c across the
 * strategy's call.
 */
static inline void dstat_dput(struct dcsim_cache *c, enum dcsim_dput_path path)
{
	struct dcache_pcpu *p;

	if (unlikely(path == DCSIM_DPUT_PATH_WARNED || dcsim_self_blk.owner != c)) {
		dstat_dput_slow(c, path);
		return;
	}
	p = dcsim_self_blk.block;
	dcsim_counter_add(&p->v[DCSIM_CS_DPUT], 1);
	dcsim_counter_add(&p->v[dstat_dput_path_stat[path]], 1);
}

#endif /* DCSIM_SRC_MODEL_STATS_H */
