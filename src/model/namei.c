// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Path walk: RCU-walk with a ref-walk fallback (<dcsim/namei.h>).
 * Models fs/namei.c: path_lookupat() of a relative path, link_path_walk(),
 * walk_component(), lookup_fast(), step_into(), try_to_unlazy() and
 * legitimize_path(); the hash chain search is cache.c's __d_lookup_rcu().
 *
 * Usage / Ordering:
 *
 * RCU-walk holds the RCU read lock from the start directory's d_seq sample
 * to the leaf's legitimisation, and no reference and no lock in between:
 *   - RCU keeps every dentry it stands on from being freed (the cache
 *     frees through dcsim_call_rcu()), never from being killed;
 *   - a dentry's d_seq sample, taken before its parent, name, hash state
 *     and type are read (d_seq_raw_begin()/d_seq_begin(): smp_rmb()),
 *     vouches for them while d_seq has not moved: __d_drop() (unhash, kill)
 *     and dentry_unlink_inode() (unlink, kill) are the writers, under d_lock;
 *   - stepping from directory P (sample s) to child C: C is found, then P's
 *     d_seq is checked against s (lookup_fast()'s read_seqcount_retry()),
 *     so C was P's child while P was what the walk stepped into;
 *   - the leaf L (sample t): lockref_get_not_dead(L), then L's d_seq against
 *     t (legitimize_path()).  The reference pins L; the recheck says L was
 *     hashed and positive from t to the reference, so the reference is on
 *     the dentry the walk matched and not on one unhashed or unlinked
 *     meanwhile.  The lockref cmpxchg is relaxed (lib/lockref.c); the
 *     recheck's smp_rmb() orders it before the second d_seq read.
 * Any check that fails (a component not found or negative, a d_seq that
 * moved, a dead leaf) ends RCU-walk with no reference held, and the walk
 * is done again from the start by ref-walk (the kernel's -ECHILD retry
 * without LOOKUP_RCU): dget(start), then d_lookup() of each component
 * (itself an RCU lookup legitimised on the spot) and dput() of the one
 * behind, so a reference is always held on the directory being searched.
 *
 * The start directory is the caller's cwd: it keeps it alive, and RCU-walk
 * samples its d_seq (path_init() samples fs->pwd under fs->seq; the model
 * has no fs_struct to change under it).  No mounts, no symlinks, no "..":
 * names are fixed for a dentry's life, and a rename (rename.c) moves the
 * d_seq of the dentry it moves, which the walk checks as for an unhash.
 */

#include <errno.h>
#include <string.h>

#include <dcsim/namei.h>

#include "dcache.h"
#include "stats.h"

/* models d_is_negative() under RCU-walk: no d_lock, so only under a d_seq sample. */
static inline bool d_negative_rcu(struct dcsim_dentry *d)
{
	/* Under the caller's d_seq sample: the type read comes after it. */
	return (d_flags_read(d) & DCSIM_DCACHE_ENTRY_TYPE) == DCSIM_DCACHE_MISS_TYPE;
}

/*
 * models link_path_walk() + complete_walk() under LOOKUP_RCU; the caller
 * holds the RCU read lock.  Each way of giving up is a labelled slow path
 * (walk_rcu_*, <dcsim/dcache-cover.h>).  Return: the leaf with a
 * reference, or NULL with none taken (the caller falls back to ref-walk).
 */
static struct dcsim_dentry *walk_rcu(struct dcsim_dentry *start, const char *const *names,
				     unsigned int nr)
{
	struct dcsim_dentry *d = start, *child;
	uint32_t seq, cseq;

	/* path_init(): the cwd's sample; an unlink in progress on it ends first. */
	seq = d_seq_begin(start);
	for (unsigned int i = 0; i < nr; i++) {
		uint32_t len = (uint32_t)strlen(names[i]);

		/* lookup_fast(): the child and its sample, no reference. */
		child = __d_lookup_rcu(d, names[i], len, d_hash_name(names[i], len), &cseq);
		if (!child) {
			dcache_cover(DCSIM_COVER_WALK_RCU_MISS);
			return NULL;
		}
		/* ...then the directory it was found in is still the one we stepped into. */
		if (d_seq_retry(d, seq)) {
			dcache_cover(DCSIM_COVER_WALK_RCU_SEQ);
			return NULL;
		}
		/*
		 * step_into(): a negative component (a leaf unlinked, a directory
		 * where one is needed) ends RCU-walk; ref-walk decides ENOENT
		 * with the references that make its answer stable.
		 */
		if (d_negative_rcu(child)) {
			dcache_cover(DCSIM_COVER_WALK_RCU_MISS);
			return NULL;
		}
		d = child;
		seq = cseq;
	}
	/* try_to_unlazy() -> legitimize_path(): the leaf's reference... */
	if (!dcsim_lockref_get_not_dead(&d->d_lockref)) {
		dcache_cover(DCSIM_COVER_WALK_RCU_DEAD);
		return NULL;
	}
	/* Planted bug (instrumented builds): trust the match without the recheck. */
	if (dcache_faulty(DCSIM_DCACHE_FAULT_WALK_NO_SEQ_RECHECK))
		return d;
	/* ...and d_seq unmoved since the sample: the reference is on what we matched. */
	if (d_seq_retry(d, seq)) {
		dcache_cover(DCSIM_COVER_WALK_RCU_LEGIT);
		/* Ours to drop; dput() may kill it, which needs no RCU section. */
		dcsim_rcu_read_unlock();
		dcsim_dput(d);
		dcsim_rcu_read_lock();
		return NULL;
	}
	return d;
}

/*
 * models path_lookupat() without LOOKUP_RCU: path_get(&fs->pwd), then for
 * each component lookup_fast() (a referenced d_lookup()), step_into()
 * (dput() of the directory behind), and -ENOENT on a miss or a negative
 * dentry, dropping the child's reference and then the directory's, as
 * handle_mounts() and terminate_walk() do.
 */
static struct dcsim_dentry *walk_ref(struct dcsim_dentry *start, const char *const *names,
				     unsigned int nr)
{
	struct dcsim_dentry *d = dcsim_dget(start), *next;

	for (unsigned int i = 0; i < nr; i++) {
		next = dcsim_d_lookup(d, names[i]);
		if (next && dcsim_d_is_negative(next)) {
			dcsim_dput(next);
			next = NULL;
		}
		dcsim_dput(d);
		if (!next) {
			errno = ENOENT;
			return NULL;
		}
		d = next;
	}
	return d;
}

/* models fs/namei.c:filename_lookup() -> path_lookupat(), -ECHILD retry included */
struct dcsim_dentry *dcsim_path_walk(struct dcsim_dentry *start, const char *const *names,
				     unsigned int nr, unsigned int flags)
{
	struct dcsim_cache *c;
	struct dcsim_dentry *d;

	if (!start || (nr && !names) || (flags & ~DCSIM_WALK_REF)) {
		errno = EINVAL;
		return NULL;
	}
	c = start->d_cache;
	if (WARN_ON_ONCE(!dcache_alive(c))) {
		errno = EINVAL;
		return NULL;
	}
	for (unsigned int i = 0; i < nr; i++) {
		if (!names[i]) {
			errno = EINVAL;
			return NULL;
		}
	}
	dstat_inc(c, DCSIM_CS_WALK);
	if (!nr)
		return dcsim_dget(start);
	if (likely(!(flags & DCSIM_WALK_REF))) {
		dcsim_rcu_read_lock();
		d = walk_rcu(start, names, nr);
		dcsim_rcu_read_unlock();
		if (likely(d)) {
			dstat_inc(c, DCSIM_CS_WALK_RCU);
			return d;
		}
		/* -ECHILD: everything again, with references. */
		dstat_inc(c, DCSIM_CS_WALK_UNLAZY);
	}
	return walk_ref(start, names, nr);
}
