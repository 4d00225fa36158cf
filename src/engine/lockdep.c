// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The lock order validator: the kernel's lockdep (kernel/locking/
 * lockdep.c), reduced to spinlocks and run inside the explorer.
 *
 * Every lock operation of a logical thread reaches dcsim_spin_note()
 * (<dcsim/spinlock.h>, strict.c), which passes it here with the caller's
 * function and line and the lockdep subclass.  A lock is validated if the
 * explored code registered its class (<dcsim/lockdep.h>); the node of the
 * graph is (class, subclass).  For each logical thread we keep the stack
 * of validated locks it holds, with where each was taken.
 *
 * When a thread is about to wait for a lock of node B (a blocking
 * acquisition: checked before it waits, as lockdep does, so that the
 * execution in which the deadlock really happens is explained too), each
 * held lock's node A gets an acquired-before edge A -> B, remembered with
 * both sites and the execution that first made it.  A new edge that
 * closes a path B -> ... -> A is a possible circular locking dependency; a
 * held lock of node B itself is possible recursive locking.  Either fails
 * the execution (the first failure message wins) and leaves a report that
 * report_failure() prints: both chains, each edge with its two sites, and
 * where the older chain came from.
 *
 * A trylock cannot deadlock (it does not wait), so, as in lockdep, it adds
 * no edge to the lock it takes; edges from a lock taken by trylock to
 * locks taken while holding it are added as from any other.  Trylocks are
 * counted per (held, taken) pair for dcsim_explore_lockdep_print().
 *
 * The graph lives for one dcsim_explore_run() (every execution of one
 * scenario): an order taken in execution 3 and its inverse in execution
 * 900 are a cycle, although no execution deadlocked.  Orders of different
 * runs are never compared (another run may be another strategy, whose
 * locking nobody combines with this one).  Class registrations live for
 * one execution: its setup builds (and registers) what it locks.
 *
 * Not seen: locks taken inside a simulated transaction (an abort rolls
 * them back; strict.c ignores them too), locks taken by the controller
 * (setup, check), locks never registered, and more than LD_NODES_MAX
 * nodes or LD_HELD_MAX validated locks held at once (counted, never
 * guessed at).
 *
 * Ordering: called by the logical thread holding the baton (one runs at a
 * time, so the tables need no lock of their own), or by the controller
 * between executions; a failure is recorded under ex->lock.
 */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <dcsim/describe.h>
#include <dcsim/explore.h>
#include <dcsim/lockdep.h>
#include <dcsim/spinlock.h>

#include "internal.h"

#define LD_NODES_MAX	64
#define LD_HELD_MAX	16
#define LD_RANGES_MAX	32
#define LD_REPORT_MAX	4096

struct ld_site {
	const char *func;
	int line;
};

struct ld_node {
	const struct dcsim_lock_class *cls;
	unsigned int sub;
};

/* A -> B: B taken (or waited for) while A was held. */
struct ld_edge {
	bool set;
	unsigned int tid;
	struct ld_site held;		/* where A was taken */
	struct ld_site taken;		/* where B was taken */
	unsigned long exec_no;		/* the execution that first made it */
	uint64_t seed;
};

/* A trylock of B that succeeded while A was held: no edge, a count. */
struct ld_try {
	unsigned long count;
	struct ld_site held, taken;
};

struct ld_held {
	const void *lock;
	int node;
	bool trylock;
	struct ld_site site;
};

struct ld_map_ent {
	uintptr_t addr;
	const struct dcsim_lock_class *cls;
};

struct ld_range {
	uintptr_t first;
	size_t n, stride;
	const struct dcsim_lock_class *cls;
};

static struct {
	/* classes of this execution: an open-addressed map and a few arrays */
	struct ld_map_ent *map;
	size_t map_cap, map_n;
	struct ld_range ranges[LD_RANGES_MAX];
	unsigned int nranges;
	unsigned long ranges_lost;
	/* the graph of this run */
	struct ld_node nodes[LD_NODES_MAX];
	unsigned int nnodes;
	unsigned long nodes_lost;
	struct ld_edge edge[LD_NODES_MAX][LD_NODES_MAX];
	struct ld_try tries[LD_NODES_MAX][LD_NODES_MAX];
	unsigned long nedges, acquisitions, trylocks;
	/* per logical thread: held validated locks; the lock its WAITING checked */
	struct ld_held held[DCSIM_EXPLORE_MAX_THREADS][LD_HELD_MAX];
	unsigned int nheld[DCSIM_EXPLORE_MAX_THREADS];
	unsigned long held_lost;
	const void *checked[DCSIM_EXPLORE_MAX_THREADS];
	/* the report of this execution's failure, if the validator made it */
	bool reported;
	char report[LD_REPORT_MAX];
	size_t rlen;
} ld;

/* ---- classes ---- */

static size_t map_slot(uintptr_t a, size_t cap)
{
	uint64_t h = (uint64_t)a * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20) & (cap - 1);
}

static void map_put(uintptr_t a, const struct dcsim_lock_class *cls)
{
	size_t i;

	if (ld.map_n * 2 >= ld.map_cap) {
		struct ld_map_ent *old = ld.map;
		size_t ocap = ld.map_cap;

		ld.map_cap = ocap ? ocap * 2 : 1024;
		ld.map = xrealloc(NULL, ld.map_cap * sizeof(*ld.map));
		memset(ld.map, 0, ld.map_cap * sizeof(*ld.map));
		ld.map_n = 0;
		for (size_t j = 0; j < ocap; j++)
			if (old[j].addr)
				map_put(old[j].addr, old[j].cls);
		free(old);
	}
	for (i = map_slot(a, ld.map_cap); ld.map[i].addr && ld.map[i].addr != a;
	     i = (i + 1) & (ld.map_cap - 1))
		;
	if (!ld.map[i].addr)
		ld.map_n++;
	ld.map[i].addr = a;
	ld.map[i].cls = cls;
}

static const struct dcsim_lock_class *class_of(const void *lock)
{
	uintptr_t a = (uintptr_t)lock;

	if (ld.map_n) {
		for (size_t i = map_slot(a, ld.map_cap); ld.map[i].addr;
		     i = (i + 1) & (ld.map_cap - 1))
			if (ld.map[i].addr == a)
				return ld.map[i].cls;
	}
	for (unsigned int i = ld.nranges; i-- > 0;) {
		const struct ld_range *r = &ld.ranges[i];

		if (a >= r->first && a < r->first + r->n * r->stride &&
		    (a - r->first) % r->stride == 0)
			return r->cls;
	}
	return NULL;
}

/* Only the controller (setup) or the baton holder registers: one at a time. */
static bool may_register(struct explorer *ex)
{
	return dcsim_explore_running() && (explore_lt || ex->current == CTL);
}

/* The lock_set_class hook: dcsim_lock_set_class() of the primitives calls it. */
void lockdep_set_class(const void *lock, const struct dcsim_lock_class *cls)
{
	struct explorer *ex = explore_ctx();
	if (!dcsim_explore_running()) {
		lockdep_threads_set_class(lock, cls);
		return;
	}
	if (!lock || !may_register(ex))
		return;
	map_put((uintptr_t)lock, cls);
}

/* The lock_set_class_array hook. */
void lockdep_set_class_array(const void *first, size_t n, size_t stride,
				const struct dcsim_lock_class *cls)
{
	struct explorer *ex = explore_ctx();
	if (!dcsim_explore_running()) {
		lockdep_threads_set_class_array(first, n, stride, cls);
		return;
	}
	if (!first || !n || !stride || !may_register(ex))
		return;
	if (ld.nranges == LD_RANGES_MAX) {
		ld.ranges_lost++;
		return;
	}
	ld.ranges[ld.nranges++] = (struct ld_range){ (uintptr_t)first, n, stride, cls };
}

/* The node of (cls, sub), made on first use; -1 if the table is full. */
static int node_of(const struct dcsim_lock_class *cls, unsigned int sub)
{
	for (unsigned int i = 0; i < ld.nnodes; i++)
		if (ld.nodes[i].cls == cls && ld.nodes[i].sub == sub)
			return (int)i;
	if (ld.nnodes == LD_NODES_MAX) {
		ld.nodes_lost++;
		return -1;
	}
	ld.nodes[ld.nnodes] = (struct ld_node){ cls, sub };
	return (int)ld.nnodes++;
}

/* "d_lock" or "d_lock/1" */
static const char *node_name(int n, char *buf, size_t len)
{
	const struct ld_node *nd = &ld.nodes[n];
	const char *name = nd->cls->name ? nd->cls->name : "?";

	if (nd->sub)
		snprintf(buf, len, "%s/%u", name, nd->sub);
	else
		snprintf(buf, len, "%s", name);
	return buf;
}

/* ---- the report ---- */

static void rep(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void rep(const char *fmt, ...)
{
	va_list ap;

	if (ld.rlen >= sizeof(ld.report))
		return;
	va_start(ap, fmt);
	ld.rlen += (size_t)vsnprintf(ld.report + ld.rlen, sizeof(ld.report) - ld.rlen, fmt, ap);
	va_end(ap);
	if (ld.rlen >= sizeof(ld.report))
		ld.rlen = sizeof(ld.report) - 1;
}

static const char *fn(const struct ld_site *s)
{
	return s->func ? s->func : "?";
}

/* Record the failure (its first-line summary) unless one was recorded already. */
static void fail_with(struct explorer *ex, const char *summary)
{
	pthread_mutex_lock(&ex->lock);
	if (!ex->failed) {
		fail_lockedf(ex, "%s", summary);
		ld.reported = true;
	}
	pthread_mutex_unlock(&ex->lock);
}

static void report_recursive(struct explorer *ex, struct lthread *lt, const struct ld_held *h,
			     int node, const void *lock, const struct ld_site *site)
{
	char a[64], what[160], what2[160], sum[512];

	if (ex->failed)
		return;
	node_name(node, a, sizeof(a));
	describe_addr((uintptr_t)lock, 4, what, sizeof(what));
	describe_addr((uintptr_t)h->lock, 4, what2, sizeof(what2));
	ld.rlen = 0;
	rep("dcsim-lockdep: WARNING: possible recursive locking detected\n");
	rep("dcsim-lockdep: T%u is trying to acquire %s %s at %s:%d\n", lt->id, a,
	    *what ? what : "", fn(site), site->line);
	rep("dcsim-lockdep: but T%u already holds %s %s, taken at %s:%d%s\n", lt->id, a,
	    *what2 ? what2 : "", fn(&h->site), h->site.line, h->trylock ? " (trylock)" : "");
	rep("dcsim-lockdep: two locks of one class nest only with a subclass "
	    "(dcsim_spin_lock_nested(), the kernel's spin_lock_nested())\n");
	snprintf(sum, sizeof(sum), "possible recursive locking: T%u takes %s at %s:%d while "
		 "holding %s taken at %s:%d", lt->id, a, fn(site), site->line, a,
		 fn(&h->site), h->site.line);
	fail_with(ex, sum);
}

/* Breadth-first search for a path @from -> ... -> @to; its nodes into @path. */
static unsigned int find_path(int from, int to, int *path)
{
	int prev[LD_NODES_MAX], queue[LD_NODES_MAX];
	unsigned int qh = 0, qt = 0, n = 0;

	for (unsigned int i = 0; i < LD_NODES_MAX; i++)
		prev[i] = -2;
	prev[from] = -1;
	queue[qt++] = from;
	while (qh < qt) {
		int u = queue[qh++];

		if (u == to) {
			int rev[LD_NODES_MAX];

			for (int v = to; v >= 0; v = prev[v])
				rev[n++] = v;
			for (unsigned int i = 0; i < n; i++)
				path[i] = rev[n - 1 - i];
			return n;
		}
		for (unsigned int v = 0; v < ld.nnodes; v++) {
			if (ld.edge[u][v].set && prev[v] == -2) {
				prev[v] = u;
				queue[qt++] = (int)v;
			}
		}
	}
	return 0;
}

/*
 * T holds @h (node A) and takes node B at @site; the graph already has
 * B -> ... -> A along @path (@n nodes, path[0] == B, path[n-1] == A).
 */
static void report_cycle(struct explorer *ex, struct lthread *lt, const struct ld_held *h, int b,
			 const void *lock, const struct ld_site *site, const int *path,
			 unsigned int n)
{
	char an[64], bn[64], what[160], sum[512];
	size_t off;
	const struct ld_edge *first = &ld.edge[path[0]][path[1]];

	if (ex->failed)
		return;
	node_name(h->node, an, sizeof(an));
	node_name(b, bn, sizeof(bn));
	describe_addr((uintptr_t)lock, 4, what, sizeof(what));
	ld.rlen = 0;
	rep("dcsim-lockdep: WARNING: possible circular locking dependency detected\n");
	rep("dcsim-lockdep: T%u is trying to acquire %s%s%s at %s:%d\n", lt->id, bn,
	    *what ? " " : "", what, fn(site), site->line);
	rep("dcsim-lockdep: but T%u already holds %s, taken at %s:%d%s\n", lt->id, an,
	    fn(&h->site), h->site.line, h->trylock ? " (trylock)" : "");
	rep("dcsim-lockdep: which lock already depends on the new lock.\n");
	rep("dcsim-lockdep: chain 1, the new dependency (this execution, T%u):\n", lt->id);
	rep("dcsim-lockdep:   %s taken at %s:%d\n", an, fn(&h->site), h->site.line);
	rep("dcsim-lockdep:   -> %s taken at %s:%d\n", bn, fn(site), site->line);
	rep("dcsim-lockdep: chain 2, the existing dependency:\n");
	for (unsigned int i = 0; i + 1 < n; i++) {
		const struct ld_edge *e = &ld.edge[path[i]][path[i + 1]];
		char x[64], y[64];

		rep("dcsim-lockdep:   %s taken at %s:%d\n", node_name(path[i], x, sizeof(x)),
		    fn(&e->held), e->held.line);
		rep("dcsim-lockdep:   -> %s taken at %s:%d (T%u, execution %lu, seed %#" PRIx64 ")\n",
		    node_name(path[i + 1], y, sizeof(y)), fn(&e->taken), e->taken.line, e->tid,
		    e->exec_no, e->seed);
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
	if (first->exec_no != ex->exec_no)
		rep("dcsim-lockdep: chain 2 was first seen in execution %lu: replay it with "
		    "DCSIM_EXPLORE_SCENARIO='%s' DCSIM_EXPLORE_MODE=%s DCSIM_EXPLORE_SEED=%#" PRIx64
		    "; the replay below (this execution) shows chain 1\n", first->exec_no,
		    ex->sc->name, dcsim_explore_mode_name(ex->o.mode), first->seed);

	off = (size_t)snprintf(sum, sizeof(sum), "possible circular locking dependency: T%u takes "
			       "%s at %s:%d holding %s (taken at %s:%d); existing chain:",
			       lt->id, bn, fn(site), site->line, an, fn(&h->site), h->site.line);
	for (unsigned int i = 0; i + 1 < n && off < sizeof(sum); i++) {
		const struct ld_edge *e = &ld.edge[path[i]][path[i + 1]];
		char x[64], y[64];

		off += (size_t)snprintf(sum + off, sizeof(sum) - off, " %s (taken at %s:%d) -> %s at %s:%d%s",
					node_name(path[i], x, sizeof(x)), fn(&e->held), e->held.line,
					node_name(path[i + 1], y, sizeof(y)), fn(&e->taken),
					e->taken.line, i + 2 < n ? ";" : "");
	}
	if (first->exec_no != ex->exec_no && off < sizeof(sum))
		snprintf(sum + off, sizeof(sum) - off, " (execution %lu, seed %#" PRIx64 ")",
			 first->exec_no, first->seed);
	fail_with(ex, sum);
}

/* @lt, holding what ld.held says, is about to take (or wait for) node @b. */
static void check_and_add(struct explorer *ex, struct lthread *lt, int b, const void *lock,
			  const struct ld_site *site)
{
	unsigned int tid = lt->id;

	for (unsigned int i = 0; i < ld.nheld[tid]; i++) {
		const struct ld_held *h = &ld.held[tid][i];
		struct ld_edge *e;
		int path[LD_NODES_MAX];
		unsigned int n;

		if (h->node == b) {
			report_recursive(ex, lt, h, b, lock, site);
			continue;
		}
		e = &ld.edge[h->node][b];
		if (e->set)
			continue;
		n = find_path(b, h->node, path);
		if (n)
			report_cycle(ex, lt, h, b, lock, site, path, n);
		*e = (struct ld_edge){ .set = true, .tid = tid, .held = h->site, .taken = *site,
				       .exec_no = ex->exec_no, .seed = ex->exec_seed };
		ld.nedges++;
	}
}

static void push(unsigned int tid, const void *lock, int node, bool trylock,
		 const struct ld_site *site)
{
	if (ld.nheld[tid] == LD_HELD_MAX) {
		ld.held_lost++;
		return;
	}
	ld.held[tid][ld.nheld[tid]++] = (struct ld_held){ lock, node, trylock, *site };
}

void lockdep_note(struct explorer *ex, struct lthread *lt, enum dcsim_spin_event ev,
		  const void *lock, unsigned int subclass, const char *func, int line)
{
	unsigned int tid = lt->id;
	struct ld_site site = { func, line };
	const struct dcsim_lock_class *cls;
	int node;

	if (ev == DCSIM_SPIN_RELEASED || ev == DCSIM_SPIN_ANNOTATE_RELEASE) {
		/* The most recent hold of @lock: locks need not be released in order. */
		for (unsigned int i = ld.nheld[tid]; i-- > 0;) {
			if (ld.held[tid][i].lock == lock) {
				memmove(&ld.held[tid][i], &ld.held[tid][i + 1],
					(ld.nheld[tid] - i - 1) * sizeof(ld.held[tid][0]));
				ld.nheld[tid]--;
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
		check_and_add(ex, lt, node, lock, &site);
		ld.checked[tid] = lock;
		break;
	case DCSIM_SPIN_ANNOTATE_ACQUIRE:
		check_and_add(ex, lt, node, lock, &site);
		push(tid, lock, node, false, &site);
		break;
	case DCSIM_SPIN_ACQUIRED:
		ld.acquisitions++;
		if (ld.checked[tid] != lock)
			check_and_add(ex, lt, node, lock, &site);
		ld.checked[tid] = NULL;
		push(tid, lock, node, false, &site);
		break;
	case DCSIM_SPIN_ANNOTATE_TRYACQUIRE:
		push(tid, lock, node, true, &site);
		break;
	case DCSIM_SPIN_TRYLOCKED:
		ld.trylocks++;
		for (unsigned int i = 0; i < ld.nheld[tid]; i++) {
			struct ld_try *t = &ld.tries[ld.held[tid][i].node][node];

			if (!t->count++) {
				t->held = ld.held[tid][i].site;
				t->taken = site;
			}
		}
		push(tid, lock, node, true, &site);
		break;
	default:
		break;
	}
}

/* ---- the explorer's calls ---- */

void lockdep_run_begin(void)
{
	ld.nnodes = 0;
	ld.nodes_lost = ld.held_lost = ld.ranges_lost = 0;
	memset(ld.edge, 0, sizeof(ld.edge));
	memset(ld.tries, 0, sizeof(ld.tries));
	ld.nedges = ld.acquisitions = ld.trylocks = 0;
}

void lockdep_exec_begin(void)
{
	if (ld.map)
		memset(ld.map, 0, ld.map_cap * sizeof(*ld.map));
	ld.map_n = 0;
	ld.nranges = 0;
	memset(ld.nheld, 0, sizeof(ld.nheld));
	memset(ld.checked, 0, sizeof(ld.checked));
	ld.reported = false;
	ld.rlen = 0;
}

void lockdep_report(FILE *f)
{
	if (ld.reported && ld.rlen)
		fputs(ld.report, f);
}

void lockdep_counts(struct dcsim_explore_result *r)
{
	r->lock_edges = ld.nedges;
	r->lock_acquisitions = ld.acquisitions;
	r->lock_trylocks = ld.trylocks;
}

/* ---- the graph, for people ---- */

void dcsim_explore_lockdep_print(FILE *f)
{
	char a[64], b[64];

	fprintf(f, "dcsim-lockdep: %u classes, %lu edges, %lu acquisitions, %lu trylocks",
		ld.nnodes, ld.nedges, ld.acquisitions, ld.trylocks);
	if (ld.nodes_lost || ld.held_lost || ld.ranges_lost)
		fprintf(f, " (not validated: %lu over the class table, %lu over the held stack, "
			"%lu over the array table)", ld.nodes_lost, ld.held_lost, ld.ranges_lost);
	fputc('\n', f);
	for (unsigned int i = 0; i < ld.nnodes; i++) {
		for (unsigned int j = 0; j < ld.nnodes; j++) {
			const struct ld_edge *e = &ld.edge[i][j];
			const struct ld_try *t = &ld.tries[i][j];

			if (e->set)
				fprintf(f, "dcsim-lockdep:   %s -> %s (%s:%d, then %s:%d)\n",
					node_name((int)i, a, sizeof(a)), node_name((int)j, b, sizeof(b)),
					fn(&e->held), e->held.line, fn(&e->taken), e->taken.line);
			if (t->count)
				fprintf(f, "dcsim-lockdep:   %s -> %s trylock only, %lu times (%s:%d, "
					"then %s:%d)\n", node_name((int)i, a, sizeof(a)),
					node_name((int)j, b, sizeof(b)), t->count, fn(&t->held),
					t->held.line, fn(&t->taken), t->taken.line);
		}
	}
}
