// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A crash planted in a plugin for dcsim-check (instrumented build):
 * strategy "crash-overlap" is the built-in "fast" dput (lockref's), which
 * dereferences NULL when
 * it is entered while another put is still inside it.  Only interleavings
 * crash it: a single thread (diff, misuse) never does, the explorer finds
 * the overlap in some executions.  dcsim-check must report the crash as
 * a failure with a one-execution replay, and that replay must crash the
 * same way without ending dcsim-check (tests/checker-cli/check-cli.sh crash).
 */

#include <dcsim/compiler.h>
#include <dcsim/dentry.h>
#include <dcsim/strategy.h>

/* Puts in progress; relaxed: the explorer runs one logical thread at a time. */
static int inside;
/* NULL, read through volatile so that the store below is compiled as written. */
static int *volatile nowhere;

/* The built-in "fast" (lockref) strategy does the put. */
static const struct dcsim_dput_strategy *fast;

static enum dcsim_dput_path overlap_dput(struct dcsim_dentry *dentry)
{
	enum dcsim_dput_path path;

	if (__atomic_fetch_add(&inside, 1, __ATOMIC_RELAXED))
		*nowhere = 1;		/* the bug */
	path = fast->dput(dentry);
	__atomic_fetch_sub(&inside, 1, __ATOMIC_RELAXED);
	return path;
}

static const struct dcsim_dput_strategy overlap = {
	.name = "crash-overlap",
	.description = "planted crash: a put entered while another is inside",
	.dput = overlap_dput,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
};

int dcsim_plugin_init(void);

DCSIM_API int dcsim_plugin_init(void)
{
	fast = dcsim_strategy_lookup("fast");
	return fast ? dcsim_strategy_register(&overlap) : -1;
}
