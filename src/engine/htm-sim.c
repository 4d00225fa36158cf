// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The simulated HTM backend of the instrumented flavour: the htm_* members of
 * the engine's hook table (src/base/hooks.h, filled in hooks.c), through which
 * src/base/htm.c and <dcsim/htm.h> reach it.
 *
 * A simulated transaction runs on an explorer thread.  In the "commit" and
 * "aborts" modes atomicity comes from the explorer: dcsim_sched_point()
 * never gives the baton away while the thread is inside a transaction, so
 * no other logical thread runs between begin and end.  In the "conflicts"
 * mode the accesses inside are schedule points, and isolation comes from
 * conflict detection instead, as in RTM: the transaction keeps the cache
 * lines it read and wrote (64 bytes, SIM_LINE_SHIFT), and an access by
 * another thread that writes a line of either set, or reads a line of the
 * write set, aborts it on the spot (htm-conflicts.c:htm_conflicts() calls
 * htm_sim_doom()): its stores are rolled back before that access
 * is made, so no other thread ever reads a speculative value (strong
 * isolation), and the transaction resumes at begin with a conflict status
 * when it next runs.  In every mode:
 *
 *  - every store and read-modify-write made through <dcsim/atomic.h> inside
 *    the transaction first saves the bytes it will overwrite (its schedule
 *    point comes before the access), so an abort can put them back, newest
 *    first, leaving memory exactly as it was at begin;
 *  - an abort then longjmp()s to the setjmp() of the dcsim_htm_begin()
 *    macro, which returns a second time with an RTM-layout status, as XBEGIN
 *    does;
 *  - the explorer may inject an abort at begin, before any access inside
 *    and at end (DCSIM_EXPLORE_HTM_ABORTS), with the causes hardware gives;
 *    spinning inside a transaction aborts with a conflict (the thread it
 *    waits for cannot run until we leave), and a store footprint over
 *    SIM_UNDO_MAX aborts for capacity.
 *
 * Accounting: the attempt is counted before the transaction starts and
 * the abort after the rollback, like the hardware path in src/base/htm.c, in the
 * same per-thread statistics.
 *
 * Outside the explorer a simulated transaction would not be atomic, so the
 * backend refuses to run there (sim_refuse()).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unwind.h>

#include <dcsim/explore.h>
#include <dcsim/htm.h>
#include <dcsim/stats.h>

#include "../base/htm-backend.h"
#include "../base/thread.h"
#include "internal.h"

static bool sim_selected;

void dcsim_htm_sim_select(bool on)
{
	__atomic_store_n(&sim_selected, on, __ATOMIC_RELAXED);
}

bool dcsim_htm_sim_selected(void)
{
	return __atomic_load_n(&sim_selected, __ATOMIC_RELAXED);
}

static __attribute__((noreturn)) void sim_refuse(const char *what)
{
	fprintf(stderr,
		"dcsim: %s: the simulated HTM backend runs only on threads of the "
		"deterministic explorer (dcsim_explore_run()), where one logical thread "
		"runs at a time; with free-running threads its transactions would not "
		"be atomic. Outside the explorer use DCSIM_HTM=auto, off or force.\n", what);
	abort();
}

bool sim_take_env(const char *env)
{
	if (!env || strcmp(env, "sim"))
		return false;
	dcsim_htm_sim_select(true);
	return true;
}

bool sim_owns_thread(void)
{
	return explore_lt || dcsim_htm_sim_selected();
}

bool sim_live(void)
{
	struct explorer *ex = explore_ctx();

	/* Under DCSIM_HTM=sim a non-explorer thread is told "live" so that it tries, and is refused. */
	return explore_lt ? explore_htm_on(ex) : true;
}

bool sim_in_txn(void)
{
	struct lthread *lt = explore_lt;

	return lt && lt->txn.active;
}

void htm_sim_reset(struct lthread *lt)
{
	lt->txn.active = false;
	lt->txn.depth = 0;
	lt->txn.nlog = 0;
	lt->txn.frame = NULL;
	lt->txn.frame_ra = NULL;
	lt->txn.status = 0;
	lt->txn.doomed = false;
	lt->txn.nread = lt->txn.nwrite = 0;
}

static void count_abort(struct ex_htm *htm, dcsim_htm_status_t st)
{
	htm_count_abort(st);
	explore_note_htm(htm, false, st);
}

jmp_buf *sim_prepare(const char *func, int line)
{
	struct explorer *ex = explore_ctx();
	struct lthread *lt = explore_lt;

	if (!lt) {
		if (dcsim_htm_sim_selected())
			sim_refuse("dcsim_htm_begin() under DCSIM_HTM=sim");
		return NULL;
	}
	if (lt->txn.active || !explore_htm_on(ex))
		return NULL;
	/* Other threads may run up to the begin; nobody runs inside. */
	explore_schedule(ex, lt, DCSIM_ACC_FENCE, NULL, 0, func, line);
	lt->txn.begin_func = func;
	lt->txn.begin_line = line;
	return &lt->txn.env;
}

dcsim_htm_status_t sim_start(void *cfa, void *ra)
{
	struct explorer *ex = explore_ctx();
	struct lthread *lt = explore_lt;
	dcsim_htm_status_t st;

	if (!lt)
		sim_refuse("simulated transaction begin");
	dcsim_stat_inc(DCSIM_STAT_HTM_ATTEMPTS);
	st = explore_htm_inject(ex, lt, "htm begin");
	if (st) {
		/* Aborted at begin: nothing to undo, resume with the status. */
		count_abort(&ex->htm, st);
		return st;
	}
	lt->txn.active = true;
	lt->txn.depth = 1;
	lt->txn.nlog = 0;
	lt->txn.nread = lt->txn.nwrite = 0;
	lt->txn.doomed = false;
	lt->txn.rcu_depth0 = lt->rcu_depth;
	lt->txn.frame = cfa;
	lt->txn.frame_ra = ra;
	return DCSIM_HTM_STARTED;
}

dcsim_htm_status_t sim_resume(void)
{
	struct explorer *ex = explore_ctx();
	struct lthread *lt = explore_lt;

	count_abort(&ex->htm, lt->txn.status);
	return lt->txn.status;
}

/*
 * The frame rule (<dcsim/htm.h>): the function that began the transaction
 * must still be running when it ends or aborts, since an abort resumes in
 * its frame.  Walk the stack with the unwinder, innermost first.  Each step
 * gives a CFA and an IP that belong to the same call: libgcc's context
 * holds the CFA of the frame just unwound and the address it returns to.
 * The begin-er's frame is live if some step has the recorded CFA and the
 * recorded return address (the return address tells the begin-er from
 * whatever was called later at the same stack depth, as the wrapper's
 * caller calls dcsim_htm_end()); it is gone if the walk reaches a CFA
 * above the recorded one (frames only get older upwards) without that.
 * A walk that stops early (code without unwind tables) proves nothing and
 * is taken as live.  Only commits and aborts pay for the walk.
 */
struct frame_walk {
	uintptr_t cfa, ra;
	int verdict;		/* -1 unknown, 0 gone, 1 live */
};

static _Unwind_Reason_Code frame_walk_step(struct _Unwind_Context *ctx, void *arg)
{
	struct frame_walk *w = arg;
	uintptr_t cfa = _Unwind_GetCFA(ctx);

	if (cfa == w->cfa && _Unwind_GetIP(ctx) == w->ra) {
		w->verdict = 1;
		return _URC_END_OF_STACK;
	}
	if (cfa > w->cfa) {
		w->verdict = 0;
		return _URC_END_OF_STACK;
	}
	return _URC_NO_REASON;
}

static __attribute__((noinline)) bool sim_frame_gone(const struct sim_txn *tx)
{
	struct frame_walk w = {
		.cfa = (uintptr_t)tx->frame, .ra = (uintptr_t)tx->frame_ra, .verdict = -1,
	};

	if (!tx->frame || !tx->frame_ra)
		return false;
	_Unwind_Backtrace(frame_walk_step, &w);
	return w.verdict == 0;
}

/*
 * A broken frame rule fails the execution (dcsim_explore_fail() abandons
 * this logical thread: nothing resumes in the dead frame) with the rule
 * spelled out on stderr.
 */
static __attribute__((noreturn)) void sim_frame_rule_broken(struct lthread *lt, const char *at)
{
	struct sim_txn *tx = &lt->txn;

	fprintf(stderr,
		"dcsim: simulated HTM frame rule broken: the function that began this "
		"transaction (dcsim_htm_begin() in %s(), line %d) has returned before the "
		"transaction ended (found at its %s).  In instrumented builds dcsim_htm_begin() is a "
		"setjmp()-based macro and an abort resumes in the frame of the function it "
		"expands in, so that function must not return before dcsim_htm_end() or "
		"dcsim_htm_abort(); a helper that wraps dcsim_htm_begin() must be a macro "
		"or always_inline.\n", tx->begin_func ? tx->begin_func : "?", tx->begin_line, at);
	dcsim_explore_fail("simulated HTM frame rule broken: %s() returned before its "
			   "transaction ended (at its %s)", tx->begin_func ? tx->begin_func : "?",
			   at);
	abort();	/* not reached: a logical thread does not return from the failure */
}

/*
 * Roll back and resume at begin.  noinline, so that its frame is below the
 * one that called setjmp() whenever that frame is still live.
 */
static __attribute__((noreturn, noinline)) void sim_do_abort(struct lthread *lt,
							     dcsim_htm_status_t st)
{
	struct sim_txn *tx = &lt->txn;

	for (unsigned int i = tx->nlog; i-- > 0;)
		memcpy(tx->log[i].addr, tx->log[i].old, tx->log[i].size);
	tx->nlog = 0;
	tx->active = false;
	tx->doomed = false;
	tx->depth = 0;
	tx->status = st;
	/* rcu_read_lock()/unlock() inside are rolled back too. */
	lt->rcu_depth = tx->rcu_depth0;
	if ((char *)__builtin_frame_address(0) >= (char *)tx->frame || sim_frame_gone(tx))
		sim_frame_rule_broken(lt, "abort");
	longjmp(tx->env, 1);
}

dcsim_htm_status_t sim_begin_nojmp(void)
{
	struct explorer *ex = explore_ctx();
	struct lthread *lt = explore_lt;
	dcsim_htm_status_t st;

	if (!lt)
		sim_refuse("dcsim_htm_begin() under DCSIM_HTM=sim");
	if (lt->txn.active) {
		/* Flat nesting, as RTM: only the outermost begin/end count. */
		if (lt->txn.depth >= SIM_NEST_MAX)
			sim_do_abort(lt, DCSIM_HTM_SIM_MARK | DCSIM_HTM_X86_NESTED);
		lt->txn.depth++;
		return DCSIM_HTM_STARTED;
	}
	if (!explore_htm_on(ex))
		return DCSIM_HTM_DISABLED;
	/*
	 * Reached without the macro (a function pointer to dcsim_htm_begin):
	 * there is no frame to resume in, so the transaction aborts at once,
	 * which hardware is always allowed to do.
	 */
	dcsim_stat_inc(DCSIM_STAT_HTM_ATTEMPTS);
	st = DCSIM_HTM_SIM_MARK;
	count_abort(&ex->htm, st);
	return st;
}

void sim_abort(uint8_t code)
{
	struct lthread *lt = explore_lt;

	if (!lt || !lt->txn.active)
		sim_refuse("dcsim_htm_sim_abort() outside a simulated transaction");
	/* XABORT: bit 0 and the code in bits 31:24; the retry bit stays clear. */
	sim_do_abort(lt, DCSIM_HTM_SIM_MARK | DCSIM_HTM_X86_EXPLICIT |
		     ((dcsim_htm_status_t)code << 24));
}

void sim_end(void)
{
	struct explorer *ex = explore_ctx();
	struct lthread *lt = explore_lt;
	dcsim_htm_status_t st;

	if (!lt || !lt->txn.active)
		sim_refuse("dcsim_htm_end() outside a simulated transaction");
	if (lt->txn.depth > 1) {
		lt->txn.depth--;
		return;
	}
	/* Diagnosed at every commit, not only when an abort would resume. */
	if (sim_frame_gone(&lt->txn))
		sim_frame_rule_broken(lt, "end");
	st = explore_htm_inject(ex, lt, "htm end");
	if (st)
		sim_do_abort(lt, st);
	lt->txn.active = false;
	lt->txn.depth = 0;
	/* XEND orders like a full barrier: no load passes it (weak memory). */
	lt->wm_n = 0;
	lt->wm_open = false;
	/* The stores are now visible: spinners may be woken at our next point. */
	if (lt->txn.nlog)
		lt->pending_write = true;
	lt->txn.nlog = 0;
	dcsim_stat_inc(DCSIM_STAT_HTM_COMMITS);
	explore_note_htm(&ex->htm, true, 0);
	explore_slog_txn(ex, lt, DCSIM_ACC_FENCE, NULL, 0, "htm commit", 0);
}

/*
 * Add the lines of an access to the read or write set (a written line
 * leaves the read set: the write set alone decides its conflicts), and
 * abort for capacity when both sets together exceed the limit.
 */
static void sim_track(struct explorer *ex, struct lthread *lt, enum dcsim_access acc,
		      const volatile void *addr, unsigned int size)
{
	struct sim_txn *tx = &lt->txn;
	bool w = acc == DCSIM_ACC_STORE || acc == DCSIM_ACC_RMW || acc == DCSIM_ACC_RMW_RELAXED;
	uintptr_t first, last;

	if (!addr || !size || (!w && acc != DCSIM_ACC_LOAD && acc != DCSIM_ACC_LOAD_ACQUIRE))
		return;
	first = (uintptr_t)addr >> SIM_LINE_SHIFT;
	last = ((uintptr_t)addr + size - 1) >> SIM_LINE_SHIFT;
	for (uintptr_t ln = first; ln <= last; ln++) {
		if (htm_sim_has_line(lt, ln, true))
			continue;
		if (w) {
			for (unsigned int i = 0; i < tx->nread; i++) {
				if (tx->rset[i] == ln) {
					tx->rset[i] = tx->rset[--tx->nread];
					break;
				}
			}
			if (tx->nread + tx->nwrite >= explore_htm_capacity(ex))
				sim_do_abort(lt, DCSIM_HTM_SIM_MARK | DCSIM_HTM_X86_CAPACITY);
			tx->wset[tx->nwrite++] = ln;
		} else if (!htm_sim_has_line(lt, ln, false)) {
			if (tx->nread + tx->nwrite >= explore_htm_capacity(ex))
				sim_do_abort(lt, DCSIM_HTM_SIM_MARK | DCSIM_HTM_X86_CAPACITY);
			tx->rset[tx->nread++] = ln;
		}
	}
}

/* Save what a store inside the transaction will overwrite. */
static void sim_log_store(struct lthread *lt, enum dcsim_access acc, const volatile void *addr,
			  unsigned int size)
{
	struct sim_txn *tx = &lt->txn;

	if (acc != DCSIM_ACC_STORE && acc != DCSIM_ACC_RMW && acc != DCSIM_ACC_RMW_RELAXED)
		return;
	if (tx->nlog == SIM_UNDO_MAX || size > SIM_UNDO_BYTES)
		sim_do_abort(lt, DCSIM_HTM_SIM_MARK | DCSIM_HTM_X86_CAPACITY);
	tx->log[tx->nlog].addr = (void *)(uintptr_t)addr;
	tx->log[tx->nlog].size = size;
	memcpy(tx->log[tx->nlog].old, (const void *)(uintptr_t)addr, size);
	tx->nlog++;
}

void htm_sim_access(struct explorer *ex, struct lthread *lt, enum dcsim_access acc,
		    const volatile void *addr, unsigned int size, const char *func, int line)
{
	dcsim_htm_status_t st;

	explore_slog_txn(ex, lt, acc, addr, size, func, line);
	st = explore_htm_inject(ex, lt, func);
	if (st)
		sim_do_abort(lt, st);
	if (acc == DCSIM_ACC_SPIN || acc == DCSIM_ACC_RESCHED)
		sim_do_abort(lt, DCSIM_HTM_SIM_MARK | DCSIM_HTM_X86_CONFLICT | DCSIM_HTM_X86_RETRY);
	if (acc == DCSIM_ACC_RCU_LOCK || acc == DCSIM_ACC_RCU_UNLOCK)
		explore_rcu_note(ex, lt, acc);
	sim_track(ex, lt, acc, addr, size);
	sim_log_store(lt, acc, addr, size);
}

void htm_sim_access_conflict(struct explorer *ex, struct lthread *lt, enum dcsim_access acc,
			     const volatile void *addr, unsigned int size, const char *func,
			     int line)
{
	dcsim_htm_status_t st;

	(void)line;
	if (lt->txn.doomed)
		sim_do_abort(lt, lt->txn.status);
	st = explore_htm_inject(ex, lt, func);
	if (st)
		sim_do_abort(lt, st);
	sim_track(ex, lt, acc, addr, size);
	sim_log_store(lt, acc, addr, size);
}
