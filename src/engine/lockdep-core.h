/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The lock order validator's core (docs/lock-order.md), private to the
 * engine and shared by its two front ends:
 *  - lockdep.c, the logical threads of an exploration, which run one at
 *    a time under the baton: the graph needs no lock, a report fails the
 *    execution and comes with a replay line;
 *  - lockdep-threads.c, real threads the OS schedules: the graph is
 *    shared under a mutex (known edges and classes are read without it),
 *    a report is printed with its scope and counted.
 *
 * The core holds what is the same in both: the lock classes (address to
 * class: single locks and arrays), the nodes (class, subclass), the
 * acquired-before graph with the two sites of each edge, the search for
 * a path back, the reports (both chains) and what one lock event does to
 * a thread's stack of held validated locks.  A front end keeps where that
 * stack lives, which mutex (if any) guards the graph, and what ends a
 * report (struct ld_ops).
 *
 * Ordering: ld_graph.mutex and ld_classes.mutex name the lock that
 * serialises changes; NULL means the caller serialises them (the
 * explorer's baton).  Readers take no lock either way: a known edge is a
 * bit of known[] (acquire, pairing with the release that sets it after
 * the edge's sites are written), a node is counted in nnodes after it is
 * filled, a class slot's address is published after its class.  Only a
 * stack's owner writes it; its counts are relaxed stores so that another
 * thread may sum them.
 */
#ifndef DCSIM_ENGINE_LOCKDEP_CORE_H
#define DCSIM_ENGINE_LOCKDEP_CORE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <dcsim/lockdep.h>
#include <dcsim/spinlock.h>

#define LD_NODES_MAX	64	/* (class, subclass) nodes per graph: one bit each in known[] */
#define LD_HELD_MAX	16	/* validated locks one thread holds at once */
#define LD_RANGES_MAX	64	/* arrays of locks per class table */
#define LD_RETIRED_MAX	40	/* outgrown class maps kept until the table is cleared */
#define LD_REPORT_MAX	4096
#define LD_SUMMARY_MAX	512

struct ld_site {
	const char *func;
	int line;
};

struct ld_held {
	const void *lock;
	int node;
	bool trylock;
	struct ld_site site;
};

struct ld_graph;

/* One thread's held validated locks, and its counts. */
struct ld_stack {
	struct ld_graph *graph;		/* where its orders go */
	struct ld_held held[LD_HELD_MAX];
	unsigned int n;
	const void *checked;		/* the lock its WAITING already checked */
	unsigned int id;		/* the thread's number in reports: T0, thread 3 */
	unsigned long acquisitions, trylocks, lost;	/* owner-written, relaxed */
};

/* ---- classes: which lock is of which class ---- */

struct ld_slot {
	uintptr_t addr;			/* 0: empty; published last */
	const struct dcsim_lock_class *cls;
};

struct ld_map {
	size_t cap, n;			/* n: under the table's mutex */
	struct ld_slot s[];
};

struct ld_range {
	uintptr_t first;
	size_t n, stride;
	const struct dcsim_lock_class *cls;
};

struct ld_classes {
	pthread_mutex_t *mutex;		/* serialises changes; NULL: the caller does */
	size_t first_cap;		/* the map's first size, a power of two */
	struct ld_map *map;
	struct ld_map *retired[LD_RETIRED_MAX];
	unsigned int nretired;
	struct ld_range ranges[LD_RANGES_MAX];
	unsigned int nranges;		/* published with release */
	unsigned long ranges_lost, map_lost;
};

void ld_set_class(struct ld_classes *c, const void *lock, const struct dcsim_lock_class *cls);
void ld_set_class_array(struct ld_classes *c, const void *first, size_t n, size_t stride,
			const struct dcsim_lock_class *cls);
const struct dcsim_lock_class *ld_class_of(const struct ld_classes *c, const void *lock);
void __ld_classes_clear(struct ld_classes *c);

/* ---- the graph ---- */

/* A -> B: B taken (or waited for) while A was held. */
struct ld_edge {
	unsigned int thread;		/* the stack id of the thread that made it */
	struct ld_site held;		/* where A was taken */
	struct ld_site taken;		/* where B was taken */
	unsigned long exec_no;		/* the explorer's execution that made it; 0 elsewhere */
	uint64_t seed;			/* and its seed */
};

/* A report being written: its text, bounded. */
struct ld_text {
	char *buf;
	size_t cap, len;
};

void ld_printf(struct ld_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* How the front end names what a report shows (filled by ops->begin). */
struct ld_who {
	char name[48];		/* the thread, in the summary: "T0", "thread 3" */
	char first[80];		/* in the report's first line: "thread 3 (tid 4242)" */
	char holder[48];	/* "but %s already holds": "T0", "it" */
	char chain1[80];	/* "chain 1, the new dependency (%s)" */
	char lock[160];		/* the lock being taken, described, or "" */
	char held[160];		/* the held lock of a recursion, described, or "" */
};

/* What differs between the front ends: begin, origin and end run under the graph's mutex. */
struct ld_ops {
	/*
	 * A report is due (it is counted already): fill @who and return the
	 * text to write it into, or NULL to write nothing (the explorer's
	 * execution has failed already).  @held_lock is NULL for a cycle.
	 */
	struct ld_text *(*begin)(struct ld_graph *g, const struct ld_stack *s, struct ld_who *who,
				 const void *lock, const void *held_lock);
	/* After chain 2's edge @e: in the report (@summary false) or in the summary line. */
	void (*origin)(struct ld_graph *g, struct ld_text *t, const struct ld_edge *e,
		       bool summary);
	/*
	 * The report and its summary are written: the front end adds its
	 * closing lines (replay, scope) and ends it (fails the execution,
	 * prints it).  @first is chain 2's first edge, NULL for a recursion.
	 */
	void (*end)(struct ld_graph *g, const struct ld_stack *s, struct ld_text *report,
		    struct ld_text *summary, const struct ld_edge *first);
	/* Optional: a trylock of @node succeeded with @s held (pushed after); by @s's owner. */
	void (*trylocked)(struct ld_graph *g, const struct ld_stack *s, int node,
			  const struct ld_site *site);
};

struct ld_graph {
	pthread_mutex_t *mutex;		/* serialises changes; NULL: the caller does */
	const struct ld_classes *classes;	/* where its locks' classes are looked up */
	const struct ld_ops *ops;
	void *ctx;			/* the front end's */
	bool recursion_once;		/* report a node's recursion once per graph */
	unsigned long exec_no;		/* stamped on new edges (the explorer's execution) */
	uint64_t seed;
	struct {
		const struct dcsim_lock_class *cls;
		unsigned int sub;
	} nodes[LD_NODES_MAX];
	unsigned int nnodes;		/* published with release */
	unsigned long nodes_lost;
	uint64_t known[LD_NODES_MAX];	/* bit b of known[a]: edge a -> b */
	uint64_t recursive;		/* bit a: node a's recursion was reported */
	struct ld_edge edge[LD_NODES_MAX][LD_NODES_MAX];	/* valid where known[] says */
	unsigned long nedges, cycles, recursions;
};

void __ld_graph_clear(struct ld_graph *g);
const char *ld_node_name(const struct ld_graph *g, int n, char *buf, size_t len);
const char *ld_fn(const struct ld_site *s);
bool ld_print_edge(const struct ld_graph *g, FILE *f, unsigned int a, unsigned int b);

/* ---- a thread's lock events ---- */

void ld_stack_clear(struct ld_stack *s);
void ld_note(struct ld_stack *s, enum dcsim_spin_event ev, const void *lock,
	     unsigned int subclass, const char *func, int line);

#endif /* DCSIM_ENGINE_LOCKDEP_CORE_H */
