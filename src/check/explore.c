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
 * time, as an interleaving of the threads' program orders.
 *
 * Every decision (which thread runs next) is recorded; the list is what
 * DCSIM_EXPLORE_SCHEDULE replays and what the dfs mode backtracks over.
 * The random choices come from a splitmix64 stream seeded by the execution
 * seed, and HTM abort injection from a second stream of the same seed, so
 * a seed reproduces an execution exactly (with the same scenario, mode and
 * PCT step estimate, which the failure report prints).
 */

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dcsim/explore.h>
#include <dcsim/rcu.h>

#include "check.h"

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
};

struct dfs_node {
	uint16_t enabled;	/* runnable threads at this decision */
	uint16_t tried;		/* alternatives taken or ruled out */
	int8_t chosen;
	int8_t prev;		/* thread holding the baton, CTL at the start */
	uint16_t preempt;	/* preemptions before this decision */
};

struct rcu_cb {
	struct dcsim_rcu_head *head;
	dcsim_rcu_cb_t func;
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
	uint64_t rng, inj_rng;
	unsigned long step;
	/* failure of the current execution */
	bool failed, abandoned;
	char msg[256];
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
	/* RCU callbacks deferred to quiescence */
	pthread_mutex_t cb_lock;
	struct rcu_cb *cbs;
	size_t ncbs, cbs_cap;
	unsigned long htm_commits, htm_aborts;
} ex = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.ctl_cv = PTHREAD_COND_INITIALIZER,
	.cb_lock = PTHREAD_MUTEX_INITIALIZER,
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
	[TR_EXIT]		= "exit",
	[TR_HTM_ABORT]		= "htm_abort",
	[TR_HTM_COMMIT]		= "htm_commit",
};

/* splitmix64: tiny, fast, and every seed (even 0) gives a good stream. */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rng_below(uint64_t *s, uint64_t n)
{
	return n ? rng_next(s) % n : 0;
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

		if (e->acc == TR_HTM_ABORT) {
			fprintf(f, "    %6lu  T%u  htm abort injected, status %#" PRIx64 "\n",
				i, e->tid, (uint64_t)(uintptr_t)e->addr);
			continue;
		}
		fprintf(f, "    %6lu  T%u%s %-10s %s:%d", i, e->tid, e->txn ? "*" : " ",
			acc_names[e->acc], e->func ? e->func : "?", e->line);
		if (e->addr)
			fprintf(f, "  %p/%u", (const void *)e->addr, e->size);
		fputc('\n', f);
	}
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
	fprintf(f, ", %u threads, htm %s\n", ex.sc->nthreads,
		ex.o.htm == DCSIM_EXPLORE_HTM_OFF ? "off" :
		ex.o.htm == DCSIM_EXPLORE_HTM_COMMIT ? "sim-commit" : "sim-aborts");
	fprintf(f, "dcsim-explore:   %s\n", ex.msg);
	fprintf(f, "dcsim-explore:   replay: DCSIM_EXPLORE_SCENARIO='%s' DCSIM_EXPLORE_MODE=%s "
		"DCSIM_EXPLORE_SEED=%#" PRIx64, ex.sc->name,
		dcsim_explore_mode_name(ex.o.mode), ex.exec_seed);
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

void __dcsim_check_schedule(struct lthread *lt, enum dcsim_access acc,
			    const volatile void *addr, unsigned int size,
			    const char *func, int line)
{
	pthread_mutex_lock(&ex.lock);
	flush_write(lt);
	trace_add(lt->id, acc, addr, size, func, line, false);
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
	if (acc == DCSIM_ACC_STORE || acc == DCSIM_ACC_RMW)
		lt->pending_write = true;
	hand_off(lt, pick(lt));
	pthread_mutex_unlock(&ex.lock);
}

void dcsim_sched_point(enum dcsim_access acc, const volatile void *addr,
		       unsigned int size, const char *func, int line)
{
	struct lthread *lt = __dcsim_check_self;

	if (dcsim_likely(!lt))
		return;
	if (lt->txn.active) {
		/* No schedule point inside: the transaction is atomic. */
		__dcsim_htm_sim_access(lt, acc, addr, size, func, line);
		return;
	}
	__dcsim_check_schedule(lt, acc, addr, size, func, line);
}

void dcsim_explore_yield(void)
{
	struct lthread *lt = __dcsim_check_self;

	if (lt && !lt->txn.active)
		__dcsim_check_schedule(lt, DCSIM_ACC_FENCE, NULL, 0, "dcsim_explore_yield", 0);
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
	if (ex.o.htm != DCSIM_EXPLORE_HTM_ABORTS)
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
	(void)st;
	if (commit)
		ex.htm_commits++;
	else
		ex.htm_aborts++;
}

/* ---- RCU callbacks, run at quiescence ---- */

static void defer_rcu(struct dcsim_rcu_head *head, dcsim_rcu_cb_t func)
{
	pthread_mutex_lock(&ex.cb_lock);
	if (ex.ncbs == ex.cbs_cap) {
		ex.cbs_cap = ex.cbs_cap ? 2 * ex.cbs_cap : 256;
		ex.cbs = xrealloc(ex.cbs, ex.cbs_cap * sizeof(*ex.cbs));
	}
	ex.cbs[ex.ncbs++] = (struct rcu_cb){ head, func };
	pthread_mutex_unlock(&ex.cb_lock);
}

/* Callbacks may queue more callbacks; run until none is left. */
static void drain_rcu(void)
{
	for (;;) {
		struct rcu_cb cb;

		pthread_mutex_lock(&ex.cb_lock);
		if (!ex.ncbs) {
			pthread_mutex_unlock(&ex.cb_lock);
			return;
		}
		cb = ex.cbs[0];
		memmove(ex.cbs, ex.cbs + 1, --ex.ncbs * sizeof(*ex.cbs));
		pthread_mutex_unlock(&ex.cb_lock);
		cb.func(cb.head);
	}
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

		pthread_mutex_lock(&ex.lock);
		flush_write(lt);
		lt->state = LT_DONE;
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
	(void)rng_next(&ex.inj_rng);
	ex.step = 0;
	ex.ntrace = 0;
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
	    __dcsim_check_self)
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
	ex.pct_k = env_ulong("DCSIM_EXPLORE_PCT_STEPS", 0);
	/* PCT's k: the longest execution seen so far, unless given. */
	bool pct_adapt = !ex.pct_k;
	ex.nnodes = ex.replay_len = 0;
	ex.htm_commits = ex.htm_aborts = 0;
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

			ex.exec_seed = rng_next(&s);
		}
		if (!ex.pool)
			pool_install(pool_create(sc->nthreads));
		exec_prepare();
		ex.state = sc->setup ? sc->setup(sc->arg) : sc->arg;
		if (sc->setup && !ex.state) {
			snprintf(r.failure, sizeof(r.failure), "scenario setup failed");
			r.failures++;
			fprintf(stderr, "dcsim-explore: '%s': setup failed\n", sc->name);
			break;
		}

		pthread_mutex_lock(&ex.lock);
		first = pick(NULL);
		ex.current = first;
		pthread_cond_signal(&ex.pool->lt[first].cv);
		while (!ex.exec_done)
			pthread_cond_wait(&ex.ctl_cv, &ex.lock);
		pthread_mutex_unlock(&ex.lock);

		r.executions++;
		r.steps += ex.step;
		if (ex.step > r.max_steps_seen)
			r.max_steps_seen = ex.step;
		if (!ex.abandoned && sc->check)
			sc->check(ex.state);
		if (!ex.failed) {
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
		} else {
			/*
			 * The state may be inconsistent (a lock left held would
			 * hang teardown, a freed dentry still linked would be
			 * used after free): leak it, and an abandoned pool.
			 */
			lsan_keep(ex.state);
			pthread_mutex_lock(&ex.cb_lock);
			ex.ncbs = 0;
			pthread_mutex_unlock(&ex.cb_lock);
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
	pthread_mutex_lock(&ex.lock);
	ex.running = false;
	pthread_mutex_unlock(&ex.lock);
	if (res)
		*res = r;
	return r.failures ? 1 : 0;
}
