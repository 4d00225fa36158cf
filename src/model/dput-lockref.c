// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Strategy "lockref": models fs/dcache.c:dput() of 3.12, on lockref.
 *
 * Reads/writes: a non-final put is one lockless 64-bit cmpxchg of
 * (lock, count) that proves d_lock free (lockref_put_or_lock()).  A final
 * put (count 1), or any put while d_lock is held, takes d_lock; the count
 * goes 1 -> 0 only under the lock, and the LRU/REFERENCED update with it.
 */

#include "dcache.h"
#include "../base/lockref-internal.h"
#include "stats.h"

/*
 * models fs/dcache.c:dput() (3.12).  Also the fallback of the "rtm"
 * strategy, which is this code with a transaction in front.
 */
enum dcsim_dput_path dcsim_dput_312(struct dcsim_dentry *d);
enum dcsim_dput_path dcsim_dput_312(struct dcsim_dentry *d)
{
	enum dcsim_dput_path path = DCSIM_DPUT_PATH_CAS;
	struct dcsim_dentry *next;
	enum lockref_put_how how;
	int32_t cnt;

repeat:
	how = lockref_put_or_lock_inline(&d->d_lockref);
	if (how != LOCKREF_KEPT_LOCKED) {
		/* Decremented, lockless or (count > 1 seen under the lock) locked. */
		if (how == LOCKREF_PUT_LOCKED)
			path = DCSIM_DPUT_PATH_LOCKED;
		return path;
	}
	/* d_lock held, count <= 1 and not decremented. */
	path = DCSIM_DPUT_PATH_LOCKED;
	cnt = d_cnt(d);
	if (WARN_ON_ONCE(cnt <= 0)) {
		d_unlock(d);
		return DCSIM_DPUT_PATH_WARNED;
	}
	if (retain_dentry(d, DCSIM_RETAIN_ALWAYS_REFERENCED)) {
		d_unlock(d);
		return path;
	}
	next = dentry_kill(d);
	if (next) {
		if (next != d)
			dstat_inc(next->d_cache, DCSIM_CS_PARENT_PUT); /* d may be freed */
		d = next;
		goto repeat;
	}
	return path;
}

const struct dcsim_dput_strategy dcsim_dput_lockref_strategy = {
	.name = "lockref",
	.description = "3.12 dput(): lockref_put_or_lock(), d_lock for the final put",
	.dput = dcsim_dput_312,
	.retain_style = DCSIM_RETAIN_ALWAYS_REFERENCED,
};
