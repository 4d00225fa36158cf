// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Entry points for kernel-code/ (see kernel-code.h): the kernel's
 * dput(), dentry_kill(), retain_dentry() and fast_dput() compiled from the
 * tarball call these for what they leave to the rest of fs/dcache.c.
 */

#include <stddef.h>

#include "dcache.h"
#include "kernel-code.h"

/* kernel-code/'s struct inode names only i_lock, at offset 0. */
_Static_assert(__builtin_offsetof(struct dcsim_inode, i_lock) == 0,
	       "dcsim_inode.i_lock must come first for the kernel code");

void dcsim_kc_d_lru_add(struct dcsim_dentry *d)
{
	d_lru_add(d);
}

void dcsim_kc___dentry_kill(struct dcsim_dentry *d)
{
	struct dcsim_dentry *parent = IS_ROOT(d) ? NULL : READ_ONCE(d->d_parent);

	__dentry_kill(d, parent);
	/* As dcsim_dput_61() counts the put that follows; @d may be freed. */
	if (parent)
		dstat_inc(parent->d_cache, DCSIM_CS_PARENT_PUT);
}

struct dcsim_dentry *dcsim_kc___dentry_kill_68(struct dcsim_dentry *d)
{
	return __dentry_kill_68(d);
}

void dcsim_kc_warn(const char *file, int line, const char *func, const char *cond)
{
	dcsim_warn_report(file, line, func, cond);
}
