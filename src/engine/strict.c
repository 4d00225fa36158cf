// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Strict priorities (opts.sched == DCSIM_EXPLORE_SCHED_STRICT): the
 * preemption that a fair scheduler would always undo, kept.
 *
 * The fair explorer lets every runnable thread run next, so a busy wait
 * only ever waits for a thread that will run: it models a preemptive
 * scheduler that gives each thread its turn in the end.  The kernel
 * promises less.  A thread that preempted another on their CPU (a higher
 * priority, or a kernel without full preemption where the loser waits for
 * the winner's next cond_resched()) keeps that CPU until it sleeps, calls
 * cond_resched() or is done; spinning with cpu_relax() does not give it
 * back.  What the kernel does promise is that a thread holding a spinlock,
 * waiting for one, or inside an RCU read-side section, is not preempted:
 * waiting for those is always safe.
 *
 * So once per execution, at a step drawn from the execution's seed, one
 * thread (the victim, drawn too) is taken off the CPU it shares with
 * another (the preemptor, drawn too), at the first schedule point at or
 * after that step where the victim holds no spinlock, waits for none, and
 * is in no RCU read-side section or simulated transaction.  It is left out of every
 * pick until the preemptor calls cond_resched() or returns.  Should the
 * preemptor then wait for the victim, that is a livelock, reported with
 * who spins on what, who holds it, and where the victim stopped:
 *  - every thread left can only spin (blocked, sched-point.c);
 *  - or the preemptor runs opts.strict_steps schedule points since the
 *    preemption without a yield (a retry loop that writes as it goes,
 *    which spin blocking cannot see), and no other thread can run.  The
 *    other threads have CPUs of their own, so one that can run is run at
 *    that point (PCT would starve it: its priorities are a search device,
 *    not this model) and the count starts again; dfs keeps its order.
 *
 * Which thread holds which spinlock comes from <dcsim/spinlock.h>'s
 * dcsim_spin_note(), the only thing the lock layer tells the checkers.
 * Locks taken inside a simulated transaction are not counted: an abort
 * rolls them back, and a thread inside one is not preempted anyway.
 *
 * The rt flavour (DCSIM_EXPLORE_SCHED_RT) is the same with a preemptor of
 * higher real-time priority: its cond_resched() gives nothing back.
 *
 * Sleeping is not modelled (the model never sleeps), so cond_resched() is
 * the only yield (none under rt).  One preemption per execution, of one pair: more CPUs
 * sharing more threads are more executions, not more events in one.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <dcsim/explore.h>
#include <dcsim/spinlock.h>

#include "internal.h"

/* ---- who holds what ---- */

/* The spin_note hook (src/base/hooks.h): dcsim_spin_note() of the primitives calls it. */
void strict_spin_note(enum dcsim_spin_event ev, const dcsim_spinlock_t *lock,
		      unsigned int subclass, const char *func, int line)
{
	struct explorer *ex = explore_ctx();
	struct lthread *lt = explore_lt;

	/*
	 * Only the baton holder runs, so its own fields need no lock; the
	 * hand-off under ex->lock orders them before any report reads them.
	 */
	if (!lt) {
		/* Not a logical thread: a real one, for the validator of real threads. */
		lockdep_threads_note(ev, lock, subclass, func, line);
		return;
	}
	if (lt->txn.active)
		return;
	lasso_note_lock(lock);
	window_note(ex, lt, ev);
	lockdep_note(ex, lt, ev, lock, subclass, func, line);
	switch (ev) {
	case DCSIM_SPIN_ACQUIRED:
	case DCSIM_SPIN_TRYLOCKED:
		if (lt->nheld < LT_HELD_MAX)
			lt->held[lt->nheld++] = lock;
		else
			lt->held_lost++;
		if (lt->contended == lock)
			lt->contended = NULL;
		lt->waiting = NULL;
		break;
	case DCSIM_SPIN_RELEASED:
		for (unsigned int i = lt->nheld; i-- > 0;) {
			if (lt->held[i] == lock) {
				lt->held[i] = lt->held[--lt->nheld];
				return;
			}
		}
		/* Not one we saw taken: one past LT_HELD_MAX, or taken in a transaction. */
		if (lt->held_lost)
			lt->held_lost--;
		break;
	case DCSIM_SPIN_CONTENDED:
		lt->contended = lock;
		break;
	case DCSIM_SPIN_WAITING:
		lt->contended = lock;
		lt->waiting = lock;
		break;
	default:
		/* The validator's annotations: who holds what is unchanged. */
		break;
	}
}

/* The spin_assert_held hook: dcsim_spin_assert_held() of the primitives calls it. */
void strict_spin_assert_held(const dcsim_spinlock_t *lock, const char *lock_name,
			    const char *what, const char *object)
{
	struct explorer *ex = explore_ctx();
	const struct lthread *lt = explore_lt;
	int holder = -1;

	/*
	 * As in dcsim_spin_note(): only the baton holder runs, so every
	 * thread's list is stable while we read it.
	 */
	if (!lt || lt->txn.active || lt->held_lost)
		return;
	for (unsigned int i = 0; i < lt->nheld; i++)
		if (lt->held[i] == lock)
			return;
	for (unsigned int i = 0; i < ex->pool->n && holder < 0; i++)
		for (unsigned int j = 0; j < ex->pool->lt[i].nheld; j++)
			if (ex->pool->lt[i].held[j] == lock)
				holder = (int)i;
	if (holder < 0)
		dcsim_explore_fail("T%u: %s%s%s%s without holding %s (nobody holds it)", lt->id, what,
				   object ? " '" : "", object ? object : "", object ? "'" : "",
				   lock_name);
	else
		dcsim_explore_fail("T%u: %s%s%s%s without holding %s (T%d holds it)", lt->id, what,
				   object ? " '" : "", object ? object : "", object ? "'" : "",
				   lock_name, holder);
}

/* The logical thread holding (else waiting for) the lock that covers @addr, or -1. */
static int holder_of(struct explorer *ex, const volatile void *addr)
{
	uintptr_t a = (uintptr_t)addr;

	if (!addr)
		return -1;
	for (unsigned int i = 0; i < ex->pool->n; i++) {
		const struct lthread *t = &ex->pool->lt[i];

		for (unsigned int j = 0; j < t->nheld; j++)
			if (overlaps(a, 1, (uintptr_t)t->held[j], sizeof(dcsim_spinlock_t)))
				return (int)i;
	}
	for (unsigned int i = 0; i < ex->pool->n; i++) {
		const struct lthread *t = &ex->pool->lt[i];

		if (t->waiting && overlaps(a, 1, (uintptr_t)t->waiting, sizeof(dcsim_spinlock_t)))
			return (int)i;
	}
	return -1;
}

static size_t name_of(const volatile void *addr, char *buf, size_t len)
{
	char what[200];

	if (*describe_addr((uintptr_t)addr, 4, what, sizeof(what)))
		return (size_t)snprintf(buf, len, "%s", what);
	return (size_t)snprintf(buf, len, "%p", (const void *)addr);
}

#define APPEND(...) do {							\
	if (off < len)								\
		off += (size_t)snprintf(buf + off, len - off, __VA_ARGS__);	\
} while (0)

/* "T0 holds '/d/p'.d_lock, ...; " for every thread that holds something. */
static size_t describe_holders(struct explorer *ex, char *buf, size_t len)
{
	size_t off = 0;

	for (unsigned int i = 0; i < ex->pool->n; i++) {
		const struct lthread *t = &ex->pool->lt[i];

		if (!t->nheld)
			continue;
		APPEND(" T%u holds", i);
		for (unsigned int j = 0; j < t->nheld && off < len; j++) {
			APPEND(j ? ", " : " ");
			if (off < len)
				off += name_of(t->held[j], buf + off, len - off);
		}
		APPEND(";");
	}
	return off;
}

/* The cycle: who spins or retries on what, held by whom, and the victim. */
static void fail_livelock(struct explorer *ex, const char *how)
{
	const struct lthread *b = &ex->pool->lt[ex->strict.by];
	bool rt = ex->o.sched == DCSIM_EXPLORE_SCHED_RT;
	char buf[400];
	size_t len = sizeof(buf), off = 0;

	if (b->spin_on) {
		int h = holder_of(ex, b->spin_on);

		APPEND(" T%d last spun on ", ex->strict.by);
		if (off < len)
			off += name_of(b->spin_on, buf + off, len - off);
		if (h >= 0)
			APPEND(" (held by T%d)", h);
		APPEND(";");
	}
	if (b->contended) {
		int h = holder_of(ex, b->contended);

		APPEND(" T%d last found ", ex->strict.by);
		if (off < len)
			off += name_of(b->contended, buf + off, len - off);
		if (h >= 0)
			APPEND(" held by T%d;", h);
		else
			APPEND(" taken (free now);");
	}
	if (off < len)
		off += describe_holders(ex, buf + off, len - off);
	if (off >= len)
		memcpy(buf + len - 4, "...", 4);
	/* Under rt the preemptor may well call cond_resched(): it just yields nothing. */
	fail_lockedf(ex, "livelock (%s priorities): T%d preempted T%d at step %lu, where T%d "
		     "stopped after %s:%d holding no spinlock; T%d %s %s, "
		     "now at %s:%d; T%d never runs again.%s",
		     rt ? "real-time" : "strict", ex->strict.by, ex->strict.victim, ex->strict.since,
		     ex->strict.victim, ex->strict.func ? ex->strict.func : "(its start)",
		     ex->strict.line, ex->strict.by, how,
		     rt ? "without a yield (its cond_resched() gives nothing back at real-time "
		     "priority)" : "without cond_resched()",
		     b->last_func ? b->last_func : "?", b->last_line, ex->strict.victim, buf);
}

#undef APPEND

/* ---- the preemption ---- */

void strict_prepare(struct explorer *ex)
{
	unsigned int n = ex->pool->n;

	for (unsigned int i = 0; i < n; i++) {
		struct lthread *lt = &ex->pool->lt[i];

		lt->nheld = lt->held_lost = 0;
		lt->contended = lt->waiting = NULL;
		lt->spin_on = NULL;
	}
	ex->strict.victim = ex->strict.by = ex->strict.rescue = -1;
	ex->strict.off = ex->strict.over = false;
	ex->strict.func = NULL;
	ex->strict.line = 0;
	if (ex->o.sched == DCSIM_EXPLORE_SCHED_FAIR || ex->o.sched == DCSIM_EXPLORE_SCHED_WINDOW || n < 2)
		return;
	/* Its own stream: the other choices of a seed stay what fair mode makes them. */
	ex->strict.rng = ex->exec_seed ^ 0xa54ff53a5f1d36f1ull;
	(void)splitmix64_next(&ex->strict.rng);
	ex->strict.victim = (int)splitmix64_below(&ex->strict.rng, n);
	ex->strict.by = (int)splitmix64_below(&ex->strict.rng, n - 1);
	if (ex->strict.by >= ex->strict.victim)
		ex->strict.by++;
	ex->strict.at = 1 + splitmix64_below(&ex->strict.rng,
					     ex->o.strict_window ? ex->o.strict_window : 1);
}

static bool preemptible(const struct lthread *t)
{
	return t->state != LT_DONE && !t->nheld && !t->held_lost && !t->waiting &&
	       !t->rcu_depth && !t->txn.active;
}

static void strict_end(struct ex_strict *st)
{
	st->off = false;
	st->over = true;
}

void strict_point(struct explorer *ex, struct lthread *lt, unsigned int acc)
{
	if (ex->strict.victim < 0 || ex->strict.over)
		return;
	if (ex->strict.off) {
		if ((int)lt->id != ex->strict.by)
			return;
		/*
		 * The preemptor offers its CPU: the victim has waited, so it
		 * gets it; not from a real-time preemptor (rt).
		 */
		if (acc == DCSIM_ACC_RESCHED && ex->o.sched == DCSIM_EXPLORE_SCHED_STRICT) {
			strict_end(&ex->strict);
			return;
		}
		if (++ex->strict.run > ex->o.strict_steps) {
			char how[96];

			/*
			 * The other threads have CPUs of their own: one that
			 * can run would, whatever the preemptor does (PCT
			 * starves it by design).  Run it, and count again.
			 */
			for (unsigned int i = 0; i < ex->pool->n; i++) {
				if (i != lt->id && (int)i != ex->strict.victim &&
				    ex->pool->lt[i].state == LT_RUNNABLE &&
				    ex->o.mode != DCSIM_EXPLORE_DFS) {
					ex->strict.rescue = (int)i;
					ex->strict.run = 0;
					return;
				}
			}

			snprintf(how, sizeof(how), "has run %lu schedule points since",
				 ex->strict.run - 1);
			fail_livelock(ex, how);
			abandon_locked(ex, lt);
		}
		return;
	}
	/* A preemption at the preemptor's own cond_resched() would end there (strict). */
	if (ex->step < ex->strict.at || (acc == DCSIM_ACC_RESCHED && (int)lt->id == ex->strict.by &&
				       ex->o.sched == DCSIM_EXPLORE_SCHED_STRICT))
		return;
	{
		struct lthread *v = &ex->pool->lt[ex->strict.victim];

		if (ex->pool->lt[ex->strict.by].state == LT_DONE || v->state == LT_DONE) {
			ex->strict.over = true;
			return;
		}
		/* Waiting in cond_resched() the preemptor would give the CPU back at once (strict). */
		if (!preemptible(v) || (ex->o.sched == DCSIM_EXPLORE_SCHED_STRICT &&
					ex->pool->lt[ex->strict.by].state == LT_BLOCKED &&
					ex->pool->lt[ex->strict.by].last_acc == DCSIM_ACC_RESCHED))
			return;
		ex->strict.off = true;
		ex->strict.count++;
		ex->strict.run = 0;
		ex->strict.since = ex->slog.n;
		ex->strict.func = v->last_func;
		ex->strict.line = v->last_line;
		/* The report tells what the preemptor waits on from here on. */
		ex->pool->lt[ex->strict.by].spin_on = NULL;
		ex->pool->lt[ex->strict.by].contended = NULL;
		slog_add(&ex->slog, v->id, SL_PREEMPT, (const void *)(uintptr_t)ex->strict.by, 0,
			 "(off its CPU)", 0, false);
	}
}

void strict_exit(struct explorer *ex, struct lthread *lt)
{
	if (ex->strict.off && (int)lt->id == ex->strict.by)
		strict_end(&ex->strict);
}

bool strict_stuck(struct explorer *ex, struct lthread *lt)
{
	if (!ex->strict.off)
		return false;
	fail_livelock(ex, "spins on their CPU");
	abandon_locked(ex, lt);
}
