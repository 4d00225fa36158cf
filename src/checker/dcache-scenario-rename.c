// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The rename scenarios' trees (src/model/rename.c: dcsim_d_move(), which
 * models fs/dcache.c:d_move()): what each thread holds when a rename runs
 * against a put, a prune, dget_parent() or d_invalidate().  Their entries
 * in the table, with the threads' programs and why, are in
 * dcache-scenario-defs.c.
 */

#include <dcsim/cache.h>
#include <dcsim/dentry.h>

#include "scenario.h"

/*
 * The rename scenarios: d/{f,g} and the directory e (a sibling of d), f
 * and g warm; f DONTCACHE, so that every serial order ends with f killed
 * (its last put kills it, wherever it lives then).  T1 holds e.
 */
void dscn_build_rename(struct dscn *s)
{
	struct dcsim_dentry *e = dscn_mk(s, s->root, "e", NULL);

	if (!e || !dscn_warm_fg(s))
		return;
	s->slot[1][2] = e;
}

/* As dscn_build_rename(); T0 holds f, T2 holds g. */
void dscn_build_rename_vs_put(struct dscn *s)
{
	dscn_build_rename(s);
	if (s->broken)
		return;
	s->slot[0][1] = dscn_lookup(s, s->dir, "f");
	s->slot[2][1] = dscn_lookup(s, s->dir, "g");
	if (s->slot[0][1])
		dcsim_d_set_flags(s->slot[0][1], DCSIM_DCACHE_DONTCACHE);
}

/*
 * d/{f,g} and the directory e; f and g unused on the LRU, not REFERENCED,
 * f DONTCACHE.  T1 holds e, T2 holds g.
 */
void dscn_build_rename_vs_prune(struct dscn *s)
{
	struct dcsim_dentry *e = dscn_mk(s, s->root, "e", NULL);
	struct dcsim_dentry *f = dscn_mk(s, s->dir, "f", NULL);
	struct dcsim_dentry *g = dscn_mk(s, s->dir, "g", NULL);

	if (!e || !f || !g)
		return;
	s->id_f = dcsim_d_id(f);
	s->id_g = dcsim_d_id(g);
	dscn_warm(s, s->dir, f, "f");
	dscn_warm(s, s->dir, g, "g");
	dcsim_prune(s->cache, 2);	/* neither REFERENCED now */
	/* f is unused and cached: the pointer is good until the threads run */
	dcsim_d_set_flags(f, DCSIM_DCACHE_DONTCACHE);
	s->slot[1][2] = e;
	s->slot[2][1] = dscn_lookup(s, s->dir, "g");
}

/* As dscn_build_rename(); T0, T1 and T2 hold f, T2 holds e too. */
void dscn_build_rename_vs_dget_parent(struct dscn *s)
{
	dscn_build_rename(s);
	if (s->broken)
		return;
	s->slot[0][1] = dscn_lookup(s, s->dir, "f");
	s->slot[1][1] = dscn_lookup(s, s->dir, "f");
	s->slot[2][1] = dscn_lookup(s, s->dir, "f");
	s->slot[2][2] = dcsim_dget(s->slot[1][2]);	/* e, the directory it moves f out of */
}

/*
 * d/p/{f,g}, with f a directory: f/x/{y1,y2,y3}; and the directory e
 * holding z.  All warm (REFERENCED: a final put that races a prune sets
 * it after the count reached 0, which no serial order shows).  T0 holds
 * p and x, T1 holds f, e and p.  x is held so that the walk's shrink
 * never kills it and so never makes f unused behind the rename: a
 * shrink kills ancestors whose count it takes to 0 (shrink_dentry_list()),
 * and f, moved to e and put by T1 meanwhile, would go with them, an end
 * no serial order has.  The walk of p descends into f and x, and holds
 * only x's d_lock while it visits x's children: a rename of f can run
 * then, and the walk must notice it when it climbs back, or it climbs
 * from f into e and collects z, which is not below p in any serial order
 * (d_walk()'s need_seqretry() after each ascent; the rename's
 * rename_lock write is what it sees).
 */
void dscn_build_rename_vs_invalidate(struct dscn *s)
{
	static const char *const ys[] = { "y1", "y2", "y3" };
	struct dcsim_dentry *e = dscn_mk(s, s->root, "e", NULL);
	struct dcsim_dentry *z = e ? dscn_mk(s, e, "z", NULL) : NULL;
	struct dcsim_dentry *p = dscn_mk(s, s->dir, "p", NULL);
	struct dcsim_dentry *f = p ? dscn_mk(s, p, "f", NULL) : NULL;
	struct dcsim_dentry *g = p ? dscn_mk(s, p, "g", NULL) : NULL;
	struct dcsim_dentry *x = f ? dscn_mk(s, f, "x", NULL) : NULL;

	if (!z || !f || !g || !x)
		return;
	for (unsigned int i = 0; i < sizeof(ys) / sizeof(ys[0]); i++)
		dscn_warm(s, x, dscn_mk(s, x, ys[i], NULL), ys[i]);
	dscn_warm(s, f, x, "x");
	dscn_warm(s, e, z, "z");
	dscn_warm(s, p, f, "f");
	dscn_warm(s, p, g, "g");
	s->slot[0][1] = p;
	s->slot[0][2] = dscn_lookup(s, f, "x");
	s->slot[1][1] = dscn_lookup(s, p, "f");
	s->slot[1][2] = e;
	s->slot[1][3] = dcsim_dget(p);	/* a rename's caller holds the old directory */
}
