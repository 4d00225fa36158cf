// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Entry points for tests/kernel-code (see kernel-code.h): the kernel's
 * dput(), retain_dentry() and fast_dput() compiled from the tarball call
 * these for what they leave to the rest of fs/dcache.c.
 */

#include "dcache.h"
#include "kernel-code.h"

void dcsim_kc_d_lru_add(struct dcsim_dentry *d)
{
	d_lru_add(d);
}

struct dcsim_dentry *dcsim_kc_dentry_kill(struct dcsim_dentry *d)
{
	struct dcsim_dentry *next = dentry_kill(d);

	/* As __dcsim_dput_61(): @d may be freed, so count on the parent. */
	if (next && next != d)
		dstat_inc(next->d_cache, DCSIM_CS_PARENT_PUT);
	return next;
}

void dcsim_kc_warn(const char *file, int line, const char *func, const char *cond)
{
	__dcsim_warn(file, line, func, cond);
}
