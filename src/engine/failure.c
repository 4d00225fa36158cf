// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Failure of an execution: the first message wins, the failing logical
 * thread parks for good, the controller gets the baton (the report:
 * report.c).
 */

#include <stdarg.h>
#include <stdio.h>

#include <dcsim/explore.h>

#include "../base/thread.h"
#include "internal.h"

/* ---- failure and parking ---- */

__attribute__((noreturn)) void park_forever(void)
{
	static pthread_mutex_t park_lock = PTHREAD_MUTEX_INITIALIZER;
	static pthread_cond_t park_cv = PTHREAD_COND_INITIALIZER;

	/* Its slot is free for the threads of later pools. */
	dcsim_thread_forget();
	pthread_mutex_lock(&park_lock);
	for (;;)
		pthread_cond_wait(&park_cv, &park_lock);
}

/* ex->lock held.  Records only the first failure of an execution. */
static void fail_locked(struct explorer *ex, const char *fmt, va_list ap)
{
	if (ex->failed)
		return;
	ex->failed = true;
	vsnprintf(ex->msg, sizeof(ex->msg), fmt, ap);
}

void fail_lockedf(struct explorer *ex, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fail_locked(ex, fmt, ap);
	va_end(ap);
}

/*
 * ex->lock held, called by a logical thread: end the execution here.  The
 * other threads keep waiting for a baton that never comes back to their
 * (now dead) pool; this one parks (a fiber: is never resumed).  The
 * controller gets the baton.
 */
__attribute__((noreturn)) void abandon_locked(struct explorer *ex, struct lthread *lt)
{
	lt->pool->dead = true;
	ex->abandoned = true;
	ex->exec_done = true;
	ex->current = CTL;
	if (handoff_fiber(ex)) {
		/* Never switched to again: its stack is left as it is, like a parked pthread's. */
		baton_pass(ex, lt, true);
		abort();
	}
	pthread_cond_signal(&ex->ctl_cv);
	pthread_mutex_unlock(&ex->lock);
	park_forever();
}

void dcsim_explore_fail(const char *fmt, ...)
{
	struct explorer *ex = explore_ctx();
	struct lthread *lt = explore_lt;
	va_list ap;

	pthread_mutex_lock(&ex->lock);
	va_start(ap, fmt);
	fail_locked(ex, fmt, ap);
	va_end(ap);
	if (lt) {
		/* Even from inside a simulated transaction: nothing runs after this. */
		lt->txn.active = false;
		explore_wm_restore(lt);
		abandon_locked(ex, lt);
	}
	pthread_mutex_unlock(&ex->lock);
}

int dcsim_explore_self(void)
{
	struct lthread *lt = explore_lt;

	return lt ? (int)lt->id : -1;
}
