/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_TESTS_SPEC_H
#define DCSIM_TESTS_SPEC_H

/*
 * The executable specification of the dentry cache: a single-threaded,
 * obviously-correct model of the same operations, with arrays instead of
 * lists and no locks.  It states what every dput strategy must do; the
 * only strategy-dependent input is the retain style (3.x sets REFERENCED
 * on every final put; 4.0+ adds to the LRU first, sets REFERENCED next).
 */

#include <stdbool.h>
#include <stdint.h>

#include <dcsim/cache.h>
#include <dcsim/strategy.h>

#define SPEC_MAX	256	/* dentries per trace, ids 1.. */

enum spec_op_kind { SPEC_OP_NONE, SPEC_OP_ALWAYS, SPEC_OP_NEVER };

struct spec_dentry {
	bool exists;
	uint32_t parent;		/* id; == own id for the root */
	char name[96];			/* full name; snapshots truncate */
	int32_t count;
	uint32_t flags;
	bool hashed;
	enum spec_op_kind op;
};

struct spec {
	enum dcsim_retain_style style;
	/*
	 * 6.8+ (DCSIM_STRATEGY_LOCK_FOR_KILL): a dentry that stays busy stays
	 * on the LRU when shrink_dcache_parent()'s select_collect() walks over
	 * it or a shrinker's kill puts it as the parent (__dentry_kill());
	 * 6.1's select_collect() and __dput_to_list() take it off.
	 */
	bool busy_stays_on_lru;
	struct spec_dentry d[SPEC_MAX + 1];
	uint32_t next_id;
	uint32_t lru[SPEC_MAX];		/* oldest first */
	uint32_t nlru;
	int64_t allocs, kills, frees;
};

void spec_init(struct spec *s, enum dcsim_retain_style style);
/* The spec of a cache of strategy @st: spec_init() with its style and era. */
void spec_init_for(struct spec *s, const struct dcsim_dput_strategy *st);
uint32_t spec_alloc_root(struct spec *s, const char *name);
uint32_t spec_alloc(struct spec *s, uint32_t parent, const char *name);
void spec_set_op(struct spec *s, uint32_t id, enum spec_op_kind op);
/* The d_op whose d_delete() does what @op says (ALWAYS or NEVER). */
const struct dcsim_dentry_operations *spec_d_op(enum spec_op_kind op);
void spec_set_flags(struct spec *s, uint32_t id, uint32_t flags);
void spec_add(struct spec *s, uint32_t id, bool positive);
void spec_rehash(struct spec *s, uint32_t id);
/* Create in place: the hashed negative @id becomes positive (d_instantiate()). */
void spec_create(struct spec *s, uint32_t id);
uint32_t spec_lookup(struct spec *s, uint32_t parent, const char *name);	/* 0: miss */
void spec_dget(struct spec *s, uint32_t id);
uint32_t spec_dget_parent(struct spec *s, uint32_t id);
void spec_dput(struct spec *s, uint32_t id);
void spec_drop(struct spec *s, uint32_t id);
/* dcsim_path_walk() from @start (0: ENOENT); the leaf gets a reference. */
uint32_t spec_walk(struct spec *s, uint32_t start, const char *const *names, unsigned int nr);
void spec_delete(struct spec *s, uint32_t id);
/* d_move(): @id (not a root) moves under @parent, keeping its name and its hashed state. */
void spec_rename(struct spec *s, uint32_t id, uint32_t parent);
void spec_invalidate(struct spec *s, uint32_t id);
/*
 * d_genocide() + shrink_dcache_parent(): every positive, hashed descendant
 * of @id not marked DCACHE_GENOCIDE yet is marked and loses a reference (a
 * negative or unhashed one is skipped with its subtree); then every unused
 * descendant dies.  Return: the references dropped.
 */
unsigned long spec_genocide(struct spec *s, uint32_t id);
/* The dentries spec_genocide(@id) would take a reference from, in @out (SPEC_MAX). Return: how many. */
unsigned int spec_genocide_victims(const struct spec *s, uint32_t id, uint32_t *out);
unsigned long spec_prune(struct spec *s, unsigned long nr);
unsigned long spec_shrink_all(struct spec *s);
/* A hashed, live child @name of @parent exists. */
bool spec_has_hashed(const struct spec *s, uint32_t parent, const char *name);

/** spec_snapshot() - the canonical state, in the library's format (caller frees). */
int spec_snapshot(const struct spec *s, struct dcsim_cache_snapshot *out);

#endif
