/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_SRC_EXPLORE_INTERNAL_H
#define DCSIM_SRC_EXPLORE_INTERNAL_H

/*
 * Internal to the engine (src/engine/, instrumented flavour): the logical threads
 * of the explorer, the simulated transactions they run (htm-sim.c), the
 * explorer's state and the functions its files share.  The state is
 * struct explorer: the hand-off and the run, and one sub-struct per
 * concern (struct ex_slog, ex_decisions, ex_dfs, ex_pct, ex_rcu, ex_htm,
 * ex_wm, ex_strict), each declared in a section below with the functions
 * of the file that owns it.  A function that needs one concern takes its
 * sub-struct; one that needs more takes the explorer as its first
 * parameter, ex.  Names ending in _locked want ex->lock held.
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
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#include <dcsim/atomic.h>
#include <dcsim/explore.h>
#include <dcsim/htm.h>
#include <dcsim/rcu.h>
#include <dcsim/spinlock.h>

#include "../base/rng.h"

/* Largest single access the undo log records (the lockref word is 8). */
#define SIM_UNDO_BYTES	16
/* Store footprint after which a transaction aborts for capacity. */
#define SIM_UNDO_MAX	256
/* RTM aborts a transaction nested deeper than this. */
#define SIM_NEST_MAX	7
/* Cache lines a simulated transaction can track (read set + write set). */
#define SIM_LINE_SHIFT	6
#define SIM_LINES_MAX	512
/* Spinlocks one logical thread can be seen holding at once (strict.c). */
#define LT_HELD_MAX	16
/* Windows one logical thread can have open at once (window.c). */
#define LT_WIN_OPEN	8
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
struct lthread;

/* What a fiber runs from its first switch-in; it never returns. */
typedef void fiber_main_fn(struct lthread *lt);

/* A logical thread's user-level context (fiber.c), or the controller's. */
struct fiber {
	void *sp;			/* hand-written switch: the saved stack pointer */
	ucontext_t *uc;			/* swapcontext(): the saved context */
	void *map;			/* the mapping: a guard page, then the stack */
	size_t map_size;
	void *stack;
	size_t stack_size;
	/* ASan: the stack's bounds (the controller's learnt at its first switch) */
	const void *asan_bottom;
	size_t asan_size;
	void *tsan;			/* TSan's fiber */
	unsigned char *tls;		/* its task-local variables while switched out */
	fiber_main_fn *main;		/* a logical thread's: what it runs */
};

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
	/* what its last spin (or cond_resched()) waited on: the access before it */
	const volatile void *spin_on;
	/*
	 * Spinlocks it holds (dcsim_spin_note(), strict.c); held_lost counts
	 * those past LT_HELD_MAX.  contended: the last lock it found taken;
	 * waiting: the lock whose ticket it holds and waits to be served.
	 */
	const void *held[LT_HELD_MAX];
	unsigned int nheld, held_lost;
	const void *contended, *waiting;
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
	/* lasso.c: the write announced at its last schedule point, made since */
	const volatile void *lz_addr;
	unsigned int lz_size;
	unsigned long progress;	/* dcsim_explore_progress() marks this execution */
	struct fiber fib;	/* fiber hand-off: its context */
	/*
	 * window.c: where its code is (the last lock site it named, or its
	 * last schedule point outside the lock layer), the windows it opened
	 * and has not closed by taking a lock (a release after a failed
	 * trylock opens a second one), and 1 + the window to park it in at
	 * its next schedule point (0: none).
	 */
	const char *win_func;
	int win_line;
	bool win_named;		/* win_func came from dcsim_spin_site() */
	int win_open[LT_WIN_OPEN];
	unsigned int win_nopen;
	int win_hold;		/* hold window of the last lock it took, or -1 */
	int win_park;
	bool win_park_late;	/* park when it is about to take a lock, not at once */
	bool win_rename_ahead;	/* dcsim_explore_rename_ahead(): a rename still to run */
	struct sim_txn txn;
};

/* initial-exec: one %fs-relative load per schedule point, no __tls_get_addr() call. */
extern __thread struct lthread *explore_lt __attribute__((tls_model("initial-exec")));

/* ---- the explorer's state, one file per concern around it ---- */

#define CTL		(-1)	/* the controller holds the baton */
#define SLOG_MAX	8192	/* ring of the most recent steps */
#define PCT_MAX_DEPTH	16

struct explore_pool {
	struct lthread lt[DCSIM_EXPLORE_MAX_THREADS];
	unsigned int n;
	bool dead;		/* abandoned after a failure: its threads park */
	bool shutdown;
};

/*
 * Each concern's state below is a sub-struct of struct explorer, next to
 * the functions of the file that owns it; a function that needs one
 * concern takes its sub-struct, not the explorer (tests/engine-state.py).
 */
struct explorer;

/* ---- schedule-log.c: the schedule log and the decisions ---- */

struct slog_ent {
	const char *func;
	const volatile void *addr;
	const char *caller;	/* struct dcsim_step_frame's, or NULL */
	int line;
	int caller_line;
	uint8_t changed;	/* the step ran a changed line of a patch */
	uint8_t tid;
	uint8_t acc;		/* enum dcsim_access, or SL_* below */
	uint8_t txn;
	uint8_t size;
};

enum {
	SL_EXIT = DCSIM_ACC_NR,	/* thread body returned */
	SL_HTM_ABORT,		/* injected abort; addr holds the status */
	SL_HTM_COMMIT,
	SL_CALL_RCU,		/* call_rcu(); addr holds the head */
	SL_RCU_CB,		/* a callback ran (or its object was poisoned) */
	SL_STALE,		/* the load just before passed a relaxed RMW */
	SL_PREEMPT,		/* strict priorities: tid taken off its CPU by the thread in addr */
	SL_NR
};

/*
 * The schedule log (schedule-log.c): a ring of the most recent steps of
 * one execution, and where a patch's changed lines first ran.
 */
struct ex_slog {
	struct slog_ent ent[SLOG_MAX];
	unsigned long n;		/* steps logged this execution (ent[n % SLOG_MAX] next) */
	unsigned long first_changed;	/* index of the first changed-line step; ULONG_MAX: none */
	unsigned long len_shown;	/* steps a report prints (DCSIM_EXPLORE_TRACE) */
};

/*
 * The decisions of one execution (pick.c appends, schedule-log.c prints
 * them as a schedule), and the forced schedule that overrides the first
 * nforced of them (DCSIM_EXPLORE_SCHEDULE, parse_schedule()).
 */
struct ex_decisions {
	int8_t *d;			/* the thread chosen at each decision */
	size_t n, cap;
	int8_t *forced;
	size_t nforced;
};

extern const char *const acc_names[];

/* schedule-log.c: sees the log and the decisions only */
void schedule_print(const struct ex_decisions *dec, FILE *f);
void slog_add(struct ex_slog *sl, unsigned int tid, unsigned int acc, const volatile void *addr,
	      unsigned int size, const char *func, int line, bool txn);
void slog_print(const struct ex_slog *sl, FILE *f);
void slog_print_thread(const struct ex_slog *sl, FILE *f, int tid, unsigned long upto,
		       unsigned int max);

/* ---- dfs.c: bounded-preemption DFS ---- */

struct dfs_node {
	uint16_t enabled;	/* runnable threads at this decision */
	uint16_t tried;		/* alternatives taken or ruled out */
	int8_t chosen;
	int8_t prev;		/* thread holding the baton, CTL at the start */
	uint16_t preempt;	/* preemptions before this decision */
};

/*
 * Bounded-preemption DFS (dfs.c): the decisions of the current execution
 * as tree nodes, the first replay_len of them replayed, and the
 * preemptions taken so far in this execution.
 */
struct ex_dfs {
	struct dfs_node *nodes;
	size_t n, cap, replay_len;
	unsigned int preempt;
};

/* dfs.c: sees the tree only */
int dfs_pick(struct ex_dfs *dfs, size_t di, const char *sc_name, const struct lthread *cur,
	     uint32_t en);
bool dfs_next(struct ex_dfs *dfs, unsigned int bound);

/* ---- pick.c: choosing the next thread; PCT ---- */

/*
 * PCT (pick.c): the step estimate k and, for this execution, the steps at
 * which the running thread drops below everyone (explore.c draws them).
 */
struct ex_pct {
	unsigned long k;		/* step estimate; 0 until one execution ran */
	unsigned long k_used;
	unsigned long change[PCT_MAX_DEPTH];
	unsigned int nchange;
};

/* The longest forced schedule (decisions): far beyond any execution's length. */
#define SCHEDULE_MAX	(1ul << 24)
int parse_schedule(struct ex_decisions *dec, const char *s);
int pick(struct explorer *ex, struct lthread *cur);

/* ---- rcu-cb.c, rcu-gp.c: the RCU model ---- */

enum cb_state {
	CB_PENDING,	/* waiting for its grace period, or for the explorer */
	CB_POISONED,	/* grace period over, object poisoned; runs at quiescence */
	CB_DONE,
};

struct rcu_cb {
	struct dcsim_rcu_head *head;
	dcsim_rcu_cb_t func;
	enum cb_state state;
	char *obj;			/* the object it frees (describer), or NULL */
	size_t size;
	unsigned char *saved;		/* the object's bytes while poisoned */
	/* readers at call_rcu() time, and which section each was in */
	uint32_t readers;
	unsigned long sect[DCSIM_EXPLORE_MAX_THREADS];
	int queuer;			/* logical thread, or CTL */
	unsigned long q_slog, gp_slog;	/* schedule log indices */
	unsigned long gp_step;
};

/* A use after free: who freed, who accessed. */
struct uaf_info {
	bool set;
	int queuer, accessor;
	unsigned long q_slog, gp_slog, a_slog;
};

/*
 * The RCU model of one execution (rcu-cb.c queues, rcu-gp.c ends grace
 * periods): the callbacks in call_rcu() order, under ex->lock; the first
 * use after free; callbacks run; the stream of the seed that says when a
 * ripe callback runs.
 */
struct ex_rcu {
	struct rcu_cb *cbs;
	size_t n, cap;
	struct uaf_info uaf;
	unsigned long cbs_run;
	uint64_t rng;
};

/* rcu-cb.c */
void defer_rcu(struct dcsim_rcu_head *head, dcsim_rcu_cb_t func);
void discard_rcu(struct explorer *ex);
void drain_rcu(struct explorer *ex);

/* rcu-gp.c */
void rcu_enter(struct lthread *lt);
void rcu_exit(struct explorer *ex, struct lthread *lt, const char *func, int line);
/* The callbacks' progress, for lasso.c's signature of the state. */
uint64_t rcu_signature(const struct ex_rcu *rcu, const struct explore_pool *pool);
void rcu_tick(struct explorer *ex, struct lthread *lt);
void rcu_unpoison_all(struct ex_rcu *rcu);
void uaf_check(struct explorer *ex, struct lthread *lt, unsigned int acc, const volatile void *addr,
	       unsigned int size, const char *func, int line);

/* ---- htm-conflicts.c, htm-sim.c: simulated transactions ---- */

/*
 * The simulated transactions' side of one execution (htm-conflicts.c,
 * htm-sim.c): what they did, for the result, and the stream of the seed
 * that injects aborts.
 */
struct ex_htm {
	unsigned long commits, aborts, conflicts, capacity_aborts;
	uint64_t inj_rng;
};

/* htm-conflicts.c */
void htm_conflicts(struct explorer *ex, struct lthread *lt, unsigned int acc, uintptr_t addr,
		   unsigned int size);
/* Conflict mode: @lt (parked) loses to another thread's access; roll back now. */
void htm_sim_doom(struct lthread *lt, dcsim_htm_status_t st);
/*
 * Does @lt's transaction hold line @ln in its write set (or read set)?
 * Inline: htm-sim.c asks it for each line a transaction touches.
 */
static inline bool htm_sim_has_line(const struct lthread *lt, uintptr_t ln, bool write_set)
{
	const struct sim_txn *tx = &lt->txn;
	const uintptr_t *set = write_set ? tx->wset : tx->rset;
	unsigned int n = write_set ? tx->nwrite : tx->nread;

	for (unsigned int i = 0; i < n; i++)
		if (set[i] == ln)
			return true;
	return false;
}
/* A transaction ended (htm-sim.c): commit, or abort with status @st. */
void explore_note_htm(struct ex_htm *htm, bool commit, dcsim_htm_status_t st);

/* ---- weak-memory.c: loads passing a relaxed RMW ---- */

/*
 * Weak memory in one execution (weak-memory.c): the stream of the seed
 * that says whether a load may return an older value, and how many did.
 */
struct ex_wm {
	uint64_t rng;
	unsigned long stale_loads;
};

/* weak-memory.c: sees its own state, the log and the threads, not the explorer */
void wm_clear(struct lthread *lt);
void wm_load(struct ex_wm *wm, struct ex_slog *sl, struct lthread *lt, unsigned int acc,
	     uintptr_t addr, unsigned int size, const char *func, int line);
void wm_note_write(struct lthread *lt, uintptr_t addr, unsigned int size);
bool wm_on(const struct dcsim_explore_opts *o);
/* Put back memory a stale load patched (weak memory); ex->lock not needed. */
void explore_wm_restore(struct lthread *lt);

/* ---- strict.c: strict priorities ---- */

/*
 * Strict priorities (strict.c): the one preemption of an execution,
 * planned from its own stream of the seed.  victim -1: none planned.
 */
struct ex_strict {
	uint64_t rng;
	int victim, by;
	unsigned long at;		/* first step at which it may happen */
	bool off;			/* the victim is off its CPU now */
	bool over;			/* it happened and ended */
	unsigned long since;		/* schedule log index when it happened */
	unsigned long run;		/* the preemptor's points since, without a yield */
	const char *func;		/* where the victim stopped */
	int line;
	unsigned long count;		/* preemptions, all executions */
	int rescue;			/* a thread the next pick must run, or -1 */
};

/* strict.c */
void strict_prepare(struct explorer *ex);
/* ex->lock held: @lt's schedule point of kind @acc, before the pick. */
void strict_point(struct explorer *ex, struct lthread *lt, unsigned int acc);
/* ex->lock held: @lt returned; a victim it kept off its CPU runs again. */
void strict_exit(struct explorer *ex, struct lthread *lt);
/* ex->lock held: nobody can run.  Fails the execution if a victim is off its CPU. */
bool strict_stuck(struct explorer *ex, struct lthread *lt);
/* ex->lock held: the victim of the current preemption, to leave out of the pick. */
static inline bool strict_is_off(const struct ex_strict *st, unsigned int tid)
{
	return st->off && (int)tid == st->victim;
}

/* ---- the explorer: the hand-off, the run, and the concerns above ---- */

struct explorer {
	pthread_mutex_t lock;
	pthread_cond_t ctl_cv;
	/* this run's hand-off: fiber (or ucontext) contexts, or pthreads */
	enum dcsim_explore_handoff handoff;
	struct fiber ctl_fib;		/* fiber hand-off: the controller's context */
	bool running;
	int current;
	bool exec_done;
	struct explore_pool *pool;
	const struct dcsim_scenario *sc;
	void *state;
	struct dcsim_explore_opts o;
	unsigned long exec_no;		/* 1-based */
	uint64_t exec_seed;
	uint64_t rng;
	unsigned long step;
	/* failure of the current execution */
	bool failed, abandoned;
	char msg[512];
	struct ex_slog slog;		/* schedule-log.c */
	struct ex_decisions dec;	/* pick.c, schedule-log.c */
	struct ex_pct pct;		/* explore.c plans, pick.c follows */
	struct ex_dfs dfs;		/* dfs.c */
	struct ex_rcu rcu;		/* rcu-cb.c, rcu-gp.c */
	struct ex_htm htm;		/* htm-conflicts.c, htm-sim.c */
	struct ex_wm wm;		/* weak-memory.c */
	struct ex_strict strict;	/* strict.c */
};

/*
 * The explorer's state, for an entry point of the engine: everything else
 * gets it as its first parameter, ex.  The object (context.c) is named
 * nowhere but here.
 */
extern struct explorer explore_the_explorer __attribute__((visibility("hidden")));

static inline struct explorer *explore_ctx(void)
{
	return &explore_the_explorer;
}

static inline void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fputs("dcsim-explore: out of memory\n", stderr);
		abort();
	}
	return p;
}

/* ---- access classes ---- */

static inline bool acc_writes(unsigned int acc)
{
	return acc == DCSIM_ACC_STORE || acc == DCSIM_ACC_RMW || acc == DCSIM_ACC_RMW_RELAXED;
}

static inline bool acc_touches(unsigned int acc)
{
	return acc_writes(acc) || acc == DCSIM_ACC_LOAD || acc == DCSIM_ACC_LOAD_ACQUIRE;
}

/* Orders the thread's later loads after everything before it. */
static inline bool acc_orders_loads(unsigned int acc)
{
	return acc == DCSIM_ACC_FENCE || acc == DCSIM_ACC_RMB || acc == DCSIM_ACC_RMW ||
	       acc == DCSIM_ACC_LOAD_ACQUIRE;
}

static inline bool overlaps(uintptr_t a, size_t as, uintptr_t b, size_t bs)
{
	return a < b + bs && b < a + as;
}

/*
 * A failed execution's state is leaked on purpose (see the caller).  Tell
 * LeakSanitizer so, rather than have it report or be suppressed wholesale:
 * an ignored object also keeps what it points to from being reported.
 */
#if defined(__SANITIZE_ADDRESS__)
void __lsan_ignore_object(const void *p);
#define lsan_keep(p)	do { if (p) __lsan_ignore_object(p); } while (0)
#else
#define lsan_keep(p)	((void)(p))
#endif

/* baton.c */
void baton_pass(struct explorer *ex, struct lthread *lt, bool dying);
void wait_turn(struct explorer *ex, struct lthread *lt);

/* crash.c */
void crash_handler(int sig);

/* fiber.c (ex->handoff fiber or ucontext; on the controller's pthread) */
int fiber_run_begin(struct explorer *ex, bool use_asm);
void fiber_run_end(struct explorer *ex);
void fiber_create(struct lthread *lt, fiber_main_fn *main);
void fiber_destroy(struct explorer *ex, struct lthread *lt);
void fiber_abandon(struct explorer *ex, struct lthread *lt);
void fiber_switch(struct fiber *from, struct fiber *to, struct lthread *to_lt, bool dying);

static inline bool handoff_fiber(struct explorer *ex)
{
	return ex->handoff != DCSIM_EXPLORE_HANDOFF_PTHREAD;
}

/* failure.c */
__attribute__((noreturn)) void abandon_locked(struct explorer *ex, struct lthread *lt);
void fail_lockedf(struct explorer *ex, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
__attribute__((noreturn)) void park_forever(void);

/* lockdep.c: the lock order validator */
void lockdep_note(struct explorer *ex, struct lthread *lt, enum dcsim_spin_event ev,
		  const void *lock, unsigned int subclass, const char *func, int line);
void lockdep_run_begin(void);
void lockdep_exec_begin(void);
void lockdep_report(FILE *f);
void lockdep_counts(struct dcsim_explore_result *r);

/* lockdep-threads.c: the lock order validator on real threads, outside an exploration */
struct dcsim_lock_class;	/* <dcsim/lockdep.h>; only pointers here */
void lockdep_threads_note(enum dcsim_spin_event ev, const void *lock, unsigned int subclass,
			  const char *func, int line);
void lockdep_threads_set_class(const void *lock, const struct dcsim_lock_class *cls);
void lockdep_threads_set_class_array(const void *first, size_t n, size_t stride,
				     const struct dcsim_lock_class *cls);

/* lasso.c: fair cycles (livelocks in which every thread runs) */
void lasso_exec_begin(struct explorer *ex);
void lasso_note_access(struct lthread *lt, unsigned int acc, const volatile void *addr,
		       unsigned int size);
void lasso_flush(struct lthread *lt);
void lasso_note_lock(const void *lock);
int lasso_point(struct explorer *ex, uint32_t en);
const char *lasso_caught(void);
void lasso_run_begin(void);
void lasso_counts(unsigned long *tried, unsigned long *demoted);

/* names.c */
const char *describe_addr(uintptr_t a, unsigned int size, char *buf, size_t len);
/* The object @head frees, as the describer tells, or NULL (*@size 0). */
char *rcu_head_object(struct dcsim_rcu_head *head, size_t *size);
void names_exec_begin(void);

/* pin.c: the calling thread on one CPU, and back (why: see pin.c). */
bool explore_pin(void);
void explore_unpin(void);

/* pool.c */
struct explore_pool *pool_create(struct explorer *ex, unsigned int n);
void pool_destroy(struct explorer *ex, struct explore_pool *pool);
void pool_install(struct explorer *ex, struct explore_pool *pool);

/* report.c */
void report_failure(struct explorer *ex, FILE *f);

/* sched-point.c */
void describe_threads(struct explorer *ex, char *buf, size_t len);
void flush_write(struct lthread *lt);
void explore_txn_access(struct explorer *ex, struct lthread *lt, enum dcsim_access acc,
			const volatile void *addr, unsigned int size, const char *func, int line);

/* watchdog.c */
void wd_phase(const char *phase);
/* The limit of each phase, in seconds (0: off). */
void wd_set_limit(unsigned long secs);

/* window.c: window-directed exploration */
bool window_on(struct explorer *ex);
void window_note(struct explorer *ex, struct lthread *lt, enum dcsim_spin_event ev);
void window_progress(struct lthread *lt);
void window_point(struct explorer *ex, struct lthread *lt, const char *func, int line);
uint32_t window_parked_mask(struct explorer *ex, uint32_t en);
void window_chosen(struct explorer *ex, int tid);
void window_exec_begin(struct explorer *ex);
void window_run_begin(void);
void window_run_end(struct explorer *ex, struct dcsim_explore_result *r);
const char *window_target_name(struct explorer *ex, char *buf, size_t len);

/* The engine, for htm-sim.c */
void explore_schedule(struct explorer *ex, struct lthread *lt, enum dcsim_access acc,
		      const volatile void *addr, unsigned int size, const char *func, int line);
bool explore_htm_on(struct explorer *ex);
/* 0, or the (marked) abort status to inject at this point. */
dcsim_htm_status_t explore_htm_inject(struct explorer *ex, struct lthread *lt, const char *where);
void explore_slog_txn(struct explorer *ex, struct lthread *lt, enum dcsim_access acc,
		      const volatile void *addr, unsigned int size, const char *func, int line);
/* Conflict mode: transactions have schedule points inside. */
bool explore_htm_conflict_mode(struct explorer *ex);
/* Lines a transaction may track: the capacity option, or SIM_LINES_MAX. */
unsigned int explore_htm_capacity(struct explorer *ex);
/* RCU nesting changes made inside a transaction (no schedule point there). */
void explore_rcu_note(struct explorer *ex, struct lthread *lt, enum dcsim_access acc);

/* htm-sim.c, for the engine */
void htm_sim_access(struct explorer *ex, struct lthread *lt, enum dcsim_access acc,
		    const volatile void *addr, unsigned int size, const char *func, int line);
void htm_sim_reset(struct lthread *lt);
/* Conflict mode, after @lt's schedule point, right before its access. */
void htm_sim_access_conflict(struct explorer *ex, struct lthread *lt, enum dcsim_access acc,
			     const volatile void *addr, unsigned int size, const char *func,
			     int line);

/*
 * The engine's side of the seam (src/base/hooks.h): what the primitives'
 * entry points call.  hooks.c puts them in the table it registers.
 */
void explore_sched_point(enum dcsim_access acc, const volatile void *addr,
			 unsigned int size, const char *func, int line);	/* access.c */
void strict_spin_note(enum dcsim_spin_event ev, const dcsim_spinlock_t *lock,
		      unsigned int subclass, const char *func, int line);	/* strict.c */
void strict_spin_assert_held(const dcsim_spinlock_t *lock, const char *lock_name,
			     const char *what, const char *object);		/* strict.c */
void window_spin_site(const char *func, int line);			/* window.c */
struct dcsim_lock_class;
void lockdep_set_class(const void *lock, const struct dcsim_lock_class *cls);	/* lockdep.c */
void lockdep_set_class_array(const void *first, size_t n, size_t stride,
			     const struct dcsim_lock_class *cls);		/* lockdep.c */
bool explore_running(void);					/* names.c */
bool sim_take_env(const char *env);				/* htm-sim.c */
bool sim_owns_thread(void);
bool sim_live(void);
dcsim_htm_status_t sim_begin_nojmp(void);
bool sim_in_txn(void);
jmp_buf *sim_prepare(const char *func, int line);
dcsim_htm_status_t sim_start(void *cfa, void *ra);
dcsim_htm_status_t sim_resume(void);
__attribute__((noreturn)) void sim_abort(uint8_t code);
void sim_end(void);
/* Register the table if no one has (dcsim_explore_run(): a static link may
 * leave hooks.c's constructor out). */
void explore_hooks_install(void);

#endif /* DCSIM_SRC_EXPLORE_INTERNAL_H */
