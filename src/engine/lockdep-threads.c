// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The lock order validator on real threads: lockdep.c's checks (acquired-
 * before edges between lock classes, a cycle or a recursion reported with
 * both chains) for code that runs outside an exploration, on threads the
 * OS schedules: the stress suite, the differential suite's traces, any
 * program linked with the instrumented library.
 *
 * Every lock operation reaches dcsim_spin_note(); strict.c passes those of
 * threads that are no logical thread of an exploration here, unless an
 * exploration is running (its controller's and run_alone()'s locks are
 * the explorer's to ignore).  The model registers each lock's class as in
 * the explorer (<dcsim/lockdep.h>); outside an exploration the
 * registrations land here.
 *
 * Scopes: the graph and the registrations live for one scope.  A suite
 * opens one with dcsim_lockdep_begin() (one stress run, one trace) and
 * closes it with dcsim_lockdep_end(), which gives its counts and its
 * first report; between scopes, one nameless scope covers the process.
 * Both are called while no other thread takes a validated lock (the
 * suites call them before they start their threads and after they joined
 * them), which is what lets them reset the tables without a lock.
 *
 * Concurrency: each thread keeps its own stack of held validated locks
 * (thread-local, nobody else reads it).  The graph is shared:
 *  - an edge already known is one bit of known[], read without a lock
 *    (acquire, pairing with the release that sets it after its sites are
 *    written), so the hot path of a lock whose order was seen before is a
 *    hash probe, a scan of a few nodes and one load per held lock;
 *  - a new edge, the path search, the report, a new node or class are
 *    made under ld_mutex;
 *  - the class map is an open-addressed table whose slots are published
 *    with a release store of the address after the class is written, so a
 *    reader probes it without the lock; a full table is replaced by a
 *    bigger copy (under the mutex) and the old one kept until the scope
 *    ends, because a reader may still be probing it.
 * Counts are per thread (only the owner writes them; relaxed stores, so
 * that dcsim_lockdep_end() may read them) and summed at the end.
 *
 * There is no replay outside the explorer (the OS schedules): a report
 * names the scope and the command its suite gave to reproduce it.  A
 * report is printed when the check runs, before the thread waits, so a
 * real deadlock that follows is already explained.
 *
 * Not seen: as in lockdep.c (locks without a class, more than LT_NODES_MAX
 * nodes or LT_HELD_MAX locks held at once, counted), plus: locks held
 * across a scope boundary, and orders of different scopes, which are
 * never combined (another scope may be another strategy).
 * DCSIM_LOCKDEP_THREADS=off switches it off (to measure its cost).
 */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <dcsim/describe.h>
#include <dcsim/explore.h>
#include <dcsim/lockdep.h>
#include <dcsim/spinlock.h>

#include "internal.h"

#define LT_NODES_MAX	64
#define LT_HELD_MAX	16
#define LT_RANGES_MAX	64
#define LT_RETIRED_MAX	40
#define LT_PRINT_MAX	8	/* full reports printed per scope; the rest counted */
#define LT_REPORT_MAX	4096

struct lt_site {
	const char *func;
	int line;
};

struct lt_edge {
	unsigned int thread;		/* the validator's number of the thread */
	struct lt_site held, taken;
};

struct lt_held {
	const void *lock;
	int node;
	bool trylock;
	struct lt_site site;
};

/* One thread's state: its own, except the counts that the scope's end reads. */
struct lt_thread {
	struct lt_held held[LT_HELD_MAX];
	unsigned int nheld;
	const void *checked;		/* the lock its WAITING already checked */
	unsigned int id;		/* 1, 2, ... in order of first lock */
	long tid;			/* the OS's */
	unsigned int gen;		/* scope it last ran in */
	unsigned long acquisitions, trylocks, held_lost;	/* relaxed */
	struct lt_thread *next;		/* ld_threads, under ld_mutex */
};

struct lt_slot {
	uintptr_t addr;				/* 0: empty; published last */
	const struct dcsim_lock_class *cls;
};

struct lt_map {
	size_t cap, n;			/* n: under ld_mutex */
	struct lt_slot s[];
};

struct lt_range {
	uintptr_t first;
	size_t n, stride;
	const struct dcsim_lock_class *cls;
};

static pthread_mutex_t ld_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t ld_key;
static pthread_once_t ld_once = PTHREAD_ONCE_INIT;
static __thread struct lt_thread *ld_me __attribute__((tls_model("initial-exec")));

static struct {
	int enabled;			/* -1 not read yet, 0 off, 1 on */
	unsigned int gen;		/* scope number: a thread's state of another is stale */
	/* the scope */
	char what[256], reproduce[512];
	FILE *out;
	bool named;
	/* classes */
	struct lt_map *map;
	struct lt_map *retired[LT_RETIRED_MAX];
	unsigned int nretired;
	struct lt_range ranges[LT_RANGES_MAX];
	unsigned int nranges;		/* published with release */
	unsigned long ranges_lost, map_lost;
	/* the graph */
	struct {
		const struct dcsim_lock_class *cls;
		unsigned int sub;
	} nodes[LT_NODES_MAX];
	unsigned int nnodes;		/* published with release */
	unsigned long nodes_lost;
	uint64_t known[LT_NODES_MAX];	/* bit b of known[a]: edge a -> b */
	uint64_t recursive;		/* bit a: node a's recursion was reported */
	struct lt_edge edge[LT_NODES_MAX][LT_NODES_MAX];
	unsigned long nedges, cycles, recursions;
	char first[512];
	/* threads */
	struct lt_thread *threads;
	unsigned int next_id;
	unsigned long dead_acq, dead_try, dead_lost;	/* of threads that exited */
} ld = { .enabled = -1 };

static bool enabled(void)
{
	int e = __atomic_load_n(&ld.enabled, __ATOMIC_RELAXED);

	if (dcsim_unlikely(e < 0)) {
		const char *env = getenv("DCSIM_LOCKDEP_THREADS");

		e = !(env && (!strcmp(env, "off") || !strcmp(env, "0")));
		__atomic_store_n(&ld.enabled, e, __ATOMIC_RELAXED);
	}
	return e;
}

/* ---- threads ---- */

static void fold_counts(const struct lt_thread *t)
{
	if (t->gen != ld.gen)
		return;
	ld.dead_acq += __atomic_load_n(&t->acquisitions, __ATOMIC_RELAXED);
	ld.dead_try += __atomic_load_n(&t->trylocks, __ATOMIC_RELAXED);
	ld.dead_lost += __atomic_load_n(&t->held_lost, __ATOMIC_RELAXED);
}

/* A thread exits: its counts go to the scope's, its state away. */
static void thread_gone(void *arg)
{
	struct lt_thread *t = arg, **pp;

	pthread_mutex_lock(&ld_mutex);
	fold_counts(t);
	for (pp = &ld.threads; *pp; pp = &(*pp)->next) {
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	}
	pthread_mutex_unlock(&ld_mutex);
	ld_me = NULL;
	free(t);
}

static void make_key(void)
{
	if (pthread_key_create(&ld_key, thread_gone))
		abort();
}

/* This thread's state, made on its first lock, reset when a new scope began. */
static struct lt_thread *me(void)
{
	struct lt_thread *t = ld_me;
	unsigned int gen = __atomic_load_n(&ld.gen, __ATOMIC_RELAXED);

	if (dcsim_unlikely(!t)) {
		pthread_once(&ld_once, make_key);
		t = calloc(1, sizeof(*t));
		if (!t)
			return NULL;
		t->tid = (long)syscall(SYS_gettid);
		pthread_mutex_lock(&ld_mutex);
		t->id = ++ld.next_id;
		t->gen = ld.gen;
		t->next = ld.threads;
		ld.threads = t;
		pthread_mutex_unlock(&ld_mutex);
		pthread_setspecific(ld_key, t);
		ld_me = t;
	}
	if (dcsim_unlikely(t->gen != gen)) {
		/* Scopes change while no lock is held: nothing to carry over. */
		t->nheld = 0;
		t->checked = NULL;
		t->gen = gen;
		__atomic_store_n(&t->acquisitions, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&t->trylocks, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&t->held_lost, 0, __ATOMIC_RELAXED);
	}
	return t;
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
static struct lt_slot *map_find(struct lt_map *m, uintptr_t a)
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

/* Under ld_mutex: put (@a, @cls) into @m, which has room. */
static void __map_insert(struct lt_map *m, uintptr_t a, const struct dcsim_lock_class *cls)
{
	size_t i = slot_of(a, m->cap);

	while (m->s[i].addr)
		i = (i + 1) & (m->cap - 1);
	m->s[i].cls = cls;
	/* Release: a reader that finds the address finds its class. */
	__atomic_store_n(&m->s[i].addr, a, __ATOMIC_RELEASE);
	m->n++;
}

static struct lt_map *map_new(size_t cap)
{
	struct lt_map *m = calloc(1, sizeof(*m) + cap * sizeof(m->s[0]));

	if (m)
		m->cap = cap;
	return m;
}

/* Under ld_mutex: a map with room for one more, or NULL. */
static struct lt_map *__map_room(void)
{
	struct lt_map *m = ld.map, *big;

	if (m && (m->n + 1) * 2 <= m->cap)
		return m;
	if (m && ld.nretired == LT_RETIRED_MAX)
		return NULL;
	big = map_new(m ? m->cap * 2 : 4096);
	if (!big)
		return NULL;
	for (size_t i = 0; m && i < m->cap; i++)
		if (m->s[i].addr)
			__map_insert(big, m->s[i].addr, m->s[i].cls);
	if (m)
		ld.retired[ld.nretired++] = m;
	/* Release: a reader that loads the new map sees its slots. */
	__atomic_store_n(&ld.map, big, __ATOMIC_RELEASE);
	return big;
}

void lockdep_threads_set_class(const void *lock, const struct dcsim_lock_class *cls)
{
	uintptr_t a = (uintptr_t)lock;
	struct lt_slot *s;
	struct lt_map *m;

	if (!lock || !enabled())
		return;
	/*
	 * A lock registered before (memory the slab hands out again) is only
	 * looked up: the common case takes no lock.  Its class is one word,
	 * and no thread locks a lock while it is being initialised.
	 */
	s = map_find(__atomic_load_n(&ld.map, __ATOMIC_ACQUIRE), a);
	if (s) {
		if (__atomic_load_n(&s->cls, __ATOMIC_RELAXED) != cls)
			__atomic_store_n(&s->cls, cls, __ATOMIC_RELAXED);
		return;
	}
	pthread_mutex_lock(&ld_mutex);
	s = map_find(ld.map, a);
	if (s)
		__atomic_store_n(&s->cls, cls, __ATOMIC_RELAXED);
	else if ((m = __map_room()))
		__map_insert(m, a, cls);
	else
		ld.map_lost++;
	pthread_mutex_unlock(&ld_mutex);
}

void lockdep_threads_set_class_array(const void *first, size_t n, size_t stride,
				     const struct dcsim_lock_class *cls)
{
	unsigned int k;

	if (!first || !n || !stride || !enabled())
		return;
	pthread_mutex_lock(&ld_mutex);
	/*
	 * A lock of the array's memory registered one by one before (memory
	 * given back and handed out again) is of the array now: its old
	 * entry is voided, and class_of() goes on to the ranges.
	 */
	for (size_t i = 0; ld.map && i < n; i++) {
		struct lt_slot *s = map_find(ld.map, (uintptr_t)first + i * stride);

		if (s)
			__atomic_store_n(&s->cls, NULL, __ATOMIC_RELAXED);
	}
	k = ld.nranges;
	if (k == LT_RANGES_MAX) {
		ld.ranges_lost++;
	} else {
		ld.ranges[k] = (struct lt_range){ (uintptr_t)first, n, stride, cls };
		/* Release: a reader that counts the range sees it filled. */
		__atomic_store_n(&ld.nranges, k + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&ld_mutex);
}

static const struct dcsim_lock_class *class_of(const void *lock)
{
	uintptr_t a = (uintptr_t)lock;
	struct lt_slot *s = map_find(__atomic_load_n(&ld.map, __ATOMIC_ACQUIRE), a);
	const struct dcsim_lock_class *cls = s ? __atomic_load_n(&s->cls, __ATOMIC_RELAXED) : NULL;

	/* A lock registered alone wins; a voided one may be an array's now. */
	if (cls)
		return cls;
	/* The newest range first: it may cover memory an older one gave back. */
	for (unsigned int i = __atomic_load_n(&ld.nranges, __ATOMIC_ACQUIRE); i-- > 0;) {
		const struct lt_range *r = &ld.ranges[i];

		if (a >= r->first && a < r->first + r->n * r->stride &&
		    (a - r->first) % r->stride == 0)
			return r->cls;
	}
	return NULL;
}

/* The node of (@cls, @sub); made on first use; -1 if the table is full. */
static int node_of(const struct dcsim_lock_class *cls, unsigned int sub)
{
	/* Acquire: a counted node is filled in. */
	unsigned int n = __atomic_load_n(&ld.nnodes, __ATOMIC_ACQUIRE), i;

	for (i = 0; i < n; i++)
		if (ld.nodes[i].cls == cls && ld.nodes[i].sub == sub)
			return (int)i;
	pthread_mutex_lock(&ld_mutex);
	for (i = n; i < ld.nnodes; i++)
		if (ld.nodes[i].cls == cls && ld.nodes[i].sub == sub)
			break;
	if (i == ld.nnodes) {
		if (i == LT_NODES_MAX) {
			ld.nodes_lost++;
			pthread_mutex_unlock(&ld_mutex);
			return -1;
		}
		ld.nodes[i].cls = cls;
		ld.nodes[i].sub = sub;
		__atomic_store_n(&ld.nnodes, i + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&ld_mutex);
	return (int)i;
}

static const char *node_name(int n, char *buf, size_t len)
{
	const char *name = ld.nodes[n].cls->name ? ld.nodes[n].cls->name : "?";

	if (ld.nodes[n].sub)
		snprintf(buf, len, "%s/%u", name, ld.nodes[n].sub);
	else
		snprintf(buf, len, "%s", name);
	return buf;
}

static const char *fn(const struct lt_site *s)
{
	return s->func ? s->func : "?";
}

/* ---- reports (under ld_mutex) ---- */

static char rbuf[LT_REPORT_MAX];
static size_t rlen;

static void rep(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void rep(const char *fmt, ...)
{
	va_list ap;

	if (rlen >= sizeof(rbuf))
		return;
	va_start(ap, fmt);
	rlen += (size_t)vsnprintf(rbuf + rlen, sizeof(rbuf) - rlen, fmt, ap);
	va_end(ap);
	if (rlen >= sizeof(rbuf))
		rlen = sizeof(rbuf) - 1;
}

/* The scope and how to reproduce it, then the report out, if it is printed. */
static void __report_flush(void)
{
	rep("dcsim-lockdep: seen in %s (real threads: no replay; the OS schedules)\n",
	    ld.named ? ld.what : "this process, outside any suite's scope");
	if (ld.reproduce[0])
		rep("dcsim-lockdep: reproduce: %s (may need a few runs)\n", ld.reproduce);
	/* Outside a suite's scope, to stderr, as the kernel's lockdep prints to its log. */
	FILE *out = ld.named ? ld.out : stderr;

	if (out && ld.cycles + ld.recursions <= LT_PRINT_MAX) {
		fputs(rbuf, out);
		fflush(out);
	}
	rlen = 0;
}

static void __set_first(const char *summary)
{
	if (!ld.first[0])
		snprintf(ld.first, sizeof(ld.first), "%s", summary);
}

static void __report_recursive(const struct lt_thread *t, const struct lt_held *h, int node,
			       const struct lt_site *site)
{
	char a[64], sum[512];

	ld.recursions++;
	node_name(node, a, sizeof(a));
	rlen = 0;
	rep("dcsim-lockdep: WARNING: possible recursive locking detected\n");
	rep("dcsim-lockdep: thread %u (tid %ld) is trying to acquire %s at %s:%d\n", t->id, t->tid,
	    a, fn(site), site->line);
	rep("dcsim-lockdep: but it already holds %s, taken at %s:%d%s\n", a, fn(&h->site),
	    h->site.line, h->trylock ? " (trylock)" : "");
	rep("dcsim-lockdep: two locks of one class nest only with a subclass "
	    "(dcsim_spin_lock_nested(), the kernel's spin_lock_nested())\n");
	snprintf(sum, sizeof(sum), "possible recursive locking: thread %u takes %s at %s:%d while "
		 "holding %s taken at %s:%d", t->id, a, fn(site), site->line, a, fn(&h->site),
		 h->site.line);
	__set_first(sum);
	__report_flush();
}

/* Breadth-first search of known[] for @from -> ... -> @to; its nodes into @path. */
static unsigned int __find_path(int from, int to, int *path)
{
	int prev[LT_NODES_MAX], queue[LT_NODES_MAX];
	unsigned int qh = 0, qt = 0, n = 0;

	for (unsigned int i = 0; i < LT_NODES_MAX; i++)
		prev[i] = -2;
	prev[from] = -1;
	queue[qt++] = from;
	while (qh < qt) {
		int u = queue[qh++];
		uint64_t out = ld.known[u];

		if (u == to) {
			int rev[LT_NODES_MAX];

			for (int v = to; v >= 0; v = prev[v])
				rev[n++] = v;
			for (unsigned int i = 0; i < n; i++)
				path[i] = rev[n - 1 - i];
			return n;
		}
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

static void __report_cycle(const struct lt_thread *t, const struct lt_held *h, int b,
			   const struct lt_site *site, const int *path, unsigned int n)
{
	char an[64], bn[64], sum[512];
	size_t off;

	ld.cycles++;
	node_name(h->node, an, sizeof(an));
	node_name(b, bn, sizeof(bn));
	rlen = 0;
	rep("dcsim-lockdep: WARNING: possible circular locking dependency detected\n");
	rep("dcsim-lockdep: thread %u (tid %ld) is trying to acquire %s at %s:%d\n", t->id, t->tid,
	    bn, fn(site), site->line);
	rep("dcsim-lockdep: but it already holds %s, taken at %s:%d%s\n", an, fn(&h->site),
	    h->site.line, h->trylock ? " (trylock)" : "");
	rep("dcsim-lockdep: which lock already depends on the new lock.\n");
	rep("dcsim-lockdep: chain 1, the new dependency (thread %u):\n", t->id);
	rep("dcsim-lockdep:   %s taken at %s:%d\n", an, fn(&h->site), h->site.line);
	rep("dcsim-lockdep:   -> %s taken at %s:%d\n", bn, fn(site), site->line);
	rep("dcsim-lockdep: chain 2, the existing dependency:\n");
	for (unsigned int i = 0; i + 1 < n; i++) {
		const struct lt_edge *e = &ld.edge[path[i]][path[i + 1]];
		char x[64], y[64];

		rep("dcsim-lockdep:   %s taken at %s:%d\n", node_name(path[i], x, sizeof(x)),
		    fn(&e->held), e->held.line);
		rep("dcsim-lockdep:   -> %s taken at %s:%d (thread %u)\n",
		    node_name(path[i + 1], y, sizeof(y)), fn(&e->taken), e->taken.line, e->thread);
	}
	if (n == 2) {
		rep("dcsim-lockdep: possible unsafe locking scenario:\n");
		rep("dcsim-lockdep:        CPU0                    CPU1\n");
		rep("dcsim-lockdep:        ----                    ----\n");
		rep("dcsim-lockdep:   lock(%s);\n", an);
		rep("dcsim-lockdep:                                lock(%s);\n", bn);
		rep("dcsim-lockdep:                                lock(%s);\n", an);
		rep("dcsim-lockdep:   lock(%s);\n", bn);
		rep("dcsim-lockdep:  *** DEADLOCK ***\n");
	}
	off = (size_t)snprintf(sum, sizeof(sum), "possible circular locking dependency: thread %u "
			       "takes %s at %s:%d holding %s (taken at %s:%d); existing chain:",
			       t->id, bn, fn(site), site->line, an, fn(&h->site), h->site.line);
	for (unsigned int i = 0; i + 1 < n && off < sizeof(sum); i++) {
		const struct lt_edge *e = &ld.edge[path[i]][path[i + 1]];
		char x[64], y[64];

		off += (size_t)snprintf(sum + off, sizeof(sum) - off, " %s (taken at %s:%d) -> %s at "
					"%s:%d (thread %u)%s", node_name(path[i], x, sizeof(x)),
					fn(&e->held), e->held.line,
					node_name(path[i + 1], y, sizeof(y)), fn(&e->taken),
					e->taken.line, e->thread, i + 2 < n ? ";" : "");
	}
	__set_first(sum);
	__report_flush();
}

/* The slow path: edge @h -> @b is not known yet (or @h is @b's node). */
static void add_edge(const struct lt_thread *t, const struct lt_held *h, int b,
		     const struct lt_site *site)
{
	int path[LT_NODES_MAX];
	unsigned int n;

	pthread_mutex_lock(&ld_mutex);
	if (h->node == b) {
		if (!(ld.recursive & (1ull << b))) {
			__report_recursive(t, h, b, site);
			/* Release, as for known[]: reported once per node and scope. */
			__atomic_or_fetch(&ld.recursive, 1ull << b, __ATOMIC_RELEASE);
		}
	} else if (!(ld.known[h->node] & (1ull << b))) {
		n = __find_path(b, h->node, path);
		if (n)
			__report_cycle(t, h, b, site, path, n);
		ld.edge[h->node][b] = (struct lt_edge){ t->id, h->site, *site };
		ld.nedges++;
		/* Release: a thread that sees the bit sees the edge's sites. */
		__atomic_or_fetch(&ld.known[h->node], 1ull << b, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&ld_mutex);
}

/* @t, holding its stack, is about to take (or wait for) node @b. */
static void check(const struct lt_thread *t, int b, const struct lt_site *site)
{
	for (unsigned int i = 0; i < t->nheld; i++) {
		const struct lt_held *h = &t->held[i];
		uint64_t seen;

		/* Acquire: pairs with add_edge()'s release; a known edge needs no more. */
		if (h->node != b)
			seen = __atomic_load_n(&ld.known[h->node], __ATOMIC_ACQUIRE);
		else
			seen = __atomic_load_n(&ld.recursive, __ATOMIC_ACQUIRE);

		if (seen & (1ull << b))
			continue;
		add_edge(t, h, b, site);
	}
}

static void push(struct lt_thread *t, const void *lock, int node, bool trylock,
		 const struct lt_site *site)
{
	if (t->nheld == LT_HELD_MAX) {
		bump(&t->held_lost);
		return;
	}
	t->held[t->nheld++] = (struct lt_held){ lock, node, trylock, *site };
}

void lockdep_threads_note(enum dcsim_spin_event ev, const void *lock, unsigned int subclass,
			  const char *func, int line)
{
	struct lt_site site = { func, line };
	const struct dcsim_lock_class *cls;
	struct lt_thread *t;
	int node;

	/* An exploration validates its own threads and ignores its controller's locks. */
	if (!enabled() || explore_running())
		return;
	t = me();
	if (dcsim_unlikely(!t))
		return;
	if (ev == DCSIM_SPIN_RELEASED || ev == DCSIM_SPIN_ANNOTATE_RELEASE) {
		/* The most recent hold of @lock: locks need not be released in order. */
		for (unsigned int i = t->nheld; i-- > 0;) {
			if (t->held[i].lock == lock) {
				memmove(&t->held[i], &t->held[i + 1],
					(t->nheld - i - 1) * sizeof(t->held[0]));
				t->nheld--;
				break;
			}
		}
		return;
	}
	if (ev == DCSIM_SPIN_CONTENDED)
		return;
	cls = class_of(lock);
	if (!cls)
		return;
	node = node_of(cls, subclass < DCSIM_LOCK_SUBCLASS_MAX ? subclass : 0);
	if (node < 0)
		return;
	switch (ev) {
	case DCSIM_SPIN_WAITING:
		check(t, node, &site);
		t->checked = lock;
		break;
	case DCSIM_SPIN_ANNOTATE_ACQUIRE:
		check(t, node, &site);
		push(t, lock, node, false, &site);
		break;
	case DCSIM_SPIN_ACQUIRED:
		bump(&t->acquisitions);
		if (t->checked != lock)
			check(t, node, &site);
		t->checked = NULL;
		push(t, lock, node, false, &site);
		break;
	case DCSIM_SPIN_ANNOTATE_TRYACQUIRE:
		push(t, lock, node, true, &site);
		break;
	case DCSIM_SPIN_TRYLOCKED:
		/* A trylock does not wait, so it cannot close a deadlock: no edge to it. */
		bump(&t->trylocks);
		push(t, lock, node, true, &site);
		break;
	default:
		break;
	}
}

/* ---- scopes ---- */

/* Under ld_mutex, with no other thread taking validated locks: an empty scope. */
static void __scope_reset(void)
{
	for (unsigned int i = 0; i < ld.nretired; i++)
		free(ld.retired[i]);
	ld.nretired = 0;
	if (ld.map) {
		memset(ld.map->s, 0, ld.map->cap * sizeof(ld.map->s[0]));
		ld.map->n = 0;
	}
	ld.nranges = 0;
	ld.ranges_lost = ld.map_lost = 0;
	ld.nnodes = 0;
	ld.nodes_lost = 0;
	memset(ld.known, 0, sizeof(ld.known));
	ld.recursive = 0;
	ld.nedges = ld.cycles = ld.recursions = 0;
	ld.first[0] = '\0';
	ld.dead_acq = ld.dead_try = ld.dead_lost = 0;
	ld.named = false;
	ld.what[0] = ld.reproduce[0] = '\0';
	ld.out = NULL;
	/* Every thread's stack and counts are of the old scope now. */
	__atomic_store_n(&ld.gen, ld.gen + 1, __ATOMIC_RELAXED);
}

void dcsim_lockdep_begin(const char *what, const char *reproduce, FILE *report)
{
	pthread_mutex_lock(&ld_mutex);
	__scope_reset();
	ld.named = true;
	snprintf(ld.what, sizeof(ld.what), "%s", what ? what : "a scope");
	snprintf(ld.reproduce, sizeof(ld.reproduce), "%s", reproduce ? reproduce : "");
	ld.out = report;
	pthread_mutex_unlock(&ld_mutex);
}

/* Under ld_mutex: the scope's counts so far. */
static void __read(struct dcsim_lockdep_counts *c)
{
	memset(c, 0, sizeof(*c));
	c->acquisitions = ld.dead_acq;
	c->trylocks = ld.dead_try;
	c->not_validated = ld.dead_lost + ld.nodes_lost + ld.ranges_lost + ld.map_lost;
	for (const struct lt_thread *t = ld.threads; t; t = t->next) {
		if (t->gen != ld.gen)
			continue;
		c->acquisitions += __atomic_load_n(&t->acquisitions, __ATOMIC_RELAXED);
		c->trylocks += __atomic_load_n(&t->trylocks, __ATOMIC_RELAXED);
		c->not_validated += __atomic_load_n(&t->held_lost, __ATOMIC_RELAXED);
	}
	c->edges = ld.nedges;
	c->cycles = ld.cycles;
	c->recursions = ld.recursions;
	snprintf(c->first, sizeof(c->first), "%s", ld.first);
}

void dcsim_lockdep_read(struct dcsim_lockdep_counts *c)
{
	pthread_mutex_lock(&ld_mutex);
	__read(c);
	pthread_mutex_unlock(&ld_mutex);
}

void dcsim_lockdep_end(struct dcsim_lockdep_counts *c)
{
	pthread_mutex_lock(&ld_mutex);
	if (c)
		__read(c);
	__scope_reset();
	pthread_mutex_unlock(&ld_mutex);
}

unsigned long dcsim_lockdep_reports(void)
{
	unsigned long n;

	pthread_mutex_lock(&ld_mutex);
	n = ld.cycles + ld.recursions;
	pthread_mutex_unlock(&ld_mutex);
	return n;
}

bool dcsim_lockdep_enabled(void)
{
	return enabled();
}

void dcsim_lockdep_print(FILE *f)
{
	char a[64], b[64];

	pthread_mutex_lock(&ld_mutex);
	fprintf(f, "dcsim-lockdep: real threads, %s: %u classes, %lu edges\n",
		ld.named ? ld.what : "outside any scope", ld.nnodes, ld.nedges);
	for (unsigned int i = 0; i < ld.nnodes; i++)
		for (unsigned int j = 0; j < ld.nnodes; j++)
			if (ld.known[i] & (1ull << j))
				fprintf(f, "dcsim-lockdep:   %s -> %s (%s:%d, then %s:%d)\n",
					node_name((int)i, a, sizeof(a)), node_name((int)j, b, sizeof(b)),
					fn(&ld.edge[i][j].held), ld.edge[i][j].held.line,
					fn(&ld.edge[i][j].taken), ld.edge[i][j].taken.line);
	pthread_mutex_unlock(&ld_mutex);
}
