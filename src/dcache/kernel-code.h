/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_SRC_DCACHE_KERNEL_CODE_H
#define DCSIM_SRC_DCACHE_KERNEL_CODE_H

/*
 * NOT API, not installed: the entry points through which the
 * kernel's own dput() code, compiled in user space by kernel-code/
 * (strategies k61, k61-htm and k612), reaches the parts of the model it does not
 * bring itself.  Exported (the dcsim_kc_ prefix) only because the test
 * programs link the shared library; nothing else may call them.
 */

#include <dcsim/compiler.h>
#include <dcsim/dentry.h>

/* models fs/dcache.c:d_lru_add(): d_lock held, not on any LRU or shrink list. */
DCSIM_API void dcsim_kc_d_lru_add(struct dcsim_dentry *dentry);

/*
 * models fs/dcache.c:__dentry_kill(): d_lock and (unless a root) the
 * parent's d_lock held; kills, drops both locks, frees after a grace period.
 * The caller (the kernel's dentry_kill()) puts the parent next.
 */
DCSIM_API void dcsim_kc___dentry_kill(struct dcsim_dentry *dentry);

/*
 * models fs/dcache.c:__dentry_kill() of 6.8+ (for k612): d_lock and the
 * inode's i_lock held, count 0, parent not locked; kills, drops the locks,
 * then takes the parent's d_lock and drops its count.
 * Return: the parent, d_lock held, if its count reached 0; else NULL.
 */
DCSIM_API struct dcsim_dentry *dcsim_kc___dentry_kill_68(struct dcsim_dentry *dentry);

/* A WARN of the kernel code, counted with the library's (<dcsim/warn.h>); @file NULL: count only. */
DCSIM_API void dcsim_kc_warn(const char *file, int line, const char *func, const char *cond);

#endif /* DCSIM_SRC_DCACHE_KERNEL_CODE_H */
