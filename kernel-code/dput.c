// SPDX-License-Identifier: GPL-2.0
/*
 * One variant of the kernel's dput() path, compiled from the source that
 * extract.py took out of a linux-source tarball (the functions of its tree
 * table, kernel-code/trees/) (meson passes
 * KC_SOURCE, the generated file, and KC_ENTRY, the name of the entry point
 * for glue.c; dput itself is renamed per variant with -Ddput=...).
 *
 * Everything the extracted functions name comes from the shims in
 * include/: struct dentry over struct dcsim_dentry, lockref, spinlock_t,
 * RCU, WARN, <linux/htm.h>.  In the check build this file is compiled with
 * -fsanitize=thread, so that every plain access below is a schedule point
 * (tsan-hooks.c).
 */

#include <kc/dcache.h>
#include <kc/funcs.h>

#include KC_SOURCE

void KC_ENTRY(struct dcsim_dentry *d);

void KC_ENTRY(struct dcsim_dentry *d)
{
	dput((struct dentry *)(void *)d);
}

#if DCSIM_CHECK
/* For the explorer's traces: which kernel function made an access (the tree table's list). */
#define KC_FUNC(f)	{ #f, (const void *)f, KC_SOURCE },
static const struct kc_func funcs[] = {
	KC_EXTRACTED_FUNCS
	/* Ours, but instrumented too: so that no access is charged to its neighbour. */
	{ "(entry)", (const void *)KC_ENTRY, KC_SOURCE },
};
#undef KC_FUNC

static __attribute__((constructor)) void kc_register_funcs(void)
{
	kc_funcs_add(funcs, sizeof(funcs) / sizeof(funcs[0]));
}
#endif
