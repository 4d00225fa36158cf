// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The deterministic interleaving explorer.
 *
 * Usage: dcsim_explore_run() creates a pool of K pthreads ("logical
 * threads") and runs the scenario's bodies on them, once per execution.
 * Exactly one of the K+1 threads (the pool and the controller that called
 * dcsim_explore_run()) holds the baton, ex.current, at any time; the others
 * wait on their condition variable.  A logical thread gives the baton away
 * only in __dcsim_check_schedule(), which every dcsim_sched_point() outside
 * a simulated transaction calls, or when its body returns.
 *
 * Ordering: ex.lock protects the baton and every field of the explorer and
 * of the logical threads that another thread may read.  Because the baton
 * only moves under ex.lock, everything the previous holder did (including
 * its plain stores to the scenario's memory) happens-before what the next
 * holder does: the scenario runs sequentially consistent, one access at a
 * time, as an interleaving of the threads' program orders (the relaxed-rmw
 * mode then lets some loads return older values on purpose, by patching
 * memory between a load and the same thread's next schedule point).
 *
 * Every decision (which thread runs next) is recorded; the list is what
 * DCSIM_EXPLORE_SCHEDULE replays and what the dfs mode backtracks over.
 * The random choices come from a splitmix64 stream seeded by the execution
 * seed, and HTM abort injection from a second stream of the same seed, so
 * a seed reproduces an execution exactly (with the same scenario, mode and
 * PCT step estimate, which the failure report prints).
 *
 * Three models sit on top of the interleaving (see <dcsim/explore.h>):
 * RCU grace periods with poisoning of freed objects, the "relaxed-rmw"
 * weak-memory mode, and the conflict-driven simulated HTM.  Each adds its
 * own choices (when a ready callback runs, whether a load passes a relaxed
 * RMW) from its own splitmix64 stream of the execution seed, so a seed
 * still reproduces an execution; DCSIM_EXPLORE_SCHEDULE records thread
 * choices only, so replay it with the same seed.
 */

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dcsim/explore.h>
#include <dcsim/explore-hooks.h>
#include <dcsim/rcu.h>

#include "internal.h"
#include "../check/splitmix.h"

#define CTL		(-1)	/* the controller holds the baton */
#define TRACE_MAX	8192	/* ring of the most recent steps */
#define PCT_MAX_DEPTH	16

__thread struct lthread *__dcsim_check_self;

struct explore_pool {
	struct lthread lt[DCSIM_EXPLORE_MAX_THREADS];
	unsigned int n;
	bool dead;		/* abandoned after a failure: its threads park */
	bool shutdown;
};

struct trace_ent {
	const char *func;
	const volatile void *addr;
	int line;
	uint8_t tid;
	uint8_t acc;		/* enum dcsim_access, or TR_* below */
	uint8_t txn;
	uint8_t size;
};

enum {
	TR_EXIT = DCSIM_ACC_NR,	/* thread body returned */
	TR_HTM_ABORT,		/* injected abort; addr holds the status */
	TR_HTM_COMMIT,
	TR_CALL_RCU,		/* call_rcu(); addr holds the head */
	TR_RCU_CB,		/* a callback ran (or its object was poisoned) */
	TR_STALE,		/* the load just before passed a relaxed RMW */
	TR_NR
};

struct dfs_node {
	uint16_t enabled;	/* runnable threads at this decision */
	uint16_t tried;		/* alternatives taken or ruled out */
	int8_t chosen;
	int8_t prev;		/* thread holding the baton, CTL at the start */
	uint16_t preempt;	/* preemptions before this decision */
};

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
	unsigned long q_trace, gp_trace;	/* trace indices */
	unsigned long gp_step;
};

/* A use after free: who freed, who accessed. */
struct uaf_info {
	bool set;
	int queuer, accessor;
	unsigned long q_trace, gp_trace, a_trace;
};

static struct explorer {
	pthread_mutex_t lock;
	pthread_cond_t ctl_cv;
	bool running;
	int current;
	bool exec_done;
	struct explore_pool *pool;
	const struct dcsim_scenario *sc;
	void *state;
	struct dcsim_explore_opts o;
	unsigned long exec_no;		/* 1-based */
	uint64_t exec_seed;
	uint64_t rng, inj_rng, rcu_rng, wm_rng;
	unsigned long step;
	/* failure of the current execution */
	bool failed, abandoned;
	char msg[512];
	/* interleaving */
	struct trace_ent trace[TRACE_MAX];
	unsigned long ntrace;
	unsigned long trace_print;
	/* decisions taken this execution */
	int8_t *dec;
	size_t ndec, dec_cap;
	int8_t *forced;
	size_t nforced;
	/* pct */
	unsigned long pct_k;		/* step estimate; 0 until one execution ran */
	unsigned long pct_k_used;
	unsigned long change[PCT_MAX_DEPTH];
	unsigned int nchange;
	/* dfs */
	struct dfs_node *nodes;
	size_t nnodes, nodes_cap, replay_len;
	unsigned int preempt;
	/* RCU callbacks of this execution, in call_rcu() order; under ex.lock */
	struct rcu_cb *cbs;
	size_t ncbs, cbs_cap;
	struct uaf_info uaf;
	unsigned long htm_commits, htm_aborts, htm_conflicts, htm_capacity_aborts;
	unsigned long rcu_cbs_run, stale_loads;
} ex = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.ctl_cv = PTHREAD_COND_INITIALIZER,
	.current = CTL,
};

static const char *const acc_names[] = {
	[DCSIM_ACC_LOAD]	= "load",
	[DCSIM_ACC_STORE]	= "store",
	[DCSIM_ACC_RMW]		= "rmw",
	[DCSIM_ACC_FENCE]	= "fence",
	[DCSIM_ACC_SPIN]	= "spin",
	[DCSIM_ACC_RCU_LOCK]	= "rcu_lock",
	[DCSIM_ACC_RCU_UNLOCK]	= "rcu_unlock",
	[DCSIM_ACC_RMW_RELAXED]	= "rmw_relaxed",
	[DCSIM_ACC_LOAD_ACQUIRE] = "load_acq",
	[DCSIM_ACC_RMB]		= "rmb",
	[DCSIM_ACC_WMB]		= "wmb",
	[TR_EXIT]		= "exit",
	[TR_HTM_ABORT]		= "htm_abort",
	[TR_HTM_COMMIT]		= "htm_commit",
	[TR_CALL_RCU]		= "call_rcu",
	[TR_RCU_CB]		= "rcu_cb",
	[TR_STALE]		= "stale",
};

_Static_assert(TR_NR <= 256, "trace kinds fit in a byte");

static uint64_t rng_below(uint64_t *s, uint64_t n)
{
	return n ? splitmix64_next(s) % n : 0;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fputs("dcsim-explore: out of memory\n", stderr);
		abort();
	}
	return p;
}

const char *dcsim_explore_mode_name(enum dcsim_explore_mode mode)
{
	switch (mode) {
	case DCSIM_EXPLORE_RANDOM:	return "random";
	case DCSIM_EXPLORE_PCT:		return "pct";
	case DCSIM_EXPLORE_DFS:		return "dfs";
	}
	return "invalid";
}

const char *dcsim_explore_htm_name(enum dcsim_explore_htm htm)
{
	switch (htm) {
	case DCSIM_EXPLORE_HTM_OFF:		return "off";
	case DCSIM_EXPLORE_HTM_COMMIT:		return "sim-commit";
	case DCSIM_EXPLORE_HTM_ABORTS:		return "sim-aborts";
	case DCSIM_EXPLORE_HTM_CONFLICTS:	return "sim-conflicts";
	}
	return "invalid";
}

static unsigned long env_ulong(const char *name, unsigned long def)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end) {
		fprintf(stderr, "dcsim-explore: ignoring %s='%s': not a number\n", name, s);
		return def;
	}
	return v;
}

unsigned long dcsim_explore_scale(void)
{
	unsigned long s = env_ulong("DCSIM_EXPLORE_SCALE", 1);

	return s ? s : 1;
}

void dcsim_explore_opts_init(struct dcsim_explore_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = DCSIM_EXPLORE_RANDOM;
	o->seed = env_ulong("DCSIM_EXPLORE_BASE_SEED", 0x5eed0dc5u);
	o->iterations = 1000;
	o->pct_depth = 3;
	o->preemption_bound = 2;
	o->max_steps = 200000;
	o->htm = DCSIM_EXPLORE_HTM_OFF;
	o->abort_permille = 20;
}

/* ---- the interleaving trace ---- */

static void trace_add(unsigned int tid, unsigned int acc, const volatile void *addr,
		      unsigned int size, const char *func, int line, bool txn)
{
	struct trace_ent *e = &ex.trace[ex.ntrace++ % TRACE_MAX];

	e->tid = (uint8_t)tid;
	e->acc = (uint8_t)acc;
	e->addr = addr;
	e->size = (uint8_t)(size > 255 ? 255 : size);
	e->func = func;
	e->line = line;
	e->txn = txn;
}

/* ---- names for the reports: the describer (<dcsim/explore-hooks.h>) ---- */

static const struct dcsim_explore_describer *describer;

void dcsim_explore_set_describer(const struct dcsim_explore_describer *d)
{
	__atomic_store_n(&describer, d, __ATOMIC_RELEASE);
}

bool dcsim_explore_running(void)
{
	return __atomic_load_n(&ex.running, __ATOMIC_RELAXED);
}

/* ex.lock held or the run over.  "'/d/f'.d_lock" for an address the describer knows, or "". */
static const char *describe_addr(uintptr_t a, unsigned int size, char *buf, size_t len)
{
	const struct dcsim_explore_describer *d = __atomic_load_n(&describer, __ATOMIC_ACQUIRE);

	if (!d || !d->describe || !d->describe(a, size, buf, len))
		buf[0] = '\0';
	return buf;
}

static void trace_print_one(FILE *f, unsigned long i, const struct trace_ent *e);

static void trace_print(FILE *f)
{
	unsigned long n = ex.trace_print, first;

	if (n > TRACE_MAX)
		n = TRACE_MAX;
	if (n > ex.ntrace)
		n = ex.ntrace;
	first = ex.ntrace - n;
	fprintf(f, "dcsim-explore:   interleaving, last %lu of %lu steps "
		"(thread, access, where, address; '*' = inside a simulated transaction):\n",
		n, ex.ntrace);
	for (unsigned long i = first; i < ex.ntrace; i++) {
		const struct trace_ent *e = &ex.trace[i % TRACE_MAX];

		trace_print_one(f, i, e);
	}
}

static void trace_print_one(FILE *f, unsigned long i, const struct trace_ent *e)
{
	if (e->acc == TR_HTM_ABORT) {
		fprintf(f, "    %6lu  T%u  htm abort (%s), status %#" PRIx64 "\n",
			i, e->tid, e->func ? e->func : "injected", (uint64_t)(uintptr_t)e->addr);
		return;
	}
	fprintf(f, "    %6lu  T%u%s %-11s %s:%d", i, e->tid, e->txn ? "*" : " ",
		acc_names[e->acc], e->func ? e->func : "?", e->line);
	if (e->addr) {
		char what[200];

		fprintf(f, "  %p/%u", (const void *)e->addr, e->size);
		if (*describe_addr((uintptr_t)e->addr, e->size, what, sizeof(what)))
			fprintf(f, "  %s", what);
	}
	fputc('\n', f);
}

/* The last @max steps of thread @tid up to trace index @upto. */
static void trace_print_thread(FILE *f, int tid, unsigned long upto, unsigned int max)
{
	unsigned long lo = ex.ntrace > TRACE_MAX ? ex.ntrace - TRACE_MAX : 0;
	unsigned long idx[64];
	unsigned int n = 0;

	if (max > 64)
		max = 64;
	for (unsigned long i = upto + 1; i-- > lo && n < max;) {
		if (i >= ex.ntrace)
			continue;
		if (ex.trace[i % TRACE_MAX].tid == tid)
			idx[n++] = i;
	}
	while (n--)
		trace_print_one(f, idx[n], &ex.trace[idx[n] % TRACE_MAX]);
}

/* Decisions as "tid*count,..." runs: what DCSIM_EXPLORE_SCHEDULE takes. */
static void schedule_print(FILE *f)
{
	size_t i = 0;

	fputs("dcsim-explore:   DCSIM_EXPLORE_SCHEDULE=", f);
	while (i < ex.ndec) {
		size_t j = i;

		while (j < ex.ndec && ex.dec[j] == ex.dec[i])
			j++;
		fprintf(f, "%s%d*%zu", i ? "," : "", ex.dec[i], j - i);
		i = j;
	}
	fputc('\n', f);
}

static void report_failure(FILE *f)
{
	fprintf(f, "dcsim-explore: FAILED scenario '%s', execution %lu, mode %s",
		ex.sc->name, ex.exec_no, dcsim_explore_mode_name(ex.o.mode));
	if (ex.o.mode == DCSIM_EXPLORE_PCT)
		fprintf(f, " (depth %u, step estimate %lu)", ex.o.pct_depth, ex.pct_k_used);
	if (ex.o.mode == DCSIM_EXPLORE_DFS)
		fprintf(f, " (preemption bound %u)", ex.o.preemption_bound);
	fprintf(f, ", %u threads, htm %s, memory %s\n", ex.sc->nthreads,
		dcsim_explore_htm_name(ex.o.htm),
		ex.o.memory == DCSIM_EXPLORE_MEM_RELAXED_RMW ? "relaxed-rmw" : "sc");
	fprintf(f, "dcsim-explore:   %s\n", ex.msg);
	if (ex.uaf.set) {
		if (ex.uaf.queuer >= 0) {
			fprintf(f, "dcsim-explore:   freeing thread T%d, up to its call_rcu() "
				"(step %lu):\n", ex.uaf.queuer, ex.uaf.q_trace);
			trace_print_thread(f, ex.uaf.queuer, ex.uaf.q_trace, 12);
		}
		fprintf(f, "dcsim-explore:   accessing thread T%d, up to the access "
			"(grace period ended at step %lu):\n", ex.uaf.accessor, ex.uaf.gp_trace);
		trace_print_thread(f, ex.uaf.accessor, ex.uaf.a_trace, 16);
	}
	fprintf(f, "dcsim-explore:   replay: DCSIM_EXPLORE_SCENARIO='%s' DCSIM_EXPLORE_MODE=%s "
		"DCSIM_EXPLORE_SEED=%#" PRIx64, ex.sc->name,
		dcsim_explore_mode_name(ex.o.mode), ex.exec_seed);
	if (ex.o.memory == DCSIM_EXPLORE_MEM_RELAXED_RMW)
		fputs(" DCSIM_EXPLORE_MEMORY=relaxed-rmw", f);
	if (ex.o.mode == DCSIM_EXPLORE_PCT)
		fprintf(f, " DCSIM_EXPLORE_PCT_STEPS=%lu", ex.pct_k_used);
	fputs(" <test binary>\n", f);
	if (ex.o.mode == DCSIM_EXPLORE_DFS)
		fputs("dcsim-explore:   (dfs: replay with the schedule below and the same seed)\n", f);
	schedule_print(f);
	trace_print(f);
	fflush(f);
}

/* ---- failure and parking ---- */

static __attribute__((noreturn)) void park_forever(void)
{
	static pthread_mutex_t park_lock = PTHREAD_MUTEX_INITIALIZER;
	static pthread_cond_t park_cv = PTHREAD_COND_INITIALIZER;

	pthread_mutex_lock(&park_lock);
	for (;;)
		pthread_cond_wait(&park_cv, &park_lock);
}

/* ex.lock held.  Records only the first failure of an execution. */
static void fail_locked(const char *fmt, va_list ap)
{
	if (ex.failed)
		return;
	ex.failed = true;
	vsnprintf(ex.msg, sizeof(ex.msg), fmt, ap);
}

static void fail_lockedf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail_lockedf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fail_locked(fmt, ap);
	va_end(ap);
}

/*
 * ex.lock held, called by a logical thread: end the execution here.  The
 * other threads keep waiting for a baton that never comes back to their
 * (now dead) pool; this one parks.  The controller gets the baton.
 */
static __attribute__((noreturn)) void abandon_locked(struct lthread *lt)
{
	lt->pool->dead = true;
	ex.abandoned = true;
	ex.exec_done = true;
	ex.current = CTL;
	pthread_cond_signal(&ex.ctl_cv);
	pthread_mutex_unlock(&ex.lock);
	park_forever();
}

void dcsim_explore_fail(const char *fmt, ...)
{
	struct lthread *lt = __dcsim_check_self;
	va_list ap;

	pthread_mutex_lock(&ex.lock);
	va_start(ap, fmt);
	fail_locked(fmt, ap);
	va_end(ap);
	if (lt) {
		/* Even from inside a simulated transaction: nothing runs after this. */
		lt->txn.active = false;
		__dcsim_check_wm_restore(lt);
		abandon_locked(lt);
	}
	pthread_mutex_unlock(&ex.lock);
}

int dcsim_explore_self(void)
{
	struct lthread *lt = __dcsim_check_self;

	return lt ? (int)lt->id : -1;
}

/* ---- choosing the next thread ---- */

static uint32_t runnable_mask(void)
{
	uint32_t m = 0;

	for (unsigned int i = 0; i < ex.pool->n; i++)
		if (ex.pool->lt[i].state == LT_RUNNABLE)
			m |= 1u << i;
	return m;
}

static int lowest(uint32_t m)
{
	return __builtin_ctz(m);
}

static int nth_bit(uint32_t m, unsigned int n)
{
	while (n--)
		m &= m - 1;
	return __builtin_ctz(m);
}

static int pick_pct(struct lthread *cur, uint32_t en)
{
	int best = -1;

	/* At the i-th change point the running thread drops below everyone. */
	if (cur) {
		for (unsigned int i = 0; i < ex.nchange; i++) {
			if (ex.change[i] == ex.step) {
				cur->prio = i;	/* initial priorities are all >= d */
				break;
			}
		}
	}
	for (unsigned int i = 0; i < ex.pool->n; i++)
		if ((en & (1u << i)) && (best < 0 || ex.pool->lt[i].prio > ex.pool->lt[best].prio))
			best = (int)i;
	return best;
}

static int pick_dfs(struct lthread *cur, uint32_t en)
{
	size_t di = ex.ndec;
	int prev = cur ? (int)cur->id : CTL;
	bool prev_runnable = cur && (en & (1u << cur->id));
	struct dfs_node *nd;
	int c;

	if (di < ex.replay_len) {
		nd = &ex.nodes[di];
		if (nd->enabled == en && nd->prev == prev) {
			c = nd->chosen;
			goto out;
		}
		/* The scenario is not deterministic; explore from here afresh. */
		fprintf(stderr, "dcsim-explore: '%s': dfs replay diverged at decision %zu "
			"(nondeterministic scenario?)\n", ex.sc->name, di);
		ex.replay_len = ex.nnodes = di;
	}
	if (ex.nnodes == ex.nodes_cap) {
		ex.nodes_cap = ex.nodes_cap ? 2 * ex.nodes_cap : 1024;
		ex.nodes = xrealloc(ex.nodes, ex.nodes_cap * sizeof(*ex.nodes));
	}
	nd = &ex.nodes[ex.nnodes++];
	/* Default: no preemption, else the lowest runnable thread. */
	c = prev_runnable ? prev : lowest(en);
	nd->enabled = (uint16_t)en;
	nd->tried = (uint16_t)(1u << c);
	nd->chosen = (int8_t)c;
	nd->prev = (int8_t)prev;
	nd->preempt = (uint16_t)ex.preempt;
out:
	if (prev_runnable && c != prev)
		ex.preempt++;
	return c;
}

/* Backtrack to the deepest decision with an affordable untried alternative. */
static bool dfs_next(void)
{
	while (ex.nnodes) {
		struct dfs_node *nd = &ex.nodes[ex.nnodes - 1];
		bool prev_runnable = nd->prev >= 0 && (nd->enabled & (1u << nd->prev));

		for (int c = 0; c < DCSIM_EXPLORE_MAX_THREADS; c++) {
			unsigned int cost;

			if (!(nd->enabled & (1u << c)) || (nd->tried & (1u << c)))
				continue;
			nd->tried |= (uint16_t)(1u << c);
			cost = prev_runnable && c != nd->prev;
			if (nd->preempt + cost > ex.o.preemption_bound)
				continue;
			nd->chosen = (int8_t)c;
			ex.replay_len = ex.nnodes;
			return true;
		}
		ex.nnodes--;
	}
	return false;
}

/* ex.lock held.  Return: the next thread, or -1 if none is runnable. */
static int pick(struct lthread *cur)
{
	uint32_t en = runnable_mask();
	int c;

	if (!en)
		return -1;
	if (ex.ndec < ex.nforced) {
		c = ex.forced[ex.ndec];
		if (c < 0 || c >= (int)ex.pool->n || !(en & (1u << c))) {
			fprintf(stderr, "dcsim-explore: '%s': forced schedule names thread %d at "
				"decision %zu, which cannot run there; continuing with the lowest\n",
				ex.sc->name, c, ex.ndec);
			c = lowest(en);
		}
	} else {
		switch (ex.o.mode) {
		case DCSIM_EXPLORE_PCT:
			c = pick_pct(cur, en);
			break;
		case DCSIM_EXPLORE_DFS:
			c = pick_dfs(cur, en);
			break;
		case DCSIM_EXPLORE_RANDOM:
		default:
			c = nth_bit(en, (unsigned int)rng_below(&ex.rng, (uint64_t)__builtin_popcount(en)));
			break;
		}
	}
	if (ex.ndec == ex.dec_cap) {
		ex.dec_cap = ex.dec_cap ? 2 * ex.dec_cap : 4096;
		ex.dec = xrealloc(ex.dec, ex.dec_cap);
	}
	ex.dec[ex.ndec++] = (int8_t)c;
	return c;
}

/*
 * ex.lock held.  A write announced at @lt's previous schedule point has
 * been performed by now (the access follows its schedule point), so the
 * spinners it may release can be woken: doing it at the announcing point
 * itself could let a spinner re-check before the write and block for good.
 */
static void flush_write(struct lthread *lt)
{
	if (!lt->pending_write)
		return;
	lt->pending_write = false;
	for (unsigned int i = 0; i < lt->pool->n; i++) {
		struct lthread *o = &lt->pool->lt[i];

		if (o == lt)
			continue;
		o->foreign_write = true;
		if (o->state == LT_BLOCKED)
			o->state = LT_RUNNABLE;
	}
}

static void describe_threads(char *buf, size_t len)
{
	size_t off = 0;

	for (unsigned int i = 0; i < ex.pool->n && off < len; i++) {
		struct lthread *t = &ex.pool->lt[i];

		if (t->state == LT_DONE)
			continue;
		off += (size_t)snprintf(buf + off, len - off, " T%u spins after %s:%d;", i,
					t->last_func ? t->last_func : "?", t->last_line);
	}
}

/* ex.lock held, by @lt.  Wait until the baton comes back (or park). */
static void wait_turn(struct lthread *lt)
{
	while (ex.pool != lt->pool || ex.current != (int)lt->id) {
		if (lt->pool->dead || lt->pool->shutdown)
			return;
		pthread_cond_wait(&lt->cv, &ex.lock);
	}
}

/* ex.lock held.  Hand the baton to @next (-1: nobody can run). */
static void hand_off(struct lthread *lt, int next)
{
	if (next < 0) {
		char who[160] = "";

		describe_threads(who, sizeof(who));
		fail_lockedf("deadlock: no thread can run, every live thread spins without "
			     "another thread writing:%s", who);
		abandon_locked(lt);
	}
	if (next == (int)lt->id)
		return;
	ex.current = next;
	pthread_cond_signal(&lt->pool->lt[next].cv);
	wait_turn(lt);
	if (lt->pool->dead) {
		pthread_mutex_unlock(&ex.lock);
		park_forever();
	}
}

/* ---- access classes ---- */

static bool acc_writes(unsigned int acc)
{
	return acc == DCSIM_ACC_STORE || acc == DCSIM_ACC_RMW || acc == DCSIM_ACC_RMW_RELAXED;
}

static bool acc_touches(unsigned int acc)
{
	return acc_writes(acc) || acc == DCSIM_ACC_LOAD || acc == DCSIM_ACC_LOAD_ACQUIRE;
}

/* Orders the thread's later loads after everything before it. */
static bool acc_orders_loads(unsigned int acc)
{
	return acc == DCSIM_ACC_FENCE || acc == DCSIM_ACC_RMB || acc == DCSIM_ACC_RMW ||
	       acc == DCSIM_ACC_LOAD_ACQUIRE;
}

static bool overlaps(uintptr_t a, size_t as, uintptr_t b, size_t bs)
{
	return a < b + bs && b < a + as;
}

/* ---- RCU: read-side sections, grace periods, poisoned objects ---- */

/* ex.lock held.  Has every reader of @cb left the section it was in? */
static bool cb_ripe(const struct rcu_cb *cb)
{
	for (unsigned int i = 0; i < DCSIM_EXPLORE_MAX_THREADS; i++) {
		const struct lthread *t;

		if (!(cb->readers & (1u << i)))
			continue;
		if (!ex.pool || i >= ex.pool->n)
			continue;
		t = &ex.pool->lt[i];
		if (t->rcu_depth && t->rcu_sections == cb->sect[i])
			return false;
	}
	return true;
}

/* The object @head frees, as the describer tells (poisoned until its grace period ends), or NULL. */
static char *rcu_head_object(struct dcsim_rcu_head *head, size_t *size)
{
	const struct dcsim_explore_describer *d = __atomic_load_n(&describer, __ATOMIC_ACQUIRE);

	*size = 0;
	if (!d || !d->rcu_object)
		return NULL;
	return d->rcu_object(head, size);
}

static void rcu_poison(struct rcu_cb *cb)
{
	cb->saved = xrealloc(NULL, cb->size);
	memcpy(cb->saved, cb->obj, cb->size);
	memset(cb->obj, 0x6b, cb->size);
	cb->state = CB_POISONED;
}

/* Put every poisoned object back as it was, for the check and the real callback. */
static void rcu_unpoison_all(void)
{
	for (size_t i = 0; i < ex.ncbs; i++) {
		struct rcu_cb *cb = &ex.cbs[i];

		if (cb->saved) {
			memcpy(cb->obj, cb->saved, cb->size);
			free(cb->saved);
			cb->saved = NULL;
		}
	}
}

/*
 * ex.lock held, at @lt's schedule point.  Each callback whose grace period
 * is over runs here with probability 1/3 (its own stream of the seed): a
 * described object is poisoned, another callback runs for real on this thread with
 * schedule points off (at most one per point: it may queue more).
 */
static void rcu_tick(struct lthread *lt)
{
	if (lt->txn.active)
		return;
	for (size_t i = 0; i < ex.ncbs; i++) {
		struct rcu_cb *cb = &ex.cbs[i];
		struct dcsim_rcu_head *head;
		dcsim_rcu_cb_t func;

		if (cb->state != CB_PENDING || !cb_ripe(cb))
			continue;
		if (rng_below(&ex.rcu_rng, 3))
			continue;
		cb->gp_trace = ex.ntrace;
		cb->gp_step = ex.step;
		ex.rcu_cbs_run++;
		trace_add(lt->id, TR_RCU_CB, cb->obj ? (void *)cb->obj : (void *)cb->head, 0,
			  cb->obj ? "(grace period over: object poisoned)" : "(grace period over: callback)",
			  0, false);
		if (cb->obj) {
			rcu_poison(cb);
			continue;
		}
		cb->state = CB_DONE;
		head = cb->head;
		func = cb->func;
		__dcsim_check_self = NULL;
		pthread_mutex_unlock(&ex.lock);
		func(head);
		pthread_mutex_lock(&ex.lock);
		__dcsim_check_self = lt;
		return;
	}
}

/* ex.lock held: @lt's access is about to touch [addr, addr+size). */
static void uaf_check(struct lthread *lt, unsigned int acc, const volatile void *addr,
		      unsigned int size, const char *func, int line)
{
	for (size_t i = 0; i < ex.ncbs; i++) {
		const struct rcu_cb *cb = &ex.cbs[i];

		if (cb->state != CB_POISONED ||
		    !overlaps((uintptr_t)addr, size, (uintptr_t)cb->obj, cb->size))
			continue;
		ex.uaf = (struct uaf_info){
			.set = true, .queuer = cb->queuer, .accessor = (int)lt->id,
			.q_trace = cb->q_trace, .gp_trace = cb->gp_trace,
			.a_trace = ex.ntrace ? ex.ntrace - 1 : 0,
		};
		char what[200];

		describe_addr((uintptr_t)addr, size, what, sizeof(what));
		fail_lockedf("use after free: T%u %s %s%s%p (object %p + %td) at %s:%d; the object was "
			     "queued for freeing by %s%d (call_rcu at step %lu) and freed at step %lu, "
			     "when no reader of that time was left in its read-side section",
			     lt->id, acc_names[acc], what, *what ? " at " : "", (const void *)addr,
			     (void *)cb->obj, (const char *)addr - cb->obj, func ? func : "?", line,
			     cb->queuer >= 0 ? "T" : "controller ", cb->queuer, cb->q_trace,
			     cb->gp_step);
		abandon_locked(lt);
	}
}

static void rcu_enter(struct lthread *lt)
{
	if (!lt->rcu_depth++)
		lt->rcu_sections++;
}

/* ex.lock held. */
static void rcu_exit(struct lthread *lt, const char *func, int line)
{
	if (!lt->rcu_depth) {
		fail_lockedf("T%u: rcu_read_unlock() at %s:%d without rcu_read_lock()", lt->id,
			     func ? func : "?", line);
		abandon_locked(lt);
	}
	lt->rcu_depth--;
}

void __dcsim_check_rcu_note(struct lthread *lt, enum dcsim_access acc)
{
	pthread_mutex_lock(&ex.lock);
	if (acc == DCSIM_ACC_RCU_LOCK)
		rcu_enter(lt);
	else if (acc == DCSIM_ACC_RCU_UNLOCK)
		rcu_exit(lt, "(in a simulated transaction)", 0);
	pthread_mutex_unlock(&ex.lock);
}

/* ---- weak memory: loads passing a relaxed RMW ---- */

static bool wm_on(void)
{
	return ex.o.memory == DCSIM_EXPLORE_MEM_RELAXED_RMW;
}

static void wm_clear(struct lthread *lt)
{
	lt->wm_n = 0;
	lt->wm_open = false;
}

/* Coherence: once @lt wrote or freshly read a location, no older value. */
static void wm_drop(struct lthread *lt, uintptr_t addr, unsigned int size)
{
	unsigned int j = 0;

	for (unsigned int i = 0; i < lt->wm_n; i++)
		if (!overlaps(lt->wm[i].addr, lt->wm[i].size, addr, size))
			lt->wm[j++] = lt->wm[i];
	lt->wm_n = j;
}

/*
 * ex.lock held: @lt is about to write [addr, addr+size).  Every other live
 * thread keeps the value it overwrites (the first one since that thread's
 * last ordering point), which its loads may still return.  A full log
 * drops the value: fewer behaviours, never a false one.
 */
static void wm_note_write(struct lthread *lt, uintptr_t addr, unsigned int size)
{
	if (size > SIM_UNDO_BYTES)
		return;
	for (unsigned int i = 0; i < lt->pool->n; i++) {
		struct lthread *o = &lt->pool->lt[i];
		bool have = false;

		if (o == lt || o->state == LT_DONE)
			continue;
		for (unsigned int k = 0; k < o->wm_n && !have; k++)
			have = o->wm[k].addr == addr && o->wm[k].size == size;
		if (have || o->wm_n == WM_LOG_MAX)
			continue;
		o->wm[o->wm_n].addr = addr;
		o->wm[o->wm_n].size = size;
		memcpy(o->wm[o->wm_n].old, (const void *)addr, size);
		o->wm_n++;
	}
	wm_drop(lt, addr, size);
}

/*
 * ex.lock held: @lt is about to load [addr, addr+size) with a relaxed RMW
 * since its last ordering point.  Only loads near the RMW's address (the
 * same object: we cannot see address dependencies, which order loads from
 * other objects reached through pointers) may pass it.  If older values
 * exist, half the time the load returns them: memory is patched until the
 * thread's next schedule point, when nobody else has run yet.
 */
static void wm_load(struct lthread *lt, unsigned int acc, uintptr_t addr, unsigned int size,
		    const char *func, int line)
{
	unsigned char img[SIM_UNDO_BYTES];
	bool any = false;

	if (acc != DCSIM_ACC_LOAD || !lt->wm_open || lt->txn.active || size > SIM_UNDO_BYTES ||
	    addr + 256 < lt->wm_rmw_addr || addr > lt->wm_rmw_addr + 256)
		goto fresh;
	memcpy(img, (const void *)addr, size);
	/* Newest first, so that where entries overlap the oldest value wins. */
	for (unsigned int i = lt->wm_n; i-- > 0;) {
		const struct wm_ent *e = &lt->wm[i];
		uintptr_t lo, hi;

		if (!overlaps(e->addr, e->size, addr, size))
			continue;
		lo = e->addr > addr ? e->addr : addr;
		hi = e->addr + e->size < addr + size ? e->addr + e->size : addr + size;
		memcpy(img + (lo - addr), e->old + (lo - e->addr), hi - lo);
		any = true;
	}
	if (!any || !memcmp(img, (const void *)addr, size) || rng_below(&ex.wm_rng, 2))
		goto fresh;
	memcpy(lt->wm_cur, (const void *)addr, size);
	memcpy((void *)addr, img, size);
	lt->wm_patched = true;
	lt->wm_paddr = (void *)addr;
	lt->wm_psize = size;
	ex.stale_loads++;
	trace_add(lt->id, TR_STALE, (const void *)addr, size, func, line, false);
	return;
fresh:
	wm_drop(lt, addr, size);
}

void __dcsim_check_wm_restore(struct lthread *lt)
{
	if (!lt->wm_patched)
		return;
	memcpy(lt->wm_paddr, lt->wm_cur, lt->wm_psize);
	lt->wm_patched = false;
}

/* ---- HTM conflicts (strong isolation) ---- */

/* ex.lock held: @lt's access aborts every transaction it conflicts with. */
static void htm_conflicts(struct lthread *lt, unsigned int acc, uintptr_t addr, unsigned int size)
{
	uintptr_t first = addr >> SIM_LINE_SHIFT, last = (addr + size - 1) >> SIM_LINE_SHIFT;
	bool w = acc_writes(acc);

	for (unsigned int i = 0; i < lt->pool->n; i++) {
		struct lthread *o = &lt->pool->lt[i];

		if (o == lt || !o->txn.active || o->txn.doomed)
			continue;
		for (uintptr_t ln = first; ln <= last; ln++) {
			dcsim_htm_status_t st = DCSIM_HTM_SIM_MARK | DCSIM_HTM_X86_CONFLICT |
						DCSIM_HTM_X86_RETRY;

			if (!__dcsim_htm_sim_has_line(o, ln, true) &&
			    !(w && __dcsim_htm_sim_has_line(o, ln, false)))
				continue;
			trace_add(o->id, TR_HTM_ABORT, (const void *)(uintptr_t)st, 0,
				  w ? "conflict: another thread writes a line it touched" :
				      "conflict: another thread reads a line it wrote", 0, true);
			__dcsim_htm_sim_doom(o, st);
			ex.htm_conflicts++;
			break;
		}
	}
}

/* ex.lock held: @lt's access to @addr happens now, after its schedule point. */
static void access_checks(struct lthread *lt, unsigned int acc, const volatile void *addr,
			  unsigned int size, const char *func, int line, bool atomic_txn)
{
	/* Aborted while it waited: this access is never made. */
	if (lt->txn.active && lt->txn.doomed)
		return;
	if (addr && size && acc_touches(acc)) {
		uaf_check(lt, acc, addr, size, func, line);
		if (!atomic_txn && ex.o.htm == DCSIM_EXPLORE_HTM_CONFLICTS)
			htm_conflicts(lt, acc, (uintptr_t)addr, size);
	}
	if (!wm_on())
		return;
	if (acc_orders_loads(acc))
		wm_clear(lt);
	if (addr && size) {
		if (acc_writes(acc))
			wm_note_write(lt, (uintptr_t)addr, size);
		else if (acc_touches(acc))
			wm_load(lt, acc, (uintptr_t)addr, size, func, line);
	}
	if (acc == DCSIM_ACC_RMW_RELAXED) {
		lt->wm_open = true;
		lt->wm_rmw_addr = (uintptr_t)addr;
	}
}

void __dcsim_check_schedule(struct lthread *lt, enum dcsim_access acc,
			    const volatile void *addr, unsigned int size,
			    const char *func, int line)
{
	pthread_mutex_lock(&ex.lock);
	__dcsim_check_wm_restore(lt);
	flush_write(lt);
	trace_add(lt->id, acc, addr, size, func, line, lt->txn.active);
	lt->last_acc = acc;
	lt->last_func = func;
	lt->last_line = line;
	lt->last_addr = addr;
	if (++ex.step > ex.o.max_steps) {
		fail_lockedf("livelock: no end after %lu schedule points (max_steps)",
			     ex.o.max_steps);
		abandon_locked(lt);
	}
	if (acc == DCSIM_ACC_SPIN) {
		/*
		 * A second spin with no foreign write since the first would
		 * read the same memory again: block until someone writes.
		 */
		if (lt->spun && !lt->foreign_write)
			lt->state = LT_BLOCKED;
		lt->spun = true;
		lt->foreign_write = false;
	}
	if (acc_writes(acc))
		lt->pending_write = true;
	/* The section ends before the point (the unlock is behind us)... */
	if (acc == DCSIM_ACC_RCU_UNLOCK)
		rcu_exit(lt, func, line);
	rcu_tick(lt);
	hand_off(lt, pick(lt));
	/* ...and begins after it (the lock is ahead of us). */
	if (acc == DCSIM_ACC_RCU_LOCK)
		rcu_enter(lt);
	access_checks(lt, acc, addr, size, func, line, false);
	pthread_mutex_unlock(&ex.lock);
}

void dcsim_sched_point(enum dcsim_access acc, const volatile void *addr,
		       unsigned int size, const char *func, int line)
{
	struct lthread *lt = __dcsim_check_self;

	if (dcsim_likely(!lt))
		return;
	__dcsim_check_wm_restore(lt);
	if (lt->txn.active) {
		if (ex.o.htm != DCSIM_EXPLORE_HTM_CONFLICTS || acc == DCSIM_ACC_SPIN) {
			/* No schedule point inside: the transaction is atomic. */
			pthread_mutex_lock(&ex.lock);
			access_checks(lt, acc, addr, size, func, line, true);
			pthread_mutex_unlock(&ex.lock);
			__dcsim_htm_sim_access(lt, acc, addr, size, func, line);
			return;
		}
		/* Conflict mode: others may run, and may abort us meanwhile. */
		__dcsim_check_schedule(lt, acc, addr, size, func, line);
		__dcsim_htm_sim_access_conflict(lt, acc, addr, size, func, line);
		return;
	}
	__dcsim_check_schedule(lt, acc, addr, size, func, line);
}

void dcsim_explore_yield(void)
{
	struct lthread *lt = __dcsim_check_self;

	if (!lt)
		return;
	if (!lt->txn.active) {
		__dcsim_check_schedule(lt, DCSIM_ACC_FENCE, NULL, 0, "dcsim_explore_yield", 0);
	} else if (ex.o.htm == DCSIM_EXPLORE_HTM_CONFLICTS) {
		__dcsim_check_schedule(lt, DCSIM_ACC_FENCE, NULL, 0, "dcsim_explore_yield", 0);
		__dcsim_htm_sim_access_conflict(lt, DCSIM_ACC_FENCE, NULL, 0, "dcsim_explore_yield", 0);
	}
}

/* ---- HTM glue for htm-sim.c ---- */

bool __dcsim_check_htm_on(void)
{
	return ex.o.htm != DCSIM_EXPLORE_HTM_OFF;
}

dcsim_htm_status_t __dcsim_check_inject(struct lthread *lt, const char *where)
{
	/* The RTM causes a transaction can die of, with the bits hardware sets. */
	static const uint32_t causes[] = {
		DCSIM_HTM_X86_CONFLICT | DCSIM_HTM_X86_RETRY,
		DCSIM_HTM_X86_CAPACITY,
		DCSIM_HTM_X86_DEBUG,
		DCSIM_HTM_X86_NESTED,
		DCSIM_HTM_X86_RETRY,
		0,	/* interrupt: RTM gives no reason */
	};
	dcsim_htm_status_t st;

	(void)where;
	if (ex.o.htm != DCSIM_EXPLORE_HTM_ABORTS && ex.o.htm != DCSIM_EXPLORE_HTM_CONFLICTS)
		return 0;
	if (rng_below(&ex.inj_rng, 1000) >= ex.o.abort_permille)
		return 0;
	st = DCSIM_HTM_SIM_MARK |
	     causes[rng_below(&ex.inj_rng, DCSIM_ARRAY_SIZE(causes))];
	trace_add(lt->id, TR_HTM_ABORT, (const void *)(uintptr_t)st, 0, where, 0, true);
	return st;
}

void __dcsim_check_trace_txn(struct lthread *lt, enum dcsim_access acc,
			     const volatile void *addr, unsigned int size,
			     const char *func, int line)
{
	trace_add(lt->id, acc, addr, size, func, line, true);
}

void __dcsim_check_note_htm(bool commit, dcsim_htm_status_t st)
{
	if (commit) {
		ex.htm_commits++;
		return;
	}
	ex.htm_aborts++;
	if ((st & DCSIM_HTM_X86_CAPACITY) && !(st & DCSIM_HTM_X86_EXPLICIT))
		ex.htm_capacity_aborts++;
}

bool __dcsim_check_htm_conflicts(void)
{
	return ex.o.htm == DCSIM_EXPLORE_HTM_CONFLICTS;
}

unsigned int __dcsim_check_htm_capacity(void)
{
	unsigned int c = ex.o.htm_capacity;

	return c && c < SIM_LINES_MAX ? c : SIM_LINES_MAX;
}

/* ---- RCU callbacks: queued with their readers ---- */

/*
 * Called for every dcsim_call_rcu() while an exploration runs, from a
 * logical thread (holding the baton, not ex.lock), from the controller, or
 * from a callback (ex.lock released around it).  The readers are the
 * threads inside a read-side section now.
 */
static void defer_rcu(struct dcsim_rcu_head *head, dcsim_rcu_cb_t func)
{
	struct lthread *lt = __dcsim_check_self;
	struct rcu_cb *cb;

	pthread_mutex_lock(&ex.lock);
	if (ex.ncbs == ex.cbs_cap) {
		ex.cbs_cap = ex.cbs_cap ? 2 * ex.cbs_cap : 256;
		ex.cbs = xrealloc(ex.cbs, ex.cbs_cap * sizeof(*ex.cbs));
	}
	cb = &ex.cbs[ex.ncbs++];
	memset(cb, 0, sizeof(*cb));
	cb->head = head;
	cb->func = func;
	cb->state = CB_PENDING;
	cb->obj = rcu_head_object(head, &cb->size);
	if (!cb->obj)
		cb->size = 0;
	cb->queuer = lt ? (int)lt->id : CTL;
	cb->q_trace = ex.ntrace;
	for (unsigned int i = 0; ex.pool && i < ex.pool->n; i++) {
		if (ex.pool->lt[i].rcu_depth) {
			cb->readers |= 1u << i;
			cb->sect[i] = ex.pool->lt[i].rcu_sections;
		}
	}
	if (lt)
		trace_add(lt->id, TR_CALL_RCU, head, 0, lt->last_func, lt->last_line, lt->txn.active);
	pthread_mutex_unlock(&ex.lock);
}

/*
 * At quiescence, on the controller: every callback not yet run runs now,
 * in call_rcu() order (no reader is left, so every grace period is over).
 * Callbacks may queue more callbacks; run until none is left.
 */
static void drain_rcu(void)
{
	for (;;) {
		struct rcu_cb cb;
		size_t i;

		pthread_mutex_lock(&ex.lock);
		for (i = 0; i < ex.ncbs && ex.cbs[i].state == CB_DONE; i++)
			;
		if (i == ex.ncbs) {
			ex.ncbs = 0;
			pthread_mutex_unlock(&ex.lock);
			return;
		}
		ex.cbs[i].state = CB_DONE;
		cb = ex.cbs[i];
		pthread_mutex_unlock(&ex.lock);
		cb.func(cb.head);
	}
}

/* A failed execution: its state is leaked, and so are its callbacks. */
static void discard_rcu(void)
{
	pthread_mutex_lock(&ex.lock);
	rcu_unpoison_all();
	ex.ncbs = 0;
	pthread_mutex_unlock(&ex.lock);
}

/* ---- the pool ---- */

static void *lthread_main(void *arg)
{
	struct lthread *lt = arg;
	struct explore_pool *pool = lt->pool;

	__dcsim_check_self = lt;
	pthread_mutex_lock(&ex.lock);
	for (;;) {
		int next;

		wait_turn(lt);
		if (pool->shutdown)
			break;
		if (pool->dead) {
			pthread_mutex_unlock(&ex.lock);
			park_forever();
		}
		pthread_mutex_unlock(&ex.lock);

		ex.sc->thread(ex.state, lt->id);

		__dcsim_check_wm_restore(lt);
		pthread_mutex_lock(&ex.lock);
		flush_write(lt);
		if (lt->rcu_depth) {
			fail_lockedf("T%u returned inside an RCU read-side section (depth %u)",
				     lt->id, lt->rcu_depth);
			abandon_locked(lt);
		}
		lt->state = LT_DONE;
		wm_clear(lt);
		rcu_tick(lt);
		trace_add(lt->id, TR_EXIT, NULL, 0, "(body returned)", 0, false);
		next = pick(lt);
		if (next < 0) {
			bool live = false;

			for (unsigned int i = 0; i < pool->n; i++)
				live |= pool->lt[i].state != LT_DONE;
			if (live) {
				char who[160] = "";

				describe_threads(who, sizeof(who));
				fail_lockedf("deadlock: the last running thread T%u returned and "
					     "every other spins:%s", lt->id, who);
			}
			ex.exec_done = true;
			ex.current = CTL;
			pthread_cond_signal(&ex.ctl_cv);
		} else {
			ex.current = next;
			pthread_cond_signal(&pool->lt[next].cv);
		}
	}
	pthread_mutex_unlock(&ex.lock);
	__dcsim_check_self = NULL;
	return NULL;
}

static struct explore_pool *pool_create(unsigned int n)
{
	struct explore_pool *pool = calloc(1, sizeof(*pool));

	if (!pool)
		return NULL;
	pool->n = n;
	for (unsigned int i = 0; i < n; i++) {
		struct lthread *lt = &pool->lt[i];

		lt->pool = pool;
		lt->id = i;
		lt->state = LT_DONE;
		pthread_cond_init(&lt->cv, NULL);
		if (pthread_create(&lt->pthread, NULL, lthread_main, lt)) {
			fputs("dcsim-explore: pthread_create failed\n", stderr);
			abort();
		}
	}
	return pool;
}

/* Its threads read ex.pool under ex.lock as soon as they start. */
static void pool_install(struct explore_pool *pool)
{
	if (!pool) {
		fputs("dcsim-explore: out of memory\n", stderr);
		abort();
	}
	pthread_mutex_lock(&ex.lock);
	ex.pool = pool;
	pthread_mutex_unlock(&ex.lock);
}

/* Only for a pool that is not dead: its threads wait at the top of their loop. */
static void pool_destroy(struct explore_pool *pool)
{
	pthread_mutex_lock(&ex.lock);
	pool->shutdown = true;
	for (unsigned int i = 0; i < pool->n; i++)
		pthread_cond_signal(&pool->lt[i].cv);
	pthread_mutex_unlock(&ex.lock);
	for (unsigned int i = 0; i < pool->n; i++) {
		pthread_join(pool->lt[i].pthread, NULL);
		pthread_cond_destroy(&pool->lt[i].cv);
	}
	free(pool);
}

/* ---- crash reports ---- */

static void crash_handler(int sig)
{
	/* Best effort (not async-signal-safe): the process dies anyway. */
	snprintf(ex.msg, sizeof(ex.msg), "crashed with signal %d (%s)", sig, strsignal(sig));
	report_failure(stderr);
	signal(sig, SIG_DFL);
	raise(sig);
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

/* ---- the watchdog ---- */

/*
 * Deadlocks and livelocks are found at schedule points, so two kinds of
 * hang escape that detection: setup, check and teardown run on the
 * controller thread, where nothing is a schedule point, and a logical
 * thread may loop without reaching one.  Either used to hang the checker
 * silently (say, a user strategy's unlock of an unheld d_lock in setup,
 * leaving a ticket that is never served).  So each phase of an execution
 * runs under a time limit, DCSIM_EXPLORE_WATCHDOG seconds (default 60; 0:
 * off).  A hung phase cannot be unwound (it holds whatever it holds), so
 * the watchdog reports the scenario, the phase and the replay line, and
 * aborts the process.
 *
 * Arming costs a clock read and a few stores, no system call: the phase is
 * published seqlock-style (wd.seq odd while it changes) and the watchdog
 * thread polls it once a second, so a phase that has not changed across
 * a poll and is older than the limit has hung.
 */
static struct {
	unsigned long secs;		/* limit; 0: off */
	unsigned long seq;		/* odd while phase/start change */
	const char *phase;		/* NULL: no phase armed */
	uint64_t start_ns;
	bool started;			/* this process has its watchdog thread */
	pthread_mutex_t lock;		/* serialises starting it */
} wd = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t wd_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void wd_set(const char *phase)
{
	__atomic_add_fetch(&wd.seq, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&wd.start_ns, wd_now(), __ATOMIC_SEQ_CST);
	__atomic_store_n(&wd.phase, phase, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&wd.seq, 1, __ATOMIC_SEQ_CST);
}

static __attribute__((noreturn)) void wd_expire(const char *phase, unsigned long secs)
{
	/* Best effort, as crash_handler(): the process is about to die. */
	snprintf(ex.msg, sizeof(ex.msg), "watchdog: %s has not returned after %lu s", phase, secs);
	fprintf(stderr, "dcsim-explore: WATCHDOG: scenario '%s', execution %lu: %s has not "
		"returned after %lu s (DCSIM_EXPLORE_WATCHDOG).  It hangs where the deadlock "
		"and livelock detection cannot see: setup, check and teardown run on the "
		"controller thread, and a logical thread may loop without a schedule point "
		"(a lock never released, or one corrupted by an unlock of a lock not held, "
		"would do it).  Aborting.\n", ex.sc ? ex.sc->name : "?", ex.exec_no, phase, secs);
	report_failure(stderr);
	signal(SIGABRT, SIG_DFL);
	abort();
}

static void *wd_main(void *arg)
{
	unsigned long last_seq = 0;

	(void)arg;
	for (;;) {
		unsigned long secs = __atomic_load_n(&wd.secs, __ATOMIC_SEQ_CST);
		unsigned long s1, s2;
		const char *phase;
		uint64_t start;

		sleep(1);
		if (!secs)
			continue;
		s1 = __atomic_load_n(&wd.seq, __ATOMIC_SEQ_CST);
		phase = __atomic_load_n(&wd.phase, __ATOMIC_SEQ_CST);
		start = __atomic_load_n(&wd.start_ns, __ATOMIC_SEQ_CST);
		s2 = __atomic_load_n(&wd.seq, __ATOMIC_SEQ_CST);
		if ((s1 & 1) || s1 != s2 || !phase) {
			last_seq = s1;
			continue;
		}
		/* The same phase as at the last poll, and older than the limit. */
		if (s1 == last_seq && wd_now() - start >= (uint64_t)secs * 1000000000ull)
			wd_expire(phase, secs);
		last_seq = s1;
	}
	return NULL;
}

/* A forked child has no watchdog thread: the next phase starts one. */
static void wd_atfork_child(void)
{
	wd.started = false;
	pthread_mutex_init(&wd.lock, NULL);
}

static void wd_start(void)
{
	static bool atfork;
	pthread_attr_t attr;
	pthread_t t;

	pthread_mutex_lock(&wd.lock);
	if (__atomic_load_n(&wd.started, __ATOMIC_RELAXED)) {
		pthread_mutex_unlock(&wd.lock);
		return;
	}
	if (!atfork) {
		pthread_atfork(NULL, NULL, wd_atfork_child);
		atfork = true;
	}
	__atomic_store_n(&wd.started, true, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&wd.lock);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, wd_main, NULL))
		fputs("dcsim-explore: cannot start the watchdog thread; hangs outside the "
		      "explored threads will not be reported\n", stderr);
	pthread_attr_destroy(&attr);
}

/* Arm the watchdog for @phase of the current execution (NULL: disarm). */
static void wd_phase(const char *phase)
{
	if (!__atomic_load_n(&wd.secs, __ATOMIC_RELAXED))
		return;
	if (!__atomic_load_n(&wd.started, __ATOMIC_RELAXED))
		wd_start();
	wd_set(phase);
}

/* ---- running ---- */

static int parse_schedule(const char *s)
{
	ex.nforced = 0;
	while (s && *s) {
		char *end;
		long tid = strtol(s, &end, 10);
		unsigned long cnt = 1;

		if (end == s)
			return -EINVAL;
		s = end;
		if (*s == '*') {
			cnt = strtoul(s + 1, &end, 10);
			if (end == s + 1)
				return -EINVAL;
			s = end;
		}
		if (*s == ',')
			s++;
		ex.forced = xrealloc(ex.forced, ex.nforced + cnt);
		memset(ex.forced + ex.nforced, (int)tid, cnt);
		ex.nforced += cnt;
	}
	return 0;
}

static void exec_prepare(void)
{
	struct explore_pool *pool = ex.pool;
	unsigned int n = pool->n;
	unsigned int perm[DCSIM_EXPLORE_MAX_THREADS];

	ex.rng = ex.exec_seed;
	ex.inj_rng = ex.exec_seed ^ 0x6a09e667f3bcc909ull;
	(void)splitmix64_next(&ex.inj_rng);
	ex.rcu_rng = ex.exec_seed ^ 0xbb67ae8584caa73bull;
	(void)splitmix64_next(&ex.rcu_rng);
	ex.wm_rng = ex.exec_seed ^ 0x3c6ef372fe94f82bull;
	(void)splitmix64_next(&ex.wm_rng);
	memset(&ex.uaf, 0, sizeof(ex.uaf));
	ex.step = 0;
	ex.ntrace = 0;
	if (describer && describer->exec_begin)
		describer->exec_begin();
	ex.ndec = 0;
	ex.preempt = 0;
	ex.failed = false;
	ex.abandoned = false;
	ex.exec_done = false;
	ex.msg[0] = '\0';
	if (ex.o.mode == DCSIM_EXPLORE_DFS)
		ex.nnodes = ex.replay_len;

	/* PCT: a random permutation of priorities d..d+n-1, d-1 change points in 1..k. */
	for (unsigned int i = 0; i < n; i++)
		perm[i] = i;
	for (unsigned int i = n; i > 1; i--) {
		unsigned int j = (unsigned int)rng_below(&ex.rng, i), t = perm[i - 1];

		perm[i - 1] = perm[j];
		perm[j] = t;
	}
	ex.nchange = ex.o.pct_depth ? ex.o.pct_depth - 1 : 0;
	ex.pct_k_used = ex.pct_k ? ex.pct_k : 32;
	for (unsigned int i = 0; i < ex.nchange; i++)
		ex.change[i] = 1 + rng_below(&ex.rng, ex.pct_k_used);

	for (unsigned int i = 0; i < n; i++) {
		struct lthread *lt = &pool->lt[i];

		lt->state = LT_RUNNABLE;
		lt->spun = false;
		lt->foreign_write = false;
		lt->pending_write = false;
		lt->prio = ex.o.pct_depth + perm[i];
		lt->last_func = NULL;
		lt->last_line = 0;
		lt->rcu_depth = 0;
		lt->rcu_sections = 0;
		lt->wm_open = false;
		lt->wm_n = 0;
		lt->wm_patched = false;
		__dcsim_htm_sim_reset(lt);
	}
}

static void apply_env(struct dcsim_explore_opts *o, bool *single, uint64_t *seed)
{
	const char *m = getenv("DCSIM_EXPLORE_MODE");

	if (m && *m) {
		if (!strcmp(m, "random"))
			o->mode = DCSIM_EXPLORE_RANDOM;
		else if (!strcmp(m, "pct"))
			o->mode = DCSIM_EXPLORE_PCT;
		else if (!strcmp(m, "dfs"))
			o->mode = DCSIM_EXPLORE_DFS;
		else
			fprintf(stderr, "dcsim-explore: ignoring DCSIM_EXPLORE_MODE='%s'\n", m);
	}
	o->iterations = env_ulong("DCSIM_EXPLORE_ITERS", o->iterations);
	m = getenv("DCSIM_EXPLORE_MEMORY");
	if (m && *m) {
		if (!strcmp(m, "sc"))
			o->memory = DCSIM_EXPLORE_MEM_SC;
		else if (!strcmp(m, "relaxed-rmw"))
			o->memory = DCSIM_EXPLORE_MEM_RELAXED_RMW;
		else
			fprintf(stderr, "dcsim-explore: ignoring DCSIM_EXPLORE_MEMORY='%s' "
				"(want sc or relaxed-rmw)\n", m);
	}
	if (getenv("DCSIM_EXPLORE_SEED")) {
		*single = true;
		*seed = env_ulong("DCSIM_EXPLORE_SEED", 0);
	}
}

int dcsim_explore_run(const struct dcsim_scenario *sc, const struct dcsim_explore_opts *opts,
		      struct dcsim_explore_result *res)
{
	struct dcsim_explore_result r;
	struct sigaction sa, old_segv, old_bus, old_abrt;
	const char *only = getenv("DCSIM_EXPLORE_SCENARIO");
	bool single = false;
	uint64_t single_seed = 0;
	unsigned long max_iter;

	memset(&r, 0, sizeof(r));
	if (!sc || !opts || !sc->thread || !sc->name || sc->nthreads < 1 ||
	    sc->nthreads > DCSIM_EXPLORE_MAX_THREADS || opts->pct_depth > PCT_MAX_DEPTH ||
	    (unsigned int)opts->htm > DCSIM_EXPLORE_HTM_CONFLICTS ||
	    (unsigned int)opts->memory > DCSIM_EXPLORE_MEM_RELAXED_RMW || __dcsim_check_self)
		return -EINVAL;
	if (only && *only && strcmp(only, sc->name)) {
		r.skipped = true;
		if (res)
			*res = r;
		return 0;
	}

	pthread_mutex_lock(&ex.lock);
	if (ex.running) {
		pthread_mutex_unlock(&ex.lock);
		return -EBUSY;
	}
	ex.running = true;
	pthread_mutex_unlock(&ex.lock);

	ex.sc = sc;
	ex.o = *opts;
	apply_env(&ex.o, &single, &single_seed);
	if (parse_schedule(getenv("DCSIM_EXPLORE_SCHEDULE"))) {
		fputs("dcsim-explore: DCSIM_EXPLORE_SCHEDULE: want tid*count,...\n", stderr);
		ex.nforced = 0;
	}
	ex.trace_print = env_ulong("DCSIM_EXPLORE_TRACE", 80);
	__atomic_store_n(&wd.secs, env_ulong("DCSIM_EXPLORE_WATCHDOG", 60), __ATOMIC_SEQ_CST);
	ex.pct_k = env_ulong("DCSIM_EXPLORE_PCT_STEPS", 0);
	/* PCT's k: the longest execution seen so far, unless given. */
	bool pct_adapt = !ex.pct_k;
	ex.nnodes = ex.replay_len = 0;
	ex.htm_commits = ex.htm_aborts = ex.htm_conflicts = ex.htm_capacity_aborts = 0;
	ex.rcu_cbs_run = ex.stale_loads = 0;
	ex.ncbs = 0;
	max_iter = single ? 1 : ex.o.iterations;

	dcsim_rcu_set_defer_hook(defer_rcu);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = crash_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGABRT, &sa, &old_abrt);

	pool_install(pool_create(sc->nthreads));
	for (unsigned long i = 0; i < max_iter; i++) {
		int first;

		ex.exec_no = i + 1;
		if (single) {
			ex.exec_seed = single_seed;
		} else {
			/*
			 * dfs keeps one seed: injected HTM aborts must then
			 * follow the decisions alone, or a replayed prefix
			 * could diverge.
			 */
			uint64_t s = ex.o.seed +
				(ex.o.mode == DCSIM_EXPLORE_DFS ? 0 : i) * 0xd1342543de82ef95ull;

			ex.exec_seed = splitmix64_next(&s);
		}
		if (!ex.pool)
			pool_install(pool_create(sc->nthreads));
		exec_prepare();
		wd_phase("setup");
		ex.state = sc->setup ? sc->setup(sc->arg) : sc->arg;
		wd_phase(NULL);
		if (sc->setup && !ex.state) {
			snprintf(r.failure, sizeof(r.failure), "scenario setup failed");
			r.failures++;
			fprintf(stderr, "dcsim-explore: '%s': setup failed\n", sc->name);
			break;
		}

		wd_phase("the threads' run");
		pthread_mutex_lock(&ex.lock);
		first = pick(NULL);
		ex.current = first;
		pthread_cond_signal(&ex.pool->lt[first].cv);
		while (!ex.exec_done)
			pthread_cond_wait(&ex.ctl_cv, &ex.lock);
		pthread_mutex_unlock(&ex.lock);
		wd_phase(NULL);

		r.executions++;
		r.steps += ex.step;
		if (ex.step > r.max_steps_seen)
			r.max_steps_seen = ex.step;
		/* The check walks the cache: it must see freed objects as they were. */
		pthread_mutex_lock(&ex.lock);
		rcu_unpoison_all();
		pthread_mutex_unlock(&ex.lock);
		wd_phase("check");
		if (!ex.abandoned && sc->check)
			sc->check(ex.state);
		wd_phase(NULL);
		if (!ex.failed) {
			wd_phase("teardown");
			drain_rcu();
			/*
			 * Teardown keeps the hook: its callbacks run when it
			 * returns.  Real grace periods (an rcu_barrier() in a
			 * cache's destroy) would cost milliseconds for each of
			 * thousands of executions, and at quiescence there is
			 * no reader left to wait for anyway.
			 */
			if (sc->teardown)
				sc->teardown(ex.state);
			drain_rcu();
			wd_phase(NULL);
		} else {
			/*
			 * The state may be inconsistent (a lock left held would
			 * hang teardown, a freed object still linked would be
			 * used after free): leak it, and an abandoned pool.
			 */
			lsan_keep(ex.state);
			discard_rcu();
			if (ex.abandoned) {
				pthread_mutex_lock(&ex.lock);
				ex.pool = NULL;
				pthread_mutex_unlock(&ex.lock);
			}
		}
		if (ex.failed) {
			if (!r.failures) {
				r.first_failure = ex.exec_no;
				r.failure_seed = ex.exec_seed;
				r.failure_pct_steps = ex.pct_k_used;
				snprintf(r.failure, sizeof(r.failure), "%s", ex.msg);
			}
			r.failures++;
			if (!ex.o.quiet)
				report_failure(stderr);
			if (!ex.o.keep_going)
				break;
		}
		if (pct_adapt)
			ex.pct_k = r.max_steps_seen;
		if (ex.o.mode == DCSIM_EXPLORE_DFS && !single && !dfs_next()) {
			r.exhausted = true;
			break;
		}
	}
	if (ex.pool)
		pool_destroy(ex.pool);
	ex.pool = NULL;

	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGABRT, &old_abrt, NULL);
	dcsim_rcu_set_defer_hook(NULL);
	r.htm_commits = ex.htm_commits;
	r.htm_aborts = ex.htm_aborts;
	r.htm_conflicts = ex.htm_conflicts;
	r.htm_capacity_aborts = ex.htm_capacity_aborts;
	r.rcu_callbacks = ex.rcu_cbs_run;
	r.stale_loads = ex.stale_loads;
	pthread_mutex_lock(&ex.lock);
	ex.running = false;
	pthread_mutex_unlock(&ex.lock);
	if (res)
		*res = r;
	return r.failures ? 1 : 0;
}
