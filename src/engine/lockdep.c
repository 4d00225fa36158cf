// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The lock order validator inside the explorer: the front end of
 * lockdep-core.c for logical threads.
 *
 * Every lock operation of a logical thread reaches dcsim_spin_note()
 * (<dcsim/spinlock.h>, strict.c), which passes it here with the caller's
 * function and line and the lockdep subclass; the core records its
 * acquired-before edges and finds cycles (lockdep-core.c says how).  What
 * is the explorer's own:
 *  - each logical thread's stack of held validated locks lives here,
 *    one per thread id, cleared when an execution begins;
 *  - the graph needs no lock: only the baton holder (or the controller,
 *    between executions) calls in;
 *  - a report fails the execution (the first failure message wins) and
 *    is kept for report_failure(), which prints it before the replay
 *    line; an edge remembers the execution and seed that first made it,
 *    so a chain 2 from an older execution comes with its own replay;
 *  - trylocks are counted per (held, taken) pair for
 *    dcsim_explore_lockdep_print().
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
 * (setup, check), and what the core cannot hold (counted).
 *
 * Ordering: called by the logical thread holding the baton (one runs at a
 * time, so the tables need no lock of their own), or by the controller
 * between executions; a failure is recorded under ex->lock.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <dcsim/describe.h>
#include <dcsim/explore.h>
#include <dcsim/lockdep.h>
#include <dcsim/spinlock.h>

#include "internal.h"
#include "lockdep-core.h"

/* A trylock of B that succeeded while A was held: no edge, a count. */
struct ld_try {
	unsigned long count;
	struct ld_site held, taken;
};

static const struct ld_ops explore_ops;

static struct {
	struct ld_classes classes;			/* of this execution */
	struct ld_graph graph;				/* of this run */
	struct ld_try tries[LD_NODES_MAX][LD_NODES_MAX];
	struct ld_stack stack[DCSIM_EXPLORE_MAX_THREADS];	/* per logical thread */
	/* the report of this execution's failure, if the validator made it */
	bool reported;
	char report[LD_REPORT_MAX];
	struct ld_text text;
} ld = {
	.classes = { .first_cap = 1024 },
	.graph = { .classes = &ld.classes, .ops = &explore_ops },
	.text = { ld.report, sizeof(ld.report), 0 },
};

/* ---- classes ---- */

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
	ld_set_class(&ld.classes, lock, cls);
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
	ld_set_class_array(&ld.classes, first, n, stride, cls);
}

/* ---- how a report ends here ---- */

static struct ld_text *explore_begin(struct ld_graph *g, const struct ld_stack *s,
				     struct ld_who *who, const void *lock, const void *held_lock)
{
	struct explorer *ex = g->ctx;

	/* The first failure of an execution is the one reported. */
	if (ex->failed)
		return NULL;
	snprintf(who->name, sizeof(who->name), "T%u", s->id);
	snprintf(who->first, sizeof(who->first), "T%u", s->id);
	snprintf(who->holder, sizeof(who->holder), "T%u", s->id);
	snprintf(who->chain1, sizeof(who->chain1), "this execution, T%u", s->id);
	describe_addr((uintptr_t)lock, 4, who->lock, sizeof(who->lock));
	if (held_lock)
		describe_addr((uintptr_t)held_lock, 4, who->held, sizeof(who->held));
	return &ld.text;
}

static void explore_origin(struct ld_graph *g, struct ld_text *t, const struct ld_edge *e,
			   bool summary)
{
	(void)g;
	if (!summary)
		ld_printf(t, " (T%u, execution %lu, seed %#" PRIx64 ")", e->thread, e->exec_no,
			  e->seed);
}

/* Record the failure (its first-line summary) unless one was recorded already. */
static void explore_end(struct ld_graph *g, const struct ld_stack *s, struct ld_text *report,
			struct ld_text *summary, const struct ld_edge *first)
{
	struct explorer *ex = g->ctx;

	(void)s;
	if (first && first->exec_no != ex->exec_no) {
		ld_printf(report, "dcsim-lockdep: chain 2 was first seen in execution %lu: replay "
			  "it with DCSIM_EXPLORE_SCENARIO='%s' DCSIM_EXPLORE_MODE=%s "
			  "DCSIM_EXPLORE_SEED=%#" PRIx64 "; the replay below (this execution) "
			  "shows chain 1\n", first->exec_no, ex->sc->name,
			  dcsim_explore_mode_name(ex->o.mode), first->seed);
		ld_printf(summary, " (execution %lu, seed %#" PRIx64 ")", first->exec_no,
			  first->seed);
	}
	pthread_mutex_lock(&ex->lock);
	if (!ex->failed) {
		fail_lockedf(ex, "%s", summary->buf);
		ld.reported = true;
	}
	pthread_mutex_unlock(&ex->lock);
}

static void explore_trylocked(struct ld_graph *g, const struct ld_stack *s, int node,
			      const struct ld_site *site)
{
	(void)g;
	for (unsigned int i = 0; i < s->n; i++) {
		struct ld_try *t = &ld.tries[s->held[i].node][node];

		if (!t->count++) {
			t->held = s->held[i].site;
			t->taken = *site;
		}
	}
}

static const struct ld_ops explore_ops = {
	.begin		= explore_begin,
	.origin		= explore_origin,
	.end		= explore_end,
	.trylocked	= explore_trylocked,
};

void lockdep_note(struct explorer *ex, struct lthread *lt, enum dcsim_spin_event ev,
		  const void *lock, unsigned int subclass, const char *func, int line)
{
	(void)ex;
	ld_note(&ld.stack[lt->id], ev, lock, subclass, func, line);
}

/* ---- the explorer's calls ---- */

void lockdep_run_begin(void)
{
	__ld_graph_clear(&ld.graph);
	ld.graph.ctx = explore_ctx();
	ld.classes.ranges_lost = ld.classes.map_lost = 0;
	memset(ld.tries, 0, sizeof(ld.tries));
	for (unsigned int i = 0; i < DCSIM_EXPLORE_MAX_THREADS; i++) {
		ld.stack[i].graph = &ld.graph;
		ld.stack[i].id = i;
		ld.stack[i].acquisitions = ld.stack[i].trylocks = ld.stack[i].lost = 0;
	}
}

void lockdep_exec_begin(void)
{
	struct explorer *ex = explore_ctx();

	__ld_classes_clear(&ld.classes);
	for (unsigned int i = 0; i < DCSIM_EXPLORE_MAX_THREADS; i++)
		ld_stack_clear(&ld.stack[i]);
	/* New edges remember this execution, for chain 2's replay line. */
	ld.graph.exec_no = ex->exec_no;
	ld.graph.seed = ex->exec_seed;
	ld.reported = false;
	ld.text.len = 0;
}

void lockdep_report(FILE *f)
{
	if (ld.reported && ld.text.len)
		fputs(ld.report, f);
}

static void sum_counts(unsigned long *acq, unsigned long *tries, unsigned long *lost)
{
	*acq = *tries = *lost = 0;
	for (unsigned int i = 0; i < DCSIM_EXPLORE_MAX_THREADS; i++) {
		*acq += ld.stack[i].acquisitions;
		*tries += ld.stack[i].trylocks;
		*lost += ld.stack[i].lost;
	}
}

void lockdep_counts(struct dcsim_explore_result *r)
{
	unsigned long lost;

	r->lock_edges = ld.graph.nedges;
	sum_counts(&r->lock_acquisitions, &r->lock_trylocks, &lost);
}

/* ---- the graph, for people ---- */

void dcsim_explore_lockdep_print(FILE *f)
{
	const struct ld_graph *g = &ld.graph;
	unsigned long acq, tries, held_lost;
	char a[64], b[64];

	sum_counts(&acq, &tries, &held_lost);
	fprintf(f, "dcsim-lockdep: %u classes, %lu edges, %lu acquisitions, %lu trylocks",
		g->nnodes, g->nedges, acq, tries);
	if (g->nodes_lost || held_lost || ld.classes.ranges_lost)
		fprintf(f, " (not validated: %lu over the class table, %lu over the held stack, "
			"%lu over the array table)", g->nodes_lost, held_lost,
			ld.classes.ranges_lost);
	if (ld.classes.map_lost)
		fprintf(f, " (%lu registrations over the lock map)", ld.classes.map_lost);
	fputc('\n', f);
	for (unsigned int i = 0; i < g->nnodes; i++) {
		for (unsigned int j = 0; j < g->nnodes; j++) {
			const struct ld_try *t = &ld.tries[i][j];

			ld_print_edge(g, f, i, j);
			if (t->count)
				fprintf(f, "dcsim-lockdep:   %s -> %s trylock only, %lu times (%s:%d, "
					"then %s:%d)\n", ld_node_name(g, (int)i, a, sizeof(a)),
					ld_node_name(g, (int)j, b, sizeof(b)), t->count,
					ld_fn(&t->held), t->held.line, ld_fn(&t->taken),
					t->taken.line);
		}
	}
}
