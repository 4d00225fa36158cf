// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The dentry cache model: dentries, their allocation, the hash table,
 * lookup and references, and dput(), the operations that every dput
 * strategy shares.  Models fs/dcache.c.  A cache's lifetime is in
 * lifetime.c, the LRU and the retain decision in lru.c; the locking rules
 * below are the whole model's.
 *
 * Usage / Ordering (as at the top of fs/dcache.c):
 *
 * d_lock (dentry->d_lockref.lock) protects
 *   - d_lockref.count (except the lockless cmpxchg of lockref, which only
 *     succeeds when the lock half is seen unlocked, and the rtm/fast-htm
 *     transactions, which abort when anybody takes the lock),
 *   - d_flags, d_hash membership, d_lru membership,
 *   - the dentry's own list of children (d_children) and the d_sib link of
 *     each child (under the PARENT's d_lock).
 * cache->lru_lock protects the LRU list (d_lru links of LRU entries).
 * bucket->lock protects a hash chain; readers walk it under RCU only.
 * cache->roots_lock protects the list of roots.
 * inode->i_lock protects d_inode (with d_lock) and the inode's alias count.
 * dir_inode->i_rwsem (the directory's create lock, dcsim_inode_lock())
 *   serialises the namespace changes inside one directory that the model
 *   makes in place: a create that instantiates a hashed negative dentry
 *   (dcsim_d_instantiate()) and, by convention, the unlink (d_delete()) and
 *   lookup-miss-then-create sequences of its users.  One per directory, as
 *   the kernel's i_rwsem; lookups never take it.
 * A dentry on a private shrink list (DCACHE_SHRINK_LIST) is linked by d_lru
 * into a list owned by one thread; other threads change it only under d_lock
 * and never unlink it (they leave a killed "husk" for the owner to free).
 *
 * Lock order:
 *   dir_inode->i_rwsem (a parent's before its child's, never two siblings')
 *     inode->i_lock
 *       parent->d_lock
 *         child->d_lock
 *           cache->lru_lock, bucket->lock, cache->roots_lock (leaves)
 * i_rwsem is taken only with no other lock held (it stands for a sleeping
 * lock, which may not be taken under a spinlock).
 * Going up (child held, parent wanted) is only ever a trylock; on failure
 * the child is unlocked and the operation retried (dentry_kill()), or the
 * locks are retaken in order (shrink_lock_dentry(), the retain strategy).
 * The shrinker holds lru_lock and only trylocks d_lock.  Code holding
 * d_lock only trylocks i_lock; on failure it drops d_lock and retakes both
 * in order (lock_for_kill(), shrink_lock_dentry(), 6.1 dentry_kill()) or
 * restarts (3.x dentry_kill()).
 *
 * Memory: dentries are freed through dcsim_call_rcu() after the kill, so a
 * lockless reader (RCU lookup, fast_dput after its count reached zero) may
 * still look at a dead dentry, never at freed memory.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcache.h"
#include "../base/rcu-internal.h"
#include "kernel-code.h"
#include "slab.h"
#include "stats.h"

_Static_assert(sizeof(struct dcsim_dentry) <= 192, "struct dcsim_dentry must fit 192 bytes");
#if defined(__x86_64__)
/* The lockref starts cache line 2, away from what RCU lookup reads. */
_Static_assert(__builtin_offsetof(struct dcsim_dentry, d_lockref) == 128, "lockref placement");
_Static_assert(__builtin_offsetof(struct dcsim_dentry, d_iname) + DCSIM_DNAME_INLINE_LEN <= 128,
	       "lookup fields in cache lines 0-1");
#endif

/* ---- accessors ------------------------------------------------------------ */

int32_t dcsim_d_count(const struct dcsim_dentry *d)
{
	return d_cnt((struct dcsim_dentry *)d);
}

uint32_t dcsim_d_flags(const struct dcsim_dentry *d)
{
	return d_flags_read((struct dcsim_dentry *)d);
}

bool dcsim_d_unhashed(const struct dcsim_dentry *d)
{
	return d_unhashed((struct dcsim_dentry *)d);
}

bool dcsim_d_is_negative(const struct dcsim_dentry *d)
{
	return (dcsim_d_flags(d) & DCSIM_DCACHE_ENTRY_TYPE) == DCSIM_DCACHE_MISS_TYPE;
}

bool dcsim_d_is_root(const struct dcsim_dentry *d)
{
	return IS_ROOT((struct dcsim_dentry *)d);
}

/* The name never changes while the dentry is reachable (a rename keeps it). */
const char *dcsim_d_name(const struct dcsim_dentry *d)
{
	return d->d_name;
}

uint64_t dcsim_d_id(const struct dcsim_dentry *d)
{
	return d->d_id;
}

struct dcsim_dentry *dcsim_d_parent(const struct dcsim_dentry *d)
{
	return READ_ONCE(((struct dcsim_dentry *)d)->d_parent);
}

struct dcsim_cache *dcsim_d_cache(const struct dcsim_dentry *d)
{
	return d->d_cache;
}

void *dcsim_d_fsdata(const struct dcsim_dentry *d)
{
	return READ_ONCE(((struct dcsim_dentry *)d)->d_fsdata);
}

void dcsim_d_set_fsdata(struct dcsim_dentry *d, void *data)
{
	WRITE_ONCE(d->d_fsdata, data);
}

struct dcsim_lockref *dcsim_d_lockref(struct dcsim_dentry *d)
{
	return &d->d_lockref;
}

/* ---- allocation ----------------------------------------------------------- */

/* FNV-1a; the kernel uses full_name_hash() salted by the parent. */
uint32_t d_hash_name(const char *name, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)name[i];
		h *= 16777619u;
	}
	return h;
}

static struct dcache_bucket *d_hash_bucket(struct dcsim_cache *c, const struct dcsim_dentry *parent,
					   uint32_t hash)
{
	/*
	 * The kernel salts with the parent's address; the model uses its id,
	 * which is as unique while the parent lives and does not vary with
	 * ASLR, so that explorer runs (and their coverage) are reproducible.
	 */
	uint64_t x = parent->d_id * 0x9e3779b97f4a7c15ull;

	return &c->hash[(hash ^ (uint32_t)(x >> 32)) & c->hash_mask];
}

static struct dcsim_dentry *__d_alloc(struct dcsim_cache *c, const char *name, bool root)
{
	struct dcsim_dentry *d;
	size_t len;

	if (!dcache_alive(c) || !name) {
		WARN_ON_ONCE(!dcache_alive(c));
		errno = EINVAL;
		return NULL;
	}
	len = strlen(name);
	if (len > 255 || (!root && (!len || memchr(name, '/', len)))) {
		errno = EINVAL;
		return NULL;
	}
	d = dcache_slab_alloc(DCACHE_SLAB_DENTRY);
	if (!d)
		return NULL;
	memset(d, 0, sizeof(*d));
	if (len < DCSIM_DNAME_INLINE_LEN) {
		memcpy(d->d_iname, name, len + 1);
		d->d_name = (const char *)d->d_iname;
	} else {
		char *ext = malloc(len + 1);

		if (!ext) {
			dcache_slab_free(DCACHE_SLAB_DENTRY, d);
			errno = ENOMEM;
			return NULL;
		}
		memcpy(ext, name, len + 1);
		d->d_name = ext;
	}
	d->d_name_len = (uint32_t)len;
	d->d_name_hash = d_hash_name(name, len);
	d->d_cache = c;
	dcsim_lockref_init(&d->d_lockref, 1);
	dcsim_lock_set_class(&d->d_lockref.lock, &dcache_class_d_lock);
	dlist_init(&d->d_lru);
	d->d_id = dcsim_fetch_add(&c->next_id, 1);
	dstat_inc(c, DCSIM_CS_ALLOC);
	dstat_inc(c, DCSIM_CS_NR_DENTRY);
	return d;
}

/* models fs/dcache.c:d_make_root() */
struct dcsim_dentry *dcsim_d_alloc_root(struct dcsim_cache *c, const char *name)
{
	struct dcsim_dentry *d = __d_alloc(c, name, true);
	struct dcsim_inode *inode;

	if (!d)
		return NULL;
	inode = inode_alloc();
	if (!inode) {
		if (d->d_name != (const char *)d->d_iname)
			free((void *)d->d_name);
		dcache_slab_free(DCACHE_SLAB_DENTRY, d);
		dstat_add(c, DCSIM_CS_NR_DENTRY, -1);
		errno = ENOMEM;
		return NULL;
	}
	d->d_parent = d;
	d->d_flags = DCSIM_DCACHE_DIRECTORY_TYPE;
	d->d_inode = inode;
	inode->i_count = 1;
	dcache_name_dentry(d);
	/* Publish the initialised dentry with the release of roots_lock. */
	dcsim_spin_lock(&c->roots_lock);
	hlist_add_head(&d->d_sib, &c->roots);
	dcsim_spin_unlock(&c->roots_lock);
	return d;
}

/* models fs/dcache.c:d_alloc() */
struct dcsim_dentry *dcsim_d_alloc(struct dcsim_dentry *parent, const char *name)
{
	struct dcsim_dentry *d;

	if (!parent) {
		errno = EINVAL;
		return NULL;
	}
	d = __d_alloc(parent->d_cache, name, false);
	if (!d)
		return NULL;
	d->d_parent = parent;
	d_lock(parent);
	if (WARN_ON_ONCE(d_cnt(parent) <= 0)) {
		/* The caller must hold a reference: refuse to hang off a dead parent. */
		d_unlock(parent);
		if (d->d_name != (const char *)d->d_iname)
			free((void *)d->d_name);
		dstat_add(parent->d_cache, DCSIM_CS_NR_DENTRY, -1);
		dcache_slab_free(DCACHE_SLAB_DENTRY, d);
		errno = EINVAL;
		return NULL;
	}
	/* __dget_dlock(parent): the child's reference on its parent. */
	d_set_cnt(parent, d_cnt(parent) + 1);
	hlist_add_head(&d->d_sib, &parent->d_children);
	d_unlock(parent);
	dcache_name_dentry(d);
	return d;
}

void dcsim_d_set_op(struct dcsim_dentry *d, const struct dcsim_dentry_operations *op)
{
	d_lock(d);
	/* A static attribute: fast paths read it without d_lock. */
	WARN_ON_ONCE(!d_unhashed(d));
	WRITE_ONCE(d->d_op, op);
	if (op && op->d_delete)
		__d_set_flags(d, DCSIM_DCACHE_OP_DELETE);
	else
		__d_clear_flags(d, DCSIM_DCACHE_OP_DELETE);
	if (op && op->d_prune)
		__d_set_flags(d, DCSIM_DCACHE_OP_PRUNE);
	else
		__d_clear_flags(d, DCSIM_DCACHE_OP_PRUNE);
	d_unlock(d);
}

void dcsim_d_set_flags(struct dcsim_dentry *d, uint32_t flags)
{
	if (WARN_ON_ONCE(flags & ~DCSIM_DCACHE_USER_FLAGS))
		flags &= DCSIM_DCACHE_USER_FLAGS;
	d_lock(d);
	__d_set_flags(d, flags);
	d_unlock(d);
}

void dcsim_d_clear_flags(struct dcsim_dentry *d, uint32_t flags)
{
	if (WARN_ON_ONCE(flags & ~DCSIM_DCACHE_USER_FLAGS))
		flags &= DCSIM_DCACHE_USER_FLAGS;
	d_lock(d);
	__d_clear_flags(d, flags);
	d_unlock(d);
}

/* ---- hashing -------------------------------------------------------------- */

/* models fs/dcache.c:__d_rehash(); d_lock held */
void dcache_d_rehash_locked(struct dcsim_dentry *d)
{
	struct dcsim_cache *c = d->d_cache;
	struct dcache_bucket *b = d_hash_bucket(c, d->d_parent, d->d_name_hash);
	struct dcsim_dentry *first;

	dcsim_spin_lock(&b->lock);
	first = READ_ONCE(b->first);
	WRITE_ONCE(d->d_hash.next, first);
	if (first)
		WRITE_ONCE(first->d_hash.pprev, &d->d_hash.next);
	WRITE_ONCE(d->d_hash.pprev, &b->first);
	/* rcu_assign_pointer(): a reader that finds d sees it initialised. */
	smp_store_release(&b->first, d);
	dcsim_spin_unlock(&b->lock);
	dstat_inc(c, DCSIM_CS_NR_HASHED);
}

void dcsim_d_rehash(struct dcsim_dentry *d)
{
	if (WARN_ON_ONCE(!dcache_alive(d->d_cache)))
		return;
	d_lock(d);
	if (WARN_ON_ONCE(IS_ROOT(d) || d_cnt(d) < 0 || !d_unhashed(d))) {
		d_unlock(d);
		return;
	}
	dcache_d_rehash_locked(d);
	d_unlock(d);
}

/* models fs/dcache.c:d_add() = d_instantiate() + d_rehash() */
void dcsim_d_add(struct dcsim_dentry *d, bool positive)
{
	struct dcsim_inode *inode = NULL;

	if (WARN_ON_ONCE(!dcache_alive(d->d_cache)))
		return;
	/* A new inode: its i_lock is ours alone, taken first as the order says. */
	if (positive) {
		inode = inode_alloc();
		if (WARN_ON_ONCE(!inode))
			return;
		dcsim_spin_lock(&inode->i_lock);
	}
	d_lock(d);
	if (WARN_ON_ONCE(IS_ROOT(d) || d_cnt(d) <= 0 || !d_unhashed(d) || READ_ONCE(d->d_inode))) {
		d_unlock(d);
		if (inode) {
			dcsim_spin_unlock(&inode->i_lock);
			inode_free(inode);
		}
		return;
	}
	if (inode)
		__d_set_inode(d, inode, DCSIM_DCACHE_REGULAR_TYPE);
	dcache_d_rehash_locked(d);
	d_unlock(d);
	if (inode)
		dcsim_spin_unlock(&inode->i_lock);
}

/* models vfs_link()'s d_instantiate(new, inode) + d_rehash() */
int dcsim_d_add_link(struct dcsim_dentry *d, struct dcsim_dentry *target)
{
	struct dcsim_inode *inode;
	int err = -EINVAL;

	if (WARN_ON_ONCE(!dcache_alive(d->d_cache) || target->d_cache != d->d_cache))
		return -EINVAL;
	/* The inode outlives a concurrent unlink of @target by a grace period. */
	dcsim_rcu_read_lock();
	inode = READ_ONCE(target->d_inode);
	if (!inode) {
		dcsim_rcu_read_unlock();
		return -EINVAL;
	}
	dcsim_spin_lock(&inode->i_lock);
	dcsim_rcu_read_unlock();
	/* Still an alias of @target's inode?  (Unlinked meanwhile: refuse.) */
	if (READ_ONCE(target->d_inode) == inode && READ_ONCE(inode->i_count)) {
		d_lock(d);
		if (!IS_ROOT(d) && d_cnt(d) > 0 && d_unhashed(d) && !READ_ONCE(d->d_inode)) {
			__d_set_inode(d, inode, DCSIM_DCACHE_REGULAR_TYPE);
			dcache_d_rehash_locked(d);
			err = 0;
		}
		d_unlock(d);
	}
	dcsim_spin_unlock(&inode->i_lock);
	return err;
}

/*
 * models fs/dcache.c:__d_drop(); d_lock held.  The d_seq bump makes a
 * lookup that matched the dentry before the drop reject it afterwards.
 */
void __d_drop(struct dcsim_dentry *d)
{
	struct dcache_bucket *b;
	struct dcsim_dentry *next, **pprev;

	if (d_unhashed(d))
		return;
	b = d_hash_bucket(d->d_cache, d->d_parent, d->d_name_hash);
	dcsim_spin_lock(&b->lock);
	next = READ_ONCE(d->d_hash.next);
	pprev = READ_ONCE(d->d_hash.pprev);
	/* d->d_hash.next stays: a reader standing on d can walk on. */
	WRITE_ONCE(*pprev, next);
	if (next)
		WRITE_ONCE(next->d_hash.pprev, pprev);
	WRITE_ONCE(d->d_hash.pprev, NULL);
	dcsim_spin_unlock(&b->lock);
	/* write_seqcount_invalidate(): order the unhash before the bump. */
	smp_wmb();
	WRITE_ONCE(d->d_seq, READ_ONCE(d->d_seq) + 2);
	dstat_add(d->d_cache, DCSIM_CS_NR_HASHED, -1);
}

void dcsim_d_drop(struct dcsim_dentry *d)
{
	if (WARN_ON_ONCE(!dcache_alive(d->d_cache)))
		return;
	d_lock(d);
	__d_drop(d);
	d_unlock(d);
}

/*
 * models fs/dcache.c:d_delete(): i_lock, then d_lock (the inode lock comes
 * first); the only user unlinks the inode (the dentry goes negative),
 * otherwise it is unhashed.  Unlike the kernel's, it takes a negative or
 * unreferenced dentry too (looked at again under the locks).
 */
static void dcache_d_delete(struct dcsim_dentry *d)
{
	struct dcsim_inode *inode;

	dcsim_rcu_read_lock();
	for (;;) {
		inode = READ_ONCE(d->d_inode);
		if (inode)
			dcsim_spin_lock(&inode->i_lock);
		d_lock(d);
		if (likely(READ_ONCE(d->d_inode) == inode))
			break;
		/* Made negative between the read and the locks: look again. */
		d_unlock(d);
		if (inode)
			dcsim_spin_unlock(&inode->i_lock);
	}
	dcsim_rcu_read_unlock();
	if (d_cnt(d) == 1 && inode) {
		dentry_unlink_inode(d);
		d_unlock(d);
		return;
	}
	if (d_cnt(d) != 1)
		__d_drop(d);
	d_unlock(d);
	if (inode)
		dcsim_spin_unlock(&inode->i_lock);
}

void dcsim_d_delete(struct dcsim_dentry *d)
{
	struct dcsim_cache *c = d->d_cache;

	if (WARN_ON_ONCE(!dcache_alive(c)))
		return;
	/*
	 * The kernel's d_delete() (a kernel-code strategy's) reads d_inode
	 * with no lock and takes its i_lock: it wants a positive dentry the
	 * caller holds a reference on.  Both lockless reads are safe to act
	 * on for such a caller: its reference keeps the count above 0, and
	 * the dentry positive (only a d_delete() that sees count 1, its own
	 * caller's reference alone, makes it negative).  A negative or
	 * unused dentry goes to the model's own d_delete(), which looks again
	 * under the locks and behaves as it did before the kernel's code ran
	 * here.
	 */
	if (c->ops && c->ops->d_delete && d_cnt(d) > 0 && READ_ONCE(d->d_inode))
		c->ops->d_delete(d);
	else
		dcache_d_delete(d);
}

/* ---- lookup and references ---------------------------------------------- */

/* The chain from @d on (RCU read side): the first match, as __d_lookup_rcu(). */
static struct dcsim_dentry *d_hash_match(struct dcsim_dentry *d, struct dcsim_dentry *parent,
					 const char *name, uint32_t len, uint32_t hash,
					 uint32_t *seqp)
{
	/* Acquire: a dentry found through the chain is seen initialised (__d_rehash()). */
	for (; d; d = smp_load_acquire(&d->d_hash.next)) {
		/* raw_seqcount_begin(): the checks below come after the sample. */
		uint32_t seq = d_seq_raw_begin(d);

		if (READ_ONCE(d->d_parent) != parent)
			continue;
		if (d_unhashed(d))
			continue;
		if (READ_ONCE(d->d_name_hash) != hash || READ_ONCE(d->d_name_len) != len)
			continue;
		/* Name bytes are immutable while the dentry is reachable (a rename keeps them). */
		if (memcmp(d->d_name, name, len))
			continue;
		*seqp = seq;
		return d;
	}
	return NULL;
}

/*
 * models fs/dcache.c:__d_lookup_rcu(); the caller is in an RCU read section
 * (which keeps every dentry of the chain from being freed) and holds no
 * reference on @parent necessarily: RCU-walk (namei.c) calls it on a parent
 * it only sampled.  @len and @hash are those of @name (d_hash_name()).
 * The "__" is the caller's RCU read lock.
 * Return: the hashed child, unreferenced, with its d_seq sample in *@seqp;
 * the caller legitimises it (d_seq_retry() after lockref_get_not_dead())
 * or checks its parent's d_seq before trusting the match.  NULL: no match.
 */
struct dcsim_dentry *__d_lookup_rcu(struct dcsim_dentry *parent, const char *name, uint32_t len,
				    uint32_t hash, uint32_t *seqp)
{
	struct dcache_bucket *b = d_hash_bucket(parent->d_cache, parent, hash);

	/* rcu_dereference() of the chain head: pairs with __d_rehash()'s release. */
	return d_hash_match(smp_load_acquire(&b->first), parent, name, len, hash, seqp);
}

/*
 * models fs/dcache.c:__d_lookup_rcu() followed by the legitimize step of
 * fs/namei.c (lockref_get_not_dead() + read_seqcount_retry()).
 */
struct dcsim_dentry *dcsim_d_lookup(struct dcsim_dentry *parent, const char *name)
{
	struct dcsim_cache *c = parent->d_cache;
	struct dcsim_dentry *d;
	uint32_t hash, len, seq;

	if (WARN_ON_ONCE(!dcache_alive(c)) || !name)
		return NULL;
	len = (uint32_t)strlen(name);
	hash = d_hash_name(name, len);
	dstat_inc(c, DCSIM_CS_LOOKUP);
	dcsim_rcu_read_lock();
	d = __d_lookup_rcu(parent, name, len, hash, &seq);
	while (d) {
		/* Being killed: as good as not there; a live namesake may follow. */
		if (!dcsim_lockref_get_not_dead(&d->d_lockref)) {
			d = d_hash_match(smp_load_acquire(&d->d_hash.next), parent, name, len,
					 hash, &seq);
			continue;
		}
		/*
		 * The reference is ours; if d_seq moved since the sample the
		 * dentry was unhashed (or its inode changed) after we matched
		 * it, so the match is stale: look again from the chain's head.
		 */
		if (!d_seq_retry(d, seq)) {
			dcsim_rcu_read_unlock();
			dstat_inc(c, DCSIM_CS_LOOKUP_HIT);
			return d;
		}
		dcache_cover(DCSIM_COVER_LOOKUP_RETRY);
		dcsim_rcu_read_unlock();
		dcsim_dput(d);
		dstat_inc(c, DCSIM_CS_LOOKUP_RETRY);
		dcsim_rcu_read_lock();
		d = __d_lookup_rcu(parent, name, len, hash, &seq);
	}
	dcsim_rcu_read_unlock();
	return NULL;
}

/*
 * models include/linux/dcache.h:dget().  The kernel's dget() trusts the
 * caller; here a dead dentry is refused with a warning instead of being
 * resurrected (lockref_get_not_dead costs the same cmpxchg).
 */
struct dcsim_dentry *dcsim_dget(struct dcsim_dentry *d)
{
	if (!d)
		return NULL;
	if (WARN_ON_ONCE(!dcache_alive(d->d_cache)))
		return d;
	WARN_ON_ONCE(!dcsim_lockref_get_not_dead(&d->d_lockref));
	return d;
}

/* models fs/dcache.c:dget_parent() */
static struct dcsim_dentry *dcache_dget_parent(struct dcsim_dentry *d)
{
	struct dcsim_dentry *p;
	uint32_t seq;
	int ok;

	/* Optimistic: the parent is pinned by our child's reference. */
	dcsim_rcu_read_lock();
	seq = READ_ONCE(d->d_seq);
	smp_rmb();
	p = READ_ONCE(d->d_parent);
	ok = dcsim_lockref_get_not_zero(&p->d_lockref);
	dcsim_rcu_read_unlock();
	if (likely(ok)) {
		smp_rmb();
		if (likely(READ_ONCE(d->d_seq) == seq))
			return p;
		dcsim_dput(p);
	}
	dcache_cover(DCSIM_COVER_DGET_PARENT_SLOW);
	/* Locked: the parent's d_lock keeps a rename from moving d away from it. */
	dcsim_rcu_read_lock();
again:
	p = READ_ONCE(d->d_parent);
	d_lock(p);
	if (unlikely(READ_ONCE(d->d_parent) != p)) {
		/* Renamed between the read and the lock (rename.c): read it again. */
		d_unlock(p);
		goto again;
	}
	dcsim_rcu_read_unlock();
	WARN_ON_ONCE(d_cnt(p) <= 0);
	d_set_cnt(p, d_cnt(p) + 1);
	d_unlock(p);
	return p;
}

struct dcsim_dentry *dcsim_dget_parent(struct dcsim_dentry *d)
{
	struct dcsim_cache *c = d->d_cache;

	if (WARN_ON_ONCE(!dcache_alive(c)))
		return NULL;
	if (c->ops && c->ops->get_parent)
		return c->ops->get_parent(d);
	return dcache_dget_parent(d);
}

/* ---- dput ----------------------------------------------------------------- */

/* models fs/dcache.c:dput(): the strategy does the work. */
void dcsim_dput(struct dcsim_dentry *d)
{
	struct dcsim_cache *c;

	if (!d)
		return;
	c = d->d_cache;
	/* What we did with our reference comes before the free (TSan only). */
	dcsim_rcu_tsan_before_free(&d->d_rcu);
	dstat_dput(c, READ_ONCE(c->strategy)->dput(d));
}
