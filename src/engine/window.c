// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Window-directed exploration (opts.sched == DCSIM_EXPLORE_SCHED_WINDOW):
 * keep a thread inside a lock-drop window while the others run.
 *
 * A lock-drop window is the stretch of a thread's code between a lock
 * operation that gives something up (a release, or a failed trylock: the
 * code will drop what it holds and wait for the lock) and the next lock it
 * takes.  What the thread saw under the lock may change in between; the
 * code must check again (kernel-code/window-audit.py lists the windows of
 * the kernel's code and what each checks; docs/windows.md).  A random
 * schedule rarely runs a whole operation of another thread inside a
 * window a few schedule points wide, and two such windows of two threads
 * coincide more rarely still (the trylock-fail loops of 3b3f09f48ba7).
 *
 * The lock layer tells the engine each lock operation
 * (dcsim_spin_note()) and, where the code says so, where it is made
 * (dcsim_spin_site(): the kernel code's spin_lock() shims pass their
 * function and fs/dcache.c line); otherwise the site is the thread's last
 * schedule point outside the lock layer.  A window is named by the site
 * that opens it, and "reached" when the thread then takes a lock before
 * its operation ends (dcsim_explore_progress()).
 *
 * Each execution has a target: the window reached in this run that was
 * parked least so far (the first window opened, in a run's first
 * executions), so that a run's executions go round every window it
 * reaches.  When a thread opens the target window, it is parked at its
 * next schedule point (after the release, before the retake): left out of
 * every pick while the other threads run, until they have completed
 * opts.window_ops whole operations, or opts.window_steps schedule points
 * went by, or none of them can run.  If, while it is parked, another
 * thread fails a trylock (it opens a window of its own, waiting for a
 * lock), the two swap: that thread is parked and the first one goes on.
 * Two trylock windows that must coincide then do, in step, round after
 * round: the livelock of two trylock loops becomes a fair cycle that
 * lasso.c confirms.
 *
 * A rename tests a window whose code read d_parent before it dropped
 * d_lock or after: scenario programs say which threads still have one to
 * run (dcsim_explore_rename_ahead()).  While one has, a park lasts until
 * those renames are done (the operations' bound waits), it comes when the
 * parked thread is about to take the lock that closes the window (after
 * what it read in between), and a window never parked in so far is parked
 * in when it opens.
 *
 * Parking only chooses among real interleavings: every schedule it makes
 * is one the fair scheduler could make.  Fair-cycle detection sees a
 * parked thread as runnable, so a cycle in which it never ran is not
 * fair and is not reported; a cycle that lasso.c forces again overrides
 * the parking.  Off in dfs mode, which owns its decisions.
 *
 * Counts per window (reached, parked, operations run by the others while
 * parked) are kept for the run; DCSIM_EXPLORE_WINDOW_DUMP=FILE (or
 * opts.window_dump) appends them to FILE at the end of each run, one line
 * "window FUNC LINE REACHED PARKED OPS" per window, for
 * kernel-code/window-audit.py --counts.
 *
 * Everything here runs on the baton holder or under ex->lock.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/explore.h>
#include <dcsim/spinlock.h>

#include "internal.h"

#define WIN_MAX		512

/*
 * The two kinds of window.  A drop window opens at a release or a failed
 * trylock and is reached when a lock is taken again: the lock-drop
 * windows of the audit.  A hold window opens when a lock is taken and is
 * reached when another one is wanted while it is held: the stretch in
 * which another thread's trylock of it fails (two of them, of two
 * threads, make the trylock-loop livelocks).
 */
enum win_kind { WIN_DROP, WIN_HOLD };

struct win {
	const char *func;
	int line;
	enum win_kind kind;
	unsigned long reached, parked, ops;
	unsigned long tries;		/* executions that targeted it */
};

static struct {
	struct win tab[WIN_MAX];
	unsigned int n;
	unsigned long lost;		/* windows past WIN_MAX */
	int target;			/* this execution's, or -1: the first one opened */
	int target0;			/* the target as the execution began */
	char *named;			/* opts.window_target's function name */
	int parked;			/* the parked thread, or -1 */
	int parked_win;
	unsigned long park_step, park_ops0;
} w;

bool window_on(struct explorer *ex)
{
	return ex->o.sched == DCSIM_EXPLORE_SCHED_WINDOW && ex->o.mode != DCSIM_EXPLORE_DFS;
}

/* The lock layer and the glue around it: not where the code "is". */
static bool lock_layer(const char *func)
{
	return !func || !strncmp(func, "dcsim_spin", 10) || !strncmp(func, "dcsim_rcu", 9) ||
	       !strncmp(func, "kc_", 3) || !strncmp(func, "dcsim_kc_", 9);
}

/* The spin_site hook: dcsim_spin_site() of the primitives calls it. */
void window_spin_site(const char *func, int line)
{
	struct explorer *ex = explore_ctx();
	struct lthread *lt = explore_lt;

	if (!lt || !window_on(ex))
		return;
	lt->win_func = func;
	lt->win_line = line;
	lt->win_named = true;
}

static int lookup(const char *func, int line, enum win_kind kind)
{
	for (unsigned int i = 0; i < w.n; i++)
		if (w.tab[i].line == line && w.tab[i].kind == kind &&
		    (w.tab[i].func == func || !strcmp(w.tab[i].func, func)))
			return (int)i;
	if (w.n == WIN_MAX) {
		w.lost++;
		return -1;
	}
	w.tab[w.n].func = func;
	w.tab[w.n].line = line;
	w.tab[w.n].kind = kind;
	return (int)w.n++;
}

static unsigned long others_progress(struct explorer *ex, int tid)
{
	unsigned long sum = 0;

	for (unsigned int i = 0; i < ex->pool->n; i++)
		if ((int)i != tid)
			sum += ex->pool->lt[i].progress;
	return sum;
}

/* ex->lock held (or the baton): the parked thread goes on. */
static void unpark(struct explorer *ex)
{
	if (w.parked < 0)
		return;
	w.tab[w.parked_win].ops += others_progress(ex, w.parked) - w.park_ops0;
	w.parked = -1;
}

static void park(struct explorer *ex, struct lthread *lt, int win)
{
	bool others = false;

	for (unsigned int i = 0; i < ex->pool->n; i++)
		if (i != lt->id && ex->pool->lt[i].state != LT_DONE)
			others = true;
	if (!others)
		return;		/* nobody to run inside it */
	w.parked = (int)lt->id;
	w.parked_win = win;
	w.park_step = ex->step;
	w.park_ops0 = others_progress(ex, w.parked);
	w.tab[win].parked++;
}

/* A thread other than @tid, still running, has a rename ahead of it. */
static bool rename_ahead(struct explorer *ex, int tid)
{
	for (unsigned int i = 0; i < ex->pool->n; i++)
		if ((int)i != tid && ex->pool->lt[i].state != LT_DONE &&
		    ex->pool->lt[i].win_rename_ahead)
			return true;
	return false;
}

/*
 * Park @lt in @win if that is what to do: at its next schedule point.
 * While another thread has a rename ahead (dcsim_explore_rename_ahead()),
 * the park comes later, when @lt is about to take the lock that closes
 * the window: code that drops d_lock reads what it will lock next (the
 * parent, from d_parent) in between, and parked after that read, it must
 * see the dentry moved before it takes the lock.  Then, too, a window
 * never parked in so far is parked in when it opens: those that a rename
 * tests open only after a coincidence (a trylock that met a busy lock),
 * in few executions, seldom those that target them.  Without a rename
 * ahead the parks are the plain ones.
 */
static void maybe_park(struct explorer *ex, struct lthread *lt, int win, bool waits)
{
	bool renames = rename_ahead(ex, (int)lt->id);

	if (w.parked >= 0 && w.parked != (int)lt->id) {
		/* Another thread is parked: one that waits for a lock swaps with it. */
		if (waits) {
			lt->win_park = win + 1;
			lt->win_park_late = renames;
		}
		return;
	}
	if (w.target < 0)
		w.target = win;
	if (w.parked >= 0)
		return;
	if (win == w.target || (renames && !w.tab[win].parked)) {
		lt->win_park = win + 1;
		lt->win_park_late = renames;
	}
}

/* From dcsim_spin_note(), on the baton holder: a lock operation of @lt. */
void window_note(struct explorer *ex, struct lthread *lt, enum dcsim_spin_event ev)
{
	int win;

	if (!window_on(ex))
		return;
	switch (ev) {
	case DCSIM_SPIN_ANNOTATE_RELEASE:
	case DCSIM_SPIN_ANNOTATE_ACQUIRE:
	case DCSIM_SPIN_ANNOTATE_TRYACQUIRE:
		return;		/* the lock order validator's view only: nothing taken */
	case DCSIM_SPIN_TRYLOCKED:
		ev = DCSIM_SPIN_ACQUIRED;	/* a lock taken all the same */
		break;
	default:
		break;
	}
	if (ev != DCSIM_SPIN_RELEASED) {
		/* A lock taken, waited for or tried after windows opened: reached. */
		if (ev != DCSIM_SPIN_CONTENDED) {
			for (unsigned int i = 0; i < lt->win_nopen; i++)
				w.tab[lt->win_open[i]].reached++;
			lt->win_nopen = 0;
			/* closed before a late park came: no park in it */
			if (lt->win_park_late) {
				lt->win_park = 0;
				lt->win_park_late = false;
			}
		}
		/* ... and a lock held while another one is wanted. */
		if (lt->win_hold >= 0)
			w.tab[lt->win_hold].reached++;
		lt->win_hold = -1;
	} else {
		lt->win_hold = -1;
	}
	if (!lt->win_func)
		return;
	if (ev == DCSIM_SPIN_ACQUIRED) {
		win = lookup(lt->win_func, lt->win_line, WIN_HOLD);
		if (win < 0)
			return;
		lt->win_hold = win;
		maybe_park(ex, lt, win, false);
		return;
	}
	if (ev == DCSIM_SPIN_WAITING)
		return;
	win = lookup(lt->win_func, lt->win_line, WIN_DROP);
	if (win < 0)
		return;
	for (unsigned int i = 0; i < lt->win_nopen; i++)
		if (lt->win_open[i] == win)
			return;		/* open already (a loop of unlocks) */
	if (lt->win_nopen < LT_WIN_OPEN)
		lt->win_open[lt->win_nopen++] = win;
	maybe_park(ex, lt, win, ev == DCSIM_SPIN_CONTENDED);
}

/* A scenario step of @lt ended: a window still open was the operation's end. */
void window_progress(struct lthread *lt)
{
	lt->win_nopen = 0;
	lt->win_hold = -1;
	lt->win_park = 0;
	lt->win_park_late = false;
}

/* ex->lock held, @lt at a schedule point (@func:@line), before the pick. */
void window_point(struct explorer *ex, struct lthread *lt, const char *func, int line)
{
	if (!window_on(ex))
		return;
	/*
	 * A site the code named holds until the code is back in the function
	 * that named it: the locks a helper drops for it (the kernel's
	 * dentry_unlink_inode(), served by dcsim) are its caller's.
	 */
	if (lt->win_named && lt->win_func && func && strcmp(func, lt->win_func))
		;
	else if (!lock_layer(func)) {
		lt->win_named = false;
		lt->win_func = func;
		lt->win_line = line;
	}
	/* a late park waits for the lock's first access (<dcsim/spinlock.h>) */
	if (lt->win_park && lt->win_park_late &&
	    !(func && (!strcmp(func, "dcsim_spin_lock_at") || !strcmp(func, "dcsim_spin_trylock_at"))))
		return;
	if (lt->win_park) {
		int win = lt->win_park - 1;

		lt->win_park = 0;
		if (lt->txn.active)
			return;		/* a transaction is atomic: no window inside */
		unpark(ex);
		park(ex, lt, win);
	}
}

/*
 * ex->lock held: the threads of @en to leave out of this pick.  Ends the
 * park when its bounds are reached or when nobody else can run.
 */
uint32_t window_parked_mask(struct explorer *ex, uint32_t en)
{
	uint32_t m;

	if (w.parked < 0 || !window_on(ex))
		return 0;
	m = 1u << w.parked;
	/*
	 * The operations' bound waits for the others' renames
	 * (dcsim_explore_rename_ahead()): a window that read d_parent is
	 * tested by a move of its dentry, which a lookup often precedes.
	 */
	if (!(en & ~m) || ex->step - w.park_step >= ex->o.window_steps ||
	    (others_progress(ex, w.parked) - w.park_ops0 >= ex->o.window_ops &&
	     !rename_ahead(ex, w.parked))) {
		unpark(ex);
		return 0;
	}
	return m;
}

/* ex->lock held: a pick chose @tid anyway (a forced schedule, a fair cycle). */
void window_chosen(struct explorer *ex, int tid)
{
	if (tid == w.parked)
		unpark(ex);
}

/* "FUNC:LINE" of this execution's target, as it began (the replay's), or "". */
const char *window_target_name(struct explorer *ex, char *buf, size_t len)
{
	buf[0] = '\0';
	if (window_on(ex) && w.target0 >= 0)
		snprintf(buf, len, "%s:%d%s", w.tab[w.target0].func, w.tab[w.target0].line,
			 w.tab[w.target0].kind == WIN_HOLD ? ":hold" : "");
	return buf;
}

/* opts.window_target, "FUNC:LINE" or "FUNC:LINE:hold", as a window of the table, or -1. */
static int named_target(struct explorer *ex)
{
	const char *s = ex->o.window_target, *colon = s ? strrchr(s, ':') : NULL;
	enum win_kind kind = WIN_DROP;
	char *end;
	long line;

	if (colon && !strcmp(colon, ":hold")) {
		kind = WIN_HOLD;
		while (--colon > s && *colon != ':')
			;
	}
	if (!colon || colon <= s)
		return -1;
	line = strtol(colon + 1, &end, 10);
	if (end == colon + 1 || (*end && strcmp(end, ":hold")))
		return -1;
	if (!w.named) {
		/* Kept for the run: the table names windows by pointer. */
		size_t n = (size_t)(colon - s);

		w.named = xrealloc(NULL, n + 1);
		memcpy(w.named, s, n);
		w.named[n] = '\0';
	}
	return lookup(w.named, (int)line, kind);
}

void window_exec_begin(struct explorer *ex)
{
	int best = -1;

	w.parked = -1;
	for (unsigned int i = 0; i < ex->pool->n; i++) {
		ex->pool->lt[i].win_func = NULL;
		ex->pool->lt[i].win_named = false;
		ex->pool->lt[i].win_rename_ahead = false;
		window_progress(&ex->pool->lt[i]);
	}
	/* The reached window tried least; ties go to the first one found. */
	for (unsigned int i = 0; i < w.n; i++)
		if (w.tab[i].reached && (best < 0 || w.tab[i].tries < w.tab[best].tries))
			best = (int)i;
	if (ex->o.window_target)
		best = named_target(ex);
	w.target = w.target0 = best;
	if (best >= 0)
		w.tab[best].tries++;
}

void window_run_begin(void)
{
	free(w.named);
	memset(&w, 0, sizeof(w));
	w.parked = -1;
	w.target = -1;
}

/* At the end of a run: its counts, and the dump. */
void window_run_end(struct explorer *ex, struct dcsim_explore_result *r)
{
	FILE *f;

	if (!window_on(ex))
		return;
	for (unsigned int i = 0; i < w.n; i++) {
		if (w.tab[i].reached)
			r->windows_reached++;
		if (w.tab[i].parked)
			r->windows_parked++;
	}
	if (!ex->o.window_dump || !*ex->o.window_dump)
		return;
	f = fopen(ex->o.window_dump, "a");
	if (!f) {
		fprintf(stderr, "dcsim-explore: cannot append to %s (window dump)\n",
			ex->o.window_dump);
		return;
	}
	for (unsigned int i = 0; i < w.n; i++)
		fprintf(f, "%s %s %d %lu %lu %lu\n", w.tab[i].kind == WIN_DROP ? "window" : "hold",
			w.tab[i].func, w.tab[i].line,
			w.tab[i].reached, w.tab[i].parked, w.tab[i].ops);
	if (w.lost)
		fprintf(f, "# %lu windows past the table's %d\n", w.lost, WIN_MAX);
	fclose(f);
}
