// SPDX-License-Identifier: GPL-2.0
/*
 * One variant of the kernel's dput() path, compiled from the source that
 * extract.py took out of a linux-source tarball (the functions of its tree
 * table, kernel-code/trees/) (meson passes
 * KC_SOURCE, the generated file, KC_ENTRY, the name of the entry point
 * for glue.c, KC_VARIANT, the prefix of the variant's other external
 * names, and KC_OPS, the name of its ops table; dput itself is renamed per
 * variant with -Ddput=...).
 *
 * Everything the extracted functions name comes from the shims in
 * include/: struct dentry over struct dcsim_dentry, lockref, spinlock_t,
 * RCU, WARN, <linux/htm.h>.  In the instrumented build this file is compiled with
 * -fsanitize=thread, so that every plain access below is a schedule point
 * (tsan-hooks.c).
 */

#include <kc/dcache.h>
#include <kc/funcs.h>

#if !defined(KC_VARIANT) || !defined(KC_OPS)
#error "define KC_VARIANT (the variant's prefix, kc_<name>_) and KC_OPS (its ops table, kc_<name>_ops)"
#endif

/*
 * The kernel's functions with external linkage, under the variant's names
 * (KC_VARIANT, from meson: kc_k612_, ...), so that the variants and the
 * library's own shrink_dentry_list() do not collide.
 */
#define __KC_VCAT2(a, b)	a##b
#define __KC_VCAT(a, b)		__KC_VCAT2(a, b)
#define shrink_dentry_list	__KC_VCAT(KC_VARIANT, shrink_dentry_list)
#define prune_dcache_sb		__KC_VCAT(KC_VARIANT, prune_dcache_sb)
#define shrink_dcache_sb	__KC_VCAT(KC_VARIANT, shrink_dcache_sb)
#define dget_parent		__KC_VCAT(KC_VARIANT, dget_parent)
#define shrink_dcache_parent	__KC_VCAT(KC_VARIANT, shrink_dcache_parent)
#define d_invalidate		__KC_VCAT(KC_VARIANT, d_invalidate)
#define d_genocide		__KC_VCAT(KC_VARIANT, d_genocide)

#ifdef KC_HAVE_D_DELETE
struct dentry;
/*
 * d_delete() cannot be renamed like the others: the same name is the
 * ->d_delete member of struct dentry_operations, which retain_dentry()
 * calls.  Declared static first, its definition (no storage class) takes
 * internal linkage (C11 6.2.2), so the variants do not collide either.
 */
static void d_delete(struct dentry *dentry);
#endif

#include KC_SOURCE

void KC_ENTRY(struct dcsim_dentry *d);

void KC_ENTRY(struct dcsim_dentry *d)
{
	dput((struct dentry *)(void *)d);
}

/*
 * The ops table (src/model/kernel-code.h): dcsim_prune(),
 * dcsim_shrink_all(), dcsim_dget_parent() and (KC_HAVE_D_INVALIDATE and
 * KC_HAVE_D_DELETE, from the tree table's cflags line)
 * dcsim_d_invalidate() and dcsim_d_delete() (and KC_HAVE_D_GENOCIDE:
 * dcsim_d_genocide()) of a cache of this variant run the tree's own
 * prune_dcache_sb(), shrink_dcache_sb(), dget_parent(), d_invalidate(),
 * d_delete() and d_genocide().  The kernel's shrinkers return what
 * they isolated (or nothing); dcsim's API returns the dentries killed,
 * counted by the kill glue (kc_kills()) on this thread.
 */
static unsigned long kc_prune(struct dcsim_cache *c, unsigned long nr_to_scan)
{
	struct shrink_control sc = { .nr_to_scan = nr_to_scan };
	unsigned long k0 = kc_kills();

	prune_dcache_sb((struct super_block *)(void *)c, &sc);
	return kc_kills() - k0;
}

static unsigned long kc_shrink_all(struct dcsim_cache *c)
{
	unsigned long k0 = kc_kills();

	shrink_dcache_sb((struct super_block *)(void *)c);
	return kc_kills() - k0;
}

static struct dcsim_dentry *kc_dget_parent(struct dcsim_dentry *d)
{
	return kc_dcsim(dget_parent((struct dentry *)(void *)d));
}

#ifdef KC_HAVE_D_INVALIDATE
/* d_invalidate(), with shrink_dcache_parent() and its d_walk()s (the tree table says which trees) */
static void kc_d_invalidate(struct dcsim_dentry *d)
{
	d_invalidate((struct dentry *)(void *)d);
}
#endif

#ifdef KC_HAVE_D_GENOCIDE
/*
 * d_genocide(), then shrink_dcache_parent(), as kill_litter_super()'s
 * unmount and simple_fill_super()'s error path run them: the pins
 * dropped, the unused are killed (the tree table says which trees).
 */
static void kc_d_genocide(struct dcsim_dentry *d)
{
	d_genocide((struct dentry *)(void *)d);
	shrink_dcache_parent((struct dentry *)(void *)d);
}
#endif

#ifdef KC_HAVE_D_DELETE
/*
 * d_delete() on a positive @d the caller holds a reference on
 * (dcsim_d_delete() sends the rest to the model): the kernel reads
 * d_inode before any lock, which that reference keeps non-NULL (only a
 * d_delete() that sees count 1, its caller's own reference alone, makes
 * a dentry negative).
 */
static void kc_d_delete(struct dcsim_dentry *d)
{
	d_delete((struct dentry *)(void *)d);
}
#endif

const struct dcsim_dcache_ops KC_OPS = {
	.prune = kc_prune,
	.shrink_all = kc_shrink_all,
	.get_parent = kc_dget_parent,
#ifdef KC_HAVE_D_INVALIDATE
	.invalidate = kc_d_invalidate,
#endif
#ifdef KC_HAVE_D_DELETE
	.d_delete = kc_d_delete,
#endif
#ifdef KC_HAVE_D_GENOCIDE
	.genocide = kc_d_genocide,
#endif
};

#if DCSIM_INSTRUMENT
/* For the explorer's traces: which kernel function made an access (the tree table's list). */
#define KC_FUNC(f)	{ #f, (const void *)f, KC_SOURCE },
static const struct kc_func funcs[] = {
	KC_EXTRACTED_FUNCS
	/* Ours, but instrumented too: so that no access is charged to its neighbour. */
	{ "(entry)", (const void *)KC_ENTRY, KC_SOURCE },
	{ "(entry)", (const void *)kc_prune, KC_SOURCE },
	{ "(entry)", (const void *)kc_shrink_all, KC_SOURCE },
	{ "(entry)", (const void *)kc_dget_parent, KC_SOURCE },
#ifdef KC_HAVE_D_INVALIDATE
	{ "(entry)", (const void *)kc_d_invalidate, KC_SOURCE },
#endif
#ifdef KC_HAVE_D_DELETE
	{ "(entry)", (const void *)kc_d_delete, KC_SOURCE },
#endif
#ifdef KC_HAVE_D_GENOCIDE
	{ "(entry)", (const void *)kc_d_genocide, KC_SOURCE },
#endif
};
#undef KC_FUNC

static __attribute__((constructor)) void kc_register_funcs(void)
{
	kc_funcs_add(funcs, sizeof(funcs) / sizeof(funcs[0]));
}
#endif
