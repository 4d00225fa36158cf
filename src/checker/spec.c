// SPDX-License-Identifier: LGPL-2.1-or-later
/* The executable specification; see spec.h.  Kernel references in comments. */

#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "spec.h"

#define REF	DCSIM_DCACHE_REFERENCED
#define LRU	DCSIM_DCACHE_LRU_LIST
#define SHRINK	DCSIM_DCACHE_SHRINK_LIST

void spec_init(struct spec *s, enum dcsim_retain_style style)
{
	memset(s, 0, sizeof(*s));
	s->style = style;
	s->next_id = 1;
}

void spec_init_for(struct spec *s, const struct dcsim_dput_strategy *st)
{
	spec_init(s, st->retain_style);
	s->busy_stays_on_lru = !!(st->flags & DCSIM_STRATEGY_LOCK_FOR_KILL);
}

static uint32_t new_dentry(struct spec *s, uint32_t parent, const char *name)
{
	uint32_t id = s->next_id++;
	struct spec_dentry *d = &s->d[id];

	if (id > SPEC_MAX)
		abort();
	/* A fresh entry: the caller may reuse a spec whose tail held others. */
	memset(d, 0, sizeof(*d));
	d->exists = true;
	d->parent = parent ? parent : id;
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->count = 1;
	s->allocs++;
	return id;
}

uint32_t spec_alloc_root(struct spec *s, const char *name)
{
	uint32_t id = new_dentry(s, 0, name);

	s->d[id].flags = DCSIM_DCACHE_DIRECTORY_TYPE;
	return id;
}

uint32_t spec_alloc(struct spec *s, uint32_t parent, const char *name)
{
	s->d[parent].count++;
	return new_dentry(s, parent, name);
}

static int op_always(const struct dcsim_dentry *d)
{
	(void)d;
	return 1;
}

static int op_never(const struct dcsim_dentry *d)
{
	(void)d;
	return 0;
}

const struct dcsim_dentry_operations *spec_d_op(enum spec_op_kind op)
{
	static const struct dcsim_dentry_operations always = { .d_delete = op_always };
	static const struct dcsim_dentry_operations never = { .d_delete = op_never };

	return op == SPEC_OP_NEVER ? &never : &always;
}

void spec_set_op(struct spec *s, uint32_t id, enum spec_op_kind op)
{
	s->d[id].op = op;
	if (op == SPEC_OP_NONE)
		s->d[id].flags &= ~DCSIM_DCACHE_OP_DELETE;
	else
		s->d[id].flags |= DCSIM_DCACHE_OP_DELETE;
}

void spec_set_flags(struct spec *s, uint32_t id, uint32_t flags)
{
	s->d[id].flags |= flags;
}

void spec_add(struct spec *s, uint32_t id, bool positive)
{
	if (positive)
		s->d[id].flags |= DCSIM_DCACHE_REGULAR_TYPE;
	s->d[id].hashed = true;
}

void spec_rehash(struct spec *s, uint32_t id)
{
	s->d[id].hashed = true;
}

/*
 * vfs_create() over a negative name: the same dentry, now positive; its
 * count, hash and LRU state are untouched.
 */
void spec_create(struct spec *s, uint32_t id)
{
	s->d[id].flags |= DCSIM_DCACHE_REGULAR_TYPE;
}

bool spec_has_hashed(const struct spec *s, uint32_t parent, const char *name)
{
	for (uint32_t i = 1; i < s->next_id; i++)
		if (s->d[i].exists && s->d[i].hashed && s->d[i].parent == parent && i != parent &&
		    !strcmp(s->d[i].name, name))
			return true;
	return false;
}

uint32_t spec_lookup(struct spec *s, uint32_t parent, const char *name)
{
	for (uint32_t i = 1; i < s->next_id; i++) {
		if (s->d[i].exists && s->d[i].hashed && s->d[i].parent == parent && i != parent &&
		    !strcmp(s->d[i].name, name)) {
			s->d[i].count++;
			return i;
		}
	}
	return 0;
}

void spec_dget(struct spec *s, uint32_t id)
{
	s->d[id].count++;
}

uint32_t spec_dget_parent(struct spec *s, uint32_t id)
{
	uint32_t p = s->d[id].parent;

	s->d[p].count++;
	return p;
}

static void lru_remove(struct spec *s, uint32_t id)
{
	for (uint32_t i = 0; i < s->nlru; i++) {
		if (s->lru[i] == id) {
			memmove(&s->lru[i], &s->lru[i + 1], (s->nlru - i - 1) * sizeof(s->lru[0]));
			s->nlru--;
			return;
		}
	}
	abort();	/* the spec itself is broken */
}

static void lru_add(struct spec *s, uint32_t id)
{
	s->lru[s->nlru++] = id;
	s->d[id].flags |= LRU;
}

/* The dentry dies: off every list, unhashed, unlisted, freed. */
static void kill(struct spec *s, uint32_t id)
{
	struct spec_dentry *d = &s->d[id];

	if ((d->flags & (LRU | SHRINK)) == LRU)
		lru_remove(s, id);
	d->exists = false;
	d->hashed = false;
	s->kills++;
	s->frees++;
}

/* retain_dentry(): count is 1; true if kept (count now 0). */
static bool retain(struct spec *s, uint32_t id)
{
	struct spec_dentry *d = &s->d[id];

	if (!d->hashed || (d->flags & DCSIM_DCACHE_DISCONNECTED))
		return false;
	if (d->op == SPEC_OP_ALWAYS)
		return false;
	if (d->flags & DCSIM_DCACHE_DONTCACHE)
		return false;
	d->count = 0;
	if (!(d->flags & LRU)) {
		lru_add(s, id);
		if (s->style == DCSIM_RETAIN_ALWAYS_REFERENCED)
			d->flags |= REF;
	} else {
		d->flags |= REF;
	}
	return true;
}

/* dput(): drop one reference; a kill puts the parent's reference too. */
void spec_dput(struct spec *s, uint32_t id)
{
	for (;;) {
		struct spec_dentry *d = &s->d[id];
		uint32_t parent = d->parent;

		if (d->count > 1) {
			d->count--;
			return;
		}
		if (retain(s, id))
			return;
		kill(s, id);
		if (parent == id)
			return;
		id = parent;
	}
}

/*
 * dcsim_path_walk(): its ref-walk, whose answer RCU-walk must give (a walk
 * that RCU-walk completes leaves what ref-walk leaves: the dputs of the
 * directories behind are not final, their child holds them).  Negative
 * components end it with ENOENT, after the lookup's reference is dropped.
 */
uint32_t spec_walk(struct spec *s, uint32_t start, const char *const *names, unsigned int nr)
{
	uint32_t d = start, next;

	spec_dget(s, d);
	for (unsigned int i = 0; i < nr; i++) {
		next = spec_lookup(s, d, names[i]);
		if (next && !(s->d[next].flags & DCSIM_DCACHE_ENTRY_TYPE)) {
			spec_dput(s, next);
			next = 0;
		}
		spec_dput(s, d);
		if (!next)
			return 0;
		d = next;
	}
	return d;
}

void spec_drop(struct spec *s, uint32_t id)
{
	s->d[id].hashed = false;
}

/* d_move(): the child's reference on its parent moves with it. */
void spec_rename(struct spec *s, uint32_t id, uint32_t parent)
{
	s->d[s->d[id].parent].count--;
	s->d[parent].count++;
	s->d[id].parent = parent;
}

/* d_delete(): the only user makes it negative; otherwise unhash. */
void spec_delete(struct spec *s, uint32_t id)
{
	if (s->d[id].count == 1)
		s->d[id].flags &= ~DCSIM_DCACHE_ENTRY_TYPE;
	else
		s->d[id].hashed = false;
}

/* FIFO of dentries on a private shrink list. */
struct queue {
	uint32_t v[SPEC_MAX * 2];
	uint32_t head, tail;
};

static void q_push(struct queue *q, uint32_t id)
{
	q->v[q->tail++] = id;
}

/* shrink_dentry_list(): oldest first; parents that reach 0 join the queue. */
static unsigned long shrink_list(struct spec *s, struct queue *q)
{
	unsigned long killed = 0;

	while (q->head < q->tail) {
		uint32_t id = q->v[q->head++];
		struct spec_dentry *d = &s->d[id];
		uint32_t p = d->parent;

		d->flags &= ~(SHRINK | LRU);
		if (d->count != 0)
			continue;	/* grabbed meanwhile: just leaves the list */
		if (p != id) {
			struct spec_dentry *pd = &s->d[p];

			if (pd->flags & SHRINK) {
				pd->count--;
			} else {
				if ((pd->flags & LRU) &&
				    !(s->busy_stays_on_lru && pd->count > 1)) {
					lru_remove(s, p);
					pd->flags &= ~LRU;
				}
				if (--pd->count == 0) {
					pd->flags |= SHRINK | LRU;
					q_push(q, p);
				}
			}
		}
		kill(s, id);
		killed++;
	}
	return killed;
}

/* prune_dcache_sb(): see dcsim_prune() for the walk's exact shape. */
unsigned long spec_prune(struct spec *s, unsigned long nr)
{
	struct queue *q = calloc(1, sizeof(*q));
	unsigned long killed;
	uint32_t i = 0;

	while (nr && i < s->nlru) {
		uint32_t id = s->lru[i];
		struct spec_dentry *d = &s->d[id];

		nr--;
		if (d->count != 0) {
			lru_remove(s, id);
			d->flags &= ~LRU;
		} else if (d->flags & REF) {
			d->flags &= ~REF;
			if (i == s->nlru - 1)
				break;		/* rotated the last one: the walk ends */
			memmove(&s->lru[i], &s->lru[i + 1], (s->nlru - i - 1) * sizeof(s->lru[0]));
			s->lru[s->nlru - 1] = id;
		} else {
			lru_remove(s, id);
			d->flags |= SHRINK;
			q_push(q, id);
		}
	}
	killed = shrink_list(s, q);
	free(q);
	return killed;
}

unsigned long spec_shrink_all(struct spec *s)
{
	unsigned long killed = 0;

	while (s->nlru) {
		struct queue *q = calloc(1, sizeof(*q));

		while (s->nlru) {
			uint32_t id = s->lru[0];

			lru_remove(s, id);
			s->d[id].flags |= SHRINK;
			q_push(q, id);
		}
		killed += shrink_list(s, q);
		free(q);
	}
	return killed;
}

/* select_collect() over a pre-order walk, children newest first. */
static void collect(struct spec *s, uint32_t dir, struct queue *q, unsigned long *found)
{
	for (uint32_t i = s->next_id - 1; i > dir; i--) {
		struct spec_dentry *d = &s->d[i];

		if (!d->exists || d->parent != dir || i == dir)
			continue;
		if ((d->flags & LRU) && !(s->busy_stays_on_lru && d->count)) {
			lru_remove(s, i);
			d->flags &= ~LRU;
		}
		if (d->count == 0) {
			d->flags |= SHRINK | LRU;
			q_push(q, i);
			(*found)++;
		}
		collect(s, i, q, found);
	}
}

/* shrink_dcache_parent(@id): until no unused descendant is left. */
static void shrink_parent(struct spec *s, uint32_t id)
{
	for (;;) {
		struct queue *q = calloc(1, sizeof(*q));
		unsigned long found = 0;

		collect(s, id, q, &found);
		if (q->tail) {
			shrink_list(s, q);
			free(q);
			continue;
		}
		free(q);
		if (!found)
			break;
	}
}

void spec_invalidate(struct spec *s, uint32_t id)
{
	if (!s->d[id].hashed)
		return;
	s->d[id].hashed = false;
	if ((s->d[id].flags & DCSIM_DCACHE_ENTRY_TYPE) == 0)
		return;
	shrink_parent(s, id);
}

/* d_genocide_kill() over d_walk()'s pre-order walk, children newest first. */
static void genocide_walk(const struct spec *s, uint32_t dir, uint32_t *out, unsigned int *n)
{
	for (uint32_t i = s->next_id - 1; i > dir; i--) {
		const struct spec_dentry *d = &s->d[i];

		if (!d->exists || d->parent != dir)
			continue;
		/* D_WALK_SKIP: no pin on it, nor on what lies below */
		if (!d->hashed || !(d->flags & DCSIM_DCACHE_ENTRY_TYPE))
			continue;
		if (!(d->flags & DCSIM_DCACHE_GENOCIDE))
			out[(*n)++] = i;
		genocide_walk(s, i, out, n);
	}
}

unsigned int spec_genocide_victims(const struct spec *s, uint32_t id, uint32_t *out)
{
	unsigned int n = 0;

	genocide_walk(s, id, out, &n);
	return n;
}

unsigned long spec_genocide(struct spec *s, uint32_t id)
{
	uint32_t v[SPEC_MAX];
	unsigned int n = spec_genocide_victims(s, id, v);

	for (unsigned int i = 0; i < n; i++) {
		s->d[v[i]].flags |= DCSIM_DCACHE_GENOCIDE;
		s->d[v[i]].count--;
	}
	shrink_parent(s, id);
	return n;
}

int spec_snapshot(const struct spec *s, struct dcsim_cache_snapshot *out)
{
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	/* At most one per id given so far: the explorer takes several per execution. */
	out->dentries = calloc(s->next_id ? s->next_id : 1, sizeof(*out->dentries));
	if (!out->dentries)
		return -1;
	for (uint32_t i = 1; i < s->next_id; i++) {
		const struct spec_dentry *d = &s->d[i];
		struct dcsim_dentry_state *st;

		if (!d->exists)
			continue;
		st = &out->dentries[n++];
		st->id = i;
		st->parent_id = d->parent;
		st->count = d->count;
		st->flags = d->flags & DCSIM_DCACHE_STATE_FLAGS;
		st->lru_pos = -1;
		for (uint32_t j = 0; j < s->nlru; j++)
			if (s->lru[j] == i)
				st->lru_pos = (int32_t)j;
		st->hashed = d->hashed;
		snprintf(st->name, sizeof(st->name), "%s", d->name);
		if (d->hashed)
			out->counters.nr_hashed++;
	}
	out->nr = n;
	out->counters.nr_dentry = (int64_t)n;
	out->counters.nr_lru = s->nlru;
	out->counters.allocs = s->allocs;
	out->counters.kills = s->kills;
	out->counters.frees = s->frees;
	return 0;
}
