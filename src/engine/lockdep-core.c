// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The lock order validator's core: the kernel's lockdep (kernel/locking/
 * lockdep.c), reduced to spinlocks, for both front ends (lockdep.c in the
 * explorer, lockdep-threads.c on real threads; lockdep-core.h says what
 * each keeps).
 *
 * A lock is validated if its class was registered (<dcsim/lockdep.h>);
 * the node of the graph is (class, subclass).  Each thread keeps a stack
 * of the validated locks it holds, with where each was taken.  When a
 * thread is about to wait for a lock of node B (a blocking acquisition:
 * checked before it waits, as lockdep does, so that an execution that
 * really deadlocks is explained too), each held lock's node A gets an
 * acquired-before edge A -> B, remembered with both sites.  A new edge
 * that closes a path B -> ... -> A is a possible circular locking
 * dependency; a held lock of node B itself is possible recursive
 * locking.  Either is reported with both chains, and the front end ends
 * the report (struct ld_ops).
 *
 * A trylock cannot deadlock (it does not wait), so, as in lockdep, it adds
 * no edge to the lock it takes; edges from a lock taken by trylock to
 * locks taken while holding it are added as from any other.
 *
 * Not seen: locks never registered, and more than LD_NODES_MAX nodes,
 * LD_HELD_MAX validated locks held at once or LD_RANGES_MAX arrays
 * (counted, never guessed at).
 */

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/compiler.h>

#include "lockdep-core.h"

static void ld_lock(pthread_mutex_t *m)
{
	if (m)
		pthread_mutex_lock(m);
}

static void ld_unlock(pthread_mutex_t *m)
{
	if (m)
		pthread_mutex_unlock(m);
}

/* Owner-only increment that another thread may read: a relaxed store, no locked add. */
static inline void bump(unsigned long *c)
{
	__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

/* ---- classes ---- */

static size_t slot_of(uintptr_t a, size_t cap)
{
	uint64_t h = (uint64_t)a * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20) & (cap - 1);
}

/* The slot of @a in @m, or NULL; without the lock. */
static struct ld_slot *map_find(struct ld_map *m, uintptr_t a)
{
	if (!m)
		return NULL;
	for (size_t i = slot_of(a, m->cap);; i = (i + 1) & (m->cap - 1)) {
		/* Acquire: the slot's class was written before its address was published. */
		uintptr_t x = __atomic_load_n(&m->s[i].addr, __ATOMIC_ACQUIRE);

		if (x == a)
			return &m->s[i];
		if (!x)
			return NULL;
	}
}

/* Under the table's mutex: put (@a, @cls) into @m, which has room. */
static void __map_insert(struct ld_map *m, uintptr_t a, const struct dcsim_lock_class *cls)
{
	size_t i = slot_of(a, m->cap);

	while (m->s[i].addr)
		i = (i + 1) & (m->cap - 1);
	m->s[i].cls = cls;
	/* Release: a reader that finds the address finds its class. */
	__atomic_store_n(&m->s[i].addr, a, __ATOMIC_RELEASE);
	m->n++;
}

static struct ld_map *map_new(size_t cap)
{
	struct ld_map *m = calloc(1, sizeof(*m) + cap * sizeof(m->s[0]));

	if (m)
		m->cap = cap;
	return m;
}

/*
 * Under the table's mutex: a map with room for one more, or NULL.  A full
 * map is replaced by a bigger copy; the old one is kept until the table
 * is cleared, because a reader may still be probing it.
 */
static struct ld_map *__map_room(struct ld_classes *c)
{
	struct ld_map *m = c->map, *big;

	if (m && (m->n + 1) * 2 <= m->cap)
		return m;
	if (m && c->nretired == LD_RETIRED_MAX)
		return NULL;
	big = map_new(m ? m->cap * 2 : c->first_cap);
	if (!big)
		return NULL;
	for (size_t i = 0; m && i < m->cap; i++)
		if (m->s[i].addr)
			__map_insert(big, m->s[i].addr, m->s[i].cls);
	if (m)
		c->retired[c->nretired++] = m;
	/* Release: a reader that loads the new map sees its slots. */
	__atomic_store_n(&c->map, big, __ATOMIC_RELEASE);
	return big;
}

/**
 * ld_set_class() - @lock is of class @cls from now on
 *
 * Return: nothing; takes and releases @c->mutex unless @lock was
 * registered before with @cls.
 */
void ld_set_class(struct ld_classes *c, const void *lock, const struct dcsim_lock_class *cls)
{
	uintptr_t a = (uintptr_t)lock;
	struct ld_slot *s;
	struct ld_map *m;

	/*
	 * A lock registered before with this class (memory the slab hands
	 * out again to the same kind of object) is only looked up: the
	 * common case takes no lock.  A new class is written under the mutex,
	 * into the map of the moment: a store without it could land in a map
	 * that __map_room() is copying or has retired, and the lock would
	 * keep its old class (an inode's i_lock validated as a d_lock).
	 */
	s = map_find(__atomic_load_n(&c->map, __ATOMIC_ACQUIRE), a);
	if (s && __atomic_load_n(&s->cls, __ATOMIC_RELAXED) == cls)
		return;
	ld_lock(c->mutex);
	s = map_find(c->map, a);
	if (s)
		__atomic_store_n(&s->cls, cls, __ATOMIC_RELAXED);
	else if ((m = __map_room(c)))
		__map_insert(m, a, cls);
	else
		c->map_lost++;
	ld_unlock(c->mutex);
}

/**
 * ld_set_class_array() - the @n locks from @first, @stride bytes apart, are of class @cls
 *
 * Return: nothing; takes and releases @c->mutex.
 */
void ld_set_class_array(struct ld_classes *c, const void *first, size_t n, size_t stride,
			const struct dcsim_lock_class *cls)
{
	unsigned int k;

	ld_lock(c->mutex);
	/*
	 * A lock of the array's memory registered one by one before (memory
	 * given back and handed out again) is of the array now: its old
	 * entry is voided, and ld_class_of() goes on to the ranges.
	 */
	for (size_t i = 0; c->map && i < n; i++) {
		struct ld_slot *s = map_find(c->map, (uintptr_t)first + i * stride);

		if (s)
			__atomic_store_n(&s->cls, NULL, __ATOMIC_RELAXED);
	}
	k = c->nranges;
	if (k == LD_RANGES_MAX) {
		c->ranges_lost++;
	} else {
		c->ranges[k] = (struct ld_range){ (uintptr_t)first, n, stride, cls };
		/* Release: a reader that counts the range sees it filled. */
		__atomic_store_n(&c->nranges, k + 1, __ATOMIC_RELEASE);
	}
	ld_unlock(c->mutex);
}

/** ld_class_of() - the class of @lock, or NULL.  Return: without a lock. */
const struct dcsim_lock_class *ld_class_of(const struct ld_classes *c, const void *lock)
{
	uintptr_t a = (uintptr_t)lock;
	struct ld_slot *s = map_find(__atomic_load_n(&c->map, __ATOMIC_ACQUIRE), a);
	const struct dcsim_lock_class *cls = s ? __atomic_load_n(&s->cls, __ATOMIC_RELAXED) : NULL;

	/* A lock registered alone wins; a voided one may be an array's now. */
	if (cls)
		return cls;
	/* The newest range first: it may cover memory an older one gave back. */
	for (unsigned int i = __atomic_load_n(&c->nranges, __ATOMIC_ACQUIRE); i-- > 0;) {
		const struct ld_range *r = &c->ranges[i];

		if (a >= r->first && a < r->first + r->n * r->stride &&
		    (a - r->first) % r->stride == 0)
			return r->cls;
	}
	return NULL;
}

/*
 * __ld_classes_clear() - forget every registration (the lost counts stay)
 *
 * Caller holds @c->mutex (if any), and no thread looks a class up.
 */
void __ld_classes_clear(struct ld_classes *c)
{
	for (unsigned int i = 0; i < c->nretired; i++)
		free(c->retired[i]);
	c->nretired = 0;
	if (c->map) {
		memset(c->map->s, 0, c->map->cap * sizeof(c->map->s[0]));
		c->map->n = 0;
	}
	c->nranges = 0;
}

/* ---- nodes ---- */

/* The node of (@cls, @sub), made on first use; -1 if the table is full. */
static int node_of(struct ld_graph *g, const struct dcsim_lock_class *cls, unsigned int sub)
{
	/* Acquire: a counted node is filled in. */
	unsigned int n = __atomic_load_n(&g->nnodes, __ATOMIC_ACQUIRE), i;

	for (i = 0; i < n; i++)
		if (g->nodes[i].cls == cls && g->nodes[i].sub == sub)
			return (int)i;
	ld_lock(g->mutex);
	for (i = n; i < g->nnodes; i++)
		if (g->nodes[i].cls == cls && g->nodes[i].sub == sub)
			break;
	if (i == g->nnodes) {
		if (i == LD_NODES_MAX) {
			g->nodes_lost++;
			ld_unlock(g->mutex);
			return -1;
		}
		g->nodes[i].cls = cls;
		g->nodes[i].sub = sub;
		__atomic_store_n(&g->nnodes, i + 1, __ATOMIC_RELEASE);
	}
	ld_unlock(g->mutex);
	return (int)i;
}

/** ld_node_name() - "d_lock" or "d_lock/1" into @buf.  Return: @buf. */
const char *ld_node_name(const struct ld_graph *g, int n, char *buf, size_t len)
{
	const char *name = g->nodes[n].cls->name ? g->nodes[n].cls->name : "?";

	if (g->nodes[n].sub)
		snprintf(buf, len, "%s/%u", name, g->nodes[n].sub);
	else
		snprintf(buf, len, "%s", name);
	return buf;
}

/** ld_fn() - the function of @s, or "?".  Return: a string that lives as long as @s's. */
const char *ld_fn(const struct ld_site *s)
{
	return s->func ? s->func : "?";
}

/**
 * ld_print_edge() - the edge @a -> @b with its two sites, a line to @f, if there is one
 *
 * Return: whether there was; the caller holds the graph's mutex (if any).
 */
bool ld_print_edge(const struct ld_graph *g, FILE *f, unsigned int a, unsigned int b)
{
	const struct ld_edge *e = &g->edge[a][b];
	char x[64], y[64];

	if (!(g->known[a] & (1ull << b)))
		return false;
	fprintf(f, "dcsim-lockdep:   %s -> %s (%s:%d, then %s:%d)\n",
		ld_node_name(g, (int)a, x, sizeof(x)), ld_node_name(g, (int)b, y, sizeof(y)),
		ld_fn(&e->held), e->held.line, ld_fn(&e->taken), e->taken.line);
	return true;
}

/*
 * __ld_graph_clear() - an empty graph (the front end's settings stay)
 *
 * Caller holds @g->mutex (if any), and no thread takes a validated lock.
 */
void __ld_graph_clear(struct ld_graph *g)
{
	g->nnodes = 0;
	g->nodes_lost = 0;
	memset(g->known, 0, sizeof(g->known));
	g->recursive = 0;
	g->nedges = g->cycles = g->recursions = 0;
}

/* ---- the reports (under the graph's mutex) ---- */

void ld_printf(struct ld_text *t, const char *fmt, ...)
{
	va_list ap;

	if (t->len >= t->cap)
		return;
	va_start(ap, fmt);
	t->len += (size_t)vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	if (t->len >= t->cap)
		t->len = t->cap - 1;
}

/* Taking @lock (node @b) at @site while @h holds a lock of the same node. */
static void __report_recursive(struct ld_graph *g, const struct ld_stack *s,
			       const struct ld_held *h, int b, const void *lock,
			       const struct ld_site *site)
{
	char a[64], sumbuf[LD_SUMMARY_MAX];
	struct ld_text sum = { sumbuf, sizeof(sumbuf), 0 };
	struct ld_who who = { { 0 } };
	struct ld_text *t;

	g->recursions++;
	t = g->ops->begin(g, s, &who, lock, h->lock);
	if (!t)
		return;
	ld_node_name(g, b, a, sizeof(a));
	t->len = 0;
	ld_printf(t, "dcsim-lockdep: WARNING: possible recursive locking detected\n");
	ld_printf(t, "dcsim-lockdep: %s is trying to acquire %s%s%s at %s:%d\n", who.first, a,
		  *who.lock ? " " : "", who.lock, ld_fn(site), site->line);
	ld_printf(t, "dcsim-lockdep: but %s already holds %s%s%s, taken at %s:%d%s\n", who.holder,
		  a, *who.held ? " " : "", who.held, ld_fn(&h->site), h->site.line,
		  h->trylock ? " (trylock)" : "");
	ld_printf(t, "dcsim-lockdep: two locks of one class nest only with a subclass "
		  "(dcsim_spin_lock_nested(), the kernel's spin_lock_nested())\n");
	ld_printf(&sum, "possible recursive locking: %s takes %s at %s:%d while holding %s "
		  "taken at %s:%d", who.name, a, ld_fn(site), site->line, a, ld_fn(&h->site),
		  h->site.line);
	g->ops->end(g, s, t, &sum, NULL);
}

/*
 * @s holds @h (node A) and takes @lock (node B) at @site; the graph already
 * has B -> ... -> A along @path (@n nodes, path[0] == B, path[n-1] == A).
 */
static void __report_cycle(struct ld_graph *g, const struct ld_stack *s,
			   const struct ld_held *h, int b, const void *lock,
			   const struct ld_site *site, const int *path, unsigned int n)
{
	char an[64], bn[64], sumbuf[LD_SUMMARY_MAX];
	struct ld_text sum = { sumbuf, sizeof(sumbuf), 0 };
	struct ld_who who = { { 0 } };
	struct ld_text *t;

	g->cycles++;
	t = g->ops->begin(g, s, &who, lock, NULL);
	if (!t)
		return;
	ld_node_name(g, h->node, an, sizeof(an));
	ld_node_name(g, b, bn, sizeof(bn));
	t->len = 0;
	ld_printf(t, "dcsim-lockdep: WARNING: possible circular locking dependency detected\n");
	ld_printf(t, "dcsim-lockdep: %s is trying to acquire %s%s%s at %s:%d\n", who.first, bn,
		  *who.lock ? " " : "", who.lock, ld_fn(site), site->line);
	ld_printf(t, "dcsim-lockdep: but %s already holds %s, taken at %s:%d%s\n", who.holder, an,
		  ld_fn(&h->site), h->site.line, h->trylock ? " (trylock)" : "");
	ld_printf(t, "dcsim-lockdep: which lock already depends on the new lock.\n");
	ld_printf(t, "dcsim-lockdep: chain 1, the new dependency (%s):\n", who.chain1);
	ld_printf(t, "dcsim-lockdep:   %s taken at %s:%d\n", an, ld_fn(&h->site), h->site.line);
	ld_printf(t, "dcsim-lockdep:   -> %s taken at %s:%d\n", bn, ld_fn(site), site->line);
	ld_printf(t, "dcsim-lockdep: chain 2, the existing dependency:\n");
	for (unsigned int i = 0; i + 1 < n; i++) {
		const struct ld_edge *e = &g->edge[path[i]][path[i + 1]];
		char x[64], y[64];

		ld_printf(t, "dcsim-lockdep:   %s taken at %s:%d\n",
			  ld_node_name(g, path[i], x, sizeof(x)), ld_fn(&e->held), e->held.line);
		ld_printf(t, "dcsim-lockdep:   -> %s taken at %s:%d",
			  ld_node_name(g, path[i + 1], y, sizeof(y)), ld_fn(&e->taken),
			  e->taken.line);
		g->ops->origin(g, t, e, false);
		ld_printf(t, "\n");
	}
	if (n == 2) {
		ld_printf(t, "dcsim-lockdep: possible unsafe locking scenario:\n");
		ld_printf(t, "dcsim-lockdep:        CPU0                    CPU1\n");
		ld_printf(t, "dcsim-lockdep:        ----                    ----\n");
		ld_printf(t, "dcsim-lockdep:   lock(%s);\n", an);
		ld_printf(t, "dcsim-lockdep:                                lock(%s);\n", bn);
		ld_printf(t, "dcsim-lockdep:                                lock(%s);\n", an);
		ld_printf(t, "dcsim-lockdep:   lock(%s);\n", bn);
		ld_printf(t, "dcsim-lockdep:  *** DEADLOCK ***\n");
	}

	ld_printf(&sum, "possible circular locking dependency: %s takes %s at %s:%d holding %s "
		  "(taken at %s:%d); existing chain:", who.name, bn, ld_fn(site), site->line, an,
		  ld_fn(&h->site), h->site.line);
	for (unsigned int i = 0; i + 1 < n; i++) {
		const struct ld_edge *e = &g->edge[path[i]][path[i + 1]];
		char x[64], y[64];

		ld_printf(&sum, " %s (taken at %s:%d) -> %s at %s:%d",
			  ld_node_name(g, path[i], x, sizeof(x)), ld_fn(&e->held), e->held.line,
			  ld_node_name(g, path[i + 1], y, sizeof(y)), ld_fn(&e->taken),
			  e->taken.line);
		g->ops->origin(g, &sum, e, true);
		if (i + 2 < n)
			ld_printf(&sum, ";");
	}
	g->ops->end(g, s, t, &sum, &g->edge[path[0]][path[1]]);
}

/* Under the graph's mutex: breadth-first search of known[] for @from -> ... -> @to. */
static unsigned int __find_path(const struct ld_graph *g, int from, int to, int *path)
{
	int prev[LD_NODES_MAX], queue[LD_NODES_MAX];
	unsigned int qh = 0, qt = 0, n = 0;

	for (unsigned int i = 0; i < LD_NODES_MAX; i++)
		prev[i] = -2;
	prev[from] = -1;
	queue[qt++] = from;
	while (qh < qt) {
		int u = queue[qh++];
		uint64_t out = g->known[u];

		if (u == to) {
			int rev[LD_NODES_MAX];

			for (int v = to; v >= 0; v = prev[v])
				rev[n++] = v;
			for (unsigned int i = 0; i < n; i++)
				path[i] = rev[n - 1 - i];
			return n;
		}
		/* The lowest node first: the path found is the same on every run. */
		while (out) {
			int v = __builtin_ctzll(out);

			out &= out - 1;
			if (prev[v] == -2) {
				prev[v] = u;
				queue[qt++] = v;
			}
		}
	}
	return 0;
}

/* The slow path: edge @h -> @b is not known yet (or @h is @b's node). */
static void add_edge(struct ld_graph *g, const struct ld_stack *s, const struct ld_held *h,
		     int b, const void *lock, const struct ld_site *site)
{
	int path[LD_NODES_MAX];
	unsigned int n;

	ld_lock(g->mutex);
	if (h->node == b) {
		if (!(g->recursive & (1ull << b))) {
			__report_recursive(g, s, h, b, lock, site);
			/* Release, as for known[]: reported once per node and graph. */
			if (g->recursion_once)
				__atomic_or_fetch(&g->recursive, 1ull << b, __ATOMIC_RELEASE);
		}
	} else if (!(g->known[h->node] & (1ull << b))) {
		n = __find_path(g, b, h->node, path);
		if (n)
			__report_cycle(g, s, h, b, lock, site, path, n);
		g->edge[h->node][b] = (struct ld_edge){ s->id, h->site, *site, g->exec_no, g->seed };
		g->nedges++;
		/* Release: a thread that sees the bit sees the edge's sites. */
		__atomic_or_fetch(&g->known[h->node], 1ull << b, __ATOMIC_RELEASE);
	}
	ld_unlock(g->mutex);
}

/* @s, holding its stack, is about to take (or wait for) @lock of node @b. */
static void check(struct ld_graph *g, const struct ld_stack *s, int b, const void *lock,
		  const struct ld_site *site)
{
	for (unsigned int i = 0; i < s->n; i++) {
		const struct ld_held *h = &s->held[i];
		uint64_t seen;

		/* Acquire: pairs with add_edge()'s release; a known edge needs no more. */
		if (h->node != b)
			seen = __atomic_load_n(&g->known[h->node], __ATOMIC_ACQUIRE);
		else
			seen = __atomic_load_n(&g->recursive, __ATOMIC_ACQUIRE);
		if (seen & (1ull << b))
			continue;
		add_edge(g, s, h, b, lock, site);
	}
}

static void push(struct ld_stack *s, const void *lock, int node, bool trylock,
		 const struct ld_site *site)
{
	if (s->n == LD_HELD_MAX) {
		bump(&s->lost);
		return;
	}
	s->held[s->n++] = (struct ld_held){ lock, node, trylock, *site };
}

/** ld_stack_clear() - @s holds nothing (its counts stay). */
void ld_stack_clear(struct ld_stack *s)
{
	s->n = 0;
	s->checked = NULL;
}

/**
 * ld_note() - one lock event @ev of the thread whose stack is @s
 * @lock: the lock, of lockdep subclass @subclass, taken at @func:@line
 *
 * Its orders go to @s->graph, and @lock's class is looked up in that
 * graph's classes.  Six arguments: the front end's call is a tail call.
 *
 * Return: nothing; a new edge, a new node or a report takes and releases
 * the graph's mutex (if any), and a report is ended by its ops->end().
 */
void ld_note(struct ld_stack *s, enum dcsim_spin_event ev, const void *lock,
	     unsigned int subclass, const char *func, int line)
{
	struct ld_graph *g = s->graph;
	struct ld_site site = { func, line };
	const struct dcsim_lock_class *cls;
	int node;

	if (ev == DCSIM_SPIN_RELEASED || ev == DCSIM_SPIN_ANNOTATE_RELEASE) {
		/* The most recent hold of @lock: locks need not be released in order. */
		for (unsigned int i = s->n; i-- > 0;) {
			if (s->held[i].lock == lock) {
				memmove(&s->held[i], &s->held[i + 1],
					(s->n - i - 1) * sizeof(s->held[0]));
				s->n--;
				break;
			}
		}
		return;
	}
	if (ev == DCSIM_SPIN_CONTENDED)
		return;
	cls = ld_class_of(g->classes, lock);
	if (!cls)
		return;
	node = node_of(g, cls, subclass < DCSIM_LOCK_SUBCLASS_MAX ? subclass : 0);
	if (node < 0)
		return;
	switch (ev) {
	case DCSIM_SPIN_WAITING:
		check(g, s, node, lock, &site);
		s->checked = lock;
		break;
	case DCSIM_SPIN_ANNOTATE_ACQUIRE:
		check(g, s, node, lock, &site);
		push(s, lock, node, false, &site);
		break;
	case DCSIM_SPIN_ACQUIRED:
		bump(&s->acquisitions);
		if (s->checked != lock)
			check(g, s, node, lock, &site);
		s->checked = NULL;
		push(s, lock, node, false, &site);
		break;
	case DCSIM_SPIN_ANNOTATE_TRYACQUIRE:
		push(s, lock, node, true, &site);
		break;
	case DCSIM_SPIN_TRYLOCKED:
		/* A trylock does not wait, so it cannot close a deadlock: no edge to it. */
		bump(&s->trylocks);
		if (g->ops->trylocked)
			g->ops->trylocked(g, s, node, &site);
		push(s, lock, node, true, &site);
		break;
	default:
		break;
	}
}
