// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A plugin that registers 48 strategies from dcsim_plugin_init(), the way
 * the kernel-code corpus plugin registers its kind (a) variants
 * (kernel-code/corpus-plugin.c): more than the fixed cap the registry
 * once had (32).  Each is lockref's put with the locked final put, named
 * many-0 .. many-47.  tests/checker-cli/check-cli.sh many: all load, a
 * run of the last one passes, and the kernel-code plugin's k61 still
 * loads after them.
 */

#include <stdio.h>

#include <dcsim/dentry.h>
#include <dcsim/lockref.h>
#include <dcsim/strategy.h>

#define MANY	48

static enum dcsim_dput_path many_dput(struct dcsim_dentry *dentry)
{
	if (dcsim_lockref_put_or_lock(dcsim_d_lockref(dentry)))
		return DCSIM_DPUT_PATH_CAS;
	dcsim_dput_locked_final(dentry, DCSIM_RETAIN_LRU_THEN_REFERENCED);
	return DCSIM_DPUT_PATH_LOCKED;
}

static char names[MANY][16];
static struct dcsim_dput_strategy many[MANY];

__attribute__((visibility("default"))) int dcsim_plugin_init(void);

int dcsim_plugin_init(void)
{
	for (int i = 0; i < MANY; i++) {
		snprintf(names[i], sizeof(names[i]), "many-%d", i);
		many[i] = (struct dcsim_dput_strategy){
			.name = names[i],
			.description = "lockref, one of 48 registered by one plugin",
			.dput = many_dput,
			.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
		};
		if (dcsim_strategy_register(&many[i])) {
			fprintf(stderr, "many-strategies: cannot register %s\n", names[i]);
			return -1;
		}
	}
	return 0;
}
