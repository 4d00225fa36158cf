/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_NAMEI_H
#define DCSIM_NAMEI_H

/*
 * Path walk over the dentry cache, modelling fs/namei.c's lookup of a
 * relative path (path_lookupat() from the cwd, link_path_walk(),
 * walk_component(), lookup_fast()).
 *
 * Semantics: dcsim_path_walk() first tries RCU-walk: every component is
 * looked up in one RCU read section, by its d_seq sample and no reference;
 * each step checks that the directory it stands on did not change (its
 * d_seq) after the child was found, and only the leaf is legitimised, by
 * lockref_get_not_dead() and a recheck of its d_seq (try_to_unlazy()).  A
 * walk whose component moved, died, was not found or was negative falls
 * back to ref-walk from the start, as the kernel's -ECHILD retry without
 * LOOKUP_RCU does: a reference on each component in turn (dget, lookup the
 * next, dput the one behind).  Ref-walk gives the answer; RCU-walk only
 * makes the common case cheap: a walk that returns a dentry either way
 * leaves the cache in the same state.
 *
 * The start directory stands for the process's cwd: the caller keeps it
 * alive (a reference of its own, as the kernel's fs->pwd holds one) for
 * the length of the call.  RCU-walk takes no reference on it; ref-walk
 * takes one and drops it.  Names never change; d_parent changes only by
 * a rename (dcsim_d_move()), which the walk does not follow (no "..");
 * d_seq moves when a dentry is unhashed (__d_drop(), a rename) or loses
 * its inode (unlink, kill).
 */

#include <stdint.h>

#include <dcsim/compiler.h>
#include <dcsim/dentry.h>

/* dcsim_path_walk() flags */
#define DCSIM_WALK_REF	0x1u	/* ref-walk only: no RCU-walk attempt (dcsim-bench --ref-walk) */

/**
 * dcsim_path_walk() - look up @names[0]/@names[1]/.../@names[@nr - 1] from
 * @start, which the caller keeps alive (see above).
 * @start: the directory the walk starts from (the cwd)
 * @names: @nr component names, none NULL
 * @nr:    number of components; 0 returns @start itself
 * @flags: 0 (RCU-walk, ref-walk on any change) or DCSIM_WALK_REF
 *
 * Every component must be found hashed and positive, the leaf included
 * (the lookup of stat(2), not of a create).
 *
 * Return: the leaf with a new reference (drop it with dcsim_dput()), or
 * NULL with errno set: ENOENT (a component missing or negative), EINVAL
 * (@start or a name NULL, an unknown flag, a destroyed cache).  No
 * reference is left held on failure.
 */
DCSIM_API struct dcsim_dentry *dcsim_path_walk(struct dcsim_dentry *start,
					       const char *const *names, unsigned int nr,
					       unsigned int flags);

#endif /* DCSIM_NAMEI_H */
