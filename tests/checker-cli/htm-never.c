// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A plugin for dcsim-check (instrumented build) whose strategy "htm-never" says
 * DCSIM_STRATEGY_USES_HTM but never commits a transaction, as a strategy
 * compiled against a normal build's headers behaves under the simulated
 * HTM: it is correct on its fallback, so without a commit count every
 * check would pass while its HTM path was never run.  dcsim-check --suites
 * diff must fail it.  Registered from a constructor (the other documented
 * way; planted-nolru.c uses dcsim_plugin_init()).
 */

#include <dcsim/dentry.h>
#include <dcsim/lockref.h>
#include <dcsim/strategy.h>

static enum dcsim_dput_path htm_never_dput(struct dcsim_dentry *dentry)
{
	if (dcsim_lockref_put_or_lock(dcsim_d_lockref(dentry)))
		return DCSIM_DPUT_PATH_CAS;
	dcsim_dput_locked_final(dentry, DCSIM_RETAIN_LRU_THEN_REFERENCED);
	return DCSIM_DPUT_PATH_LOCKED;
}

static const struct dcsim_dput_strategy htm_never = {
	.name = "htm-never",
	.description = "claims HTM, never commits a transaction (lockref underneath)",
	.dput = htm_never_dput,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
	.flags = DCSIM_STRATEGY_USES_HTM,
};

static void __attribute__((constructor)) htm_never_register(void)
{
	dcsim_strategy_register(&htm_never);
}
