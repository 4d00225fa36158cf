/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_SRC_CHECK_H
#define DCSIM_SRC_CHECK_H

/*
 * Internal to the check build: the logical threads of the explorer
 * (explore.c) and the simulated transactions they run (htm-sim.c).
 *
 * Ordering: one logical thread runs at a time.  The hand-off between them
 * goes through the explorer mutex, so everything a thread wrote before its
 * schedule point happens-before everything the next thread does; hence the
 * per-thread fields below need no atomics once a thread holds the baton.
 */

#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>

#include <dcsim/atomic.h>
#include <dcsim/explore.h>
#include <dcsim/htm.h>

/* Largest single access the undo log records (the lockref word is 8). */
#define SIM_UNDO_BYTES	16
/* Store footprint after which a transaction aborts for capacity. */
#define SIM_UNDO_MAX	256
/* RTM aborts a transaction nested deeper than this. */
#define SIM_NEST_MAX	7

struct sim_undo {
	void *addr;
	unsigned int size;
	unsigned char old[SIM_UNDO_BYTES];
};

struct sim_txn {
	bool active;
	unsigned int depth;		/* flat nesting, as RTM */
	jmp_buf env;			/* set by the dcsim_htm_begin() macro */
	void *frame;			/* frame that called setjmp(), for a sanity check */
	dcsim_htm_status_t status;	/* what the resumed begin returns */
	unsigned int nlog;
	struct sim_undo log[SIM_UNDO_MAX];
};

enum lt_state {
	LT_RUNNABLE,
	LT_BLOCKED,	/* spun with no foreign write since its last spin */
	LT_DONE,
};

struct explore_pool;

struct lthread {
	struct explore_pool *pool;
	unsigned int id;
	pthread_t pthread;
	pthread_cond_t cv;
	enum lt_state state;
	bool spun;		/* has called cpu_relax() this execution */
	bool foreign_write;	/* another thread wrote since our last spin */
	bool pending_write;	/* our last schedule point was a write, now done */
	unsigned int prio;	/* PCT priority, higher runs first */
	/* last access, for deadlock reports */
	enum dcsim_access last_acc;
	const char *last_func;
	int last_line;
	const volatile void *last_addr;
	struct sim_txn txn;
};

extern __thread struct lthread *__dcsim_check_self;

/* explore.c, for htm-sim.c */
void __dcsim_check_schedule(struct lthread *lt, enum dcsim_access acc,
			    const volatile void *addr, unsigned int size,
			    const char *func, int line);
bool __dcsim_check_htm_on(void);
/* 0, or the (marked) abort status to inject at this point. */
dcsim_htm_status_t __dcsim_check_inject(struct lthread *lt, const char *where);
void __dcsim_check_trace_txn(struct lthread *lt, enum dcsim_access acc,
			     const volatile void *addr, unsigned int size,
			     const char *func, int line);
void __dcsim_check_note_htm(bool commit, dcsim_htm_status_t st);

/* htm-sim.c, for explore.c */
void __dcsim_htm_sim_access(struct lthread *lt, enum dcsim_access acc,
			    const volatile void *addr, unsigned int size,
			    const char *func, int line);
void __dcsim_htm_sim_reset(struct lthread *lt);

#endif /* DCSIM_SRC_CHECK_H */
