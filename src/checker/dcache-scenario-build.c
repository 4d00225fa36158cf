// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Building a scenario's tree on the controller thread, before any logical
 * thread runs: the dentries it makes (dscn_mk()), the lookups and the
 * "warm" state (unused, on the LRU, REFERENCED) that the scenario tables
 * of dcache-scenario-defs.c and dcache-scenario-rename.c start from.
 */

#include <inttypes.h>

#include <dcsim/cache.h>
#include <dcsim/dentry.h>
#include <dcsim/explore.h>

#include "scenario.h"

static int keep(const struct dcsim_dentry *d)
{
	(void)d;
	return 0;
}

static int discard(const struct dcsim_dentry *d)
{
	(void)d;
	return 1;
}

const struct dcsim_dentry_operations dscn_keep_ops = { .d_delete = keep };
const struct dcsim_dentry_operations dscn_discard_ops = { .d_delete = discard };

const struct dcsim_dentry_state *dscn_find(const struct dcsim_cache_snapshot *snap, uint64_t id)
{
	if (!id)
		return NULL;
	for (size_t i = 0; i < snap->nr; i++)
		if (snap->dentries[i].id == id)
			return &snap->dentries[i];
	return NULL;
}

struct dcsim_dentry *dscn_mk(struct dscn *s, struct dcsim_dentry *parent, const char *name,
			     const struct dcsim_dentry_operations *ops)
{
	struct dcsim_dentry *d = parent ? dcsim_d_alloc(parent, name) : NULL;

	if (!d || dcsim_d_id(d) > SPEC_MAX) {
		s->broken = true;
		return NULL;
	}
	if (ops) {
		dcsim_d_set_op(d, ops);
		s->op_kind[dcsim_d_id(d)] = ops == &dscn_keep_ops ? SPEC_OP_NEVER : SPEC_OP_ALWAYS;
	}
	dcsim_d_add(d, true);
	return d;
}

struct dcsim_dentry *dscn_lookup(struct dscn *s, struct dcsim_dentry *parent, const char *name)
{
	struct dcsim_dentry *d = parent ? dcsim_d_lookup(parent, name) : NULL;

	if (!d)
		s->broken = true;
	return d;
}

/*
 * Drop the reference, then look it up and drop it again: in every retain
 * style the dentry is then unused, on the LRU and REFERENCED, the state in
 * which the rtm and fast-htm transactions commit.
 */
void dscn_warm(struct dscn *s, struct dcsim_dentry *parent, struct dcsim_dentry *d,
	       const char *name)
{
	if (!d)
		return;
	dcsim_dput(d);
	dcsim_dput(dscn_lookup(s, parent, name));
}

/*
 * genocide-vs-put-prune: d as a ramfs-style directory whose filesystem pins
 * its positive, hashed dentries (one reference each, held by nobody's
 * slot: d_genocide() drops them).  In the walk's order (newest first):
 * g pinned and held by T1; u positive but unhashed (unlinked: no pin),
 * held by T1 alone; n negative (unlinked and put: no pin), unused on the
 * LRU; f pinned, warm before the pin (on the LRU, REFERENCED).
 */
void dscn_build_genocide(struct dscn *s)
{
	struct dcsim_dentry *f = dscn_mk(s, s->dir, "f", NULL);
	struct dcsim_dentry *n = dscn_mk(s, s->dir, "n", NULL);
	struct dcsim_dentry *u = dscn_mk(s, s->dir, "u", NULL);
	struct dcsim_dentry *g = dscn_mk(s, s->dir, "g", NULL);

	if (!f || !n || !u || !g)
		return;
	s->id_f = dcsim_d_id(f);
	s->id_g = dcsim_d_id(g);
	dscn_warm(s, s->dir, f, "f");
	(void)dscn_lookup(s, s->dir, "f");	/* f's pin */
	dcsim_d_delete(n);			/* count 1: negative, still hashed */
	dcsim_dput(n);
	dcsim_d_drop(u);
	s->slot[1][1] = u;
	s->slot[1][2] = dscn_lookup(s, s->dir, "g");
	(void)g;				/* the creator's reference: g's pin */
}

/* d/{f,g}, both warm.  Return: false if setup failed. */
bool dscn_warm_fg(struct dscn *s)
{
	struct dcsim_dentry *f = dscn_mk(s, s->dir, "f", NULL);
	struct dcsim_dentry *g = dscn_mk(s, s->dir, "g", NULL);

	if (!f || !g)
		return false;
	s->id_f = dcsim_d_id(f);
	s->id_g = dcsim_d_id(g);
	dscn_warm(s, s->dir, f, "f");
	dscn_warm(s, s->dir, g, "g");
	return true;
}
