// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Crash reports: a signal during an execution prints the failure report.
 */

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* ---- crash reports ---- */

void crash_handler(int sig)
{
	struct explorer *ex = explore_ctx();

	/* Best effort (not async-signal-safe): the process dies anyway. */
	snprintf(ex->msg, sizeof(ex->msg), "crashed with signal %d (%s)", sig, strsignal(sig));
	report_failure(ex, stderr);
	signal(sig, SIG_DFL);
	raise(sig);
}
