// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The one explorer of the process: dcsim_explore_run() runs one
 * exploration at a time.  Reached by name only here; the engine's entry
 * points (the hook table's functions, the public API, a logical thread's
 * start, the crash handler, the watchdog) fetch it with explore_ctx() and
 * hand it on to everything else as a parameter.  At the bottom of the
 * engine, and named only by explore_ctx() (internal.h), which is inline:
 * a hook entry pays one address computation for it, not a call.
 */

#include "internal.h"

struct explorer explore_the_explorer = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.ctl_cv = PTHREAD_COND_INITIALIZER,
	.current = CTL,
};
