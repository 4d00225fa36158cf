/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_CHECKER_SCENARIO_H
#define DCSIM_CHECKER_SCENARIO_H

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

#include "ops.h"
#include "postcond.h"
#include "spec.h"

#define NTHREADS	3
#define NSLOTS		6
#define MAXOPS		6
#define MAX_OUTCOMES	512

/*
 * The calls of a program are the checkers' operations (ops.h).  The
 * scenario table (dcache-scenario-defs.c) writes them with the macros
 * below and SOP_END; each names one enum spec_op.
 */
#define SOP_END			OP_END


struct sop {
	uint8_t kind, a, dst;	/* kind: enum spec_op */
	uint32_t n;
	const char *name;
};

#define DPUT(s)			{ OP_DPUT, s, 0, 0, NULL }
#define LOOKUP(p, nm, d)	{ OP_LOOKUP, p, d, 0, nm }
#define LOOKUP_HIT(p, nm, d)	{ OP_LOOKUP_HIT, p, d, 0, nm }
#define LOOKUP_MISS(p, nm, d)	{ OP_LOOKUP_MISS, p, d, 0, nm }
#define DROP(s)			{ OP_DROP, s, 0, 0, NULL }
#define RENAME(s, p)		{ OP_RENAME, s, p, 0, NULL }	/* move slot s into slot p */
#define DELETE(s)		{ OP_DELETE, s, 0, 0, NULL }
#define INVALIDATE(s)		{ OP_INVALIDATE, s, 0, 0, NULL }
#define GENOCIDE(s)		{ OP_GENOCIDE, s, 0, 0, NULL }
#define PRUNE(k)		{ OP_PRUNE, 0, 0, k, NULL }
#define SHRINK_ALL()		{ OP_SHRINK_ALL, 0, 0, 0, NULL }
#define DGET_PARENT(s, d)	{ OP_DGET_PARENT, s, d, 0, NULL }
#define SET_FLAGS(s, f)		{ OP_SET_FLAGS, s, 0, f, NULL }
#define DPUT_UNOWNED(s)		{ OP_DPUT_UNOWNED, s, 0, 0, NULL }
#define CREATE(p, nm, d)	{ OP_ALLOC_ADD, p, d, 0, nm }
#define WALK(p, path, d)	{ OP_WALK, p, d, 0, path }

#define INSTANTIATE(s)		{ OP_CREATE, s, 0, 0, NULL }

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

/* A compact end state for "some serial order" comparisons (no LRU order). */
struct rstate {
	uint64_t id, parent;
	int32_t count;
	uint32_t flags;
	bool hashed, on_lru;
};

struct routcome {
	size_t nr;
	struct rstate *v;
};

/* Per exploration: the spec of the setup state and every serial outcome. */
struct dscn_arg {
	enum dcsim_dcache_scenario kind;
	const struct dcsim_dput_strategy *strategy;
	bool ready;
	struct spec *init;			/* the spec at the end of setup */
	uint32_t init_slot[NTHREADS][NSLOTS];	/* spec ids in the slots */
	struct routcome outcomes[MAX_OUTCOMES];
	size_t nr_outcomes;
	bool outcomes_overflow;			/* too many: the any-order check is off */
};


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

/* dcache-scenario-build.c: building the tree. */
/* d_delete() answers: keep (never delete at the last put) or discard. */
extern const struct dcsim_dentry_operations dscn_keep_ops;
extern const struct dcsim_dentry_operations dscn_discard_ops;
/* The dentry of @snap with id @id, or NULL (also for id 0). */
const struct dcsim_dentry_state *dscn_find(const struct dcsim_cache_snapshot *snap, uint64_t id);

/* A new hashed positive child of @parent with one reference (tree building). */
struct dcsim_dentry *dscn_mk(struct dscn *s, struct dcsim_dentry *parent, const char *name,
			     const struct dcsim_dentry_operations *ops);

/* Look @name up under @parent; a miss marks the setup broken. */
struct dcsim_dentry *dscn_lookup(struct dscn *s, struct dcsim_dentry *parent, const char *name);
/* Put @d, look it up and put it again: unused, on the LRU, REFERENCED. */
void dscn_warm(struct dscn *s, struct dcsim_dentry *parent, struct dcsim_dentry *d,
	       const char *name);
/* d/{f,g}, both warm.  Return: false if setup failed. */
bool dscn_warm_fg(struct dscn *s);

/* dcache-scenario-rename.c: the rename scenarios' trees. */
void dscn_build_rename(struct dscn *s);
void dscn_build_genocide(struct dscn *s);
void dscn_build_rename_vs_put(struct dscn *s);
void dscn_build_rename_vs_prune(struct dscn *s);
void dscn_build_rename_vs_dget_parent(struct dscn *s);
void dscn_build_rename_vs_invalidate(struct dscn *s);

/* dcache-scenario-spec.c: the spec side of a scenario run. */
/* First setup of an exploration: the spec of the start state, and its serial outcomes. */
void dscn_prepare_spec(struct dscn *s);
void dscn_release_spec(struct dscn_arg *arg);
/* At quiescence: compare the model's end state @snap with the spec's. */
void dscn_check_spec(struct dscn *s, const struct dcsim_cache_snapshot *snap);
/* Shrinker trylock failures so far (a skip has no serial equivalent). */
uint64_t dscn_lru_skips(void);

#endif /* DCSIM_CHECKER_SCENARIO_H */
