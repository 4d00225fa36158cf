// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One step of a trace on the executable spec and on the cache under test
 * (diff_valid(), diff_apply()), and the random trace generator
 * (diff_generate()).  The differential suite around them is diff.c; the
 * trace-file language is trace.c (docs/trace-format.md).
 */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/cache.h>
#include <dcsim/compiler.h>
#include <dcsim/strategy.h>

#include "diff.h"
#include "../base/rng.h"

const char *const diff_op_names[OP_TRACE_NR] = {
	NULL,	/* OP_END: not a step */
	"alloc", "add", "rehash", "lookup", "dget", "dget_parent", "dput", "drop",
	"delete", "invalidate", "set_op", "set_flags", "prune", "shrink_all", "create",
	"genocide",
};

/*
 * Relative frequencies of the random traces.  genocide is left out (weight
 * 0): it needs every positive, hashed dentry below its target pinned by the
 * trace, which a random trace seldom is; trace files use it
 * (tests/traces/genocide.trace), and a weight here would change the trace
 * of every seed.
 */
const unsigned int diff_default_weights[OP_TRACE_NR] = {
	[OP_ALLOC] = 14, [OP_ADD] = 12, [OP_REHASH] = 2, [OP_LOOKUP] = 16, [OP_DGET] = 6,
	[OP_DGET_PARENT] = 4, [OP_DPUT] = 24, [OP_DROP] = 3, [OP_DELETE] = 3,
	[OP_INVALIDATE] = 2, [OP_SET_OP] = 3, [OP_SET_FLAGS] = 2, [OP_PRUNE] = 6, [OP_SHRINK_ALL] = 1,
	[OP_CREATE] = 3,
};

/*
 * dput-heavy, for comparisons of put paths (the kernel-code differential
 * test): the same operations, more final puts (30 against 24).
 */
const unsigned int diff_dput_weights[OP_TRACE_NR] = {
	[OP_ALLOC] = 14, [OP_ADD] = 12, [OP_REHASH] = 2, [OP_LOOKUP] = 16, [OP_DGET] = 6,
	[OP_DGET_PARENT] = 4, [OP_DPUT] = 30, [OP_DROP] = 3, [OP_DELETE] = 3,
	[OP_INVALIDATE] = 2, [OP_SET_OP] = 3, [OP_SET_FLAGS] = 3, [OP_PRUNE] = 6, [OP_SHRINK_ALL] = 1,
	[OP_CREATE] = 3,
};

static const char *const names[] = {
	"a", "b", "c", "a-name-too-long-to-be-stored-inline-in-the-dentry",
};


static int depth(const struct spec *s, uint32_t id)
{
	int n = 0;

	while (s->d[id].parent != id) {
		id = s->d[id].parent;
		n++;
	}
	return n;
}

bool diff_valid(const struct run *r, const struct step *st)
{
	const struct spec *s = &r->spec;
	const struct spec_dentry *d = st->a <= SPEC_MAX ? &s->d[st->a] : NULL;
	bool held = d && st->a && st->a < s->next_id && r->held[st->a] > 0;

	switch (st->op) {
	case OP_ALLOC:
		return held && st->name && depth(s, st->a) < 3 && s->next_id < SPEC_MAX - 2;
	case OP_ADD:
	case OP_REHASH:
		return held && d->parent != st->a && !d->hashed &&
		       (st->op == OP_REHASH || !(d->flags & DCSIM_DCACHE_ENTRY_TYPE)) &&
		       !spec_has_hashed(s, d->parent, d->name);
	case OP_SET_OP:
		return held && !d->hashed;
	case OP_CREATE:
		/* a hashed negative child of a positive parent (its create lock) */
		return held && d->parent != st->a && d->hashed &&
		       !(d->flags & DCSIM_DCACHE_ENTRY_TYPE) &&
		       (s->d[d->parent].flags & DCSIM_DCACHE_ENTRY_TYPE);
	case OP_LOOKUP:
		return held && st->name;
	case OP_DGET:
	case OP_DGET_PARENT:
	case OP_DPUT:
	case OP_DROP:
	case OP_DELETE:
	case OP_INVALIDATE:
	case OP_SET_FLAGS:
		return held;
	case OP_PRUNE:
	case OP_SHRINK_ALL:
		return true;
	case OP_GENOCIDE: {
		/* each reference it drops is one the trace holds: the filesystem's pin */
		uint32_t v[SPEC_MAX];
		unsigned int n;

		if (!held)
			return false;
		n = spec_genocide_victims(s, st->a, v);
		for (unsigned int i = 0; i < n; i++)
			if (r->held[v[i]] < 1)
				return false;
		return true;
	}
	}
	return false;
}

bool diff_mismatch(struct run *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	return false;
}

bool diff_got_new(struct run *r, uint32_t id, struct dcsim_dentry *d)
{
	char p[128];

	if (!r->c)
		return true;
	diff_path(&r->spec, id, p, sizeof(p));
	if (!d)
		return diff_mismatch(r, "model: allocation of %s failed", p);
	if (dcsim_d_id(d) != id)
		return diff_mismatch(r, "model: new dentry %s has id %" PRIu64 "\nspec:  id %u",
				     p, dcsim_d_id(d), id);
	r->ptr[id] = d;
	return true;
}

void diff_id_path(struct run *r, uint64_t id, char *buf, size_t len)
{
	if (id == 0)
		snprintf(buf, len, "nothing");
	else if (id < r->spec.next_id)
		diff_path(&r->spec, (uint32_t)id, buf, len);
	else
		snprintf(buf, len, "dentry #%" PRIu64 " (unknown to the spec)", id);
}

/*
 * A step's @arg as the operation's argument (ops.h): the trace language
 * encodes set_op and set_flags as one bit each.
 */
static uint32_t step_n(const struct step *st)
{
	switch (st->op) {
	case OP_SET_OP:
		return st->arg & 1 ? SPEC_OP_NEVER : SPEC_OP_ALWAYS;
	case OP_SET_FLAGS:
		return st->arg & 1 ? DCSIM_DCACHE_DONTCACHE : DCSIM_DCACHE_DISCONNECTED;
	default:
		return st->arg;
	}
}

/*
 * The spec takes the step through the one dispatcher, spec_apply(); then
 * the cache (if any) does the same and must agree.  The two states are
 * apart, so the order does not matter.
 */
bool diff_apply(struct run *r, const struct step *st)
{
	struct spec *s = &r->spec;
	struct dcsim_dentry *d = r->c && st->a <= SPEC_MAX ? r->ptr[st->a] : NULL;
	uint32_t n = step_n(st);
	unsigned long got, kc;
	uint32_t id;

	if (st->op < OP_ALLOC || st->op >= OP_TRACE_NR)
		return diff_mismatch(r, "bad op %u", st->op);
	if (st->op == OP_DPUT)
		r->held[st->a]--;
	if (st->op == OP_GENOCIDE) {
		uint32_t v[SPEC_MAX];
		unsigned int nv = spec_genocide_victims(s, st->a, v);

		for (unsigned int i = 0; i < nv; i++)
			r->held[v[i]]--;	/* the pins: diff_valid() saw them held */
	}
	got = spec_apply(s, (enum spec_op)st->op, st->a, n, st->name);
	id = (uint32_t)got;
	switch (st->op) {
	case OP_ALLOC:
		r->held[id]++;
		return diff_got_new(r, id, r->c ? dcsim_d_alloc(d, st->name) : NULL);
	case OP_ADD:
		if (r->c)
			dcsim_d_add(d, n & 1);
		return true;
	case OP_CREATE:
		if (!r->c)
			return true;
		{
			struct dcsim_dentry *p = r->ptr[s->d[st->a].parent];
			int err;

			/* vfs_create(): under the parent's create lock (i_rwsem) */
			if (dcsim_inode_lock(p))
				return diff_mismatch(r, "model: the create lock of the parent refused");
			err = dcsim_d_instantiate(d);
			dcsim_inode_unlock(p);
			if (err)
				return diff_mismatch(r, "model: create (d_instantiate) refused: %d", err);
		}
		return true;
	case OP_REHASH:
		if (r->c)
			dcsim_d_rehash(d);
		return true;
	case OP_LOOKUP: {
		struct dcsim_dentry *got_d = r->c ? dcsim_d_lookup(d, st->name) : NULL;
		char x[128], y[128];

		if (id)
			r->held[id]++;
		if (!r->c)
			return true;
		if ((got_d ? dcsim_d_id(got_d) : 0) != id) {
			diff_id_path(r, got_d ? dcsim_d_id(got_d) : 0, x, sizeof(x));
			diff_id_path(r, id, y, sizeof(y));
			return diff_mismatch(r, "lookup returned:\nmodel: %s\nspec:  %s", x, y);
		}
		return true;
	}
	case OP_DGET:
		r->held[st->a]++;
		if (r->c)
			dcsim_dget(d);
		return true;
	case OP_DGET_PARENT: {
		struct dcsim_dentry *p = r->c ? dcsim_dget_parent(d) : NULL;
		char x[128], y[128];

		r->held[id]++;
		if (r->c && (!p || dcsim_d_id(p) != id)) {
			diff_id_path(r, p ? dcsim_d_id(p) : 0, x, sizeof(x));
			diff_id_path(r, id, y, sizeof(y));
			return diff_mismatch(r, "dget_parent returned:\nmodel: %s\nspec:  %s", x, y);
		}
		return true;
	}
	case OP_DPUT:
		if (r->c)
			dcsim_dput(d);
		return true;
	case OP_DROP:
		if (r->c)
			dcsim_d_drop(d);
		return true;
	case OP_DELETE:
		if (r->c)
			dcsim_d_delete(d);
		return true;
	case OP_INVALIDATE:
		if (r->c)
			dcsim_d_invalidate(d);
		return true;
	case OP_GENOCIDE:
		if (r->c)
			dcsim_d_genocide(d);
		return true;
	case OP_SET_OP:
		if (r->c)
			dcsim_d_set_op(d, spec_d_op((enum spec_op_kind)n));
		return true;
	case OP_SET_FLAGS:
		if (r->c)
			dcsim_d_set_flags(d, n);
		return true;
	case OP_PRUNE:
		if (!r->c)
			return true;
		kc = dcsim_prune(r->c, st->arg);
		if (got != kc)
			return diff_mismatch(r, "prune %u killed:\nmodel: %lu\nspec:  %lu", st->arg, kc, got);
		return true;
	case OP_SHRINK_ALL:
		if (!r->c)
			return true;
		kc = dcsim_shrink_all(r->c);
		if (got != kc)
			return diff_mismatch(r, "shrink_all killed:\nmodel: %lu\nspec:  %lu", kc, got);
		return true;
	}
	return diff_mismatch(r, "bad op %u", st->op);
}

/* ---- random traces ------------------------------------------------------- */

void diff_generate(struct trace *t, uint64_t seed, size_t steps, const unsigned int *weights)
{
	const unsigned int *top_weight = weights ? weights : diff_default_weights;
	uint64_t rng = seed;
	struct run *r = calloc(1, sizeof(*r));
	unsigned int total = 0;
	uint32_t root;

	memset(t, 0, sizeof(*t));
	t->seed = seed;
	t->s = calloc(steps, sizeof(*t->s));
	if (!r || !t->s) {
		free(r);
		return;
	}
	for (int i = 0; i < OP_TRACE_NR; i++)
		total += top_weight[i];
	if (!total) {
		free(r);
		return;
	}
	spec_init(&r->spec, DCSIM_RETAIN_LRU_THEN_REFERENCED);
	root = spec_alloc_root(&r->spec, "/");
	r->held[root] = 1;
	for (size_t tries = 0; t->n < steps && tries < steps * 50; tries++) {
		struct step st = { 0 };
		unsigned int x = (unsigned int)splitmix64_below(&rng, total), b;
		uint32_t cand[SPEC_MAX], nc = 0;

		while (x >= top_weight[st.op])
			x -= top_weight[st.op++];
		for (uint32_t i = 1; i < r->spec.next_id; i++)
			if (r->held[i] > 0)
				cand[nc++] = i;
		st.a = nc ? cand[splitmix64_below(&rng, nc)] : 0;
		b = (unsigned int)splitmix64_below(&rng, 64);
		st.name = names[b % DCSIM_ARRAY_SIZE(names)];
		st.arg = st.op == OP_PRUNE ? b % 8 + 1 : b & 1;
		/* Keep the root's own reference most of the time. */
		if (st.op == OP_DPUT && st.a == root && r->held[root] == 1 && splitmix64_below(&rng, 8))
			continue;
		if (!diff_valid(r, &st))
			continue;
		diff_apply(r, &st);
		t->s[t->n++] = st;
	}
	free(r);
}

/* The full path of spec dentry @id, for the runner's messages and the trace's lines. */
void diff_path(const struct spec *s, uint32_t id, char *buf, size_t len)
{
	const char *comp[8];
	int n = 0;
	size_t used = 0;

	if (!len)
		return;
	buf[0] = '\0';
	while (s->d[id].parent != id && n < 8) {
		comp[n++] = s->d[id].name;
		id = s->d[id].parent;
	}
	if (!n) {
		snprintf(buf, len, "/");
		return;
	}
	while (n-- > 0 && used + 1 < len) {
		int k = snprintf(buf + used, len - used, "/%s", comp[n]);

		if (k < 0)
			break;
		used += (size_t)k;
	}
}
