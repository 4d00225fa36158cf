/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_CHECKER_DCACHE_SCENARIOS_H
#define DCSIM_CHECKER_DCACHE_SCENARIOS_H

/*
 * Internals of the dentry cache scenarios: what a scenario is (struct
 * scn_def: its tree, one program per logical thread, its own end check),
 * the table of them (dcache-scenario-defs.c, one entry per scenario of
 * <dcsim/explore-dcache.h>), and the per-execution state the runner
 * (dcache-scenarios.c) hands to a scenario's build and check.
 */

#include <stdbool.h>
#include <stdint.h>

#include <dcsim/cache.h>
#include <dcsim/explore-dcache.h>

#include "postcond.h"
#include "spec.h"

#define NTHREADS	3
#define NSLOTS		6
#define MAXOPS		6
#define MAX_OUTCOMES	512

enum sop_kind {
	SOP_END,
	SOP_DPUT,		/* dput(slot a); the slot is emptied */
	SOP_LOOKUP,		/* slot dst = d_lookup(slot a, name) */
	SOP_LOOKUP_HIT,		/* ... which must find it */
	SOP_LOOKUP_MISS,	/* ... which must not */
	SOP_DROP,		/* d_drop(slot a) */
	SOP_DELETE,		/* d_delete(slot a) */
	SOP_INVALIDATE,		/* d_invalidate(slot a) */
	SOP_PRUNE,		/* prune(n) */
	SOP_SHRINK_ALL,
	SOP_DGET_PARENT,	/* slot dst = dget_parent(slot a) */
	SOP_SET_FLAGS,		/* d_set_flags(slot a, n) */
	SOP_DPUT_UNOWNED,	/* misuse: dput(slot a) without owning a reference */
	SOP_CREATE,		/* slot dst = d_alloc(slot a, name) + d_add(positive) */
	SOP_WALK,		/* slot dst = path_walk(slot a, "x/y"): NULL or positive */
	SOP_INSTANTIATE,	/* create in place: the parent's create lock, d_instantiate(slot a) */
};

struct sop {
	uint8_t kind, a, dst;
	uint32_t n;
	const char *name;
};

#define DPUT(s)			{ SOP_DPUT, s, 0, 0, NULL }
#define LOOKUP(p, nm, d)	{ SOP_LOOKUP, p, d, 0, nm }
#define LOOKUP_HIT(p, nm, d)	{ SOP_LOOKUP_HIT, p, d, 0, nm }
#define LOOKUP_MISS(p, nm, d)	{ SOP_LOOKUP_MISS, p, d, 0, nm }
#define DROP(s)			{ SOP_DROP, s, 0, 0, NULL }
#define DELETE(s)		{ SOP_DELETE, s, 0, 0, NULL }
#define INVALIDATE(s)		{ SOP_INVALIDATE, s, 0, 0, NULL }
#define PRUNE(k)		{ SOP_PRUNE, 0, 0, k, NULL }
#define SHRINK_ALL()		{ SOP_SHRINK_ALL, 0, 0, 0, NULL }
#define DGET_PARENT(s, d)	{ SOP_DGET_PARENT, s, d, 0, NULL }
#define SET_FLAGS(s, f)		{ SOP_SET_FLAGS, s, 0, f, NULL }
#define DPUT_UNOWNED(s)		{ SOP_DPUT_UNOWNED, s, 0, 0, NULL }
#define CREATE(p, nm, d)	{ SOP_CREATE, p, d, 0, nm }
#define WALK(p, path, d)	{ SOP_WALK, p, d, 0, path }

#define WALK_MAX	4	/* components of a WALK path */

/* Split @path ("a/f") into @names, in @buf.  Return: the number of components. */
unsigned int dscn_split_path(const char *path, char (*buf)[16], const char **names);
#define INSTANTIATE(s)		{ SOP_INSTANTIATE, s, 0, 0, NULL }

struct dscn;

/*
 * What a scenario is, in one place: @build makes the tree in s->dir and
 * hands out the threads' starting references (s->slot[t][1..]; slot 0 is
 * the directory, borrowed), noting the ids its check needs (s->id_*);
 * @prog is each thread's program; @check (may be NULL) states the
 * scenario's own expectations of the end state, after the invariants and
 * before the spec comparison, through dcsim_explore_fail().
 */
struct scn_def {
	const char *name;
	void (*build)(struct dscn *s);
	struct sop prog[NTHREADS][MAXOPS];
	void (*check)(const struct dscn *s, const struct dcsim_cache_snapshot *snap);
	unsigned int warns;		/* misuse warnings expected */
	bool no_spec;			/* not comparable with the spec (misuse) */
	/*
	 * A latent-bug scenario (corpus/, kind c): it shows a bug
	 * that the modelled kernel still has, so on a strategy without one
	 * of these DCSIM_STRATEGY_* flags (the fix) it runs only when
	 * opts->scenario names it exactly; elsewhere it is skipped.
	 */
	unsigned int latent_unless;
	/*
	 * The same for a bug that only the strategies with one of these
	 * DCSIM_STRATEGY_* flags have (the kernel code of one tree): on them
	 * it runs only when named; everywhere else it always runs.
	 */
	unsigned int latent_if;
};

/* Every scenario, indexed by enum dcsim_dcache_scenario. */
extern const struct scn_def scn_defs[DCSIM_DSCN_NR];

struct dscn_arg;

/* One execution of a scenario (controller thread: setup and check). */
struct dscn {
	struct dscn_arg *arg;
	const struct scn_def *def;
	struct dcsim_cache *cache;
	struct dcsim_dentry *root, *dir;
	struct dcsim_dentry *slot[NTHREADS][NSLOTS];
	enum spec_op_kind op_kind[SPEC_MAX + 1];	/* by dentry id */
	uint64_t id_f, id_g, id_b, id_c;
	unsigned long warn0;
	uint64_t skips0;	/* shrinker trylock failures before the threads ran */
	/* when each call began and ended, in a clock only the running thread ticks */
	unsigned long clock;
	unsigned long t_begin[NTHREADS][MAXOPS], t_end[NTHREADS][MAXOPS];
	unsigned int nr_ran[NTHREADS];
	/* the post-condition of each thread's INVALIDATE or SHRINK_ALL in progress */
	struct dscn_post {
		bool on;
		struct dcsim_dentry *target;
		struct postcond pc;
	} post[NTHREADS];
	bool broken;		/* setup failed */
};

/* The dentry of @snap with id @id, or NULL (also for id 0). */
const struct dcsim_dentry_state *dscn_find(const struct dcsim_cache_snapshot *snap, uint64_t id);

/* A new hashed positive child of @parent with one reference (tree building). */
struct dcsim_dentry *dscn_mk(struct dscn *s, struct dcsim_dentry *parent, const char *name,
			     const struct dcsim_dentry_operations *ops);

#endif /* DCSIM_CHECKER_DCACHE_SCENARIOS_H */
