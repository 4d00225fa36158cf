/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Instrumented build: the kernel functions compiled under instrumentation, by
 * address, so that a ThreadSanitizer hook can name the function that made
 * an access in the explorer's interleaving trace (they are built with
 * -fno-inline there, so each has its own body).
 */
#ifndef _KC_FUNCS_H
#define _KC_FUNCS_H

#include <stdbool.h>
#include <stddef.h>

struct kc_func {
	const char *name;
	const void *addr;
	const char *variant;	/* the generated source it came from (k61-dcache.h) */
};

void kc_funcs_add(const struct kc_func *f, size_t n);

/*
 * A function's line table (kpatch.py generates them from the DWARF lines
 * of its objects): for each instruction offset from the function's start
 * where a new source line begins, that line of fs/dcache.c (lib/lockref.c).
 */
struct kc_line {
	unsigned int off;
	int line;
	int changed;			/* the patches changed @line */
};

struct kc_lines {
	const char *func;		/* as in struct kc_func */
	const char *variant;		/* as in struct kc_func */
	const char *label;		/* for traces: "retain_dentry() fs/dcache.c" */
	unsigned long size;		/* of the function's body: a pc beyond is not its */
	const struct kc_line *rows;	/* by offset */
	size_t n;
	int patched;			/* a row of it is changed */
};

void kc_lines_add(const struct kc_lines *l, size_t n);
/*
 * Where @pc lies, for a schedule point: the label of its function's line
 * table and, in @line, the source line; without a table, the function's
 * name (kc_func_name()) and 0.
 */
const char *kc_func_where(const void *pc, int *line);
/*
 * kc_step_frame() - what a trace says about the step at @pc beyond its
 * function and line: in @f, whether it ran a changed line (its own, or a
 * call on its stack on one) and the call that led to it, the nearest
 * inside a patched function, else the immediate caller.  @fp is the frame
 * of the function holding @pc (read from the hook's frame).  @pc_calls:
 * @pc is itself a call (to a glue function, whose step it is), so its
 * own line is the first candidate caller.  Only frames of functions with
 * a line table (kpatch.py's builds, compiled with frame pointers) are
 * followed; without one @f says nothing.
 */
struct dcsim_step_frame;
void kc_step_frame(const void *pc, void *const *fp, bool pc_calls, struct dcsim_step_frame *f);
/* The function whose body holds @pc, or "kernel-code". */
const char *kc_func_name(const void *pc);
/*
 * __tsan_func_entry(): the function holding @pc was entered.  The counts
 * are printed at exit when DCSIM_KC_COVERAGE is set (docs/testing.md,
 * "Which kernel functions each suite reaches").
 */
void kc_func_entered(const void *pc);

#endif
