// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The schedule point: every dcsim_sched_point() of a logical thread
 * outside a simulated transaction (access.c) hands the baton on here,
 * and the checks of the access it announces run after.
 */

#include <stdio.h>

#include <dcsim/explore.h>

#include "internal.h"

/*
 * ex->lock held.  A write announced at @lt's previous schedule point has
 * been performed by now (the access follows its schedule point), so the
 * spinners it may release can be woken: doing it at the announcing point
 * itself could let a spinner re-check before the write and block for good.
 */
void flush_write(struct lthread *lt)
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

void describe_threads(struct explorer *ex, char *buf, size_t len)
{
	size_t off = 0;

	for (unsigned int i = 0; i < ex->pool->n && off < len; i++) {
		struct lthread *t = &ex->pool->lt[i];

		if (t->state == LT_DONE)
			continue;
		off += (size_t)snprintf(buf + off, len - off, " T%u spins after %s:%d;", i,
					t->last_func ? t->last_func : "?", t->last_line);
	}
}

/* ex->lock held.  Hand the baton to @next (-1: nobody can run). */
static void hand_off(struct explorer *ex, struct lthread *lt, int next)
{
	if (next < 0) {
		char who[160] = "";

		strict_stuck(ex, lt);

		describe_threads(ex, who, sizeof(who));
		fail_lockedf(ex, "deadlock: no thread can run, every live thread spins without "
			     "another thread writing:%s", who);
		abandon_locked(ex, lt);
	}
	if (next == (int)lt->id)
		return;
	ex->current = next;
	baton_pass(ex, lt, false);
	if (lt->pool->dead) {
		pthread_mutex_unlock(&ex->lock);
		park_forever();
	}
}

/* ex->lock held: @lt's access to @addr happens now, after its schedule point. */
static void access_checks(struct explorer *ex, struct lthread *lt, unsigned int acc,
			  const volatile void *addr, unsigned int size, const char *func, int line,
			  bool atomic_txn)
{
	/* Aborted while it waited: this access is never made. */
	if (lt->txn.active && lt->txn.doomed)
		return;
	if (addr && size && acc_touches(acc)) {
		uaf_check(ex, lt, acc, addr, size, func, line);
		if (!atomic_txn && ex->o.htm == DCSIM_EXPLORE_HTM_CONFLICTS)
			htm_conflicts(ex, lt, acc, (uintptr_t)addr, size);
	}
	lasso_note_access(lt, acc, addr, size);
	if (!wm_on(&ex->o))
		return;
	if (acc_orders_loads(acc))
		wm_clear(lt);
	if (addr && size) {
		if (acc_writes(acc))
			wm_note_write(lt, (uintptr_t)addr, size);
		else if (acc_touches(acc))
			wm_load(&ex->wm, &ex->slog, lt, acc, (uintptr_t)addr, size, func, line);
	}
	if (acc == DCSIM_ACC_RMW_RELAXED) {
		lt->wm_open = true;
		lt->wm_rmw_addr = (uintptr_t)addr;
	}
}

void explore_schedule(struct explorer *ex, struct lthread *lt, enum dcsim_access acc,
		      const volatile void *addr, unsigned int size, const char *func, int line)
{
	const char *livelock;
	int next;

	pthread_mutex_lock(&ex->lock);
	explore_wm_restore(lt);
	flush_write(lt);
	lasso_flush(lt);
	slog_add(&ex->slog, lt->id, acc, addr, size, func, line, lt->txn.active);
	if (acc == DCSIM_ACC_SPIN || acc == DCSIM_ACC_RESCHED)
		lt->spin_on = lt->last_addr;
	lt->last_acc = acc;
	lt->last_func = func;
	lt->last_line = line;
	lt->last_addr = addr;
	if (++ex->step > ex->o.max_steps) {
		fail_lockedf(ex, "livelock: no end after %lu schedule points (max_steps)",
			     ex->o.max_steps);
		abandon_locked(ex, lt);
	}
	if (acc == DCSIM_ACC_SPIN || acc == DCSIM_ACC_RESCHED) {
		/*
		 * A second spin with no foreign write since the first would
		 * read the same memory again: block until someone writes.
		 * cond_resched() pauses a busy wait the same way.
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
		rcu_exit(ex, lt, func, line);
	rcu_tick(ex, lt);
	strict_point(ex, lt, acc);
	window_point(ex, lt, func, line);
	next = pick(ex, lt);
	livelock = lasso_caught();
	if (livelock) {
		fail_lockedf(ex, "%s", livelock);
		abandon_locked(ex, lt);
	}
	hand_off(ex, lt, next);
	/* ...and begins after it (the lock is ahead of us). */
	if (acc == DCSIM_ACC_RCU_LOCK)
		rcu_enter(lt);
	access_checks(ex, lt, acc, addr, size, func, line, false);
	pthread_mutex_unlock(&ex->lock);
}

/*
 * An access inside a simulated transaction that has no schedule point
 * (the transaction is atomic): its checks alone, under ex->lock.
 */
void explore_txn_access(struct explorer *ex, struct lthread *lt, enum dcsim_access acc,
			const volatile void *addr, unsigned int size, const char *func, int line)
{
	pthread_mutex_lock(&ex->lock);
	access_checks(ex, lt, acc, addr, size, func, line, true);
	pthread_mutex_unlock(&ex->lock);
}
