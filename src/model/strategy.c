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
static const struct dcsim_dput_strategy *registry[DCSIM_MAX_STRATEGIES] = {
	&dcsim_dput_locked_strategy,
	&dcsim_dput_lockref_strategy,
	&dcsim_dput_rtm_strategy,
	&dcsim_dput_fast_strategy,
	&dcsim_dput_retain_strategy,
	&dcsim_dput_fast_htm_strategy,
	&dcsim_dput_fast_htm_all_strategy,
	&dcsim_dput_retain_htm_strategy,
};
static size_t nr_registered = 8;

size_t dcsim_strategy_count(void)
{
	return __atomic_load_n(&nr_registered, __ATOMIC_ACQUIRE);
}

const struct dcsim_dput_strategy *dcsim_strategy_get(size_t i)
{
	if (i >= dcsim_strategy_count())
		return NULL;
	return registry[i];
}

const struct dcsim_dput_strategy *dcsim_strategy_lookup(const char *name)
{
	size_t n = dcsim_strategy_count();

	if (!name)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(registry[i]->name, name))
			return registry[i];
	return NULL;
}

int (dcsim_strategy_register)(const struct dcsim_dput_strategy *s)
{
	int err = 0;

	if (!s || !s->name || !s->name[0] || !s->dput)
		return -EINVAL;
	if (s->retain_style != DCSIM_RETAIN_LRU_THEN_REFERENCED &&
	    s->retain_style != DCSIM_RETAIN_ALWAYS_REFERENCED)
		return -EINVAL;
	pthread_mutex_lock(&registry_lock);
	if (dcsim_strategy_lookup(s->name)) {
		err = -EEXIST;
	} else if (nr_registered == DCSIM_MAX_STRATEGIES) {
		err = -ENOSPC;
	} else {
		registry[nr_registered] = s;
		__atomic_store_n(&nr_registered, nr_registered + 1, __ATOMIC_RELEASE);
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
			fprintf(stderr, " %s", registry[i]->name);
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
