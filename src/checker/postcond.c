// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Post-conditions of d_invalidate() and shrink_all() (postcond.h): the
 * state at the call, the dentries other threads referenced meanwhile, and
 * the check at the return.  Public calls only: the cache is read through
 * dcsim_cache_snapshot(), dcsim_cache_verify() and the dentry accessors.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/report.h"
#include "postcond.h"

const char *postcond_call_name(enum postcond_call call)
{
	return call == POSTCOND_INVALIDATE ? "d_invalidate()" : "shrink_all()";
}

static int cmp_id(const void *key, const void *elt)
{
	uint64_t x = *(const uint64_t *)key;
	uint64_t y = ((const struct dcsim_dentry_state *)elt)->id;

	return x < y ? -1 : x > y;
}

/* The dentry of @snap (sorted by id) with id @id, or NULL. */
static const struct dcsim_dentry_state *find(const struct dcsim_cache_snapshot *snap, uint64_t id)
{
	return snap->nr ? bsearch(&id, snap->dentries, snap->nr, sizeof(*snap->dentries), cmp_id)
			: NULL;
}

void postcond_skip(struct postcond *pc, const char *why)
{
	if (!pc->off)
		pc->off = why;
}

void postcond_begin(struct postcond *pc, enum postcond_call call, struct dcsim_dentry *target)
{
	memset(pc, 0, sizeof(*pc));
	pc->call = call;
	if (call != POSTCOND_INVALIDATE)
		return;
	if (!target) {
		pc->off = "no target";
		return;
	}
	pc->target = dcsim_d_id(target);
	/* d_invalidate() of an unhashed or negative dentry does no shrinking. */
	if (dcsim_d_unhashed(target) || dcsim_d_is_negative(target))
		pc->off = "the target was unhashed or negative at the call";
}

static void excuse_id(struct postcond *pc, uint64_t id)
{
	for (size_t i = 0; i < pc->nr_excused; i++)
		if (pc->excused[i] == id)
			return;
	if (pc->nr_excused == pc->cap_excused) {
		size_t cap = pc->cap_excused ? pc->cap_excused * 2 : 16;
		uint64_t *v = realloc(pc->excused, cap * sizeof(*v));

		if (!v) {
			postcond_skip(pc, "out of memory");
			return;
		}
		pc->excused = v;
		pc->cap_excused = cap;
	}
	pc->excused[pc->nr_excused++] = id;
}

void postcond_excuse(struct postcond *pc, const struct dcsim_dentry *d)
{
	/* The chain of a pinned dentry stays (no rename): read it now, while it is there. */
	for (unsigned int depth = 0; d && depth < 64; depth++) {
		excuse_id(pc, dcsim_d_id(d));
		if (dcsim_d_is_root(d))
			break;
		d = dcsim_d_parent(d);
	}
}

static bool excused(const struct postcond *pc, uint64_t id)
{
	for (size_t i = 0; i < pc->nr_excused; i++)
		if (pc->excused[i] == id)
			return true;
	return false;
}

/* Whether @st is strictly below the dentry with id @top in @snap. */
static bool below(const struct dcsim_cache_snapshot *snap, const struct dcsim_dentry_state *st,
		  uint64_t top)
{
	for (unsigned int depth = 0; st && st->parent_id != st->id && depth < 64; depth++) {
		if (st->parent_id == top)
			return true;
		st = find(snap, st->parent_id);
	}
	return false;
}

unsigned int postcond_check(struct postcond *pc, struct dcsim_cache *c,
			    const struct dcsim_held_ref *held, size_t nr_held, char *buf, size_t len)
{
	struct report r = { .buf = buf, .len = len };
	struct dcsim_cache_snapshot after;
	const char *call = postcond_call_name(pc->call);
	unsigned int n;

	if (len)
		buf[0] = '\0';
	if (pc->off)
		return 0;
	/* Every counter exact, every reference accounted for. */
	n = dcsim_cache_verify(c, held, nr_held, DCSIM_VERIFY_REFS_EXACT, buf, len);
	if (n) {
		r.nr = n;
		r.used = strlen(buf);
	}
	if (dcsim_cache_snapshot(c, &after)) {
		report(&r, "snapshot failed after %s", call);
		return r.nr;
	}
	if (pc->call == POSTCOND_INVALIDATE) {
		const struct dcsim_dentry_state *t = find(&after, pc->target);

		if (t && t->hashed)
			report(&r, "#%" PRIu64 " '%s' still hashed after %s of it", t->id, t->name,
			       call);
	}
	for (size_t i = 0; i < after.nr; i++) {
		const struct dcsim_dentry_state *st = &after.dentries[i];
		char line[256];

		if (st->dead || (st->count && st->lru_pos < 0))
			continue;
		if (pc->call == POSTCOND_INVALIDATE && !below(&after, st, pc->target))
			continue;
		if (excused(pc, st->id))
			continue;
		dcsim_dentry_state_format(st, line, sizeof(line));
		if (pc->call == POSTCOND_INVALIDATE)
			report(&r, "%s below #%" PRIu64 " after %s returned: %s",
			       st->count ? "on the LRU" : "unused", pc->target, call, line);
		else
			report(&r, "%s after %s returned: %s",
			       st->count ? "on the LRU" : "unused", call, line);
	}
	dcsim_cache_snapshot_release(&after);
	return r.nr;
}

void postcond_release(struct postcond *pc)
{
	free(pc->excused);
	pc->excused = NULL;
	pc->nr_excused = pc->cap_excused = 0;
}
