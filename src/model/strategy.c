// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The registry of dput strategies: the eight built-ins, then whatever users
 * register.  Entries are never removed, so readers need no lock beyond the
 * release/acquire on the count.
 */

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcache.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * The registry grows in blocks that never move, so that a reader needs no
 * lock: it finds entry i at blocks[i / REG_BLOCK][i % REG_BLOCK].  The
 * first block holds the built-ins; registering allocates a block when the
 * last one is full.  REG_BLOCKS blocks of REG_BLOCK entries (65536
 * strategies) is no practical limit, and its end is an error that names it.
 */
#define REG_BLOCK	64
#define REG_BLOCKS	1024

static const struct dcsim_dput_strategy *builtins[REG_BLOCK] = {
	&dcsim_dput_locked_strategy,
	&dcsim_dput_lockref_strategy,
	&dcsim_dput_rtm_strategy,
	&dcsim_dput_fast_strategy,
	&dcsim_dput_retain_strategy,
	&dcsim_dput_fast_htm_strategy,
	&dcsim_dput_fast_htm_all_strategy,
	&dcsim_dput_retain_htm_strategy,
};
static const struct dcsim_dput_strategy **blocks[REG_BLOCKS] = { builtins };
static size_t nr_registered = 8;

size_t dcsim_strategy_count(void)
{
	return __atomic_load_n(&nr_registered, __ATOMIC_ACQUIRE);
}

/* Entry @i < dcsim_strategy_count(): its block and slot were written before the count's release. */
static const struct dcsim_dput_strategy *entry(size_t i)
{
	return blocks[i / REG_BLOCK][i % REG_BLOCK];
}

const struct dcsim_dput_strategy *dcsim_strategy_get(size_t i)
{
	if (i >= dcsim_strategy_count())
		return NULL;
	return entry(i);
}

const struct dcsim_dput_strategy *dcsim_strategy_lookup(const char *name)
{
	size_t n = dcsim_strategy_count();

	if (!name)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(entry(i)->name, name))
			return entry(i);
	return NULL;
}

int (dcsim_strategy_register)(const struct dcsim_dput_strategy *s)
{
	size_t n;
	int err = 0;

	if (!s || !s->name || !s->name[0] || !s->dput)
		return -EINVAL;
	if (s->retain_style != DCSIM_RETAIN_LRU_THEN_REFERENCED &&
	    s->retain_style != DCSIM_RETAIN_ALWAYS_REFERENCED)
		return -EINVAL;
	pthread_mutex_lock(&registry_lock);
	n = nr_registered;
	if (dcsim_strategy_lookup(s->name)) {
		err = -EEXIST;
	} else if (n == (size_t)REG_BLOCK * REG_BLOCKS) {
		fprintf(stderr, "dcsim: dcsim_strategy_register(%s): the registry is full "
			"(%d strategies)\n", s->name, REG_BLOCK * REG_BLOCKS);
		err = -ENOSPC;
	} else if (!blocks[n / REG_BLOCK] &&
		   !(blocks[n / REG_BLOCK] = calloc(REG_BLOCK, sizeof(*builtins)))) {
		err = -ENOMEM;
	} else {
		blocks[n / REG_BLOCK][n % REG_BLOCK] = s;
		__atomic_store_n(&nr_registered, n + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&registry_lock);
	return err;
}

int dcsim_strategy_from_env(const struct dcsim_dput_strategy **out)
{
	const char *env = getenv("DCSIM_DPUT");
	const struct dcsim_dput_strategy *s;

	*out = NULL;
	if (!env || !env[0]) {
		*out = dcsim_strategy_lookup(DCSIM_DEFAULT_STRATEGY);
		return 0;
	}
	s = dcsim_strategy_lookup(env);
	if (!s) {
		size_t n = dcsim_strategy_count();

		fprintf(stderr, "dcsim: DCSIM_DPUT='%s' is not a dput strategy; valid:", env);
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, " %s", entry(i)->name);
		fputc('\n', stderr);
		return -EINVAL;
	}
	*out = s;
	return 0;
}

int dcsim_strategy_load(const char *path, bool *init_called, char *why, size_t len)
{
	size_t before = dcsim_strategy_count();
	int (*init)(void);
	void *h, *sym;
	int err;

	if (init_called)
		*init_called = false;
	h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		snprintf(why, len, "%s", dlerror());
		return -1;
	}
	dlerror();
	sym = dlsym(h, "dcsim_plugin_init");
	if (sym) {
		memcpy(&init, &sym, sizeof(init));	/* object to function pointer */
		if (init_called)
			*init_called = true;
		err = init();
		if (err) {
			snprintf(why, len, "dcsim_plugin_init() failed: %d%s%s", err,
				 err < 0 ? ", " : "", err < 0 ? strerror(-err) : "");
			return -1;
		}
	}
	return (int)(dcsim_strategy_count() - before);
}
