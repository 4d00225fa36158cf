// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A cache's lifetime: create it with a strategy, destroy it (shrinking
 * what is unused and warning about what is still in use), and keep the
 * destroyed one poisoned so that a later use is refused.  Models the
 * super block's side of fs/dcache.c: shrink_dcache_for_umount() and its
 * "Dentry still in use" report.  The locking rules are at the top of
 * cache.c.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcache.h"
#include "slab.h"

/* ---- tree walking for destroy -------------------------------------------- */

static unsigned long count_subtree(struct dcsim_hlist_node *n)
{
	unsigned long nr = 0;

	for (; n; n = READ_ONCE(n->next)) {
		struct dcsim_dentry *d = d_sib_entry(n);

		nr += 1 + count_subtree(READ_ONCE(d->d_children));
	}
	return nr;
}

/* Quiescent callers only. */
static unsigned long count_reachable(struct dcsim_cache *c)
{
	unsigned long nr;

	dcsim_spin_lock(&c->roots_lock);
	nr = count_subtree(READ_ONCE(c->roots));
	dcsim_spin_unlock(&c->roots_lock);
	return nr;
}

/* ---- cache lifetime ------------------------------------------------------- */

/* Destroyed caches stay allocated (poisoned) so misuse is detectable. */
static pthread_mutex_t graveyard_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dcsim_cache *graveyard;

struct dcsim_cache *(dcsim_cache_create)(const struct dcsim_cache_config *cfg)
{
	const struct dcsim_dput_strategy *s = cfg ? cfg->strategy : NULL;
	unsigned int bits = cfg && cfg->hash_bits ? cfg->hash_bits : 10;
	struct dcsim_cache *c;

	if (bits > 24) {
		errno = EINVAL;
		return NULL;
	}
	if (!s && dcsim_strategy_from_env(&s)) {
		errno = EINVAL;
		return NULL;
	}
	if (!s->dput) {
		errno = EINVAL;
		return NULL;
	}
	c = aligned_alloc(DCSIM_CACHELINE, sizeof(*c));
	if (!c)
		goto nomem;
	memset(c, 0, sizeof(*c));
	c->hash = calloc((size_t)1 << bits, sizeof(*c->hash));
	c->pcpu = aligned_alloc(DCSIM_CACHELINE, sizeof(*c->pcpu) * DCSIM_MAX_THREADS);
	if (!c->hash || !c->pcpu) {
		free(c->hash);
		free(c->pcpu);
		free(c);
		goto nomem;
	}
	/* c->pcpu: each block is zeroed by its slot's first use (stats.c). */
	c->hash_mask = (1u << bits) - 1;
	c->strategy = s;
	c->ops = s->ops;
	c->retain_style = s->retain_style;
	c->next_id = 1;
	dcsim_spin_lock_init(&c->lru_lock);
	dcsim_lock_set_class(&c->lru_lock, &dcache_class_lru_lock);
	dlist_init(&c->lru);
	dcsim_spin_lock_init(&c->roots_lock);
	dcsim_lock_set_class(&c->roots_lock, &dcache_class_roots_lock);
	dcsim_spin_lock_init(&c->rename_lock);
	dcsim_lock_set_class(&c->rename_lock, &dcache_class_rename_lock);
	dcsim_lock_set_class_array(&c->hash[0].lock, (size_t)1 << bits, sizeof(*c->hash),
				   &dcache_class_hash_lock);
	c->roots = NULL;
	dcache_slab_cache_get();
	/* Publish the initialised cache before anyone can see the pointer. */
	smp_store_release(&c->magic, DCACHE_MAGIC_ALIVE);
	return c;
nomem:
	errno = ENOMEM;
	return NULL;
}

struct dcsim_cache *(dcsim_cache_create_named)(const char *name)
{
	struct dcsim_cache_config cfg = { 0 };

	if (name) {
		cfg.strategy = dcsim_strategy_lookup(name);
		if (!cfg.strategy) {
			fprintf(stderr, "dcsim: unknown dput strategy '%s'\n", name);
			errno = EINVAL;
			return NULL;
		}
	}
	/* NULL: dcsim_cache_create() reads DCSIM_DPUT, as for a NULL config. */
	return dcsim_cache_create(&cfg);
}

bool dcsim_cache_alive(const struct dcsim_cache *c)
{
	return dcache_alive(c);
}

const struct dcsim_dput_strategy *dcsim_cache_strategy(const struct dcsim_cache *c)
{
	if (WARN_ON_ONCE(!dcache_alive(c)))
		return NULL;
	return c->strategy;
}

/*
 * A destroyed cache's strategy (dcsim_cache_destroy() installs it): a put
 * on one of its leaked dentries is refused with a warning and touches
 * nothing.  So dput() needs no alive check of its own on the fast path.
 */
static enum dcsim_dput_path dead_cache_dput(struct dcsim_dentry *d)
{
	WARN_ON_ONCE(!dcache_alive(d->d_cache));
	return DCSIM_DPUT_PATH_WARNED;
}

static const struct dcsim_dput_strategy dead_cache_strategy = {
	.name = "destroyed-cache",
	.description = "refuses every put: the cache was destroyed",
	.dput = dead_cache_dput,
};

void dcsim_cache_destroy(struct dcsim_cache *c)
{
	unsigned long left;

	if (!c)
		return;
	if (WARN_ON_ONCE(!dcache_alive(c)))
		return;
	dcsim_shrink_all(c);
	left = count_reachable(c);
	/* models the "Dentry still in use" report of shrink_dcache_for_umount() */
	if (WARN_ON_ONCE(left != 0)) {
		static bool told;	/* once per process, like the warning */

		if (!__atomic_exchange_n(&told, true, __ATOMIC_RELAXED))
			fprintf(stderr, "dcsim: cache destroyed with %lu dentries still in use; "
				"leaked\n", left);
	}
	/*
	 * Queued frees (__d_free) touch only their dentry, never the cache, so
	 * there is no need to wait for them here (a grace period per destroy
	 * would dominate short tests); dcsim_rcu_barrier() waits if wanted.
	 */
	WRITE_ONCE(c->strategy, &dead_cache_strategy);	/* dput()s now warn */
	WRITE_ONCE(c->magic, DCACHE_MAGIC_DEAD);
	free(c->pcpu);
	c->pcpu = NULL;
	if (!left) {
		free(c->hash);
		c->hash = NULL;
	}
	dcache_slab_cache_put();
	pthread_mutex_lock(&graveyard_lock);
	c->grave_next = graveyard;
	graveyard = c;
	pthread_mutex_unlock(&graveyard_lock);
}
