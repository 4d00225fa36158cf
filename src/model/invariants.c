// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Canonical state snapshots and the invariants (dcsim_cache_verify()).  Both walk the
 * cache at quiescence: no other thread may be inside a cache operation.
 * They take the leaf locks (roots, LRU, buckets) but read dentries with
 * READ_ONCE only, so they are safe to call from a stopped explorer.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/report.h"
#include "dcache.h"

struct dvec {
	struct dcsim_dentry **v;
	size_t nr, cap;
};

static int dvec_push(struct dvec *dv, struct dcsim_dentry *d)
{
	if (dv->nr == dv->cap) {
		size_t cap = dv->cap ? dv->cap * 2 : 64;
		struct dcsim_dentry **v = realloc(dv->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		dv->v = v;
		dv->cap = cap;
	}
	dv->v[dv->nr++] = d;
	return 0;
}

/* Pre-order list of every dentry reachable from the roots. */
static int collect_tree(struct dcsim_cache *c, struct dvec *dv)
{
	size_t i;
	int err = 0;

	dcsim_spin_lock(&c->roots_lock);
	for (struct dcsim_hlist_node *n = READ_ONCE(c->roots); n && !err; n = READ_ONCE(n->next))
		err = dvec_push(dv, d_sib_entry(n));
	dcsim_spin_unlock(&c->roots_lock);
	for (i = 0; i < dv->nr && !err; i++) {
		struct dcsim_dentry *d = dv->v[i];

		for (struct dcsim_hlist_node *n = READ_ONCE(d->d_children); n && !err;
		     n = READ_ONCE(n->next))
			err = dvec_push(dv, d_sib_entry(n));
	}
	return err;
}

struct lru_pos {
	const struct dcsim_dentry *d;
	int32_t pos;
};

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct lru_pos *)a)->d;
	uintptr_t y = (uintptr_t)((const struct lru_pos *)b)->d;

	return x < y ? -1 : x > y;
}

/* The LRU in order, sorted by address for lookup. */
static struct lru_pos *collect_lru(struct dcsim_cache *c, size_t *nr)
{
	struct lru_pos *v = NULL;
	size_t n = 0, cap = 0;

	dcsim_spin_lock(&c->lru_lock);
	for (struct dcsim_list_head *p = READ_ONCE(c->lru.next); p != &c->lru; p = READ_ONCE(p->next)) {
		if (n == cap) {
			struct lru_pos *nv;

			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				dcsim_spin_unlock(&c->lru_lock);
				free(v);
				*nr = SIZE_MAX;
				return NULL;
			}
			v = nv;
		}
		v[n].d = d_lru_entry(p);
		v[n].pos = (int32_t)n;
		n++;
	}
	dcsim_spin_unlock(&c->lru_lock);
	if (n)
		qsort(v, n, sizeof(*v), cmp_ptr);
	*nr = n;
	return v;
}

static int32_t lru_pos_of(const struct lru_pos *v, size_t n, const struct dcsim_dentry *d)
{
	struct lru_pos key = { .d = d };
	const struct lru_pos *hit = n ? bsearch(&key, v, n, sizeof(*v), cmp_ptr) : NULL;

	return hit ? hit->pos : -1;
}

static void counters_read(struct dcsim_cache *c, struct dcsim_cache_counters *out)
{
	struct dcsim_cache_stats st;

	dcsim_cache_stats_read(c, &st);
	out->nr_dentry = st.v[DCSIM_CS_NR_DENTRY];
	out->nr_hashed = st.v[DCSIM_CS_NR_HASHED];
	out->nr_lru = st.v[DCSIM_CS_NR_LRU];
	out->allocs = st.v[DCSIM_CS_ALLOC];
	out->kills = st.v[DCSIM_CS_KILL];
	out->frees = st.v[DCSIM_CS_FREE];
}

static int cmp_state(const void *a, const void *b)
{
	uint64_t x = ((const struct dcsim_dentry_state *)a)->id;
	uint64_t y = ((const struct dcsim_dentry_state *)b)->id;

	return x < y ? -1 : x > y;
}

int dcsim_cache_snapshot(struct dcsim_cache *c, struct dcsim_cache_snapshot *snap)
{
	struct dvec dv = { 0 };
	struct lru_pos *lru;
	size_t nr_lru;

	memset(snap, 0, sizeof(*snap));
	if (WARN_ON_ONCE(!dcache_alive(c)))
		return -EINVAL;
	if (collect_tree(c, &dv)) {
		free(dv.v);
		return -ENOMEM;
	}
	lru = collect_lru(c, &nr_lru);
	if (nr_lru == SIZE_MAX) {
		free(dv.v);
		return -ENOMEM;
	}
	snap->dentries = calloc(dv.nr ? dv.nr : 1, sizeof(*snap->dentries));
	if (!snap->dentries) {
		free(dv.v);
		free(lru);
		return -ENOMEM;
	}
	snap->nr = dv.nr;
	for (size_t i = 0; i < dv.nr; i++) {
		struct dcsim_dentry *d = dv.v[i];
		struct dcsim_dentry_state *st = &snap->dentries[i];

		st->id = d->d_id;
		st->parent_id = READ_ONCE(d->d_parent)->d_id;
		st->count = d_cnt(d);
		st->flags = d_flags_read(d) & DCSIM_DCACHE_STATE_FLAGS;
		st->lru_pos = lru_pos_of(lru, nr_lru, d);
		st->hashed = !d_unhashed(d);
		st->dead = st->count < 0;
		snprintf(st->name, sizeof(st->name), "%s", d->d_name);
	}
	qsort(snap->dentries, snap->nr, sizeof(*snap->dentries), cmp_state);
	counters_read(c, &snap->counters);
	free(dv.v);
	free(lru);
	return 0;
}

void dcsim_cache_snapshot_release(struct dcsim_cache_snapshot *snap)
{
	if (!snap)
		return;
	free(snap->dentries);
	snap->dentries = NULL;
	snap->nr = 0;
}

void dcsim_dentry_state_format(const struct dcsim_dentry_state *st, char *buf, size_t len)
{
	snprintf(buf, len,
		 "#%" PRIu64 " '%s' parent #%" PRIu64 " count %" PRId32 " flags 0x%08" PRIx32
		 "%s%s%s%s%s%s %s lru %" PRId32 "%s",
		 st->id, st->name, st->parent_id, st->count, st->flags,
		 st->flags & DCSIM_DCACHE_REFERENCED ? " REF" : "",
		 st->flags & DCSIM_DCACHE_LRU_LIST ? " LRU" : "",
		 st->flags & DCSIM_DCACHE_SHRINK_LIST ? " SHRINK" : "",
		 st->flags & DCSIM_DCACHE_OP_DELETE ? " OPDEL" : "",
		 st->flags & (DCSIM_DCACHE_DISCONNECTED | DCSIM_DCACHE_DONTCACHE) ? " NOCACHE" : "",
		 (st->flags & DCSIM_DCACHE_ENTRY_TYPE) ? " pos" : " neg",
		 st->hashed ? "hashed" : "unhashed", st->lru_pos, st->dead ? " DEAD" : "");
}

static bool dentry_state_equal(const struct dcsim_dentry_state *p,
			       const struct dcsim_dentry_state *q)
{
	return p->parent_id == q->parent_id && p->count == q->count && p->flags == q->flags &&
	       p->lru_pos == q->lru_pos && p->hashed == q->hashed && p->dead == q->dead &&
	       !strcmp(p->name, q->name);
}

unsigned int dcsim_snapshot_diff_each(const struct dcsim_cache_snapshot *a,
				      const struct dcsim_cache_snapshot *b,
				      dcsim_snapshot_delta_fn fn, void *arg)
{
	unsigned int nr = 0;
	size_t i = 0, j = 0;

	/* Both are sorted by id: merge them. */
	while (i < a->nr || j < b->nr) {
		struct dcsim_snapshot_delta d = { 0 };
		const struct dcsim_dentry_state *p = i < a->nr ? &a->dentries[i] : NULL;
		const struct dcsim_dentry_state *q = j < b->nr ? &b->dentries[j] : NULL;

		if (p && (!q || p->id < q->id)) {
			d.a = p;
			i++;
		} else if (q && (!p || q->id < p->id)) {
			d.b = q;
			j++;
		} else {
			i++;
			j++;
			if (dentry_state_equal(p, q))
				continue;
			d.a = p;
			d.b = q;
		}
		nr++;
		if (fn)
			fn(&d, arg);
	}
#define CMP_COUNTER(f)								\
	do {									\
		if (a->counters.f != b->counters.f) {				\
			struct dcsim_snapshot_delta d = {			\
				.counter = #f, .va = a->counters.f,		\
				.vb = b->counters.f,				\
			};							\
			nr++;							\
			if (fn)							\
				fn(&d, arg);					\
		}								\
	} while (0)
	CMP_COUNTER(nr_dentry);
	CMP_COUNTER(nr_hashed);
	CMP_COUNTER(nr_lru);
	CMP_COUNTER(allocs);
	CMP_COUNTER(kills);
	CMP_COUNTER(frees);
#undef CMP_COUNTER
	return nr;
}

static void diff_report(const struct dcsim_snapshot_delta *d, void *arg)
{
	struct report *r = arg;
	char x[256], y[256];

	if (d->counter) {
		report(r, "counter %s: %" PRId64 " vs %" PRId64, d->counter, d->va, d->vb);
		return;
	}
	if (d->a)
		dcsim_dentry_state_format(d->a, x, sizeof(x));
	if (d->b)
		dcsim_dentry_state_format(d->b, y, sizeof(y));
	if (!d->b)
		report(r, "only in first:  %s", x);
	else if (!d->a)
		report(r, "only in second: %s", y);
	else
		report(r, "differs:\n  first:  %s\n  second: %s", x, y);
}

unsigned int dcsim_snapshot_diff(const struct dcsim_cache_snapshot *a,
				 const struct dcsim_cache_snapshot *b, char *buf, size_t len)
{
	struct report r = { .buf = buf, .len = len };

	if (len)
		buf[0] = '\0';
	dcsim_snapshot_diff_each(a, b, diff_report, &r);
	return r.nr;
}

static int32_t held_refs(const struct dcsim_held_ref *held, size_t nr, const struct dcsim_dentry *d)
{
	int32_t refs = 0;

	for (size_t i = 0; i < nr; i++)
		if (held[i].dentry == d)
			refs += held[i].refs;
	return refs;
}

unsigned int dcsim_cache_verify(struct dcsim_cache *c, const struct dcsim_held_ref *held,
			       size_t nr_held, unsigned int flags, char *buf, size_t len)
{
	struct report r = { .buf = buf, .len = len };
	struct dcsim_cache_counters k;
	struct dvec dv = { 0 };
	struct lru_pos *lru = NULL;
	size_t nr_lru = 0, nr_lru_flag = 0, nr_hashed = 0, nr_in_hash = 0, nr_negative = 0;
	struct dcsim_cache_stats st;

	if (len)
		buf[0] = '\0';
	if (!dcache_alive(c)) {
		report(&r, "cache %p is not alive (destroyed or never created)", (void *)c);
		return r.nr;
	}
	if (collect_tree(c, &dv)) {
		report(&r, "out of memory while walking the tree");
		goto out;
	}
	lru = collect_lru(c, &nr_lru);
	if (nr_lru == SIZE_MAX) {
		report(&r, "out of memory while walking the LRU");
		nr_lru = 0;
		goto out;
	}
	for (size_t i = 0; i < dv.nr; i++) {
		struct dcsim_dentry *d = dv.v[i], *p = READ_ONCE(d->d_parent);
		uint32_t f = d_flags_read(d);
		int32_t cnt = d_cnt(d), children = 0, refs = held_refs(held, nr_held, d);
		bool hashed = !d_unhashed(d), on_lru = lru_pos_of(lru, nr_lru, d) >= 0;

		for (struct dcsim_hlist_node *n = READ_ONCE(d->d_children); n; n = READ_ONCE(n->next)) {
			children++;
			if (READ_ONCE(d_sib_entry(n)->d_parent) != d)
				report(&r, "#%" PRIu64 " '%s' lists child #%" PRIu64
				       " whose parent is #%" PRIu64, d->d_id, d->d_name,
				       d_sib_entry(n)->d_id, READ_ONCE(d_sib_entry(n)->d_parent)->d_id);
		}
		if (d->d_cache != c)
			report(&r, "#%" PRIu64 " belongs to another cache", d->d_id);
		if (f & DCSIM_DCACHE_FREED)
			report(&r, "#%" PRIu64 " '%s' freed but reachable", d->d_id, d->d_name);
		if (cnt < 0 || (f & DCSIM_DCACHE_DENTRY_KILLED)) {
			report(&r, "#%" PRIu64 " '%s' killed (count %" PRId32 ") but reachable",
			       d->d_id, d->d_name, cnt);
			continue;
		}
		if (dcsim_spin_is_locked(&d->d_lockref.lock))
			report(&r, "#%" PRIu64 " '%s' d_lock held at quiescence", d->d_id, d->d_name);
		{
			struct dcsim_inode *inode = READ_ONCE(d->d_inode);

			if (!!inode != !!(f & DCSIM_DCACHE_ENTRY_TYPE))
				report(&r, "#%" PRIu64 " '%s' %s", d->d_id, d->d_name,
				       inode ? "negative with an inode" : "positive without an inode");
			else if (inode && (dcsim_spin_is_locked(&inode->i_lock) ||
					   !READ_ONCE(inode->i_count)))
				report(&r, "#%" PRIu64 " '%s' inode %s", d->d_id, d->d_name,
				       READ_ONCE(inode->i_count) ? "i_lock held at quiescence" :
								   "with no aliases");
		}
		if ((flags & DCSIM_VERIFY_REFS_EXACT) ? cnt != children + refs : cnt < children + refs)
			report(&r, "#%" PRIu64 " '%s' count %" PRId32 " but %" PRId32
			       " children and %" PRId32 " held references%s", d->d_id, d->d_name,
			       cnt, children, refs,
			       (flags & DCSIM_VERIFY_REFS_EXACT) ? "" : " (at least)");
		if (p != d && READ_ONCE(p->d_children) == NULL)
			report(&r, "#%" PRIu64 " parent #%" PRIu64 " has no children", d->d_id, p->d_id);
		if (cnt == 0 && !hashed)
			report(&r, "#%" PRIu64 " '%s' unused and unhashed but not killed",
			       d->d_id, d->d_name);
		if (cnt == 0 && !on_lru)
			report(&r, "#%" PRIu64 " '%s' unused but not on the LRU", d->d_id, d->d_name);
		if (!!(f & DCSIM_DCACHE_LRU_LIST) != on_lru)
			report(&r, "#%" PRIu64 " '%s' DCACHE_LRU_LIST %s but %s the LRU", d->d_id,
			       d->d_name, (f & DCSIM_DCACHE_LRU_LIST) ? "set" : "clear",
			       on_lru ? "on" : "not on");
		if (f & DCSIM_DCACHE_SHRINK_LIST)
			report(&r, "#%" PRIu64 " '%s' on a shrink list at quiescence",
			       d->d_id, d->d_name);
		if (f & DCSIM_DCACHE_LRU_LIST)
			nr_lru_flag++;
		if (on_lru && (f & DCSIM_DCACHE_ENTRY_TYPE) == DCSIM_DCACHE_MISS_TYPE)
			nr_negative++;
		if (hashed)
			nr_hashed++;
	}
	if (nr_lru != nr_lru_flag)
		report(&r, "LRU holds %zu entries, %zu reachable dentries have DCACHE_LRU_LIST",
		       nr_lru, nr_lru_flag);
	for (size_t b = 0; b <= c->hash_mask; b++) {
		struct dcache_bucket *hb = &c->hash[b];
		/*
		 * Every bucket is looked at, most of them empty: at quiescence
		 * nobody holds a bucket lock or changes a chain, so its lock
		 * word and head are read without taking the lock and without
		 * a schedule point.  A held lock is reported, not waited for.
		 */
		dcsim_spinlock_t lv = { .val = DCSIM_READ_QUIESCENT(hb->lock.val) };

		if (!dcsim_spin_value_unlocked(lv))
			report(&r, "hash bucket %zu locked at quiescence", b);
		if (!DCSIM_READ_QUIESCENT(hb->first))
			continue;
		for (struct dcsim_dentry *d = READ_ONCE(hb->first); d;
		     d = READ_ONCE(d->d_hash.next)) {
			nr_in_hash++;
			if (d_unhashed(d) || d_cnt(d) < 0)
				report(&r, "#%" PRIu64 " in hash bucket %zu but %s", d->d_id, b,
				       d_cnt(d) < 0 ? "dead" : "unhashed");
		}
	}
	if (nr_in_hash != nr_hashed)
		report(&r, "hash table holds %zu entries, %zu reachable dentries are hashed",
		       nr_in_hash, nr_hashed);
	counters_read(c, &k);
	if (k.nr_dentry != (int64_t)dv.nr)
		report(&r, "nr_dentry %" PRId64 " but %zu reachable", k.nr_dentry, dv.nr);
	if (k.nr_hashed != (int64_t)nr_hashed)
		report(&r, "nr_hashed %" PRId64 " but %zu hashed", k.nr_hashed, nr_hashed);
	if (k.nr_lru != (int64_t)nr_lru)
		report(&r, "nr_lru %" PRId64 " but %zu on the LRU", k.nr_lru, nr_lru);
	dcsim_cache_stats_read(c, &st);
	if (st.v[DCSIM_CS_NR_NEGATIVE] != (int64_t)nr_negative)
		report(&r, "nr_negative %" PRId64 " but %zu negative dentries on the LRU",
		       st.v[DCSIM_CS_NR_NEGATIVE], nr_negative);
	if (k.kills != k.frees)
		report(&r, "%" PRId64 " kills but %" PRId64 " frees", k.kills, k.frees);
	if (k.allocs - k.frees != (int64_t)dv.nr)
		report(&r, "%" PRId64 " allocs - %" PRId64 " frees != %zu reachable",
		       k.allocs, k.frees, dv.nr);
out:
	free(dv.v);
	free(lru);
	return r.nr;
}
