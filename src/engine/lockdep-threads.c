// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The lock order validator on real threads: the front end of
 * lockdep-core.c for code that runs outside an exploration, on threads
 * the OS schedules: the stress suite, the differential suite's traces,
 * any program linked with the instrumented library.
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
 * What is this front end's own:
 *  - each thread's stack of held validated locks is thread-local
 *    (nobody else reads it but its counts); threads are numbered 1, 2,
 *    ... in the order of their first lock;
 *  - the graph and the classes are shared: ld_mutex serialises their
 *    changes (a new edge, the path search, the report, a new node or
 *    class), and the core reads known edges and classes without it, so
 *    the hot path of a lock whose order was seen before is a hash probe,
 *    a scan of a few nodes and one load per held lock;
 *  - a report is printed (the first LT_PRINT_MAX of a scope) with the
 *    scope and the command its suite gave to reproduce it, since there is
 *    no replay outside the explorer (the OS schedules), and counted; a
 *    recursion is reported once per node and scope.  A report is printed
 *    when the check runs, before the thread waits, so a real deadlock
 *    that follows is already explained.
 * Counts are per thread (only the owner writes them; relaxed stores, so
 * that dcsim_lockdep_end() may read them) and summed at the end.
 *
 * Not seen: what the core cannot hold (counted), plus: locks held across
 * a scope boundary, and orders of different scopes, which are never
 * combined (another scope may be another strategy).
 * DCSIM_LOCKDEP_THREADS=off switches it off (to measure its cost).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <dcsim/explore.h>
#include <dcsim/lockdep.h>
#include <dcsim/spinlock.h>

#include "internal.h"
#include "lockdep-core.h"

#define LT_PRINT_MAX	8	/* full reports printed per scope; the rest counted */

/* One thread's state: its own, except the counts that the scope's end reads. */
struct lt_thread {
	struct ld_stack stack;		/* stack.id: 1, 2, ... in order of first lock */
	long tid;			/* the OS's */
	unsigned int gen;		/* scope it last ran in */
	struct lt_thread *next;		/* ld.threads, under ld_mutex */
};

static pthread_mutex_t ld_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t ld_key;
static pthread_once_t ld_once = PTHREAD_ONCE_INIT;
static __thread struct lt_thread *ld_me __attribute__((tls_model("initial-exec")));

static const struct ld_ops threads_ops;

static struct {
	int enabled;			/* -1 not read yet, 0 off, 1 on */
	unsigned int gen;		/* scope number: a thread's state of another is stale */
	/* the scope */
	char what[256], reproduce[512];
	FILE *out;
	bool named;
	struct ld_classes classes;
	struct ld_graph graph;
	char first[512];
	/* the report being written (under ld_mutex) */
	char rbuf[LD_REPORT_MAX];
	struct ld_text text;
	/* threads */
	struct lt_thread *threads;
	unsigned int next_id;
	unsigned long dead_acq, dead_try, dead_lost;	/* of threads that exited */
} ld = {
	.enabled = -1,
	.classes = { .mutex = &ld_mutex, .first_cap = 4096 },
	.graph = { .mutex = &ld_mutex, .classes = &ld.classes, .ops = &threads_ops,
		   .recursion_once = true },
	.text = { ld.rbuf, sizeof(ld.rbuf), 0 },
};

static __attribute__((noinline, cold)) int read_enabled(void)
{
	const char *env = getenv("DCSIM_LOCKDEP_THREADS");
	int e = !(env && (!strcmp(env, "off") || !strcmp(env, "0")));

	__atomic_store_n(&ld.enabled, e, __ATOMIC_RELAXED);
	return e;
}

/* On every lock event: one load once the environment was read. */
static inline bool enabled(void)
{
	int e = __atomic_load_n(&ld.enabled, __ATOMIC_RELAXED);

	if (dcsim_unlikely(e < 0))
		e = read_enabled();
	return e;
}

/* ---- threads ---- */

static void fold_counts(const struct lt_thread *t)
{
	if (t->gen != ld.gen)
		return;
	ld.dead_acq += __atomic_load_n(&t->stack.acquisitions, __ATOMIC_RELAXED);
	ld.dead_try += __atomic_load_n(&t->stack.trylocks, __ATOMIC_RELAXED);
	ld.dead_lost += __atomic_load_n(&t->stack.lost, __ATOMIC_RELAXED);
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
		t->stack.graph = &ld.graph;
		pthread_mutex_lock(&ld_mutex);
		t->stack.id = ++ld.next_id;
		t->gen = ld.gen;
		t->next = ld.threads;
		ld.threads = t;
		pthread_mutex_unlock(&ld_mutex);
		pthread_setspecific(ld_key, t);
		ld_me = t;
	}
	if (dcsim_unlikely(t->gen != gen)) {
		/* Scopes change while no lock is held: nothing to carry over. */
		ld_stack_clear(&t->stack);
		t->gen = gen;
		__atomic_store_n(&t->stack.acquisitions, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&t->stack.trylocks, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&t->stack.lost, 0, __ATOMIC_RELAXED);
	}
	return t;
}

/* ---- classes ---- */

void lockdep_threads_set_class(const void *lock, const struct dcsim_lock_class *cls)
{
	if (!lock || !enabled())
		return;
	ld_set_class(&ld.classes, lock, cls);
}

void lockdep_threads_set_class_array(const void *first, size_t n, size_t stride,
				     const struct dcsim_lock_class *cls)
{
	if (!first || !n || !stride || !enabled())
		return;
	ld_set_class_array(&ld.classes, first, n, stride, cls);
}

/* ---- how a report ends here (under ld_mutex) ---- */

static struct ld_text *threads_begin(struct ld_graph *g, const struct ld_stack *s,
				     struct ld_who *who, const void *lock, const void *held_lock)
{
	const struct lt_thread *t = (const struct lt_thread *)((const char *)s -
							       offsetof(struct lt_thread, stack));

	(void)g;
	(void)lock;
	(void)held_lock;
	snprintf(who->name, sizeof(who->name), "thread %u", s->id);
	snprintf(who->first, sizeof(who->first), "thread %u (tid %ld)", s->id, t->tid);
	snprintf(who->holder, sizeof(who->holder), "it");
	snprintf(who->chain1, sizeof(who->chain1), "thread %u", s->id);
	return &ld.text;
}

static void threads_origin(struct ld_graph *g, struct ld_text *t, const struct ld_edge *e,
			   bool summary)
{
	(void)g;
	(void)summary;
	ld_printf(t, " (thread %u)", e->thread);
}

/* The scope and how to reproduce it, then the report out, if it is printed. */
static void threads_end(struct ld_graph *g, const struct ld_stack *s, struct ld_text *report,
			struct ld_text *summary, const struct ld_edge *first)
{
	/* Outside a suite's scope, to stderr, as the kernel's lockdep prints to its log. */
	FILE *out = ld.named ? ld.out : stderr;

	(void)s;
	(void)first;
	if (!ld.first[0])
		snprintf(ld.first, sizeof(ld.first), "%s", summary->buf);
	ld_printf(report, "dcsim-lockdep: seen in %s (real threads: no replay; the OS schedules)\n",
		  ld.named ? ld.what : "this process, outside any suite's scope");
	if (ld.reproduce[0])
		ld_printf(report, "dcsim-lockdep: reproduce: %s (may need a few runs)\n",
			  ld.reproduce);
	if (out && g->cycles + g->recursions <= LT_PRINT_MAX) {
		fputs(report->buf, out);
		fflush(out);
	}
	report->len = 0;
}

static const struct ld_ops threads_ops = {
	.begin	= threads_begin,
	.origin	= threads_origin,
	.end	= threads_end,
};

void lockdep_threads_note(enum dcsim_spin_event ev, const void *lock, unsigned int subclass,
			  const char *func, int line)
{
	struct lt_thread *t;

	/* An exploration validates its own threads and ignores its controller's locks. */
	if (!enabled() || explore_running())
		return;
	t = me();
	if (dcsim_unlikely(!t))
		return;
	ld_note(&t->stack, ev, lock, subclass, func, line);
}

/* ---- scopes ---- */

/* Under ld_mutex, with no other thread taking validated locks: an empty scope. */
static void __scope_reset(void)
{
	__ld_classes_clear(&ld.classes);
	ld.classes.ranges_lost = ld.classes.map_lost = 0;
	__ld_graph_clear(&ld.graph);
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
	c->not_validated = ld.dead_lost + ld.graph.nodes_lost + ld.classes.ranges_lost +
			   ld.classes.map_lost;
	for (const struct lt_thread *t = ld.threads; t; t = t->next) {
		if (t->gen != ld.gen)
			continue;
		c->acquisitions += __atomic_load_n(&t->stack.acquisitions, __ATOMIC_RELAXED);
		c->trylocks += __atomic_load_n(&t->stack.trylocks, __ATOMIC_RELAXED);
		c->not_validated += __atomic_load_n(&t->stack.lost, __ATOMIC_RELAXED);
	}
	c->edges = ld.graph.nedges;
	c->cycles = ld.graph.cycles;
	c->recursions = ld.graph.recursions;
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
	n = ld.graph.cycles + ld.graph.recursions;
	pthread_mutex_unlock(&ld_mutex);
	return n;
}

bool dcsim_lockdep_enabled(void)
{
	return enabled();
}

void dcsim_lockdep_print(FILE *f)
{
	pthread_mutex_lock(&ld_mutex);
	fprintf(f, "dcsim-lockdep: real threads, %s: %u classes, %lu edges\n",
		ld.named ? ld.what : "outside any scope", ld.graph.nnodes, ld.graph.nedges);
	for (unsigned int i = 0; i < ld.graph.nnodes; i++)
		for (unsigned int j = 0; j < ld.graph.nnodes; j++)
			ld_print_edge(&ld.graph, f, i, j);
	pthread_mutex_unlock(&ld_mutex);
}
