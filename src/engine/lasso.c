// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fair cycles ("lassos"): the livelocks in which every party keeps running.
 *
 * Strict priorities (strict.c) catch a busy wait whose waker is kept off
 * its CPU, and max_steps catches a thread that loops while nobody else can
 * run.  Neither sees the livelock of 2014's shrink_dentry_list(): each
 * thread runs, but each retries because the other's step undid its own (a
 * trylock that fails because the other thread holds the lock at just that
 * moment, every time).  A random schedule ends such a loop sooner or later,
 * so no execution runs forever; what shows it is a state that comes back.
 *
 * At every decision the explorer folds the global state into a 64-bit
 * signature: each logical thread's state and the access it waits at (kind,
 * address, function, line), the memory the threads wrote through
 * <dcsim/atomic.h> (a hash kept up to date one write at a time), and the
 * RCU callbacks' progress, and each thread's progress marks
 * (dcsim_explore_progress(), between the steps of a scenario's program).
 * When a signature comes back twice with the same number of decisions in
 * between, those decisions form a cycle.  It is fair if every thread that
 * could run at a decision of the cycle ran in it.  A fair cycle is then forced again,
 * decision for decision, and every signature must come back in turn; after
 * opts.lasso_repeats rounds the execution fails, "livelock (fair cycle)".
 * The same choices from the same state give the same states, so that
 * schedule can go on forever: everyone runs, nobody gets anywhere.
 *
 * What it cannot see: state outside the signature.  Locals (a retry count
 * in a register or on the stack) and plain stores, outside <dcsim/atomic.h>,
 * are not in it.  A loop that only they end (a retry bound) looks like a
 * cycle until it ends, which is why a cycle must come back lasso_repeats
 * times (128 by default, above lib/lockref.c's 100 cmpxchg retries) before
 * it counts; a hidden bound above that would be reported.  It is off in
 * dfs (whose backtracking owns the decisions), under relaxed-rmw memory and
 * with simulated transactions (stale values and undo logs are state that
 * the hash does not follow).
 *
 * Everything here runs under ex->lock, as the rest of the engine.
 */

#include <stdio.h>
#include <string.h>

#include <dcsim/explore.h>
#include <dcsim/spinlock.h>

#include "internal.h"

/*
 * The table of signatures starts small (an execution is a few hundred
 * decisions, and a big table costs a cache miss a decision) and doubles
 * when 3/4 full, up to the decisions that max_steps allows by default.
 */
#define LASSO_TAB_SHIFT0	10
#define LASSO_TAB_SHIFT_MAX	19
/* Distinct locations written in one execution that the memory hash follows. */
#define LASSO_MEM_SHIFT	13
#define LASSO_MEM_MAX	((1u << LASSO_MEM_SHIFT) * 3 / 4)
/* Ticket locks whose words the memory hash counts by waiters only. */
#define LASSO_LOCK_SHIFT	12
#define LASSO_LOCK_MAX	((1u << LASSO_LOCK_SHIFT) * 3 / 4)
/* Cycles that may be forced (and fail to repeat) in one execution. */
#define LASSO_TRIES	8

struct lasso_slot {
	uint64_t sig;
	uint32_t dec;		/* decision index, the last time it was seen */
	uint32_t gen;		/* execution it belongs to */
	uint32_t period;	/* decisions since the time before; 0: seen once */
	uint32_t again;		/* times in a row it came back after period */
};

/* A word of memory (or a lock's address), and the execution it belongs to. */
struct lasso_loc {
	uintptr_t addr;
	uint64_t part;		/* a word's share of the memory hash */
	uint32_t gen;
};

static void fold_word(uintptr_t w);

static struct {
	bool off;			/* for this execution */
	uint32_t gen;
	uint64_t mem;			/* XOR of the locations' parts */
	unsigned int nlocs, nlocks, nsigs, tries, tab_shift;
	unsigned long tried, demoted;	/* this run: cycles forced again, PCT demotions */
	struct lasso_slot *tab;
	struct lasso_loc *locs, *locks;
	/* per decision: the signature before it and the runnable mask */
	uint64_t *sig;
	uint32_t *en;
	size_t cap;
	/* the cycle being forced: its length and first forced decision */
	size_t period, from;
	bool caught;
	char what[320];
} lz;

static inline uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

void lasso_exec_begin(struct explorer *ex)
{
	lz.off = !ex->o.lasso_repeats || ex->o.mode == DCSIM_EXPLORE_DFS ||
		 ex->o.htm != DCSIM_EXPLORE_HTM_OFF || wm_on(&ex->o);
	lz.gen++;
	lz.mem = 0;
	lz.nlocs = lz.nlocks = lz.nsigs = lz.tries = 0;
	lz.period = 0;
	lz.caught = false;
	lz.what[0] = '\0';
	if (lz.off || lz.tab)
		return;
	lz.tab_shift = LASSO_TAB_SHIFT0;
	lz.tab = calloc(1u << lz.tab_shift, sizeof(*lz.tab));
	lz.locs = calloc(1u << LASSO_MEM_SHIFT, sizeof(*lz.locs));
	lz.locks = calloc(1u << LASSO_LOCK_SHIFT, sizeof(*lz.locks));
	if (!lz.tab || !lz.locs || !lz.locks) {
		fputs("dcsim-explore: out of memory\n", stderr);
		abort();
	}
}

/* @lt's access at its schedule point, just before it is made. */
void lasso_note_access(struct lthread *lt, unsigned int acc, const volatile void *addr,
		       unsigned int size)
{
	if (lz.off || !addr || !size || !acc_writes(acc))
		return;
	lt->lz_addr = addr;
	lt->lz_size = size;
}

/*
 * The slot of @a in a table of 2^@shift locations (@salt tells the tables
 * apart in the hash), or the free one where it would go: never full, each
 * table turns the detector off at 3/4.
 */
static struct lasso_loc *loc_slot(struct lasso_loc *tab, unsigned int shift, uint64_t salt,
				  uintptr_t a)
{
	unsigned int i = (unsigned int)(mix(salt, a) >> (64 - shift));

	for (;; i = (i + 1) & ((1u << shift) - 1))
		if (tab[i].gen != lz.gen || tab[i].addr == a)
			return &tab[i];
}

/* Is the 4-byte word at @a a ticket lock (dcsim_spin_note() said so)? */
static bool is_lock(uintptr_t a)
{
	return loc_slot(lz.locks, LASSO_LOCK_SHIFT, 1, a)->gen == lz.gen;
}

void lasso_note_lock(const void *lock)
{
	uintptr_t a = (uintptr_t)lock;
	struct lasso_loc *l;

	if (lz.off || (a & 3))
		return;
	l = loc_slot(lz.locks, LASSO_LOCK_SHIFT, 1, a);
	if (l->gen == lz.gen)
		return;
	if (++lz.nlocks > LASSO_LOCK_MAX) {
		lz.off = true;
		return;
	}
	*l = (struct lasso_loc){ .addr = a, .gen = lz.gen };
	/* Its word may be hashed raw already: hash it as a lock now. */
	fold_word(a & ~(uintptr_t)7);
}

/*
 * The 8-byte word at @w, for the memory hash.  A ticket lock in it counts
 * by tail - head (holders and waiters) only: its tickets grow forever, and
 * a state that differs from another by a shift of every ticket (the
 * waiters' own tickets included) behaves the same.
 *
 * The word may be freed memory by now (its writer may have freed the
 * object since): the explorer poisons such objects rather than unmapping
 * them, a sanitizer's quarantine keeps them mapped, and heap objects are
 * allocated in whole words; but ASan would still call the read a use
 * after free, and it is the checker's own look.
 */
__attribute__((no_sanitize_address))
static uint64_t word_part(uintptr_t w)
{
	uint32_t half[2];

	for (unsigned int i = 0; i < 2; i++) {
		half[i] = ((const volatile uint32_t *)w)[i];
		if (is_lock(w + 4 * i)) {
			dcsim_spinlock_t v = { .val = half[i] };

			half[i] = (uint16_t)(v.tickets.tail - v.tickets.head);
		}
	}
	return mix(mix(0x6c61737365, w), (uint64_t)half[1] << 32 | half[0]);
}

/* The word at @w changed: fold its new contents into the memory hash. */
static void fold_word(uintptr_t w)
{
	struct lasso_loc *l = loc_slot(lz.locs, LASSO_MEM_SHIFT, 0, w);
	uint64_t part;

	if (l->gen != lz.gen) {
		if (++lz.nlocs > LASSO_MEM_MAX) {
			lz.off = true;	/* too big to follow: no verdict */
			return;
		}
		*l = (struct lasso_loc){ .addr = w, .gen = lz.gen };
	}
	part = word_part(w);
	lz.mem ^= l->part ^ part;
	l->part = part;
}

/* @lt is at a schedule point again: the write it announced last is made. */
void lasso_flush(struct lthread *lt)
{
	uintptr_t a = (uintptr_t)lt->lz_addr;

	if (!a)
		return;
	lt->lz_addr = NULL;
	for (uintptr_t w = a & ~(uintptr_t)7; w < a + lt->lz_size && !lz.off; w += 8)
		fold_word(w);
}

static uint64_t signature(struct explorer *ex)
{
	uint64_t h = mix(lz.mem, ex->pool->n);

	for (unsigned int i = 0; i < ex->pool->n; i++) {
		const struct lthread *t = &ex->pool->lt[i];

		h = mix(h, (uint64_t)t->state | (uint64_t)t->last_acc << 8 |
			   (uint64_t)t->spun << 16 | (uint64_t)t->foreign_write << 17 |
			   (uint64_t)t->pending_write << 18 | (uint64_t)strict_is_off(&ex->strict, i) << 19 |
			   (uint64_t)t->rcu_depth << 24 | (uint64_t)(uint32_t)t->last_line << 32);
		h = mix(h, (uintptr_t)t->last_func);
		h = mix(h, (uintptr_t)t->last_addr);
		h = mix(h, t->progress);
	}
	return mix(h, rcu_signature(&ex->rcu, ex->pool));
}

static void grow(size_t n)
{
	if (n < lz.cap)
		return;
	lz.cap = lz.cap ? 2 * lz.cap : 4096;
	lz.sig = xrealloc(lz.sig, lz.cap * sizeof(*lz.sig));
	lz.en = xrealloc(lz.en, lz.cap * sizeof(*lz.en));
}

/* The slot of @sig in @tab, or the free one where it would go. */
static struct lasso_slot *slot_of(struct lasso_slot *tab, unsigned int shift, uint64_t sig)
{
	unsigned int i = (unsigned int)(sig >> (64 - shift));

	for (;; i = (i + 1) & ((1u << shift) - 1))
		if (tab[i].gen != lz.gen || tab[i].sig == sig)
			return &tab[i];
}

/* Double the table, keeping this execution's entries.  Return: false if at its limit. */
static bool tab_grow(void)
{
	unsigned int shift = lz.tab_shift + 1;
	struct lasso_slot *tab;

	if (shift > LASSO_TAB_SHIFT_MAX)
		return false;
	tab = calloc(1u << shift, sizeof(*tab));
	if (!tab)
		return false;
	for (unsigned int i = 0; i < 1u << lz.tab_shift; i++)
		if (lz.tab[i].gen == lz.gen)
			*slot_of(tab, shift, lz.tab[i].sig) = lz.tab[i];
	free(lz.tab);
	lz.tab = tab;
	lz.tab_shift = shift;
	return true;
}

/*
 * Note @sig at decision @d.  Return: the decision at which it was seen
 * before, if that was as many decisions before the time before that (it
 * came back twice with one period: a loop, not a call made twice that
 * left memory as it was); else -1.
 */
static long seen(uint64_t sig, size_t d)
{
	struct lasso_slot *s = slot_of(lz.tab, lz.tab_shift, sig);
	uint32_t period;
	long prev;

	if (s->gen != lz.gen) {
		if (++lz.nsigs > (3u << lz.tab_shift) / 4) {
			if (!tab_grow()) {
				lz.off = true;
				return -1;
			}
			s = slot_of(lz.tab, lz.tab_shift, sig);
		}
		*s = (struct lasso_slot){ .sig = sig, .dec = (uint32_t)d, .gen = lz.gen };
		return -1;
	}
	prev = s->dec;
	period = (uint32_t)(d - prev);
	s->again = period == s->period ? s->again + 1 : 0;
	s->period = period;
	s->dec = (uint32_t)d;
	return s->again ? prev : -1;
}

/*
 * The decisions [from, to): the threads that ran in them (*@ran), and
 * Return: those that could run at one of them and never did (0: fair).
 */
static uint32_t starved(struct explorer *ex, size_t from, size_t to, uint32_t *ran)
{
	uint32_t could = 0, did = 0;

	for (size_t k = from; k < to; k++) {
		could |= lz.en[k];
		did |= 1u << ex->dec.d[k];
	}
	*ran = did;
	return could & ~did;
}

/*
 * PCT runs the highest-priority thread that can run, so a thread that
 * loops without a pause the explorer can see (a trylock loop with no
 * cpu_relax()) keeps the lower ones off for good: an unfair schedule, in
 * which the kernel's other CPUs would have run them.  When a state comes
 * back with only such threads running, they drop below the ones they
 * starved, as if they had yielded (the rule of fair stateless model
 * checking, Musuvathi and Qadeer, PLDI 2008).  Random needs no such help.
 */
static void demote(struct explorer *ex, uint32_t ran)
{
	unsigned int low = ~0u;

	for (unsigned int i = 0; i < ex->pool->n; i++)
		if (ex->pool->lt[i].prio < low)
			low = ex->pool->lt[i].prio;
	if (!low) {
		for (unsigned int i = 0; i < ex->pool->n; i++)
			ex->pool->lt[i].prio++;
		low = 1;
	}
	for (unsigned int i = 0; i < ex->pool->n; i++)
		if (ran & (1u << i))
			ex->pool->lt[i].prio = low - 1;
	lz.demoted++;
}

static void describe_cycle(struct explorer *ex)
{
	unsigned int runs[DCSIM_EXPLORE_MAX_THREADS] = { 0 };
	size_t off;

	for (size_t k = lz.from - lz.period; k < lz.from; k++)
		runs[ex->dec.d[k]]++;
	off = (size_t)snprintf(lz.what, sizeof(lz.what),
			       "livelock (fair cycle): the state at decision %zu came back every %zu "
			       "decisions, %lu times in a row, every thread that could run running in "
			       "each round;", lz.from - lz.period, lz.period, ex->o.lasso_repeats);
	for (unsigned int i = 0; i < ex->pool->n && off < sizeof(lz.what); i++) {
		const struct lthread *t = &ex->pool->lt[i];

		if (t->state == LT_DONE)
			continue;
		off += (size_t)snprintf(lz.what + off, sizeof(lz.what) - off,
					" T%u ran %u times a round, at %s:%d;", i, runs[i],
					t->last_func ? t->last_func : "?", t->last_line);
	}
}

/*
 * At decision ex->dec.n, before the choice: note the state's signature.
 * Return: the thread to run to repeat a fair cycle, or -1 for the mode's own
 * choice.
 */
int lasso_point(struct explorer *ex, uint32_t en)
{
	size_t d = ex->dec.n;
	uint64_t sig;
	uint32_t ran;
	long prev;

	if (lz.off || lz.caught)
		return -1;
	grow(d + 1);
	sig = signature(ex);
	lz.sig[d] = sig;
	lz.en[d] = en;
	if (lz.period) {
		size_t back = d - lz.period;
		int c = ex->dec.d[back];

		if (d > lz.from && (sig != lz.sig[back] || en != lz.en[back])) {
			/* A hidden state (a bound, a counter) moved on: no cycle. */
			lz.period = 0;
		} else if (d - lz.from >= lz.period * ex->o.lasso_repeats) {
			describe_cycle(ex);
			lz.caught = true;
			return -1;
		} else if (en & (1u << c)) {
			return c;
		} else {
			lz.period = 0;
		}
	}
	prev = seen(sig, d);
	/* A victim of strict priorities is off its CPU: strict.c reports that. */
	if (prev < 0 || ex->strict.off)
		return -1;
	if (starved(ex, (size_t)prev, d, &ran)) {
		if (ex->o.mode == DCSIM_EXPLORE_PCT)
			demote(ex, ran);
		return -1;
	}
	if (lz.tries >= LASSO_TRIES)
		return -1;
	lz.tries++;
	lz.tried++;
	lz.period = d - (size_t)prev;
	lz.from = d;
	return ex->dec.d[prev];
}

/* At the start of a run: its counts begin at 0. */
void lasso_run_begin(void)
{
	lz.tried = lz.demoted = 0;
}

/* This run's cycles forced again, and PCT demotions. */
void lasso_counts(unsigned long *tried, unsigned long *demoted)
{
	*tried = lz.tried;
	*demoted = lz.demoted;
}

/* A fair cycle repeated: the message for the failure, or NULL. */
const char *lasso_caught(void)
{
	return lz.caught ? lz.what : NULL;
}
