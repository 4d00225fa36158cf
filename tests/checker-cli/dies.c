// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A plugin whose strategy "dies" is correct (lockref, then the locked final
 * put) until its process has done 400 puts, and then kills itself with
 * SIGKILL, as a crash that leaves no report would.  Under dcsim-check
 * --jobs 2 some worker dies that way: the run must fail (exit 1, "a
 * process died"), never pass on the units the other worker ran.
 */

#include <signal.h>

#include <dcsim/dentry.h>
#include <dcsim/lockref.h>
#include <dcsim/strategy.h>

static unsigned long puts_done;	/* per process: each worker counts its own */

static enum dcsim_dput_path dies_dput(struct dcsim_dentry *dentry)
{
	if (++puts_done == 400)
		raise(SIGKILL);
	if (dcsim_lockref_put_or_lock(dcsim_d_lockref(dentry)))
		return DCSIM_DPUT_PATH_CAS;
	dcsim_dput_locked_final(dentry, DCSIM_RETAIN_LRU_THEN_REFERENCED);
	return DCSIM_DPUT_PATH_LOCKED;
}

static const struct dcsim_dput_strategy dies = {
	.name = "dies",
	.description = "lockref, killed by SIGKILL at its process's 400th put",
	.dput = dies_dput,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
};

static void __attribute__((constructor)) dies_register(void)
{
	dcsim_strategy_register(&dies);
}
