// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel-code strategies: the kernel's dput() (dput.c, one object per
 * variant) behind dcsim's strategy table, registered from a constructor so
 * that every program linking libdcsim-kernel-code iterates them with the
 * built-in strategies.  Never compiled with -fsanitize=thread.
 *
 *   k61      fs/dcache.c of Debian's linux-source-6.1, unpatched
 *   k61-htm  the same after kernel/patches/ (fast_dput_htm())
 *   k612     fs/dcache.c of Debian's linux-source-6.12, unpatched (the
 *            6.8 rework; the hand-written model of it is "retain")
 *   k612-htm the same after kernel/patches-6.12/, when that is there
 *
 * Each brings its tree's shrinker and dget_parent() too (.ops, built in
 * dput.c per variant): a cache of one of them runs the kernel's code for
 * dcsim_prune(), dcsim_shrink_all(), dcsim_dget_parent() and (a positive
 * dentry) dcsim_d_delete(), and the 6.12 ones for dcsim_d_invalidate()
 * (d_walk() and shrink_dcache_parent()).
 *
 * Compiled with -DKC_PLUGIN by kernel-code/kpatch.py (dcsim-check
 * --kernel-patch), it keeps the runtime parts and registers the one
 * patched variant of that build instead.
 *
 * The path a put took (for the cache statistics) is read off what the
 * kernel code did, counted in kc_tally: a WARN, a committed transaction,
 * a d_lock taken, else the lockless cmpxchg.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/strategy.h>
#include <dcsim/task-local.h>

#include <kc/funcs.h>
#include <kc/glue.h>

#include "kernel-code.h"

__thread struct kc_tally kc_tally;
__thread struct kc_pcpu kc_pcpu;

/*
 * Both are a logical thread's (<dcsim/task-local.h>): a put's path and a
 * shrinker's kills are read back as the difference of the tally across
 * the call, which another fiber of the explorer on the same pthread must
 * not change.
 */
static void *kc_tally_addr(void)
{
	return &kc_tally;
}

static void *kc_pcpu_addr(void)
{
	return &kc_pcpu;
}

static struct dcsim_task_local kc_tally_tl = { .addr = kc_tally_addr, .size = sizeof(kc_tally) };
static struct dcsim_task_local kc_pcpu_tl = { .addr = kc_pcpu_addr, .size = sizeof(kc_pcpu) };

__attribute__((constructor)) static void kc_task_local_init(void)
{
	dcsim_task_local_register(&kc_tally_tl);
	dcsim_task_local_register(&kc_pcpu_tl);
}

#if DCSIM_INSTRUMENT
/*
 * The steps of a lock operation, a barrier or a pause (their schedule
 * points, a spin's included) get the frame of the kernel function that
 * called it (kc_step_frame()): where it has a line table, a trace names
 * the call in the patched function and marks a changed line, as it does
 * for the kernel code's own accesses (tsan-hooks.c).  Called from
 * another glue function (kc_spin_lock() from kc_spin_lock_rcu()), the
 * return address has no table and the frame the outer one set stays.
 * This file is built with frame pointers where tables exist (kpatch.py).
 */
static const struct dcsim_step_frame *kc_glue_frame(struct dcsim_step_frame *f, const void *pc,
						    void *const *fp)
{
	const struct dcsim_step_frame *old = dcsim_step_frame_set(NULL);
	int line;

	kc_func_where(pc, &line);
	if (!line) {
		dcsim_step_frame_set(old);
		return old;
	}
	kc_step_frame(pc, fp, true, f);
	dcsim_step_frame_set(f);
	return old;
}

#define KC_FRAME_BEGIN()							\
	struct dcsim_step_frame kc_frame_;					\
	const struct dcsim_step_frame *kc_frame_old_ =				\
		kc_glue_frame(&kc_frame_, __builtin_return_address(0),		\
			      *(void *const *const *)__builtin_frame_address(0))
#define KC_FRAME_END()		dcsim_step_frame_set(kc_frame_old_)

#include <kc/glue-impl.h>
#endif

void kc_warn(int *once, const char *file, int line, const char *func, const char *cond)
{
	kc_tally.warns++;
	if (once && __atomic_exchange_n(once, 1, __ATOMIC_RELAXED))
		file = NULL;
	dcsim_kc_warn(file, line, func, cond);
}

/* dcsim's status (RTM EAX, POWER TEXASR or simulated) in <linux/htm.h>'s x86 layout. */
unsigned int kc_htm_status(dcsim_htm_status_t st)
{
	struct dcsim_htm_abort a;
	unsigned int s;

	if (st == DCSIM_HTM_STARTED)
		return ~0u;
	a = dcsim_htm_decode(st);
	switch (a.cause) {
	case DCSIM_HTM_CAUSE_EXPLICIT:	s = DCSIM_HTM_X86_EXPLICIT | ((unsigned int)a.code << 24); break;
	case DCSIM_HTM_CAUSE_CONFLICT:	s = DCSIM_HTM_X86_CONFLICT; break;
	case DCSIM_HTM_CAUSE_CAPACITY:	s = DCSIM_HTM_X86_CAPACITY; break;
	case DCSIM_HTM_CAUSE_NESTED:	s = DCSIM_HTM_X86_NESTED; break;
	case DCSIM_HTM_CAUSE_DEBUG:	s = DCSIM_HTM_X86_DEBUG; break;
	default:			s = 0; break;
	}
	if (a.retry)
		s |= DCSIM_HTM_X86_RETRY;
	return s;
}

/* ---- function names for traces (filled by constructors, then read-only) ---- */

/*
 * The tables grow as constructors and plugin loads add functions (the
 * corpus plugin alone adds a few per entry), so that no function goes
 * unnamed or uncounted.  They are only ever grown before any thread runs
 * kernel code (constructors, dcsim-check's --load at start), never while
 * kc_func_index() may read them.  by_addr holds 16-bit indices: more
 * functions than that is a registration error, refused with its cause.
 */
#define KC_FUNCS_LIMIT	UINT16_MAX
static struct kc_func *func_tab;
static size_t nr_funcs, funcs_cap;

/* Line tables (kc_lines_add()), and each function's, once both are added. */
static const struct kc_lines **lines_tab;
static size_t nr_lines, lines_cap;
static const struct kc_lines **func_lines;

/*
 * func_tab's indices in order of address (equal addresses: in table
 * order), for kc_func_index()'s binary search: a linear scan per schedule
 * point would cost more than the explorer's whole schedule point.  Kept
 * sorted as functions are added (constructors, a plugin's load), before
 * lookups.
 */
static uint16_t *by_addr;

/* Entries per function (instrumented build); relaxed: counts, ordering nothing. */
static unsigned long *func_hits;

static void kc_tables_fail(const char *what, size_t n)
{
	fprintf(stderr, "libdcsim-kernel-code: cannot register %zu %s (limit %u, or out of "
		"memory): too many kernel-code functions loaded at once\n",
		n, what, KC_FUNCS_LIMIT);
	abort();
}

/* Room for @n more functions in every per-function table, zeroed. */
static void kc_funcs_reserve(size_t n)
{
	size_t cap = funcs_cap ? funcs_cap : 256;
	void *p;

	if (nr_funcs + n > KC_FUNCS_LIMIT)
		kc_tables_fail("functions", nr_funcs + n);
	if (nr_funcs + n <= funcs_cap)
		return;
	while (cap < nr_funcs + n)
		cap *= 2;
	if (cap > KC_FUNCS_LIMIT)
		cap = KC_FUNCS_LIMIT;
#define KC_GROW(arr) do {						\
		p = realloc(arr, cap * sizeof(*(arr)));			\
		if (!p)							\
			kc_tables_fail("functions", nr_funcs + n);	\
		memset((char *)p + funcs_cap * sizeof(*(arr)), 0,	\
		       (cap - funcs_cap) * sizeof(*(arr)));		\
		(arr) = p;						\
	} while (0)
	KC_GROW(func_tab);
	KC_GROW(func_lines);
	KC_GROW(by_addr);
	KC_GROW(func_hits);
#undef KC_GROW
	funcs_cap = cap;
}

static void kc_link_lines(void)
{
	for (size_t i = 0; i < nr_funcs; i++)
		for (size_t j = 0; j < nr_lines && !func_lines[i]; j++)
			if (!strcmp(lines_tab[j]->func, func_tab[i].name) &&
			    func_tab[i].variant && !strcmp(lines_tab[j]->variant, func_tab[i].variant))
				func_lines[i] = lines_tab[j];
}

static void by_addr_insert(size_t i)
{
	size_t k = i;

	/* After every entry whose address is not above ours: stable. */
	while (k > 0 && (const char *)func_tab[by_addr[k - 1]].addr >
			(const char *)func_tab[i].addr) {
		by_addr[k] = by_addr[k - 1];
		k--;
	}
	by_addr[k] = (uint16_t)i;
}

void kc_funcs_add(const struct kc_func *f, size_t n)
{
	kc_funcs_reserve(n);
	for (size_t i = 0; i < n; i++) {
		func_tab[nr_funcs] = f[i];
		by_addr_insert(nr_funcs++);
	}
	kc_link_lines();
}

void kc_lines_add(const struct kc_lines *l, size_t n)
{
	if (nr_lines + n > lines_cap) {
		size_t cap = lines_cap ? lines_cap : 256;
		void *p;

		while (cap < nr_lines + n)
			cap *= 2;
		p = realloc(lines_tab, cap * sizeof(*lines_tab));
		if (!p)
			kc_tables_fail("line tables", nr_lines + n);
		lines_tab = p;
		lines_cap = cap;
	}
	for (size_t i = 0; i < n; i++)
		lines_tab[nr_lines++] = &l[i];
	kc_link_lines();
}

/* The function with the highest address at or below @pc (the first of equals), or -1. */
static long kc_func_index(const void *pc)
{
	size_t lo = 0, hi = nr_funcs, k;
	const char *a;

	/* The first entry whose address is above @pc. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((const char *)func_tab[by_addr[mid]].addr <= (const char *)pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	k = lo - 1;
	a = func_tab[by_addr[k]].addr;
	while (k > 0 && (const char *)func_tab[by_addr[k - 1]].addr == a)
		k--;
	return by_addr[k];
}

const char *kc_func_name(const void *pc)
{
	long i = kc_func_index(pc);

	return i < 0 ? "kernel-code" : func_tab[i].name;
}

/*
 * The line table holding @pc and, in @row, its row; NULL (and no row)
 * when @pc lies in no function with a table, or in a part of one placed
 * elsewhere (.cold).  @pc is a return address: the call before it is the
 * line of the access (or of the call) it stands for.
 */
static const struct kc_lines *kc_pc_row(const void *pc, long *fi, const struct kc_line **row)
{
	long i = kc_func_index(pc);
	const struct kc_lines *l;
	size_t lo = 0, hi;
	unsigned long off;

	*fi = i;
	*row = NULL;
	if (i < 0)
		return NULL;
	l = func_lines[i];
	if (!l || !l->n)
		return NULL;
	off = (unsigned long)((const char *)pc - (const char *)func_tab[i].addr) - 1;
	if (off >= l->size)
		return NULL;
	hi = l->n;
	while (hi - lo > 1) {		/* the last row at or before @off */
		size_t mid = lo + (hi - lo) / 2;

		if (l->rows[mid].off <= off)
			lo = mid;
		else
			hi = mid;
	}
	*row = &l->rows[lo];
	return l;
}

const char *kc_func_where(const void *pc, int *line)
{
	const struct kc_line *row;
	long i;
	const struct kc_lines *l = kc_pc_row(pc, &i, &row);

	*line = 0;
	if (i < 0)
		return "kernel-code";
	if (!l)
		return func_tab[i].name;
	*line = row->line;
	return l->label;
}

#if DCSIM_INSTRUMENT
/* Calls followed outward from a step, at most: deeper ones are not named. */
#define KC_FRAME_DEPTH	32

void kc_step_frame(const void *pc, void *const *fp, bool pc_calls, struct dcsim_step_frame *f)
{
	const struct kc_line *row;
	const struct kc_lines *l;
	bool in_patched = false;
	long i;

	f->caller = NULL;
	f->caller_line = 0;
	f->changed = false;
	l = kc_pc_row(pc, &i, &row);
	if (!l)
		return;
	f->changed = row->changed;
	if (pc_calls) {
		/* The step is the callee's (a glue function): @pc's line is the call. */
		f->caller = l->label;
		f->caller_line = row->line;
		in_patched = l->patched;
	}
	/*
	 * @fp is the frame of a function with a line table, so built with
	 * frame pointers: fp[0] is its caller's frame, fp[1] the return
	 * address into the caller.  A caller without a table (the glue, the
	 * model) ends the walk before its frame, which need not be one, is
	 * read; a frame that is not above the last one (the stack grows
	 * down) ends it too.
	 */
	for (unsigned int d = 0; fp && d < KC_FRAME_DEPTH; d++) {
		void *const *up = fp[0];
		const void *ret = fp[1];

		l = kc_pc_row(ret, &i, &row);
		if (!l)
			break;
		if (row->changed)
			f->changed = true;
		/* The nearest call inside a patched function wins over the immediate caller. */
		if (!f->caller || (!in_patched && l->patched)) {
			f->caller = l->label;
			f->caller_line = row->line;
			in_patched = l->patched;
		}
		if ((const char *)up <= (const char *)fp ||
		    (const char *)up - (const char *)fp > (1 << 20))
			break;
		fp = up;
	}
}
#endif

void kc_func_entered(const void *pc)
{
	long i = kc_func_index(pc);

	if (i >= 0)
		__atomic_add_fetch(&func_hits[i], 1, __ATOMIC_RELAXED);
}

/*
 * DCSIM_KC_COVERAGE=1: one line per kernel function, to stderr, at exit of a
 * process that ran kernel code.  A process whose counts are all 0 prints
 * nothing: dcsim-check runs its suites in children, each of which prints
 * its own table before it leaves by _exit() (dcsim_plugin_exit()), and the
 * parent's own counts would only add a table of zeros after theirs.
 */
static void kc_coverage_print(void)
{
	bool any = false;

	if (!getenv("DCSIM_KC_COVERAGE"))
		return;
	for (size_t i = 0; i < nr_funcs; i++)
		any |= __atomic_load_n(&func_hits[i], __ATOMIC_RELAXED) != 0;
	if (!any)
		return;
	for (size_t i = 0; i < nr_funcs; i++)
		fprintf(stderr, "kernel-code coverage: %-28s %-22s %lu\n",
			func_tab[i].variant ? func_tab[i].variant : "?", func_tab[i].name,
			__atomic_load_n(&func_hits[i], __ATOMIC_RELAXED));
	fflush(stderr);
}

static __attribute__((destructor)) void kc_coverage_at_exit(void)
{
	kc_coverage_print();
}

/* ---- the strategies ---- */

static enum dcsim_dput_path kc_path(const struct kc_tally *t0)
{
	if (kc_tally.warns != t0->warns)
		return DCSIM_DPUT_PATH_WARNED;
	if (kc_tally.commits != t0->commits)
		return DCSIM_DPUT_PATH_HTM;
	if (kc_tally.locks != t0->locks)
		return DCSIM_DPUT_PATH_LOCKED;
	return DCSIM_DPUT_PATH_CAS;
}

#define KC_STRATEGY_DPUT(fn, entry)						\
static enum dcsim_dput_path fn(struct dcsim_dentry *d)				\
{										\
	struct kc_tally t0 = kc_tally;						\
										\
	entry(d);								\
	return kc_path(&t0);							\
}

#ifdef KC_PLUGIN
/*
 * kpatch.py's build (dcsim-check --kernel-patch): one variant, the tree
 * with the user's patches, in a shared object of its own, named
 * KC_PLUGIN_NAME.  dcsim_strategy_load() calls dcsim_plugin_init() after
 * the whole object loaded, so a failed load registers nothing.
 */
void kc_kp_dput(struct dcsim_dentry *d);
extern const struct dcsim_dcache_ops kc_kp_ops;	/* the tree's shrinker and dget_parent() */
int dcsim_plugin_init(void) __attribute__((visibility("default")));

KC_STRATEGY_DPUT(kp_dput, kc_kp_dput)

static const struct dcsim_dput_strategy kp = {
	.name = KC_PLUGIN_NAME,
	.description = KC_PLUGIN_DESCRIPTION,
	.dput = kp_dput,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
	.flags = KC_PLUGIN_FLAGS,
	.ops = &kc_kp_ops,
};

int dcsim_plugin_init(void)
{
	return dcsim_strategy_register(&kp);
}

/*
 * kpatch.py compiles the kernel objects with --coverage (the coverage of the
 * change): libgcov writes their counts at exit, which a child process that
 * leaves by _exit() never reaches.  dcsim-check calls this, through dlsym(),
 * before such an exit and before it reads the counts; once dumped, libgcov
 * does not dump again at exit.
 */
void __gcov_dump(void);
void dcsim_plugin_flush(void) __attribute__((visibility("default")));

void dcsim_plugin_flush(void)
{
	__gcov_dump();
}
#else /* !KC_PLUGIN: the built-in variants of libdcsim-kernel-code */

/*
 * A process about to leave by _exit() (a child of dcsim-check, which finds
 * this through dlsym()): what the destructors would print at exit, here the
 * DCSIM_KC_COVERAGE table.
 */
void dcsim_plugin_exit(void) __attribute__((visibility("default")));

void dcsim_plugin_exit(void)
{
	kc_coverage_print();
}

void kc_k61_dput(struct dcsim_dentry *d);
void kc_k61_htm_dput(struct dcsim_dentry *d);
extern const struct dcsim_dcache_ops kc_k61_ops;
extern const struct dcsim_dcache_ops kc_k61_htm_ops;
void kc_k612_dput(struct dcsim_dentry *d);
extern const struct dcsim_dcache_ops kc_k612_ops;
#ifdef KC_HAVE_K612_HTM
void kc_k612_htm_dput(struct dcsim_dentry *d);
extern const struct dcsim_dcache_ops kc_k612_htm_ops;
#endif
void kc_k612_ex_dput(struct dcsim_dentry *d);
void kc_k612_ex_bug_dput(struct dcsim_dentry *d);
extern const struct dcsim_dcache_ops kc_k612_ex_ops;
extern const struct dcsim_dcache_ops kc_k612_ex_bug_ops;
#if DCSIM_INSTRUMENT
void kc_k61_htm_bug_nolock_dput(struct dcsim_dentry *d);
#endif

KC_STRATEGY_DPUT(k61_dput, kc_k61_dput)
KC_STRATEGY_DPUT(k61_htm_dput, kc_k61_htm_dput)
KC_STRATEGY_DPUT(k612_dput, kc_k612_dput)
#ifdef KC_HAVE_K612_HTM
KC_STRATEGY_DPUT(k612_htm_dput, kc_k612_htm_dput)
#endif
KC_STRATEGY_DPUT(k612_ex_dput, kc_k612_ex_dput)
KC_STRATEGY_DPUT(k612_ex_bug_dput, kc_k612_ex_bug_dput)

static const struct dcsim_dput_strategy k61 = {
	.name = "k61",
	.description = "the kernel's own 6.1 dput()/fast_dput()/retain_dentry() and lib/lockref.c, "
		       "compiled from linux-source-6.1",
	.dput = k61_dput,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
	.flags = DCSIM_STRATEGY_SHRINK_LOCK_DENTRY,
	.ops = &kc_k61_ops,
};

static const struct dcsim_dput_strategy k61_htm = {
	.name = "k61-htm",
	.description = "k61 with kernel/patches/ applied: the patch's own fast_dput_htm()",
	.dput = k61_htm_dput,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
	.flags = DCSIM_STRATEGY_USES_HTM | DCSIM_STRATEGY_SHRINK_LOCK_DENTRY,
	.ops = &kc_k61_htm_ops,
};

static const struct dcsim_dput_strategy k612 = {
	.name = "k612",
	.description = "the kernel's own 6.12 dput()/fast_dput()/retain_dentry()/lock_for_kill() "
		       "and lib/lockref.c, compiled from linux-source-6.12",
	.dput = k612_dput,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
	.flags = DCSIM_STRATEGY_LOCK_FOR_KILL,
	.ops = &kc_k612_ops,
};

#ifdef KC_HAVE_K612_HTM
/* Built when kernel/patches-6.12/ (the series ported to 6.12) is there. */
static const struct dcsim_dput_strategy k612_htm = {
	.name = "k612-htm",
	.description = "k612 with kernel/patches-6.12/ applied: the series' own fast_dput_htm() on 6.12",
	.dput = k612_htm_dput,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
	.flags = DCSIM_STRATEGY_USES_HTM | DCSIM_STRATEGY_LOCK_FOR_KILL,
	.ops = &kc_k612_htm_ops,
};
#endif

/*
 * The example patches (examples/kernel-patches/): registered by the
 * kernel-code tests, which require the first to behave as k612 and retain
 * and the second, its planted bug, to be caught.
 */
const struct dcsim_dput_strategy kc_strategy_example = {
	.name = "k612+retain-dontcache-first",
	.description = "k612 with examples/kernel-patches/retain-dontcache-first.patch",
	.dput = k612_ex_dput,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
	.flags = DCSIM_STRATEGY_LOCK_FOR_KILL,
	.ops = &kc_k612_ex_ops,
};

const struct dcsim_dput_strategy kc_strategy_example_bug = {
	.name = "k612+retain-dontcache-first-bug-lru-nolock",
	.description = "k612 with examples/kernel-patches/retain-dontcache-first-bug-lru-nolock.patch "
		       "(planted bug: d_lru_add() without d_lock)",
	.dput = k612_ex_bug_dput,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
	.flags = DCSIM_STRATEGY_LOCK_FOR_KILL,
	.ops = &kc_k612_ex_bug_ops,
};

/*
 * The corpus (corpus/, kind a): one variant per entry, built with the
 * entry's patch by corpus-build.py (one ninja step that follows the
 * corpus folder), which writes kc-corpus.h with corpus/corpus.py.  Not
 * registered here, since each is a bug that the checkers must catch:
 * corpus-plugin.c registers them for dcsim-check --corpus.  The entries
 * that cannot be built are in kc_corpus_unbuilt[], with the reason.
 */
struct kc_corpus_unbuilt {
	const char *name;
	const char *why;
};

#include "kc-corpus.h"

#if DCSIM_INSTRUMENT
KC_STRATEGY_DPUT(k61_htm_bug_nolock_dput, kc_k61_htm_bug_nolock_dput)
extern const struct dcsim_dcache_ops kc_k61_htm_bug_nolock_ops;

/* The planted bug (tests/kernel-code/test-kernel-code.c registers it). */
const struct dcsim_dput_strategy kc_strategy_bug_nolock = {
	.name = "k61-htm-bug-nolock",
	.description = "k61-htm with fast_dput_htm()'s d_lock test cut out (planted bug)",
	.dput = k61_htm_bug_nolock_dput,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
	.flags = DCSIM_STRATEGY_USES_HTM | DCSIM_STRATEGY_SHRINK_LOCK_DENTRY,
	.ops = &kc_k61_htm_bug_nolock_ops,
};
#endif

static __attribute__((constructor)) void kc_register(void)
{
	static const struct dcsim_dput_strategy *const all[] = {
		&k61, &k61_htm, &k612,
#ifdef KC_HAVE_K612_HTM
		&k612_htm,
#endif
	};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (dcsim_strategy_register(all[i])) {
			fprintf(stderr, "libdcsim-kernel-code: cannot register %s\n", all[i]->name);
			abort();
		}
	}
}
#endif /* !KC_PLUGIN */
