// SPDX-License-Identifier: LGPL-2.1-or-later
/* The "none" backend: transactions never start. */

#include <errno.h>
#include <string.h>

#include "htm-backend.h"

const enum dcsim_htm_backend htm_hw_backend = DCSIM_HTM_BACKEND_NONE;

void htm_hw_detect(struct dcsim_htm_info *info)
{
	strncpy(info->cpu, "unknown", sizeof(info->cpu) - 1);
	info->cpu_has_htm = false;
}

dcsim_htm_status_t htm_hw_begin(void)
{
	return DCSIM_HTM_DISABLED;
}

bool htm_hw_test(void)
{
	return false;
}

/* Never run: the force policy refuses a build without a backend first. */
void htm_hw_probe_body(void)
{
}
