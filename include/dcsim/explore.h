/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_EXPLORE_H
#define DCSIM_EXPLORE_H

/*
 * The deterministic interleaving explorer (instrumented build only).
 *
 * A scenario is K logical threads, each a function run on its own pthread.
 * Only one logical thread runs at a time: every shared access made through
 * <dcsim/atomic.h> (and so every lock operation and every RCU read-side
 * boundary) is a schedule point at which the explorer picks who runs next.
 * Because the choice is the only source of nondeterminism, an execution is
 * a pure function of its schedule, and a schedule is a pure function of a
 * 64-bit seed (random walk and PCT) or of a recorded decision list (any
 * mode).  A failure prints both, with the scenario name and the last steps
 * of the interleaving, and either can be fed back (struct
 * dcsim_explore_opts: scenario, replay_seed, schedule) to replay exactly
 * that execution.  Test programs and tools take them from the environment
 * through dcsim_explore_opts_from_env() (dcsim_explore_run() reads none):
 *
 *	DCSIM_EXPLORE_SCENARIO=name   run only scenarios of that name
 *	DCSIM_EXPLORE_SEED=0x...      run one execution with that seed
 *	DCSIM_EXPLORE_SCHEDULE=0*12,1*3,...  force the thread choices
 *	DCSIM_EXPLORE_MODE=random|pct|dfs   DCSIM_EXPLORE_ITERS=N
 *	DCSIM_EXPLORE_TRACE=N         steps of interleaving printed on failure
 *	DCSIM_EXPLORE_SCALE=N         multiply every scenario's iterations (soak)
 *	DCSIM_EXPLORE_MEMORY=sc|relaxed-rmw   memory model (see "Memory" below)
 *	DCSIM_EXPLORE_WATCHDOG=SEC    time limit of each phase (default 60, 0 off)
 *	DCSIM_EXPLORE_SCHED=fair|strict|rt|window   scheduling (see "Scheduling"
 *	                              and "Windows" below)
 *	DCSIM_EXPLORE_WINDOW_DUMP=FILE  sched window: append per-window counts
 *	DCSIM_EXPLORE_WINDOW_OPS=N, DCSIM_EXPLORE_WINDOW_STEPS=N   its bounds
 *	DCSIM_EXPLORE_WINDOW_TARGET=FUNC:LINE   the window every execution targets
 *	DCSIM_EXPLORE_LASSO=N         rounds that confirm a fair cycle (default
 *	                              128, 0 off; see "Fair cycles" below)
 *
 * Modes:
 *  - random: at each schedule point a uniformly random runnable thread;
 *  - pct: probabilistic concurrency testing (Burckhardt et al., ASPLOS'10):
 *    random distinct thread priorities, d-1 random priority change points,
 *    always run the highest-priority runnable thread.  Finds any bug of
 *    depth d with probability >= 1/(n k^(d-1)) per execution;
 *  - dfs: every schedule with at most preemption_bound preemptions, in
 *    depth-first order (for tiny scenarios; "exhausted" reports completion).
 *
 * Spinning: a thread that calls dcsim_cpu_relax() twice with no write by
 * another thread in between is blocked until another thread writes; if no
 * thread can run, the execution fails as a deadlock (or a livelock, if
 * max_steps is exceeded first).  What that cannot see, a hang in setup,
 * check or teardown (on the controller thread, no schedule points) or a
 * logical thread looping without a schedule point, the watchdog catches:
 * a phase (setup, the threads' run, check, teardown) still running after
 * DCSIM_EXPLORE_WATCHDOG seconds is reported with the scenario, the phase
 * and the replay line, and the process aborts.
 *
 * Fair cycles (opts.lasso_repeats, src/engine/lasso.c): a livelock in
 * which every thread keeps running (each retries because another undid
 * its step) ends sooner or later under a random schedule, so max_steps
 * does not see it.  In random and pct modes, with HTM off and sc memory,
 * the explorer keeps a signature of the global state at each decision
 * (each thread's state and pending access, the memory written through
 * <dcsim/atomic.h>, the RCU callbacks' progress).  When it comes back and
 * every thread that could run in between did run, the same decisions are
 * forced again; if the signatures repeat lasso_repeats more rounds, the
 * execution fails as "livelock (fair cycle)": that schedule can go on
 * forever.  Locals and plain stores are outside the signature; a loop that
 * only they end is cleared when it ends, within lasso_repeats rounds.
 *
 * Scheduling (opts.sched): "fair" lets any runnable thread run next at
 * every schedule point, as a preemptive scheduler that is fair in the
 * end: a busy wait only ever waits for threads that will run.  "strict"
 * models strict priorities on fewer CPUs than threads, as the kernel
 * guarantees them: once per execution, at a step chosen from the seed in
 * 1..opts.strict_window, one thread (the victim) is preempted by another
 * (the preemptor) on the CPU they share, and runs no more until the
 * preemptor calls cond_resched() (<dcsim/sched.h>) or returns.  A
 * spinning preemptor does not give the CPU back: spinning does not yield.
 * A thread is preempted only where the kernel allows it: holding no
 * spinlock (<dcsim/spinlock.h> reports ownership to the explorer), outside
 * RCU read-side sections and simulated transactions.  If the preemptor
 * then waits for its victim, that is a livelock: every thread left spins
 * (blocked, as above) while the victim is off its CPU, or the preemptor
 * runs opts.strict_steps schedule points without yielding.  The report
 * names who spins or retries on what, who holds that lock, where the
 * victim stopped, and the replay line (the seed also fixes the
 * preemption).  "rt" is strict with a preemptor of higher real-time
 * priority (or a fully preemptible kernel, where cond_resched() does
 * nothing): only its return gives the CPU back.  Code that relies on
 * cond_resched(), as fs/dcache.c's shrink_dcache_parent() does, fails
 * there by design: the mode shows that reliance, it does not judge.
 *
 * Windows (opts.sched "window", src/engine/window.c): fair scheduling
 * that parks a thread inside a lock-drop window, after a release or a
 * failed trylock and before it takes a lock again, while the other
 * threads run window_ops whole operations (dcsim_explore_progress()
 * marks) or window_steps schedule points.  Each execution targets the
 * window of the run parked least so far, so a run goes round every
 * window it reaches; a thread that fails a trylock while another is
 * parked swaps places with it, which keeps two trylock loops in step.
 * Windows are named by the site that opens them: dcsim_spin_site() where
 * the code names it (the kernel code's spin_lock() shims), else the last
 * schedule point outside the lock layer.  Random and pct modes only.
 *
 * HTM: in explored executions dcsim_htm_begin() runs the simulated backend
 * (opts.htm).  In the "commit" and "aborts" modes a transaction has no
 * schedule point inside, so it is atomic with respect to the other logical
 * threads; "aborts" injects aborts at begin, before any access inside and
 * at end, with a random cause.  In the "conflicts" mode the accesses inside
 * a transaction are schedule points like any other, the transaction keeps
 * its read and write sets at cache-line (64 byte) granularity, and another
 * thread's access aborts it (cause conflict) when it writes a line the
 * transaction read or touches a line it wrote: strong isolation, as RTM
 * (random aborts are injected on top at abort_permille; 0 for none).  In
 * every mode a transaction whose read set plus write set exceeds
 * opts.htm_capacity lines aborts for capacity.  An abort rolls back every
 * store made through <dcsim/atomic.h> since begin and resumes at begin
 * with an x86 RTM style status.
 *
 * RCU: each logical thread's read-side sections are tracked.  A
 * dcsim_call_rcu() callback becomes ready once every thread that was inside
 * a section at call_rcu() time has left that section (a grace period), and
 * then runs at a schedule point the explorer chooses (or at quiescence).
 * A dentry's or an inode's free (the cache's RCU callbacks) poisons the
 * object there instead, and any later access to it through <dcsim/atomic.h> fails the
 * execution with the freeing and the accessing thread's steps; the real
 * callback runs at quiescence, after the scenario's check.  Other
 * callbacks run for real at the chosen point, on the thread that reached
 * it, with schedule points off.
 *
 * Memory (opts.memory): "sc" runs every access in one global order.
 * "relaxed-rmw" lets a thread's loads pass its own earlier relaxed RMW
 * (dcsim_try_cmpxchg_relaxed(), the kernel's try_cmpxchg64_relaxed()) on
 * the same object: until the thread's next smp_rmb(), smp_mb(), acquire
 * load or fully ordered RMW, a load may return the value the location had
 * at the thread's last such ordering point.  DCSIM_EXPLORE_MEMORY=sc|
 * relaxed-rmw overrides it.  docs/testing.md lists what it cannot see.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <dcsim/atomic.h>
#include <dcsim/compiler.h>
#include <dcsim/config.h>

#define DCSIM_EXPLORE_MAX_THREADS	8

enum dcsim_explore_mode {
	DCSIM_EXPLORE_RANDOM,
	DCSIM_EXPLORE_PCT,
	DCSIM_EXPLORE_DFS,
};

enum dcsim_explore_htm {
	DCSIM_EXPLORE_HTM_OFF,		/* dcsim_htm_begin() returns DCSIM_HTM_DISABLED */
	DCSIM_EXPLORE_HTM_COMMIT,	/* simulated; never injects an abort */
	DCSIM_EXPLORE_HTM_ABORTS,	/* simulated; injects aborts (abort_permille) */
	DCSIM_EXPLORE_HTM_CONFLICTS,	/* simulated, schedule points inside, conflict aborts */
};

enum dcsim_explore_sched {
	DCSIM_EXPLORE_SCHED_FAIR,	/* preemptive and fair: every runnable thread may run */
	DCSIM_EXPLORE_SCHED_STRICT,	/* strict priorities: one preempted thread waits */
	DCSIM_EXPLORE_SCHED_RT,		/* as strict, and cond_resched() gives nothing back */
	DCSIM_EXPLORE_SCHED_WINDOW,	/* fair, parking threads in lock-drop windows */
};

/*
 * Where the explorer is, published before each execution runs (struct
 * dcsim_explore_opts.where): what a caller needs to replay an execution
 * that never returned, a crash or a hang, from another process.
 */
struct dcsim_explore_where {
	uint64_t exec_seed;		/* the execution's seed (DCSIM_EXPLORE_SEED) */
	unsigned long exec_no;		/* 1-based */
	unsigned long pct_steps;	/* PCT: its step estimate */
	unsigned int hung;		/* 1: the watchdog aborted it (a hang, not a crash) */
};

enum dcsim_explore_memory {
	DCSIM_EXPLORE_MEM_SC,		/* sequentially consistent */
	DCSIM_EXPLORE_MEM_RELAXED_RMW,	/* loads may pass an earlier relaxed RMW */
};

/*
 * Hand-off: how the baton moves from one logical thread to the next.  The
 * schedule is the same either way (a function of the seed); only the cost
 * of a switch differs.  Fibers run every logical thread on the caller's
 * pthread and switch stacks in user space (tens of nanoseconds); the
 * pthread hand-off gives each logical thread a pthread of its own and
 * passes the baton with a condition variable (two futex calls and a
 * kernel context switch), kept as the fallback and as a differential.
 */
enum dcsim_explore_handoff {
	DCSIM_EXPLORE_HANDOFF_DEFAULT,	/* the process's: dcsim_explore_set_handoff(), else fiber */
	DCSIM_EXPLORE_HANDOFF_FIBER,	/* user-level switch, hand-written where there is one */
	DCSIM_EXPLORE_HANDOFF_UCONTEXT,	/* user-level switch through swapcontext() */
	DCSIM_EXPLORE_HANDOFF_PTHREAD,	/* a pthread per logical thread, condition variables */
};

struct dcsim_explore_opts {
	enum dcsim_explore_mode mode;
	uint64_t seed;			/* base seed; execution i uses a seed derived from it */
	unsigned long iterations;	/* executions (dfs: upper bound) */
	unsigned int pct_depth;		/* PCT d: bug depth searched for (>= 1) */
	unsigned int preemption_bound;	/* dfs */
	unsigned long max_steps;	/* schedule points per execution before "livelock" */
	enum dcsim_explore_htm htm;
	unsigned int abort_permille;	/* per begin/access/end, for HTM_ABORTS */
	bool keep_going;		/* count failures instead of stopping at the first */
	bool quiet;			/* no failure report on stderr (tests of the explorer) */
	enum dcsim_explore_memory memory;
	unsigned int htm_capacity;	/* cache lines a transaction may touch; 0: 512 */
	/* Replay and reports; dcsim_explore_opts_from_env() fills them from DCSIM_EXPLORE_*. */
	const char *scenario;		/* run only the scenario of this name; NULL: any */
	bool replay;			/* run one execution, with replay_seed */
	uint64_t replay_seed;
	const char *schedule;		/* forced decisions, "tid*count,..."; NULL: none */
	unsigned long pct_steps;	/* PCT step estimate; 0: the longest execution so far */
	unsigned long report_steps;	/* schedule log steps a failure report prints */
	unsigned long watchdog_secs;	/* time limit of each phase of an execution; 0: off */
	/* Scheduling; see "Scheduling" above. */
	enum dcsim_explore_sched sched;
	unsigned long strict_window;	/* strict: the preemption comes in steps 1..window */
	unsigned long strict_steps;	/* strict: preemptor's points without a yield: livelock */
	/* Fair cycles: rounds a cycle must come back before "livelock"; 0: off. */
	unsigned long lasso_repeats;
	/* How the baton moves between logical threads; results do not depend on it. */
	enum dcsim_explore_handoff handoff;
	/* Written before each execution (shared memory, say); NULL: nowhere. */
	struct dcsim_explore_where *where;
	/*
	 * Window-directed exploration (sched window, see "Windows" above): a
	 * parked thread waits for window_ops whole operations of the others,
	 * at most window_steps schedule points; window_dump: a file the
	 * per-window counts are appended to at the end of the run, or NULL.
	 */
	unsigned long window_ops, window_steps;
	const char *window_dump;
	/* "FUNC:LINE": the window every execution targets (a replay's); NULL: rotate */
	const char *window_target;
};

/**
 * struct dcsim_scenario - what the explorer runs.
 * @name:     printed in failure reports and matched by DCSIM_EXPLORE_SCENARIO
 * @nthreads: logical threads, 1..DCSIM_EXPLORE_MAX_THREADS
 * @setup:    builds the shared state before each execution (controller thread,
 *            no schedule points); returns it, or NULL for failure
 * @thread:   body of logical thread @tid
 * @check:    at quiescence (all threads done, RCU callbacks still queued);
 *            report problems with dcsim_explore_fail(); may be NULL
 * @teardown: frees the state after the queued RCU callbacks ran; may be NULL.
 *            Callbacks it queues run when it returns (so they must not
 *            use what it frees), and no real grace period is needed.
 * @arg:      passed to @setup
 */
struct dcsim_scenario {
	const char *name;
	unsigned int nthreads;
	void *(*setup)(void *arg);
	void (*thread)(void *state, unsigned int tid);
	void (*check)(void *state);
	void (*teardown)(void *state);
	void *arg;
};

struct dcsim_explore_result {
	unsigned long executions;	/* executions run */
	unsigned long failures;
	unsigned long first_failure;	/* 1-based execution number; 0 if none */
	uint64_t failure_seed;		/* seed of the first failing execution */
	unsigned long steps;		/* schedule points, all executions */
	unsigned long max_steps_seen;
	unsigned long htm_commits, htm_aborts;	/* simulated transactions */
	bool exhausted;			/* dfs: every schedule within the bound ran */
	bool skipped;			/* opts->scenario named another scenario */
	char failure[512];		/* first failure message */
	unsigned long htm_conflicts;	/* aborts caused by another thread's access */
	unsigned long htm_capacity_aborts;
	unsigned long rcu_callbacks;	/* callbacks run (or poisoned) inside an execution */
	unsigned long stale_loads;	/* loads that passed a relaxed RMW */
	/* PCT: the step estimate of the first failing execution, which its replay needs */
	unsigned long failure_pct_steps;
	unsigned long preemptions;	/* strict: executions in which the preemption happened */
	/* fair cycles: cycles forced again (each confirmed or cleared), PCT demotions */
	unsigned long lasso_tries, lasso_demotions;
	/*
	 * Every execution's decisions (which thread ran at each schedule
	 * point) and step count, hashed in order: two runs with equal hashes
	 * took the same schedules (the hand-off differential compares them).
	 */
	uint64_t schedule_hash;
	/* sched window: windows reached (a lock taken after), and parked in */
	unsigned long windows_reached, windows_parked;
	/* sched window: the first failing execution's target, "FUNC:LINE" or "" */
	char failure_window[128];
	/*
	 * Lock order validator (<dcsim/lockdep.h>): acquired-before edges of
	 * the run, validated blocking acquisitions, successful trylocks
	 */
	unsigned long lock_edges, lock_acquisitions, lock_trylocks;
};

/**
 * dcsim_explore_opts_init() - defaults: random walk, a fixed base seed,
 * 1000 iterations, PCT depth 3, preemption bound 2, 200000 steps, HTM off,
 * 20 per mille aborts, sequentially consistent memory, a 512-line
 * transaction capacity, no replay, 80 steps in a report, a 60 s watchdog,
 * fair scheduling (strict: a 400-step window, 20000 steps without a yield;
 * window: 1 operation, at most 2000 steps, per park).
 * Reads no environment.
 */
DCSIM_API void dcsim_explore_opts_init(struct dcsim_explore_opts *opts);

/**
 * dcsim_explore_opts_from_env() - override @opts with the DCSIM_EXPLORE_*
 * variables that are set: BASE_SEED (seed), MODE, ITERS, MEMORY, SCENARIO,
 * SEED (replay one execution), SCHEDULE, PCT_STEPS, TRACE (report_steps),
 * WATCHDOG, SCHED, HANDOFF and WINDOW_DUMP, WINDOW_OPS, WINDOW_STEPS,
 * WINDOW_TARGET; a malformed value is reported and ignored.  The one place
 * the explorer's settings come from the environment: for main()s, called
 * after their own settings and before dcsim_explore_run(), which reads
 * none.  The strings point into the environment.
 */
DCSIM_API void dcsim_explore_opts_from_env(struct dcsim_explore_opts *opts);

/**
 * dcsim_explore_run() - explore @sc under @opts (environment overrides apply).
 * Return: 0 if no execution failed, 1 if one did, -errno on bad arguments.
 * @res may be NULL.  Not reentrant: one exploration per process at a time.
 */
DCSIM_API int dcsim_explore_run(const struct dcsim_scenario *sc,
				const struct dcsim_explore_opts *opts,
				struct dcsim_explore_result *res);

#define DCSIM_EXPLORE_PIN_CURRENT	(-2)	/* the CPU the caller runs on (default) */
#define DCSIM_EXPLORE_PIN_OFF		(-1)	/* no pinning */

/**
 * dcsim_explore_set_pin() - the CPU that each later dcsim_explore_run() of
 * this process pins its threads (controller and pool) to, for the run's
 * duration: @slot >= 0 the slot-th CPU of the caller's allowed set (modulo
 * its size; dcsim-check --jobs gives its i-th process slot i),
 * DCSIM_EXPLORE_PIN_CURRENT the one the caller runs on when the run starts
 * (the default), DCSIM_EXPLORE_PIN_OFF none.  The threads hand one baton
 * back and forth, so one run queue saves the cross-CPU wakeups; results do
 * not depend on it.  If the mask cannot be set, the run is unpinned.
 */
DCSIM_API void dcsim_explore_set_pin(int slot);

/**
 * dcsim_explore_fail() - report a failure of the current execution.
 *
 * From @check (or setup/teardown) it records the failure.  From a logical
 * thread it also abandons the execution: the calling thread never returns,
 * and the other threads are parked for good, so that a broken state is not
 * run further.
 */
DCSIM_API void dcsim_explore_fail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

#define dcsim_explore_assert(cond) do {						\
	if (dcsim_unlikely(!(cond)))						\
		dcsim_explore_fail("%s:%d: assertion failed: %s",		\
				   __FILE__, __LINE__, #cond);			\
} while (0)

/** dcsim_explore_self() - logical thread id of the caller, or -1. */
DCSIM_API int dcsim_explore_self(void);

/**
 * dcsim_explore_progress() - the calling logical thread made progress.
 *
 * For scenario programs, between the steps of a thread's program: the
 * fair-cycle detector ("Fair cycles" above) counts the marks of each
 * thread in its signature of the state, so that the same call made twice
 * (a put, a lookup, a put of the same dentry) with memory as it was is not
 * taken for the state coming back.  No schedule point; nothing outside an
 * exploration.
 */
DCSIM_API void dcsim_explore_progress(void);

/**
 * dcsim_explore_rename_ahead() - whether the calling logical thread's
 * program still has a rename (a move of a dentry to another parent) to
 * run, this step included.
 * @ahead: true from the first step to the rename itself, false after it
 *
 * For scenario programs, before each step.  Window-directed exploration
 * (DCSIM_EXPLORE_SCHED_WINDOW) keeps a thread parked in a lock-drop window
 * until the others' renames are done: code that read d_parent and dropped
 * d_lock must see the dentry moved under it.  No schedule point; nothing
 * outside an exploration.
 */
DCSIM_API void dcsim_explore_rename_ahead(bool ahead);

/** dcsim_explore_yield() - an explicit schedule point, for user scenarios. */
DCSIM_API void dcsim_explore_yield(void);

/**
 * dcsim_explore_lockdep_print() - the lock order validator's graph of the
 * last (or current) dcsim_explore_run(), to @f: each acquired-before
 * edge between lock classes with the two sites that first made it, and
 * the pairs seen only as trylocks (<dcsim/lockdep.h>, docs/lock-order.md).
 */
DCSIM_API void dcsim_explore_lockdep_print(FILE *f);

/*
 * The lock order validator on real threads (docs/lock-order.md, "Real
 * threads"): outside an exploration, every thread's lock operations are
 * validated too, with the classes the code registered, in one graph per
 * scope.  A suite opens a scope before it starts its threads and closes
 * it after it joined them; between scopes one scope covers the process,
 * and reports go to stderr.  A report is printed when the thread is about
 * to wait, before a deadlock could follow.  There is no replay: the report
 * names the scope and the command to reproduce it.
 * DCSIM_LOCKDEP_THREADS=off switches the validator of real threads off.
 */
struct dcsim_lockdep_counts {
	unsigned long acquisitions;	/* validated blocking acquisitions */
	unsigned long trylocks;		/* validated successful trylocks */
	unsigned long edges;		/* acquired-before edges of the scope */
	unsigned long cycles;		/* possible circular locking dependencies */
	unsigned long recursions;	/* possible recursive locking */
	unsigned long not_validated;	/* over a table's or the held stack's size */
	char first[512];		/* the first report's summary line; "" if none */
};

/**
 * dcsim_lockdep_begin() - a new scope for the validator of real threads
 * @what:      what runs, for reports ("stress, strategy fast, seed 1")
 * @reproduce: the command that reruns it, for reports; NULL: none
 * @report:    where a report goes when it is made; NULL: nowhere
 *
 * Forgets the graph and the lock classes of the scope before.  Call it
 * while no other thread takes a validated lock (before the suite's
 * threads start), and register the classes in it (build what is locked
 * after it).  Return: nothing.
 */
DCSIM_API void dcsim_lockdep_begin(const char *what, const char *reproduce, FILE *report);

/**
 * dcsim_lockdep_end() - close the scope; @c (may be NULL) gets its counts.
 * Call it after the suite's threads were joined (a thread's counts are
 * summed when it exits, or here while it lives).  Return: nothing; the
 * process is back in its nameless scope, empty.
 */
DCSIM_API void dcsim_lockdep_end(struct dcsim_lockdep_counts *c);

/** dcsim_lockdep_read() - the current scope's counts so far into @c. */
DCSIM_API void dcsim_lockdep_read(struct dcsim_lockdep_counts *c);

/** dcsim_lockdep_reports() - reports (cycles, recursions) of the current scope so far. */
DCSIM_API unsigned long dcsim_lockdep_reports(void);

/** dcsim_lockdep_enabled() - is the validator of real threads on (DCSIM_LOCKDEP_THREADS)? */
DCSIM_API bool dcsim_lockdep_enabled(void);

/** dcsim_lockdep_print() - the current scope's graph, each edge with its two sites, to @f. */
DCSIM_API void dcsim_lockdep_print(FILE *f);

/**
 * dcsim_explore_run_alone() - run @fn(@arg) now, with no schedule point in it
 * @fn:  a checker's look at shared state (a snapshot, the invariants)
 * @arg: passed to @fn
 *
 * For checks made from inside a logical thread, at a point of its program
 * (a post-condition when a call returns): the other logical threads stay
 * parked where they are, so @fn sees one state.  Its accesses through
 * <dcsim/atomic.h> are not schedule points and get no use-after-free
 * check, as an RCU callback run for real.  @fn must not wait for anything
 * a parked thread holds (a lock it took: the watchdog would end the run),
 * and must report through dcsim_explore_fail() only after it returns.
 * Outside an exploration it calls @fn.  Refused inside a simulated
 * transaction (the execution fails).
 */
DCSIM_API void dcsim_explore_run_alone(void (*fn)(void *arg), void *arg);

/*
 * dcsim_access_observer_fn - sees one shared access of an ordinary thread
 * @acc:  kind of access (enum dcsim_access)
 * @addr: address accessed (NULL for fences)
 * @size: bytes accessed
 *
 * Called before the access, on the accessing thread, from the schedule
 * point of every <dcsim/atomic.h> macro made by a thread that is not a
 * logical thread of an exploration.  It must not make shared accesses
 * through <dcsim/atomic.h> itself (it would be called again).
 */
typedef void dcsim_access_observer_fn(enum dcsim_access acc, const volatile void *addr,
				      unsigned int size);

/**
 * dcsim_access_observer_set() - watch the shared accesses of ordinary threads
 * @fn: the observer, or NULL to stop watching
 *
 * The instrumented build's accounting hook: dcsim-bench --sharing counts with it
 * the writes per op to cache lines that more than one thread writes.  The
 * normal build has no schedule points and no such function, so it pays
 * nothing.  Accesses inside an exploration go to the explorer, not here.
 *
 * Return: the observer set before.
 */
DCSIM_API dcsim_access_observer_fn *dcsim_access_observer_set(dcsim_access_observer_fn *fn);

/** dcsim_explore_htm_name() - "off", "sim-commit", "sim-aborts" or "sim-conflicts". */
DCSIM_API const char *dcsim_explore_htm_name(enum dcsim_explore_htm htm);

/** dcsim_explore_handoff_name() - "default", "fiber", "ucontext" or "pthread". */
DCSIM_API const char *dcsim_explore_handoff_name(enum dcsim_explore_handoff h);

/** dcsim_explore_handoff_parse() - a dcsim_explore_handoff_name() into *@out.  Return: 0 or -EINVAL. */
DCSIM_API int dcsim_explore_handoff_parse(const char *name, enum dcsim_explore_handoff *out);

/**
 * dcsim_explore_set_handoff() - the hand-off of every later run of this
 * process whose opts say DCSIM_EXPLORE_HANDOFF_DEFAULT (dcsim-check
 * --handoff; forked children inherit it).  DEFAULT: fiber.
 */
DCSIM_API void dcsim_explore_set_handoff(enum dcsim_explore_handoff h);

/** dcsim_explore_sched_name() - "fair", "strict", "rt" or "window". */
DCSIM_API const char *dcsim_explore_sched_name(enum dcsim_explore_sched sched);

/** dcsim_explore_sched_parse() - "fair", "strict", "rt" or "window" into *@out.  Return: 0 or -EINVAL. */
DCSIM_API int dcsim_explore_sched_parse(const char *name, enum dcsim_explore_sched *out);

/** dcsim_explore_mode_name() - "random", "pct" or "dfs". */
DCSIM_API const char *dcsim_explore_mode_name(enum dcsim_explore_mode mode);

/** dcsim_explore_scale() - DCSIM_EXPLORE_SCALE (default 1): soak multiplier. */
DCSIM_API unsigned long dcsim_explore_scale(void);

/**
 * dcsim_htm_sim_select() - route every dcsim_htm_begin() of threads that are
 * not explorer threads to the simulated backend too (also DCSIM_HTM=sim).
 * Such a begin refuses to run: it prints why and aborts the process, since
 * a simulated transaction is only atomic when one thread runs at a time.
 */
DCSIM_API void dcsim_htm_sim_select(bool on);
DCSIM_API bool dcsim_htm_sim_selected(void);

#endif /* DCSIM_EXPLORE_H */
