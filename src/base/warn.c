// SPDX-License-Identifier: LGPL-2.1-or-later
/* Kernel-style warnings and their counter. */

#include <pthread.h>
#include <stdio.h>

#include <dcsim/warn.h>

#include "internal.h"

static unsigned long warn_count;
static bool warn_quiet;

/*
 * The last warning's site, for reports of runs that warn quietly (the
 * explorer, dcsim-check).  Warnings are rare and never on a fast path, so
 * a mutex keeps the four fields of one warning together.
 */
static pthread_mutex_t warn_last_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	const char *file, *func, *cond;
	int line;
} warn_last;

void dcsim_warn_hit(const char *file, int line, const char *func, const char *cond,
		      bool print)
{
	__atomic_fetch_add(&warn_count, 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&warn_last_lock);
	warn_last.file = file;
	warn_last.line = line;
	warn_last.func = func;
	warn_last.cond = cond;
	pthread_mutex_unlock(&warn_last_lock);
	if (!print || __atomic_load_n(&warn_quiet, __ATOMIC_RELAXED))
		return;
	fprintf(stderr, "dcsim: WARNING: at %s:%d %s(): %s\n", file, line, func, cond);
}

/* @file == NULL: a hit counted without a site. */
void dcsim_warn_report(const char *file, int line, const char *func, const char *cond)
{
	if (!file) {
		__atomic_fetch_add(&warn_count, 1, __ATOMIC_RELAXED);
		return;
	}
	dcsim_warn_hit(file, line, func, cond, true);
}

bool dcsim_warn_last(char *buf, size_t len)
{
	bool any;

	pthread_mutex_lock(&warn_last_lock);
	any = warn_last.file != NULL;
	if (len)
		snprintf(buf, len, "%s:%d %s(): %s", any ? warn_last.file : "", warn_last.line,
			 any ? warn_last.func : "", any ? warn_last.cond : "");
	if (!any && len)
		buf[0] = '\0';
	pthread_mutex_unlock(&warn_last_lock);
	return any;
}

bool dcsim_warn_quiet(void)
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
