/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Check build: the kernel functions compiled under instrumentation, by
 * address, so that a ThreadSanitizer hook can name the function that made
 * an access in the explorer's interleaving trace (they are built with
 * -fno-inline there, so each has its own body).
 */
#ifndef _KC_FUNCS_H
#define _KC_FUNCS_H

#include <stddef.h>

struct kc_func {
	const char *name;
	const void *addr;
	const char *variant;	/* the generated source it came from (k61-dcache.h) */
};

void kc_funcs_add(const struct kc_func *f, size_t n);
/* The function whose body holds @pc, or "kernel-code". */
const char *kc_func_name(const void *pc);
/*
 * __tsan_func_entry(): the function holding @pc was entered.  The counts
 * are printed at exit when DCSIM_KC_COVERAGE is set (docs/testing.md,
 * "Which kernel functions each suite reaches").
 */
void kc_func_entered(const void *pc);

#endif
