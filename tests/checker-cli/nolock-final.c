// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A plugin for dcsim-check (instrumented build) whose strategy "nolock-final"
 * calls dcsim_dput_locked_final() without taking d_lock first.  Before the
 * library checked for the lock, this hung every checker without a word (in
 * the explorer, in scenario setup on the controller thread, outside its
 * deadlock detection).  Each suite must now end, fail (exit 1) and say why:
 * the library's WARNING that d_lock is not held.
 */

#include <dcsim/strategy.h>

static enum dcsim_dput_path nolock_final_dput(struct dcsim_dentry *dentry)
{
	/* BUG: the slow path is entered with d_lock held, and here it is not. */
	dcsim_dput_locked_final(dentry, DCSIM_RETAIN_LRU_THEN_REFERENCED);
	return DCSIM_DPUT_PATH_LOCKED;
}

static const struct dcsim_dput_strategy nolock_final = {
	.name = "nolock-final",
	.description = "planted bug: dcsim_dput_locked_final() without d_lock",
	.dput = nolock_final_dput,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
};

__attribute__((visibility("default"))) int dcsim_plugin_init(void)
{
	return dcsim_strategy_register(&nolock_final);
}
