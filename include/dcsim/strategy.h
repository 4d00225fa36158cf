/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_STRATEGY_H
#define DCSIM_STRATEGY_H

/*
 * dput() strategies: how a reference is dropped.  Every cache uses one,
 * chosen at creation.  Built in (docs/design.md compares them):
 *
 *   locked    pre-3.12: d_lock taken on every put
 *   lockref   3.12: lockref_put_or_lock(), then the locked slow path
 *   rtm       Linus' 2013 RTM patch on top of lockref
 *   fast      fast_dput() as in Debian's 6.1 kernel (the default)
 *   retain    the 6.8+ rework: lockless retain_dentry(), lock_for_kill()
 *   fast-htm  fast, plus a transaction for a put that would reach zero: the
 *             final put of a hashed LRU dentry (sets REFERENCED in the same
 *             txn); non-final puts stay lockref's cmpxchg (kernel series v2)
 *   fast-htm-all  fast with the same transaction in front of every put
 *             (kernel series v1), for comparison
 *
 * A strategy is a table of functions.  Users can register their own (a new
 * fast-path idea) and every test suite that iterates the registry runs on it.
 * A strategy's ->dput is only called with a non-NULL dentry of a live cache;
 * it must drop exactly one reference, and it may use the building blocks
 * below for everything but its fast path.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dcsim/compiler.h>
#include <dcsim/dentry.h>
#include <dcsim/flavour.h>
#include <dcsim/htm.h>

/* Explicit HTM abort codes used by the rtm and fast-htm strategies. */
#define DCSIM_DCACHE_HTM_LOCKED		0x01	/* d_lock value was not unlocked */
#define DCSIM_DCACHE_HTM_UNHASHED	0x02	/* final put of an unhashed dentry */
#define DCSIM_DCACHE_HTM_NOLRU		0x03	/* not on the LRU yet: needs d_lru_add */
#define DCSIM_DCACHE_HTM_KILL		0x04	/* DISCONNECTED or DONTCACHE: must die */
#define DCSIM_DCACHE_HTM_BADCOUNT	0x05	/* count <= 0: misuse or dead */
#define DCSIM_DCACHE_HTM_NOTREF		0x06	/* rtm only: REFERENCED not yet set */

/* How the caller's reference was dropped (for the statistics). */
enum dcsim_dput_path {
	DCSIM_DPUT_PATH_CAS,		/* lockless cmpxchg, no d_lock */
	DCSIM_DPUT_PATH_HTM,		/* inside a committed transaction */
	DCSIM_DPUT_PATH_LOCKED,		/* a d_lock was taken */
	DCSIM_DPUT_PATH_WARNED,		/* misuse: refused with a warning */
};

/* How a final put marks a retained dentry. */
enum dcsim_retain_style {
	/* 4.13+ (563f40019d16): the first final put adds it to the LRU, the next sets REFERENCED */
	DCSIM_RETAIN_LRU_THEN_REFERENCED,
	/* before 4.13 (3.x, 4.0..4.12): every final put sets REFERENCED (and adds to the LRU if needed) */
	DCSIM_RETAIN_ALWAYS_REFERENCED,
};

#define DCSIM_STRATEGY_USES_HTM		0x1u	/* run its tests with HTM on and off */
/*
 * 6.8+ (339e9e13530b): the cache's shrinkers lock a victim as
 * lock_for_kill() does, following a changed ->d_inode instead of taking it
 * for "somebody grabbed it" as 6.1's shrink_lock_dentry() does.
 */
#define DCSIM_STRATEGY_LOCK_FOR_KILL	0x2u
/*
 * The cache's shrinkers run the kernel's own 6.1-era shrink_lock_dentry()
 * (the kernel-code k61 strategies, patched or not), not the model's: a
 * scenario that shows a bug of that code (struct scn_def's latent_if) runs
 * on them only when named.
 */
#define DCSIM_STRATEGY_SHRINK_LOCK_DENTRY	0x4u

/*
 * Not API: the kernel-code strategies' own shrinker, walks and lookups
 * (src/model/kernel-code.h).  Users' strategies leave ->ops NULL, and the
 * model's code runs those paths.
 */
struct dcsim_dcache_ops;

struct dcsim_dput_strategy {
	const char *name;		/* unique, e.g. "fast-htm" */
	const char *description;	/* one line: what it models */
	enum dcsim_dput_path (*dput)(struct dcsim_dentry *dentry);
	enum dcsim_retain_style retain_style;
	unsigned int flags;		/* DCSIM_STRATEGY_* */
	const struct dcsim_dcache_ops *ops;	/* NULL: the model's (not API, above) */
};

/*
 * The registry has no fixed limit; this is the size of a table of
 * strategies that a program keeps for itself (a benchmark's subjects, a
 * test's counters), which must check its own bound.
 */
#define DCSIM_MAX_STRATEGIES		32
#define DCSIM_DEFAULT_STRATEGY		"fast"

/**
 * dcsim_strategy_register() - add @s (kept by pointer; must outlive its use).
 * Return: 0, -EINVAL (no name or ->dput), -EEXIST (name taken), -ENOSPC,
 * -ELIBBAD (caller built against the other flavour's headers, refused).
 */
DCSIM_API int dcsim_strategy_register(const struct dcsim_dput_strategy *s);

/* The caller's header flavour is checked first (<dcsim/flavour.h>): -ELIBBAD. */
static inline int dcsim_strategy_register_checked(const struct dcsim_dput_strategy *s)
{
	int err = dcsim_flavour_match(DCSIM_HEADER_FLAVOUR, "dcsim_strategy_register()");

	return err ? err : (dcsim_strategy_register)(s);
}
#define dcsim_strategy_register(s)	dcsim_strategy_register_checked(s)

/** dcsim_strategy_lookup() - by name; NULL if none. */
DCSIM_API const struct dcsim_dput_strategy *dcsim_strategy_lookup(const char *name);

/** dcsim_strategy_count()/dcsim_strategy_get() - iterate, built-ins first. */
DCSIM_API size_t dcsim_strategy_count(void);
DCSIM_API const struct dcsim_dput_strategy *dcsim_strategy_get(size_t i);

/**
 * dcsim_strategy_from_env() - the strategy named by DCSIM_DPUT, or the
 * default if it is unset or empty.
 * Return: 0, or -EINVAL for an unknown name (a message listing the valid
 * names goes to stderr and *out is left NULL).
 */
DCSIM_API int dcsim_strategy_from_env(const struct dcsim_dput_strategy **out);

/**
 * dcsim_plugin_init() - optional entry point of a loadable strategy library,
 * defined by the library, not by dcsim.  `dcsim-check --load` and
 * `dcsim-bench --load` dlopen() the library and, if it defines this symbol,
 * call it once; it registers the library's strategies (a constructor that
 * calls dcsim_strategy_register() works too).  Declared here so that a
 * definition has its prototype, with default visibility for libraries built
 * with -fvisibility=hidden (docs/strategies.md).
 * Return: 0, or non-zero to make the load fail.
 */
__attribute__((visibility("default"))) int dcsim_plugin_init(void);

/**
 * dcsim_strategy_load() - dlopen() a library of strategies (RTLD_NOW |
 * RTLD_GLOBAL; it stays loaded) and call its dcsim_plugin_init() if it
 * defines one: what `dcsim-check --load` and `dcsim-bench --load` do.
 * @path: as for dlopen()
 * @init_called: if not NULL, set to whether dcsim_plugin_init() was called
 * @why: on failure, the reason in one line (dlerror(), or the init's
 *       return value), @len bytes
 * Return: how many strategies the load registered (constructors and init
 * together; 0 is not an error here), or -1 with @why filled in.
 */
DCSIM_API int dcsim_strategy_load(const char *path, bool *init_called, char *why, size_t len);

/* ---- building blocks for strategies ------------------------------------- */

/**
 * dcsim_cache_htm_account() - count a strategy's transaction in the per-cache
 * statistics (DCSIM_CS_HTM_ATTEMPT, _COMMIT, _ABORT and the abort causes of
 * <dcsim/cache.h>), as the built-in HTM strategies do.
 * @cache: the dentry's cache, dcsim_d_cache(), taken before the transaction
 *         while the caller's reference pins the dentry: once a final put has
 *         committed, another thread may kill and free the dentry
 * @status: DCSIM_HTM_STARTED for a transaction that committed (call after
 *          dcsim_htm_end()); otherwise the abort status dcsim_htm_begin()
 *          returned (call on the fallback path).  DCSIM_HTM_DISABLED (HTM not
 *          live) counts nothing.
 *
 * Call outside any transaction: a counter written inside one would be rolled
 * back on abort by hardware (instrumented builds warn and count nothing).  Explicit
 * abort codes DCSIM_DCACHE_HTM_* are counted by name, other codes as "other".
 * The per-thread statistics of <dcsim/stats.h> need no call: dcsim_htm_begin()
 * and dcsim_htm_end() count them.
 */
DCSIM_API void dcsim_cache_htm_account(struct dcsim_cache *cache, dcsim_htm_status_t status);

/** dcsim_d_lockref() - the dentry's lockref (d_lock + count). */
DCSIM_API struct dcsim_lockref *dcsim_d_lockref(struct dcsim_dentry *dentry);

/**
 * dcsim_dput_locked_final() - the common slow path of the lockref-era dputs:
 * entered with d_lock held and the caller's reference still counted (count
 * >= 1, normally 1).  Drops it: decrements if others remain, else retains
 * the dentry (retain_dentry(), in @style) or kills it and drops the parent
 * reference, walking up.  Warns and unlocks if the count is <= 0.  Called
 * with d_lock not held (nobody holds it), it warns and returns at once,
 * changing nothing: the caller's reference stays counted.
 * Return: with no lock held.
 */
DCSIM_API void dcsim_dput_locked_final(struct dcsim_dentry *dentry, enum dcsim_retain_style style);

#endif /* DCSIM_STRATEGY_H */
