// SPDX-License-Identifier: LGPL-2.1-or-later
/* Kernel-style warnings and their counter. */

#include <stdio.h>

#include <dcsim/warn.h>

#include "internal.h"

static unsigned long warn_count;
static bool warn_quiet;

/* @file == NULL: a repeat of an already printed WARN_ON_ONCE, count only. */
void __dcsim_warn(const char *file, int line, const char *func, const char *cond)
{
	__atomic_fetch_add(&warn_count, 1, __ATOMIC_RELAXED);
	if (!file || __atomic_load_n(&warn_quiet, __ATOMIC_RELAXED))
		return;
	fprintf(stderr, "dcsim: WARNING: at %s:%d %s(): %s\n", file, line, func, cond);
}

bool __dcsim_warn_quiet(void)
{
	return __atomic_load_n(&warn_quiet, __ATOMIC_RELAXED);
}

unsigned long dcsim_warn_count(void)
{
	return __atomic_load_n(&warn_count, __ATOMIC_RELAXED);
}

void dcsim_warn_reset(void)
{
	__atomic_store_n(&warn_count, 0, __ATOMIC_RELAXED);
}

void dcsim_warn_set_quiet(bool quiet)
{
	__atomic_store_n(&warn_quiet, quiet, __ATOMIC_RELAXED);
}
