// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A library that loads and initialises fine but registers no dput
 * strategy (a typo'd --load of some other library looks like this):
 * dcsim-check --load must refuse it (exit 2) rather than run nothing.
 */

#include <dcsim/strategy.h>

int dcsim_plugin_init(void)
{
	return 0;
}
