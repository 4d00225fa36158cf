// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Object naming for the reports, through the describer the explored code
 * registers (<dcsim/describe.h>): the engine knows no dentry.
 */

#include <dcsim/explore.h>
#include <dcsim/describe.h>
#include <dcsim/rcu.h>

#include "../base/hooks.h"
#include "internal.h"

/* ---- names for the reports: the describer (<dcsim/describe.h>) ---- */

/*
 * The explore_running hook (src/base/hooks.h): dcsim_explore_running() of
 * the primitives calls it.  Relaxed: a describer asks it only to skip
 * recording names that no report can need, so a stale answer costs a name.
 */
bool explore_running(void)
{
	struct explorer *ex = explore_ctx();

	return __atomic_load_n(&ex->running, __ATOMIC_RELAXED);
}

/* ex->lock held or the run over.  "'/d/f'.d_lock" for an address the describer knows, or "". */
const char *describe_addr(uintptr_t a, unsigned int size, char *buf, size_t len)
{
	const struct dcsim_explore_describer *d = dcsim_describer_get();

	if (!d || !d->describe || !d->describe(a, size, buf, len))
		buf[0] = '\0';
	return buf;
}

/* The object @head frees, as the describer tells (poisoned until its grace period ends), or NULL. */
char *rcu_head_object(struct dcsim_rcu_head *head, size_t *size)
{
	const struct dcsim_explore_describer *d = dcsim_describer_get();

	*size = 0;
	if (!d || !d->rcu_object)
		return NULL;
	return d->rcu_object(head, size);
}

void names_exec_begin(void)
{
	const struct dcsim_explore_describer *d = dcsim_describer_get();

	if (d && d->exec_begin)
		d->exec_begin();
}
