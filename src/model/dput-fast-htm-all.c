// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Strategy "fast-htm-all": the first design of our kernel patch (series
 * v1), kept for comparison with fast-htm.  The same transaction
 * (dput-fast-htm.c:fast_dput_txn()) is tried on every put, final or not,
 * before lockref's decrement; an abort falls through to the unchanged 6.1
 * fast_dput() code.
 *
 * Measured on an RTM host (docs/results.md), this pays a transaction, about
 * two cmpxchg, on every non-final put that lockref drops locklessly anyway,
 * and its transactions conflict with each other on a shared hot dentry; it
 * was slower than fast in every workload.  fast-htm keeps the transaction
 * for the final put only.
 */

#include "dcache.h"

static enum dcsim_dput_path dput_fast_htm_all(struct dcsim_dentry *d)
{
	return dcsim_dput_61(d, FAST_HTM_ALL);
}

const struct dcsim_dput_strategy dcsim_dput_fast_htm_all_strategy = {
	.name = "fast-htm-all",
	.description = "fast_dput() with a transaction on every put (kernel series v1)",
	.dput = dput_fast_htm_all,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
	.flags = DCSIM_STRATEGY_USES_HTM,
};
