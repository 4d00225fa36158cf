// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A planted bug, built as a plugin for dcsim-check (instrumented build): strategy
 * "planted-nolru" is lockref's dput with one "optimisation": the final put
 * of a hashed dentry that is not on the LRU yet drops the count to 0 with a
 * lockless cmpxchg, skipping d_lock and so the d_lru_add() that retaining
 * it needs.  The dentry is left unused, hashed and off the LRU: the
 * shrinker can never find it.  dcsim-check --suites diff must fail on it
 * and print a replay line that fails the same way (tests/checker-cli/).
 *
 * Registered from dcsim_plugin_init(), the documented entry point.
 */

#include <dcsim/compiler.h>
#include <dcsim/dentry.h>
#include <dcsim/lockref.h>
#include <dcsim/strategy.h>

static enum dcsim_dput_path planted_dput(struct dcsim_dentry *dentry)
{
	struct dcsim_lockref *ref = dcsim_d_lockref(dentry);
	uint32_t flags = dcsim_d_flags(dentry);
	int n;

	/* The bug: "no one else can see it at count 1, so skip the lock". */
	if (!(flags & (DCSIM_DCACHE_LRU_LIST | DCSIM_DCACHE_OP_DELETE | DCSIM_DCACHE_DISCONNECTED |
		       DCSIM_DCACHE_DONTCACHE)) &&
	    !dcsim_d_unhashed(dentry) && dcsim_d_count(dentry) == 1) {
		n = dcsim_lockref_put_return(ref);
		if (n >= 0)		/* decremented (to 0, or others got one meanwhile) */
			return DCSIM_DPUT_PATH_CAS;
	}
	if (dcsim_lockref_put_or_lock(ref))
		return DCSIM_DPUT_PATH_CAS;
	dcsim_dput_locked_final(dentry, DCSIM_RETAIN_LRU_THEN_REFERENCED);
	return DCSIM_DPUT_PATH_LOCKED;
}

static const struct dcsim_dput_strategy planted = {
	.name = "planted-nolru",
	.description = "planted bug: lockless final put of a dentry not on the LRU",
	.dput = planted_dput,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
};

int dcsim_plugin_init(void);

DCSIM_API int dcsim_plugin_init(void)
{
	return dcsim_strategy_register(&planted);
}
