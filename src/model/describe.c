// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Check-flavour glue: the dentry cache model describes its dentries to the
 * explorer (<dcsim/describe.h>), which knows no dentry.
 *
 * Names: d_alloc() records every dentry allocated while an exploration
 * runs (dcache_name_dentry()), so that a report can say "'/d/f'.d_lock"
 * where it would print a raw address.  Only the address, the parent's slot
 * and a copy of the name are kept: a report may be printed after the
 * dentry was freed.  A new execution forgets them; a later dentry at a
 * reused address wins.  A rename records the dentry again under its new
 * parent (dcsim_d_move()), and a path is built from each ancestor's
 * newest record, so that a report names a dentry, and everything below
 * it, by where it is when the report is printed.
 *
 * Ordering: one logical thread runs at a time, so recording needs no lock
 * against other recorders; the engine describes under its own lock or
 * after the run, and the published count (release/acquire) keeps a
 * describe from reading a slot being filled.
 */

#include <stdio.h>
#include <string.h>

#include <dcsim/describe.h>

#include "dcache.h"

#define NAMED_MAX	64

static struct named_dentry {
	uintptr_t addr;
	int parent;		/* slot, or -1 if not named */
	bool root;
	char name[32];
} named[NAMED_MAX];
static unsigned int nnamed;	/* published slots: release/acquire */

void dcache_name_dentry(const struct dcsim_dentry *d)
{
	unsigned int n = __atomic_load_n(&nnamed, __ATOMIC_RELAXED);
	struct named_dentry *e;

	if (!dcsim_explore_running() || n >= NAMED_MAX)
		return;
	e = &named[n];
	e->addr = (uintptr_t)d;
	e->parent = -1;
	e->root = d->d_parent == d;
	for (unsigned int i = n; d->d_parent != d && i-- > 0;) {
		if (named[i].addr == (uintptr_t)d->d_parent) {
			e->parent = (int)i;
			break;
		}
	}
	snprintf(e->name, sizeof(e->name), "%s", d->d_name ? d->d_name : "?");
	__atomic_store_n(&nnamed, n + 1, __ATOMIC_RELEASE);
}

static void names_forget(void)
{
	__atomic_store_n(&nnamed, 0, __ATOMIC_RELEASE);
}

/*
 * The newest record of slot @i's dentry: the one a rename made, if any.
 * A dentry with a recorded child cannot have been freed and its address
 * reused while the child lives, so the newest record at that address is
 * the parent's own.
 */
static unsigned int named_newest(unsigned int i)
{
	for (unsigned int j = __atomic_load_n(&nnamed, __ATOMIC_ACQUIRE); j-- > i + 1;)
		if (named[j].addr == named[i].addr)
			return j;
	return i;
}

/* The path of slot @i ("" for a root, "?/name" below an unknown parent). */
static size_t named_path(unsigned int i, char *buf, size_t len, unsigned int depth)
{
	size_t at;

	if (named[i].root)
		return 0;
	if (named[i].parent < 0 || depth > 16)
		at = (size_t)snprintf(buf, len, "?");
	else
		at = named_path(named_newest((unsigned int)named[i].parent), buf, len, depth + 1);
	if (at < len)
		at += (size_t)snprintf(buf + at, len - at, "/%s", named[i].name);
	return at < len ? at : len - 1;
}

/* The field of struct dcsim_dentry at byte @off, for an access of @size. */
static const char *dentry_field(size_t off, unsigned int size)
{
	static const struct { size_t off; const char *name; } f[] = {
#define F(m) { __builtin_offsetof(struct dcsim_dentry, m), #m }
		F(d_flags), F(d_seq), F(d_hash), F(d_parent), F(d_name_hash), F(d_name_len),
		F(d_name), F(d_iname), F(d_cache), F(d_op), F(d_id), F(d_fsdata), F(d_time),
		F(d_lockref), F(d_lru), F(d_children), F(d_sib), F(d_inode),
#undef F
	};
	size_t lr = __builtin_offsetof(struct dcsim_dentry, d_lockref);
	const char *name = "?";

	if (off >= lr && off < lr + sizeof(struct dcsim_lockref)) {
		if (off == lr && size == sizeof(struct dcsim_lockref))
			return "d_lockref";
		return off < lr + __builtin_offsetof(struct dcsim_lockref, count) ?
		       "d_lock" : "d_lockref.count";
	}
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (f[i].off <= off)
			name = f[i].name;
	return name;
}

/* "'/d/f'.d_lock" for an address in a named dentry. */
static bool dentry_describe(uintptr_t a, unsigned int size, char *buf, size_t len)
{
	for (unsigned int i = __atomic_load_n(&nnamed, __ATOMIC_ACQUIRE); i-- > 0;) {
		char path[160];

		if (a < named[i].addr || a >= named[i].addr + sizeof(struct dcsim_dentry))
			continue;
		path[0] = '\0';
		named_path(i, path, sizeof(path), 0);
		snprintf(buf, len, "%s.%s", path[0] ? path : "/",
			 dentry_field(a - named[i].addr, size));
		return true;
	}
	return false;
}

/*
 * The dentry a head belongs to, or NULL.  dentry_free() queues
 * &d->d_rcu with d dead, killed and marked FREED; a foreign head is told
 * apart by its alignment first (d_rcu sits 8 bytes past a 16-byte
 * boundary of a 64-byte aligned dentry, so no head at the start of a
 * malloc() block passes), before anything is read through it.  Relaxed
 * loads: the engine holds the baton, nobody writes a dentry meanwhile.
 */
static void *dentry_rcu_object(struct dcsim_rcu_head *head, size_t *size)
{
	char *b = (char *)head - offsetof(struct dcsim_dentry, d_rcu);
	const struct dcsim_dentry *d = (const struct dcsim_dentry *)(void *)b;
	uint32_t want = DCSIM_DCACHE_FREED | DCSIM_DCACHE_DENTRY_KILLED, f;

	if ((uintptr_t)b % DCSIM_CACHELINE)
		return NULL;
	f = __atomic_load_n(&d->d_flags, __ATOMIC_RELAXED);
	if ((f & want) != want ||
	    __atomic_load_n(&d->d_lockref.count, __ATOMIC_RELAXED) != DCSIM_LOCKREF_DEAD)
		return NULL;
	*size = sizeof(struct dcsim_dentry);
	return b;
}

/*
 * The inode a head belongs to, or NULL: dentry_unlink_inode() queues
 * &inode->i_rcu when the last alias leaves it (i_count 0).  Told apart as
 * a dentry is, by its alignment first (i_rcu sits 8 bytes into a 64-byte
 * aligned inode, so no head at the start of a malloc() block passes), then
 * by its magic.
 */
_Static_assert(offsetof(struct dcsim_inode, i_rcu) % 16 == 8,
	       "i_rcu 8 bytes past a 16-byte boundary (see inode_rcu_object())");

static void *inode_rcu_object(struct dcsim_rcu_head *head, size_t *size)
{
	char *b = (char *)head - offsetof(struct dcsim_inode, i_rcu);
	const struct dcsim_inode *inode = (const struct dcsim_inode *)(void *)b;

	if ((uintptr_t)b % DCSIM_CACHELINE ||
	    __atomic_load_n(&inode->i_magic, __ATOMIC_RELAXED) != DCACHE_INODE_MAGIC ||
	    __atomic_load_n(&inode->i_count, __ATOMIC_RELAXED))
		return NULL;
	*size = sizeof(struct dcsim_inode);
	return b;
}

/*
 * A freed dentry or inode: the two objects the model frees through RCU.
 * The inode test goes first: given a dentry's head it reads only bytes
 * inside that dentry (asserted below), while the dentry test, given an
 * inode's head, would read d_flags and the count from before the inode's
 * allocation, both heads being 8 bytes past a 64-byte boundary.
 */
_Static_assert(offsetof(struct dcsim_dentry, d_rcu) >= offsetof(struct dcsim_inode, i_rcu) &&
	       offsetof(struct dcsim_dentry, d_rcu) - offsetof(struct dcsim_inode, i_rcu) +
	       sizeof(struct dcsim_inode) <= sizeof(struct dcsim_dentry),
	       "the inode test stays inside a dentry it is given");
static void *dcache_rcu_object(struct dcsim_rcu_head *head, size_t *size)
{
	void *o = inode_rcu_object(head, size);

	return o ? o : dentry_rcu_object(head, size);
}

static const struct dcsim_explore_describer dentry_describer = {
	.describe = dentry_describe,
	.rcu_object = dcache_rcu_object,
	.exec_begin = names_forget,
};

/* Registered when the library is loaded, before any exploration can run. */
__attribute__((constructor)) static void dcache_register_describer(void)
{
	dcsim_explore_set_describer(&dentry_describer);
}
