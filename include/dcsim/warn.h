/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_WARN_H
#define DCSIM_WARN_H

/*
 * Kernel-style warnings.  API misuse (a put on a dead dentry, a double
 * free, an operation on a destroyed cache) prints one "WARNING:" line per
 * call site on stderr, like WARN_ON_ONCE(), refuses the operation so that
 * nothing is corrupted, and bumps a global counter that tests assert on.
 */

#include <stdbool.h>
#include <stddef.h>

#include <dcsim/compiler.h>

/** dcsim_warn_count() - number of warnings raised since start or reset. */
DCSIM_API unsigned long dcsim_warn_count(void);

DCSIM_API void dcsim_warn_reset(void);

/** dcsim_warn_set_quiet() - count warnings without printing them. */
DCSIM_API void dcsim_warn_set_quiet(bool quiet);

/**
 * dcsim_warn_last() - the site of the most recent warning, printed or quiet,
 * as "file:line func(): condition" into @buf (@len bytes, truncated).
 * Return: false (and an empty @buf) if nothing has warned yet.
 */
DCSIM_API bool dcsim_warn_last(char *buf, size_t len);

#endif /* DCSIM_WARN_H */
