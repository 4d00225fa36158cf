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
/* Cache lines a simulated transaction can track (read set + write set). */
#define SIM_LINE_SHIFT	6
#define SIM_LINES_MAX	512
/* Values overwritten since a thread's last ordering point (weak memory). */
#define WM_LOG_MAX	32

struct sim_undo {
	void *addr;
	unsigned int size;
	unsigned char old[SIM_UNDO_BYTES];
};

struct sim_txn {
	bool active;
	unsigned int depth;		/* flat nesting, as RTM */
	jmp_buf env;			/* set by the dcsim_htm_begin() macro */
	/*
	 * The frame that called setjmp() (its DWARF CFA) and its return
	 * address, to check that it is still live before resuming in it
	 * (htm-sim.c:sim_frame_gone()); where begin was, for the message.
	 */
	void *frame;
	void *frame_ra;
	const char *begin_func;
	int begin_line;
	dcsim_htm_status_t status;	/* what the resumed begin returns */
	/* conflict mode: another thread's access aborted us while we waited */
	bool doomed;
	unsigned int rcu_depth0;	/* RCU nesting at begin, put back by an abort */
	unsigned int nlog;
	struct sim_undo log[SIM_UNDO_MAX];
	/* read and write sets, as cache line numbers (addr >> SIM_LINE_SHIFT) */
	unsigned int nread, nwrite;
	uintptr_t rset[SIM_LINES_MAX], wset[SIM_LINES_MAX];
};

/* A value another thread overwrote since our last ordering point. */
struct wm_ent {
	uintptr_t addr;
	unsigned int size;
	unsigned char old[SIM_UNDO_BYTES];
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
	/* RCU: read-side nesting, and outermost sections entered so far */
	unsigned int rcu_depth;
	unsigned long rcu_sections;
	/*
	 * Weak memory (DCSIM_EXPLORE_MEM_RELAXED_RMW): wm_open after a relaxed
	 * RMW with no ordering point since; wm[] the values our later loads
	 * may still return; a stale load patches memory until our next
	 * schedule point (wm_patched, the current bytes in wm_cur).
	 */
	bool wm_open;
	uintptr_t wm_rmw_addr;
	unsigned int wm_n;
	struct wm_ent wm[WM_LOG_MAX];
	bool wm_patched;
	void *wm_paddr;
	unsigned int wm_psize;
	unsigned char wm_cur[SIM_UNDO_BYTES];
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
/* Conflict mode: transactions have schedule points inside. */
bool __dcsim_check_htm_conflicts(void);
/* Lines a transaction may track: the capacity option, or SIM_LINES_MAX. */
unsigned int __dcsim_check_htm_capacity(void);
/* RCU nesting changes made inside a transaction (no schedule point there). */
void __dcsim_check_rcu_note(struct lthread *lt, enum dcsim_access acc);

/* Put back memory a stale load patched (weak memory); ex.lock not needed. */
void __dcsim_check_wm_restore(struct lthread *lt);

/* htm-sim.c, for explore.c */
void __dcsim_htm_sim_access(struct lthread *lt, enum dcsim_access acc,
			    const volatile void *addr, unsigned int size,
			    const char *func, int line);
void __dcsim_htm_sim_reset(struct lthread *lt);
/* Conflict mode, after @lt's schedule point, right before its access. */
void __dcsim_htm_sim_access_conflict(struct lthread *lt, enum dcsim_access acc,
				     const volatile void *addr, unsigned int size,
				     const char *func, int line);
/* Conflict mode: @lt (parked) loses to another thread's access; roll back now. */
void __dcsim_htm_sim_doom(struct lthread *lt, dcsim_htm_status_t st);
/* Does @lt's transaction hold line @ln in its write set (or read set)? */
bool __dcsim_htm_sim_has_line(const struct lthread *lt, uintptr_t ln, bool write_set);

#endif /* DCSIM_SRC_CHECK_H */
