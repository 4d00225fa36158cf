// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A dput strategy from outside the library, built as a loadable module the
 * way a user builds one: only the public headers, registered from
 * dcsim_plugin_init() (which dcsim-bench --load calls), and accounting its
 * transactions with dcsim_cache_htm_account() so that the per-cache HTM
 * statistics show them.
 *
 * "plugin-txn": a non-final put (count > 1, d_lock free) is one
 * transaction that reads the lockref word and writes the decremented
 * count; everything else is lockref's put_or_lock() and the library's
 * locked slow path.  The transaction needs no RCU section: our reference
 * pins the dentry until the decrement commits, and after it we touch
 * nothing but the cache, taken before.
 */

#include <stdbool.h>

#include <dcsim/atomic.h>
#include <dcsim/cache.h>
#include <dcsim/htm.h>
#include <dcsim/lockref.h>
#include <dcsim/strategy.h>

#define PLUGIN_ABORT_FINAL	0x40	/* count <= 1: the put may be final */

int dcsim_plugin_init(void);

static bool plugin_txn(struct dcsim_lockref *lr, struct dcsim_cache *cache)
{
	struct dcsim_lockref old;
	dcsim_htm_status_t st;

	st = dcsim_htm_begin();
	if (st != DCSIM_HTM_STARTED) {
		dcsim_cache_htm_account(cache, st);
		return false;
	}
	/* Inside the transaction: the word cannot change under us unseen. */
	old.lock_count = DCSIM_READ_ONCE(lr->lock_count);
	if (!dcsim_spin_value_unlocked(old.lock))
		dcsim_htm_abort(DCSIM_DCACHE_HTM_LOCKED);
	if (old.count <= 1)
		dcsim_htm_abort(PLUGIN_ABORT_FINAL);
	DCSIM_WRITE_ONCE(lr->count, old.count - 1);
	dcsim_htm_end();
	dcsim_cache_htm_account(cache, DCSIM_HTM_STARTED);
	return true;
}

static enum dcsim_dput_path plugin_dput(struct dcsim_dentry *d)
{
	/* Taken while our reference pins @d. */
	struct dcsim_cache *cache = dcsim_d_cache(d);
	struct dcsim_lockref *lr = dcsim_d_lockref(d);

	if (dcsim_htm_live() && plugin_txn(lr, cache))
		return DCSIM_DPUT_PATH_HTM;
	if (dcsim_lockref_put_or_lock(lr))
		return DCSIM_DPUT_PATH_CAS;
	dcsim_dput_locked_final(d, DCSIM_RETAIN_LRU_THEN_REFERENCED);
	return DCSIM_DPUT_PATH_LOCKED;
}

static const struct dcsim_dput_strategy plugin_txn_strategy = {
	.name = "plugin-txn",
	.description = "test plugin: non-final puts in a transaction, accounted per cache",
	.dput = plugin_dput,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
	.flags = DCSIM_STRATEGY_USES_HTM,
};

/* Return: 0, or the negative errno of dcsim_strategy_register(). */
int dcsim_plugin_init(void)
{
	return dcsim_strategy_register(&plugin_txn_strategy);
}
