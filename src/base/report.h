/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_SRC_REPORT_H
#define DCSIM_SRC_REPORT_H

/*
 * A bounded report of one line per finding, for the checks that fill a
 * caller's buffer and return how many findings they made (the invariant
 * checker, src/model/invariants.c; the post-conditions,
 * src/checker/postcond.c).  Every call counts; lines stop being written
 * when the buffer is full, and the buffer stays NUL-terminated.
 * Internal and header-only, with no include of the project, so that every
 * layer may use it (tests/layering.py).
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

struct report {
	char *buf;		/* may be NULL when len is 0 */
	size_t len, used;
	unsigned int nr;	/* findings, written or not */
};

static inline void __attribute__((format(printf, 2, 3))) report(struct report *r,
								  const char *fmt, ...)
{
	va_list ap;
	int n;

	r->nr++;
	if (!r->len || r->used + 1 >= r->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(r->buf + r->used, r->len - r->used, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	r->used += (size_t)n;
	if (r->used + 1 < r->len) {
		r->buf[r->used++] = '\n';
		r->buf[r->used] = '\0';
	} else {
		r->used = r->len - 1;
	}
}

#endif /* DCSIM_SRC_REPORT_H */
