// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Strategy "locked": models fs/dcache.c:dput() of 3.11 and earlier, where
 * the count was a plain integer under d_lock.  Every put takes d_lock.
 *
 * Reads/writes: count and flags under d_lock only.  A final put retains the
 * dentry (setting DCACHE_REFERENCED every time, as 3.x did) or kills it; a
 * kill hands back the parent, whose reference is dropped the same way.
 */

#include "dcache.h"
#include "stats.h"

/* models fs/dcache.c:dput() (3.11) */
static enum dcsim_dput_path dput_locked(struct dcsim_dentry *d)
{
	struct dcsim_dentry *next;
	int32_t cnt;

repeat:
	d_lock(d);
	cnt = d_cnt(d);
	if (WARN_ON_ONCE(cnt <= 0)) {		/* the kernel had BUG_ON(!d_count) */
		d_unlock(d);
		return DCSIM_DPUT_PATH_WARNED;
	}
	if (cnt > 1) {
		d_set_cnt(d, cnt - 1);
		d_unlock(d);
		return DCSIM_DPUT_PATH_LOCKED;
	}
	/* Last reference, still counted: decide under the lock. */
	if (retain_dentry(d, DCSIM_RETAIN_ALWAYS_REFERENCED)) {
		d_unlock(d);
		return DCSIM_DPUT_PATH_LOCKED;
	}
	next = dentry_kill(d);
	if (next) {
		if (next != d)
			dstat_inc(next->d_cache, DCSIM_CS_PARENT_PUT); /* d may be freed */
		d = next;
		goto repeat;
	}
	return DCSIM_DPUT_PATH_LOCKED;
}

const struct dcsim_dput_strategy dcsim_dput_locked_strategy = {
	.name = "locked",
	.description = "pre-3.12 dput(): d_lock on every put",
	.dput = dput_locked,
	.retain_style = DCSIM_RETAIN_ALWAYS_REFERENCED,
};
