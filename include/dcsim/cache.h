/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_CACHE_H
#define DCSIM_CACHE_H

/*
 * The dentry cache: a hash table of (parent, name) with RCU lookup, an LRU
 * list of unused dentries with its own lock, a shrinker, per-thread
 * statistics, and (for tests) a state snapshot and an invariant checker.
 *
 * Each cache uses one dput strategy (<dcsim/strategy.h>) chosen at creation.
 * Per-cache statistics are kept in per-thread slots and summed on read, so
 * counting costs no shared cache line on the dput fast path.
 *
 * Misuse of a destroyed cache warns (dcsim_warn_count()) and does nothing:
 * the small cache header stays allocated, poisoned, until process exit.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dcsim/compiler.h>
#include <dcsim/dentry.h>
#include <dcsim/flavour.h>

struct dcsim_dput_strategy;

struct dcsim_cache_config {
	/* NULL: DCSIM_DPUT from the environment, else the default ("fast"). */
	const struct dcsim_dput_strategy *strategy;
	unsigned int hash_bits;		/* 0: default (10); at most 24 */
};

/**
 * dcsim_cache_create() - a new, empty cache.
 * Return: the cache, or NULL with errno set (EINVAL: bad config or invalid
 * DCSIM_DPUT, with a message on stderr; ENOMEM; ELIBBAD: the caller was
 * compiled against the other build flavour's headers, see below).
 */
DCSIM_API struct dcsim_cache *dcsim_cache_create(const struct dcsim_cache_config *config);

/**
 * dcsim_cache_create_named() - as above with the strategy @name; NULL, like
 * a NULL config, takes DCSIM_DPUT from the environment, else the default.
 * Return: as dcsim_cache_create(); EINVAL also for an unknown @name.
 */
DCSIM_API struct dcsim_cache *dcsim_cache_create_named(const char *strategy);

/*
 * Both check the caller's header flavour first (<dcsim/flavour.h>): on a
 * mismatch they print why and return NULL with errno ELIBBAD.
 */
static inline struct dcsim_cache *
dcsim_cache_create_checked(const struct dcsim_cache_config *config)
{
	if (dcsim_flavour_match(DCSIM_HEADER_FLAVOUR, "dcsim_cache_create()"))
		return NULL;
	return (dcsim_cache_create)(config);
}

static inline struct dcsim_cache *dcsim_cache_create_named_checked(const char *strategy)
{
	if (dcsim_flavour_match(DCSIM_HEADER_FLAVOUR, "dcsim_cache_create_named()"))
		return NULL;
	return (dcsim_cache_create_named)(strategy);
}
#define dcsim_cache_create(config)	dcsim_cache_create_checked(config)
#define dcsim_cache_create_named(name)	dcsim_cache_create_named_checked(name)

/**
 * dcsim_cache_destroy() - kill every unused dentry (as at unmount) and
 * retire the cache.  Their memory is freed after a grace period (call
 * dcsim_rcu_barrier() to wait for that).  Dentries still referenced are
 * reported with a warning and leaked (kept reachable, never freed).  Call
 * while no other thread uses the cache.  NULL is a no-op.
 */
DCSIM_API void dcsim_cache_destroy(struct dcsim_cache *cache);

/** dcsim_cache_alive() - false for a destroyed cache (or NULL). */
DCSIM_API bool dcsim_cache_alive(const struct dcsim_cache *cache);

DCSIM_API const struct dcsim_dput_strategy *dcsim_cache_strategy(const struct dcsim_cache *cache);

/**
 * dcsim_prune() - models prune_dcache_sb(): walk up to @nr_to_scan LRU
 * entries from the oldest: in-use ones leave the LRU, referenced ones lose
 * DCSIM_DCACHE_REFERENCED and rotate, the rest are killed (parents whose
 * count drops to zero with them).
 * Return: the number of dentries killed.
 */
DCSIM_API unsigned long dcsim_prune(struct dcsim_cache *cache, unsigned long nr_to_scan);

/**
 * dcsim_shrink_all() - models shrink_dcache_sb(): kill every unused dentry,
 * referenced or not, repeatedly until the LRU is empty.
 * Return: the number of dentries killed.
 */
DCSIM_API unsigned long dcsim_shrink_all(struct dcsim_cache *cache);

/* ---- statistics ---------------------------------------------------------- */

enum dcsim_cache_stat {
	DCSIM_CS_DPUT,			/* dcsim_dput() calls on a dentry */
	DCSIM_CS_DPUT_LOCKED,		/* ... that took a d_lock ("slow path") */
	DCSIM_CS_DPUT_CAS,		/* ... done by lockless cmpxchg only */
	DCSIM_CS_DPUT_HTM,		/* ... done inside a committed transaction */
	DCSIM_CS_DPUT_WARN,		/* ... refused: dead or zero count */
	DCSIM_CS_PARENT_PUT,		/* parent references dropped by kills */
	DCSIM_CS_KILL_RETRY,		/* dentry_kill() parent trylock failed */
	DCSIM_CS_HTM_ATTEMPT,		/* transactions started */
	DCSIM_CS_HTM_COMMIT,
	DCSIM_CS_HTM_ABORT,		/* all causes */
	DCSIM_CS_HTM_ABORT_LOCKED,	/* explicit DCSIM_DCACHE_HTM_LOCKED */
	DCSIM_CS_HTM_ABORT_UNHASHED,
	DCSIM_CS_HTM_ABORT_NOLRU,
	DCSIM_CS_HTM_ABORT_KILL,
	DCSIM_CS_HTM_ABORT_BADCOUNT,
	DCSIM_CS_HTM_ABORT_NOTREF,
	DCSIM_CS_HTM_ABORT_CONFLICT,
	DCSIM_CS_HTM_ABORT_CAPACITY,
	DCSIM_CS_HTM_ABORT_OTHER,	/* debug/interrupt, nested, unknown */
	DCSIM_CS_ALLOC,
	DCSIM_CS_KILL,
	DCSIM_CS_FREE,
	DCSIM_CS_LOOKUP,
	DCSIM_CS_LOOKUP_HIT,
	DCSIM_CS_LOOKUP_RETRY,		/* d_seq changed under the lookup */
	DCSIM_CS_LRU_ADD,
	DCSIM_CS_LRU_DEL,		/* any removal from the LRU */
	DCSIM_CS_PRUNE_SCAN,		/* LRU entries visited by dcsim_prune() */
	DCSIM_CS_PRUNE_ROTATE,
	DCSIM_CS_WALK,			/* dcsim_path_walk() calls */
	DCSIM_CS_WALK_RCU,		/* ... that RCU-walk completed (no reference but the leaf's) */
	DCSIM_CS_WALK_UNLAZY,		/* ... whose RCU-walk gave up: ref-walk from the start */
	DCSIM_CS_NR_DENTRY,		/* gauge: allocated, not yet freed */
	DCSIM_CS_NR_HASHED,		/* gauge */
	DCSIM_CS_NR_LRU,		/* gauge: on the LRU list proper */
	DCSIM_CS_NR_NEGATIVE,		/* gauge: negative and on the LRU proper (nr_dentry_negative) */
	DCSIM_CS_NR
};

struct dcsim_cache_stats {
	int64_t v[DCSIM_CS_NR];
};

/** dcsim_cache_stats_read() - sum of every thread's slot (racy but tear-free). */
DCSIM_API void dcsim_cache_stats_read(const struct dcsim_cache *cache, struct dcsim_cache_stats *out);

/** dcsim_cache_stats_reset() - zero the event counters (not the gauges); quiescent only. */
DCSIM_API void dcsim_cache_stats_reset(struct dcsim_cache *cache);

/** dcsim_cache_stat_name() - short stable name ("dput_locked"); NULL if out of range. */
DCSIM_API const char *dcsim_cache_stat_name(enum dcsim_cache_stat stat);

/* ---- canonical state and invariants (call at quiescence) ----------------- */

/* Flags that belong to the canonical state. */
#define DCSIM_DCACHE_STATE_FLAGS						\
	(DCSIM_DCACHE_OP_DELETE | DCSIM_DCACHE_DISCONNECTED |			\
	 DCSIM_DCACHE_REFERENCED | DCSIM_DCACHE_DONTCACHE | DCSIM_DCACHE_GENOCIDE |	\
	 DCSIM_DCACHE_SHRINK_LIST | DCSIM_DCACHE_DENTRY_KILLED |		\
	 DCSIM_DCACHE_LRU_LIST | DCSIM_DCACHE_ENTRY_TYPE | DCSIM_DCACHE_FREED)

#define DCSIM_STATE_NAME_LEN	48

struct dcsim_dentry_state {
	uint64_t id;			/* dcsim_d_id() */
	uint64_t parent_id;		/* == id for a root */
	int32_t count;
	uint32_t flags;			/* d_flags & DCSIM_DCACHE_STATE_FLAGS */
	int32_t lru_pos;		/* 0 = oldest on the LRU; -1: not on it */
	bool hashed;
	bool dead;			/* count < 0 (killed, not yet freed) */
	char name[DCSIM_STATE_NAME_LEN];	/* truncated */
};

struct dcsim_cache_counters {
	int64_t nr_dentry, nr_hashed, nr_lru;	/* gauges */
	int64_t allocs, kills, frees;		/* events */
};

struct dcsim_cache_snapshot {
	size_t nr;
	struct dcsim_dentry_state *dentries;	/* sorted by id */
	struct dcsim_cache_counters counters;
};

/**
 * dcsim_cache_snapshot() - the canonical state: every dentry reachable from
 * the roots (alive, or killed but not yet unlisted), sorted by id, and the
 * counters.  Freed dentries are absent (counted in counters.frees).
 * Return: 0, or -ENOMEM / -EINVAL (destroyed cache).
 */
DCSIM_API int dcsim_cache_snapshot(struct dcsim_cache *cache, struct dcsim_cache_snapshot *snap);
DCSIM_API void dcsim_cache_snapshot_release(struct dcsim_cache_snapshot *snap);

/*
 * One difference between two snapshots: a dentry (@a, @b; NULL on the side
 * it is absent from) whose state differs, or, with @counter set, a counter
 * and its two values.
 */
struct dcsim_snapshot_delta {
	const struct dcsim_dentry_state *a, *b;
	const char *counter;
	int64_t va, vb;
};

typedef void (*dcsim_snapshot_delta_fn)(const struct dcsim_snapshot_delta *delta, void *arg);

/**
 * dcsim_snapshot_diff_each() - call @fn for each difference between @a and
 * @b, dentries in id order, then the counters.  Two dentry states differ
 * when any field does (parent, count, flags, LRU position, hashed, dead,
 * name).  @fn may be NULL to only count.
 * Return: number of differences.
 */
DCSIM_API unsigned int dcsim_snapshot_diff_each(const struct dcsim_cache_snapshot *a,
						const struct dcsim_cache_snapshot *b,
						dcsim_snapshot_delta_fn fn, void *arg);

/**
 * dcsim_snapshot_diff() - compare two snapshots field by field.
 * Return: number of differences; the first ones are described in @buf.
 */
DCSIM_API unsigned int dcsim_snapshot_diff(const struct dcsim_cache_snapshot *a,
					   const struct dcsim_cache_snapshot *b,
					   char *buf, size_t len);

/** dcsim_dentry_state_format() - one readable line for @st into @buf. */
DCSIM_API void dcsim_dentry_state_format(const struct dcsim_dentry_state *st, char *buf, size_t len);

/* References the caller (the test) holds, for dcsim_cache_verify(). */
struct dcsim_held_ref {
	const struct dcsim_dentry *dentry;
	int32_t refs;
};

/* dcsim_cache_verify() flags */
#define DCSIM_VERIFY_REFS_EXACT	0x1u	/* @held lists every reference held outside the cache */

/**
 * dcsim_cache_verify() - verify the cache invariants at quiescence:
 * every reference accounted for (count == held + live children with
 * DCSIM_VERIFY_REFS_EXACT, >= otherwise); no killed or freed dentry reachable;
 * no unused dentry that is unhashed (should have been killed) or missing
 * from the LRU; LRU membership and DCSIM_DCACHE_LRU_LIST agree; no
 * DCSIM_DCACHE_SHRINK_LIST left; hash table membership and d_unhashed()
 * agree; parent links and children lists agree; the gauges (nr_dentry,
 * nr_hashed, nr_lru, nr_negative: negatives on the LRU) match what is
 * there, and kills == frees.
 * Return: the number of violations (0 = consistent); a report, one line per
 * violation (truncated), is written to @report if @len > 0.
 */
DCSIM_API unsigned int dcsim_cache_verify(struct dcsim_cache *cache,
					 const struct dcsim_held_ref *held, size_t nr_held,
					 unsigned int flags, char *report, size_t len);

#endif /* DCSIM_CACHE_H */
