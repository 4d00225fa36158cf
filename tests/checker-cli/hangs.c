// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A hang planted in a plugin for dcsim-check (instrumented build):
 * strategy "hangs" is lockref's put with the locked final put until its
 * process has done 200 puts, and then waits forever without a schedule
 * point (pause()), as a put spinning on a lock nobody releases would.
 * Under the corpus runner the child that runs it must end as a hang (its
 * time limit, or the explorer's watchdog), never as a crash or a pass
 * (tests/corpus/check-child-ends.sh).
 */

#include <unistd.h>

#include <dcsim/dentry.h>
#include <dcsim/lockref.h>
#include <dcsim/strategy.h>

static unsigned long puts_done;	/* per process */

static enum dcsim_dput_path hangs_dput(struct dcsim_dentry *dentry)
{
	if (++puts_done >= 200)
		for (;;)
			pause();
	if (dcsim_lockref_put_or_lock(dcsim_d_lockref(dentry)))
		return DCSIM_DPUT_PATH_CAS;
	dcsim_dput_locked_final(dentry, DCSIM_RETAIN_LRU_THEN_REFERENCED);
	return DCSIM_DPUT_PATH_LOCKED;
}

static const struct dcsim_dput_strategy hangs = {
	.name = "hangs",
	.description = "lockref, then waits forever at its process's 200th put",
	.dput = hangs_dput,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
};

static void __attribute__((constructor)) hangs_register(void)
{
	dcsim_strategy_register(&hangs);
}
