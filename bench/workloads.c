// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The workloads, against the dentry cache model, and the strategy list.
 *
 * Each cell gets a fresh cache with the subject's strategy and a fresh tree
 * ("world"), so no strategy inherits another's LRU order or hash layout.
 * The world holds every part a workload needs; `mixed` builds them all.
 *
 *   hot    one dentry, referenced by the world, that every thread dget()s
 *          and dput()s: never a final put, all lockref contention.
 *   final  private files per thread in one shared directory, each made
 *          hashed, on the LRU and REFERENCED by two warm-up puts; an op is
 *          d_lookup() (count 0 -> 1) then dput() (1 -> 0): a final put of
 *          exactly the kind Linus' 2013 patch was about.
 *   walk   a tree of shared directories (--fanout per level, --depth - 1
 *          levels) with --leaves private files per thread under each bottom
 *          directory; an op walks one random path from the cwd "walk" with
 *          dcsim_path_walk(): RCU-walk, no reference but the leaf's, so one
 *          dput, final (the kernel's stat(2) of a relative path).  With
 *          --ref-walk it takes a reference on each component with
 *          d_lookup() and drops the previous one, as ref-walk does: depth+1
 *          dputs, all non-final but the leaf's.  "make -j" on a built tree
 *          looks like this.  With --private-tree each thread walks a copy
 *          of its own ("walk.t<id>", same shape, its leaves only), made by
 *          that thread before the clock runs: the control that shares
 *          nothing between walkers but the hash table.
 *   churn  --files private names per thread spread over --dirs shared
 *          directories (default 4), each name in one of them; an op looks
 *          a name up (RCU, no lock)
 *          and keeps it (a stat), or, under the directory's create lock
 *          (i_rwsem, dcsim_inode_lock()), unlinks it (--unlink-pct of the
 *          found ones: d_delete() leaves it a hashed negative) or creates
 *          it: in place over the negative dentry (d_instantiate(): no
 *          allocation, kill or LRU traffic), by d_alloc() + d_add() only
 *          when the name is absent (never made, or pruned).  A shrinker
 *          thread prunes --shrink-batch LRU entries every --shrink-us
 *          microseconds meanwhile.  Names are private to a thread, so
 *          the dentry the lockless lookup found is the one a locked
 *          lookup would find (the model skips that second lookup).
 *   mixed  each op picks one of the above by --mix weight, on one world.
 *
 * Every dentry a worker dputs it got from d_lookup()/d_alloc()/dget() in the
 * same op: a workload never leaves references behind across batches.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>

#include <dcsim/cache.h>
#include <dcsim/dentry.h>
#include <dcsim/namei.h>
#include <dcsim/rcu.h>
#include <dcsim/strategy.h>

#include "bench.h"

#define NAME_LEN	24
#define MAX_WORLD_DENTRIES	(4u << 20)	/* refuse trees beyond this */

enum { PART_HOT = 1, PART_FINAL = 2, PART_WALK = 4, PART_CHURN = 8 };
enum { WL_HOT, WL_FINAL, WL_WALK, WL_CHURN, WL_MIXED };

struct world {
	struct dcsim_cache *cache;
	struct dcsim_dentry *root;		/* referenced */
	unsigned int parts, nthreads;
	const struct bench_shape *shape;
	/* hot */
	struct dcsim_dentry *hot;		/* referenced: every put is non-final */
	/* final */
	struct dcsim_dentry *final_dir;		/* referenced */
	char (*final_names)[NAME_LEN];		/* [nthreads * files] */
	/* walk */
	struct dcsim_dentry *walk_dir;		/* referenced: the walks' cwd */
	struct dcsim_dentry **own_walk;		/* [nthreads], --private-tree: each one's cwd */
	char (*dir_names)[NAME_LEN];		/* [fanout] */
	char (*leaf_names)[NAME_LEN];		/* [nthreads * leaves] */
	/* churn */
	struct dcsim_dentry **churn_dir;	/* [nr_dirs], referenced */
	unsigned int nr_dirs;
	char (*churn_names)[NAME_LEN];		/* [nthreads * files] */
	/* mixed: cumulative weights over WL_HOT..WL_CHURN */
	unsigned int mix_cum[4], mix_total;
	bool failed;				/* a name could not be made */
};

/* ---- strategies ---- */

int bench_strategies_add(struct bench_config *cfg, const char *list)
{
	char buf[512], *save, *tok;

	if (!list) {
		for (size_t i = 0; i < dcsim_strategy_count(); i++) {
			const struct dcsim_dput_strategy *s = dcsim_strategy_get(i);

			if (cfg->nr_subjects >= DCSIM_ARRAY_SIZE(cfg->subjects))
				break;
			cfg->subjects[cfg->nr_subjects++] =
				(struct bench_subject){ s->name, BENCH_STRATEGY, s, NULL };
		}
		return 0;
	}
	if (!*list || strlen(list) >= sizeof(buf)) {
		fprintf(stderr, "dcsim-bench: --strategies wants a comma list of strategies\n");
		return 2;
	}
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct dcsim_dput_strategy *s = dcsim_strategy_lookup(tok);
		bool dup = false;

		if (!s) {
			fprintf(stderr, "dcsim-bench: unknown strategy '%s'; known: %s\n", tok,
				bench_strategy_list());
			return 2;
		}
		for (unsigned int i = 0; i < cfg->nr_subjects; i++)
			dup |= cfg->subjects[i].strategy == s;
		if (dup)
			continue;
		if (cfg->nr_subjects >= DCSIM_ARRAY_SIZE(cfg->subjects)) {
			fprintf(stderr, "dcsim-bench: too many strategies\n");
			return 2;
		}
		cfg->subjects[cfg->nr_subjects++] =
			(struct bench_subject){ s->name, BENCH_STRATEGY, s, NULL };
	}
	return 0;
}

const char *bench_strategy_list(void)
{
	static char buf[512];
	size_t off = 0;

	/* Rebuilt every time: --load may have registered more since. */
	buf[0] = '\0';
	for (size_t i = 0; i < dcsim_strategy_count() && off < sizeof(buf); i++)
		off += snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? "," : "",
				dcsim_strategy_get(i)->name);
	return buf;
}

size_t bench_dentry_size(void)
{
	return sizeof(struct dcsim_dentry);
}

/* ---- building the world ---- */

static unsigned long ipow(unsigned long b, unsigned int e)
{
	unsigned long r = 1;

	while (e--) {
		r *= b;
		if (r > MAX_WORLD_DENTRIES)
			return MAX_WORLD_DENTRIES + 1ul;
	}
	return r;
}

/* A positive child, hashed, with the caller's reference. */
static struct dcsim_dentry *make_child(struct dcsim_dentry *parent, const char *name)
{
	struct dcsim_dentry *d = dcsim_d_alloc(parent, name);

	if (d)
		dcsim_d_add(d, true);
	return d;
}

/*
 * Make @d (held once, by us) an unused, hashed, LRU, REFERENCED dentry: the
 * first final put puts it on the LRU, a lookup and a second final put set
 * REFERENCED (4.0+ style; 3.x style sets both at once).
 */
static int settle(struct dcsim_dentry *parent, struct dcsim_dentry *d, const char *name)
{
	dcsim_dput(d);
	d = dcsim_d_lookup(parent, name);
	if (!d)
		return -ENOENT;
	dcsim_dput(d);
	return 0;
}

/*
 * Directories are made the way a built tree's are: created, dropped to
 * unused (LRU), looked up again (REFERENCED), and only then given children,
 * which pin them with their parent references.  So a warm directory is
 * hashed, on the LRU and REFERENCED while in use, as in the kernel, where
 * in-use dentries leave the LRU lazily.
 */
static struct dcsim_dentry *make_warm(struct dcsim_dentry *parent, const char *name)
{
	struct dcsim_dentry *d = make_child(parent, name);

	if (!d || settle(parent, d, name))
		return NULL;
	return dcsim_d_lookup(parent, name);
}

/*
 * The directories below @dir, --fanout per level, and under each bottom one
 * the leaves leaf_names[@first .. @first + @nr): every thread's (the shared
 * tree) or one thread's (its own tree, --private-tree).
 */
static int build_walk(struct world *w, struct dcsim_dentry *dir, unsigned int level,
		      unsigned int first, unsigned int nr)
{
	const struct bench_shape *sh = w->shape;

	if (level + 1 == sh->depth) {
		for (unsigned int i = first; i < first + nr; i++) {
			struct dcsim_dentry *d = make_child(dir, w->leaf_names[i]);

			if (!d || settle(dir, d, w->leaf_names[i]))
				return -ENOMEM;
		}
		return 0;
	}
	for (unsigned int i = 0; i < sh->fanout; i++) {
		/* --cold: created while in use, as by mkdir -p; never on the LRU */
		struct dcsim_dentry *d = sh->cold ? make_child(dir, w->dir_names[i]) :
						    make_warm(dir, w->dir_names[i]);
		int err;

		if (!d)
			return -ENOMEM;
		err = build_walk(w, d, level + 1, first, nr);
		/* the children hold it up now: our put is non-final */
		dcsim_dput(d);
		if (err)
			return err;
	}
	return 0;
}

static char (*names(unsigned int n, const char *fmt, unsigned int per))[NAME_LEN]
{
	char (*v)[NAME_LEN] = calloc(n ? n : 1, NAME_LEN);

	if (!v)
		return NULL;
	for (unsigned int i = 0; i < n; i++)
		snprintf(v[i], NAME_LEN, fmt, per ? i / per : i, per ? i % per : 0);
	return v;
}

static void world_free(struct world *w)
{
	if (!w)
		return;
	dcsim_dput(w->hot);
	dcsim_dput(w->final_dir);
	for (unsigned int i = 0; w->own_walk && i < w->nthreads; i++) {
		if (w->own_walk[i] != w->walk_dir)
			dcsim_dput(w->own_walk[i]);
	}
	dcsim_dput(w->walk_dir);
	for (unsigned int i = 0; w->churn_dir && i < w->nr_dirs; i++)
		dcsim_dput(w->churn_dir[i]);
	dcsim_dput(w->root);
	/* kills every unused dentry and waits for the deferred frees */
	dcsim_cache_destroy(w->cache);
	free(w->final_names);
	free(w->dir_names);
	free(w->leaf_names);
	free(w->own_walk);
	free(w->churn_names);
	free(w->churn_dir);
	free(w);
}

static int world_setup(struct bench_cell *cell, unsigned int parts)
{
	const struct bench_config *cfg = cell->cfg;
	const struct bench_shape *sh = &cfg->shape;
	unsigned int nt = cell->nthreads, bits = 10;
	unsigned long total = 16;
	struct dcsim_cache_config cc = { .strategy = cell->subj->strategy };
	struct world *w = calloc(1, sizeof(*w));
	int err = -ENOMEM;

	if (!w)
		return -ENOMEM;
	w->parts = parts;
	w->nthreads = nt;
	w->shape = sh;

	/* size the hash table for the tree, as the kernel sizes it for RAM */
	if (parts & PART_FINAL)
		total += (unsigned long)nt * sh->files;
	if (parts & PART_CHURN)
		total += (unsigned long)nt * sh->files + sh->dirs;
	if (parts & PART_WALK) {
		unsigned long bottoms = ipow(sh->fanout, sh->depth - 1);

		/* --private-tree: one tree per thread, each with its own leaves only */
		if (sh->private_tree)
			total += nt * (bottoms * (1 + (unsigned long)sh->leaves) + bottoms);
		else
			total += bottoms * (1 + (unsigned long)nt * sh->leaves) + bottoms;
	}
	if (total > MAX_WORLD_DENTRIES) {
		fprintf(stderr, "dcsim-bench: the tree would hold over %u dentries; "
			"lower --depth, --fanout, --leaves or --files\n", MAX_WORLD_DENTRIES);
		free(w);
		return -E2BIG;
	}
	/*
	 * The kernel sizes its dentry hash for RAM, not for the dentries in
	 * it: one bucket per 8 KiB of memory (dcache_init()'s scale 13 in
	 * alloc_large_system_hash()), 2^21 buckets on a 16 GiB machine, so
	 * a tree of thousands of dentries rarely shares a chain.  The world
	 * gets 16 buckets per dentry, up to those 2^21 and never fewer than
	 * one per dentry; --hash-bits sets the size instead.  A table as
	 * dense as the tree makes each walker read the line 0 of other
	 * threads' leaves in its chains, and the CPU's prefetcher then
	 * fetches their lockref lines too (docs/results.md, "RCU-walk on 2
	 * cores"): a cost of this bench's table, not of the kernel's.
	 */
	while (bits < 24 && (1ul << bits) < total)
		bits++;
	if (sh->hash_bits)
		bits = sh->hash_bits;
	else if (bits < 21)
		bits = bits + 4 < 21 ? bits + 4 : 21;
	cc.hash_bits = bits;

	w->cache = dcsim_cache_create(&cc);
	if (!w->cache) {
		err = -errno;
		free(w);
		return err;
	}
	w->root = dcsim_d_alloc_root(w->cache, "root");	/* names hold no '/' */
	if (!w->root)
		goto fail;

	if (parts & PART_HOT) {
		/*
		 * A file that has been stat()ed before (hashed, LRU, REFERENCED)
		 * and is kept referenced by the world: every worker put is
		 * non-final, and the 2013 patch's transaction may commit.
		 */
		w->hot = make_warm(w->root, "hot");
		if (!w->hot)
			goto fail;
	}
	if (parts & PART_FINAL) {
		w->final_dir = make_child(w->root, "final");
		w->final_names = names(nt * sh->files, "t%u.f%u", sh->files);
		if (!w->final_dir || !w->final_names)
			goto fail;
		for (unsigned int i = 0; i < nt * sh->files; i++) {
			struct dcsim_dentry *d = make_child(w->final_dir, w->final_names[i]);

			if (!d || settle(w->final_dir, d, w->final_names[i]))
				goto fail;
		}
	}
	if (parts & PART_WALK) {
		w->dir_names = names(sh->fanout, "d%u", 0);
		w->leaf_names = names(nt * sh->leaves, "t%u.l%u", sh->leaves);
		if (!w->dir_names || !w->leaf_names)
			goto fail;
		/*
		 * The walk starts at "walk", held by the world like a process's
		 * cwd: make -j opens relative paths.  (The root is unhashed, as
		 * the kernel's is, and the 2013 patch would abort on it.)
		 */
		w->walk_dir = make_warm(w->root, "walk");
		if (!w->walk_dir)
			goto fail;
		if (sh->private_tree) {
			/*
			 * Each worker makes its own tree in thread_init(); until
			 * then (and if that fails) its cwd is the empty "walk",
			 * under which walk_ref_create() makes what is missing.
			 */
			w->own_walk = calloc(nt, sizeof(*w->own_walk));
			if (!w->own_walk)
				goto fail;
			for (unsigned int i = 0; i < nt; i++)
				w->own_walk[i] = w->walk_dir;
		} else {
			err = build_walk(w, w->walk_dir, 0, 0, nt * sh->leaves);
			if (err)
				goto fail;
			err = -ENOMEM;
		}
	}
	if (parts & PART_CHURN) {
		w->churn_names = names(nt * sh->files, "t%u.c%u", sh->files);
		w->churn_dir = calloc(sh->dirs, sizeof(*w->churn_dir));
		if (!w->churn_names || !w->churn_dir)
			goto fail;
		w->nr_dirs = sh->dirs;
		for (unsigned int i = 0; i < w->nr_dirs; i++) {
			char n[NAME_LEN];

			snprintf(n, sizeof(n), "churn%u", i);
			w->churn_dir[i] = make_child(w->root, n);
			if (!w->churn_dir[i])
				goto fail;
		}
	}
	if (parts == (PART_HOT | PART_FINAL | PART_WALK | PART_CHURN)) {
		for (int i = 0; i < 4; i++) {
			w->mix_total += sh->mix[i];
			w->mix_cum[i] = w->mix_total;
		}
	}
	cell->state = w;
	return 0;
fail:
	if (err == -ENOMEM && errno)
		err = -errno;	/* the model's reason (EINVAL, ENOMEM, ...) */
	world_free(w);
	return err;
}

/* ---- the operations ---- */

/*
 * d_lookup(), and on a miss the slow path, as fs/namei.c:lookup_slow():
 * under the directory's create lock (i_rwsem; the kernel holds it shared
 * and lets d_alloc_parallel() pick one creator, the model's is exclusive),
 * look again and create the name if it is still absent.  Only `mixed`
 * misses (its shrinker prunes what final and walk use).  One lock per
 * directory: misses in different directories do not meet.
 */
static struct dcsim_dentry *lookup_or_create(struct world *w, struct dcsim_dentry *dir,
					     const char *name)
{
	struct dcsim_dentry *d = dcsim_d_lookup(dir, name);

	if (dcsim_likely(d))
		return d;
	if (!dcsim_inode_lock(dir)) {
		d = dcsim_d_lookup(dir, name);
		if (!d)
			d = make_child(dir, name);
		dcsim_inode_unlock(dir);
	}
	if (!d)
		__atomic_store_n(&w->failed, true, __ATOMIC_RELAXED);
	return d;
}

static inline void op_hot(struct world *w)
{
	dcsim_dput(dcsim_dget(w->hot));
}

static inline void op_final(struct world *w, struct bench_worker *wk)
{
	unsigned int files = w->shape->files;
	unsigned int i = wk->id * files + (unsigned int)(bench_rand(&wk->rng) % files);
	struct dcsim_dentry *d = lookup_or_create(w, w->final_dir, w->final_names[i]);

	dcsim_dput(d);
}

#define WALK_MAX_DEPTH	16	/* --depth's limit */

/*
 * Ref-walk from the cwd: take the next component, then drop the one we
 * stand on, so a reference is always held (the kernel's order, which keeps
 * the parent alive while its child is looked up).  depth+1 dputs: the cwd
 * and the directories (non-final, pinned by children), then the leaf's
 * reference is the caller's.  A missing name is created (mixed's shrinker
 * prunes what walk uses), as lookup_slow() would.
 */
static struct dcsim_dentry *walk_ref_create(struct world *w, struct dcsim_dentry *cwd,
					    const char *const *names, unsigned int nr)
{
	struct dcsim_dentry *cur = dcsim_dget(cwd), *next;

	for (unsigned int i = 0; cur && i < nr; i++) {
		next = lookup_or_create(w, cur, names[i]);
		dcsim_dput(cur);
		cur = next;
	}
	return cur;
}

/*
 * One random path: depth - 1 shared directories, then one of the thread's
 * own leaves.  RCU-walk by default, ref-walk with --ref-walk (counted apart
 * in the model's walk_rcu and walk_unlazy); NULL (a name pruned by mixed's
 * shrinker) takes the ref-walk that creates it.
 */
static inline void op_walk(struct world *w, struct bench_worker *wk)
{
	const struct bench_shape *sh = w->shape;
	const char *names[WALK_MAX_DEPTH];
	uint64_t r = bench_rand(&wk->rng);
	struct dcsim_dentry *cwd = w->own_walk ? w->own_walk[wk->id] : w->walk_dir, *d;

	for (unsigned int level = 0; level + 1 < sh->depth; level++) {
		names[level] = w->dir_names[r % sh->fanout];
		r /= sh->fanout;
		if (!r)
			r = bench_rand(&wk->rng);
	}
	names[sh->depth - 1] = w->leaf_names[wk->id * sh->leaves + (unsigned int)(r % sh->leaves)];
	d = dcsim_path_walk(cwd, names, sh->depth, sh->ref_walk ? DCSIM_WALK_REF : 0);
	if (dcsim_unlikely(!d))
		d = walk_ref_create(w, cwd, names, sh->depth);
	dcsim_dput(d);
}

/*
 * A stat, an unlink or a create of one of the thread's names.  The name is
 * looked up without a lock; a change takes the directory's create lock, as
 * vfs_unlink() and vfs_create() run under the parent's i_rwsem.
 */
static inline void op_churn(struct world *w, struct bench_worker *wk)
{
	unsigned int files = w->shape->files;
	uint64_t r = bench_rand(&wk->rng);
	unsigned int i = wk->id * files + (unsigned int)(r % files);
	/*
	 * A name lives in one directory, as a file does: name i in directory
	 * i mod --dirs.  (Picking a directory per op, as before, put every
	 * name in every directory: the working set grew with --dirs and the
	 * shrinker, not the create lock, set the pace.)
	 */
	struct dcsim_dentry *dir = w->churn_dir[i % w->nr_dirs];
	const char *name = w->churn_names[i];
	struct dcsim_dentry *d = dcsim_d_lookup(dir, name);
	bool unlink = (unsigned int)((r >> 16) % 100) < w->shape->unlink_pct;
	int err = 0;

	if (d && !dcsim_d_is_negative(d) && !unlink) {
		dcsim_dput(d);		/* a stat: no lock */
		return;
	}
	if (dcsim_inode_lock(dir)) {
		__atomic_store_n(&w->failed, true, __ATOMIC_RELAXED);
		dcsim_dput(d);
		return;
	}
	if (!d) {
		/* absent: never made, or pruned while negative or unused */
		d = make_child(dir, name);
		err = !d;
	} else if (dcsim_d_is_negative(d)) {
		err = dcsim_d_instantiate(d);	/* create in place */
	} else {
		dcsim_d_delete(d);	/* unlink: count 1, so it turns negative */
	}
	dcsim_inode_unlock(dir);
	if (err)
		__atomic_store_n(&w->failed, true, __ATOMIC_RELAXED);
	dcsim_dput(d);
}

static void run_hot(struct bench_cell *cell, struct bench_worker *wk, uint64_t n)
{
	struct world *w = cell->state;

	(void)wk;
	for (uint64_t i = 0; i < n; i++)
		op_hot(w);
}

static void run_final(struct bench_cell *cell, struct bench_worker *wk, uint64_t n)
{
	struct world *w = cell->state;

	for (uint64_t i = 0; i < n; i++)
		op_final(w, wk);
}

static void run_walk(struct bench_cell *cell, struct bench_worker *wk, uint64_t n)
{
	struct world *w = cell->state;

	for (uint64_t i = 0; i < n; i++)
		op_walk(w, wk);
}

static void run_churn(struct bench_cell *cell, struct bench_worker *wk, uint64_t n)
{
	struct world *w = cell->state;

	for (uint64_t i = 0; i < n; i++)
		op_churn(w, wk);
}

static void run_mixed(struct bench_cell *cell, struct bench_worker *wk, uint64_t n)
{
	struct world *w = cell->state;

	for (uint64_t i = 0; i < n; i++) {
		unsigned int x = (unsigned int)(bench_rand(&wk->rng) % w->mix_total);

		if (x < w->mix_cum[WL_HOT])
			op_hot(w);
		else if (x < w->mix_cum[WL_FINAL])
			op_final(w, wk);
		else if (x < w->mix_cum[WL_WALK])
			op_walk(w, wk);
		else
			op_churn(w, wk);
	}
}

/* The shrinker: what memory pressure does to the LRU while the others work. */
static void shrinker(struct bench_cell *cell, int *stop)
{
	struct world *w = cell->state;

	while (!__atomic_load_n(stop, __ATOMIC_RELAXED)) {
		dcsim_prune(w->cache, w->shape->shrink_batch);
		if (w->shape->shrink_us)
			usleep(w->shape->shrink_us);
		else
			sched_yield();
	}
}

static void mixed_shrinker(struct bench_cell *cell, int *stop)
{
	struct world *w = cell->state;

	/* no churn in the blend: nothing to prune, like a machine with memory */
	if (w->mix_cum[WL_CHURN] == w->mix_cum[WL_WALK])
		return;
	shrinker(cell, stop);
}

static int setup_hot(struct bench_cell *c)	{ return world_setup(c, PART_HOT); }
static int setup_final(struct bench_cell *c)	{ return world_setup(c, PART_FINAL); }
static int setup_walk(struct bench_cell *c)	{ return world_setup(c, PART_WALK); }
static int setup_churn(struct bench_cell *c)	{ return world_setup(c, PART_CHURN); }
static int setup_mixed(struct bench_cell *c)
{
	return world_setup(c, PART_HOT | PART_FINAL | PART_WALK | PART_CHURN);
}

static void collect(struct bench_cell *cell, struct bench_counts *c)
{
	struct world *w = cell->state;
	struct dcsim_cache_stats st;

	dcsim_cache_stats_read(w->cache, &st);
	c->have_cache = true;
	for (unsigned int i = 0; i < DCSIM_CS_NR; i++)
		c->v[i] = st.v[i];
}

static void teardown(struct bench_cell *cell)
{
	struct world *w = cell->state;

	if (w->failed)
		fprintf(stderr, "dcsim-bench: %s/%s: creating a dentry failed: %s\n",
			cell->wl->name, cell->subj->name, strerror(errno));
	world_free(w);
	cell->state = NULL;
}

/*
 * --private-tree: the worker's own copy of the walk tree, "walk.t<id>" in
 * the root, made by the worker itself (its dentries come from its own
 * allocations, as a job of make -j creates its files on its CPU), with only
 * its own leaves.  Nothing a walk reads is then shared with another worker
 * but the hash table and the cache's read-mostly fields.
 */
static void make_own_walk(struct world *w, struct bench_worker *wk)
{
	const struct bench_shape *sh = w->shape;
	struct dcsim_dentry *d;
	char name[NAME_LEN];

	snprintf(name, sizeof(name), "walk.t%u", wk->id);
	d = make_warm(w->root, name);
	if (d && !build_walk(w, d, 0, wk->id * sh->leaves, sh->leaves)) {
		w->own_walk[wk->id] = d;
		return;
	}
	dcsim_dput(d);
	__atomic_store_n(&w->failed, true, __ATOMIC_RELAXED);
}

/* Register the worker with RCU before the clock runs, not in the first op. */
static void thread_init(struct bench_cell *cell, struct bench_worker *wk)
{
	struct world *w = cell->state;

	dcsim_rcu_read_lock();
	dcsim_rcu_read_unlock();
	if (w->own_walk && w->own_walk[wk->id] == w->walk_dir)
		make_own_walk(w, wk);
}

#define WORKLOAD(n, m, s, r, h) {						\
	.name = n, .models = m, .setup = s, .thread_init = thread_init,	\
	.run = r, .collect = collect, .teardown = teardown, .helper = h,	\
}

static const struct bench_workload wl_hot = WORKLOAD("hot",
	"all threads dget+dput one dentry (lockref contention, parallel stat of one file)",
	setup_hot, run_hot, NULL);
static const struct bench_workload wl_final = WORKLOAD("final",
	"d_lookup+final dput of a hashed, REFERENCED, LRU dentry (the 2013 patch's case)",
	setup_final, run_final, NULL);
static const struct bench_workload wl_walk = WORKLOAD("walk",
	"RCU-walk (--ref-walk: ref-walk) of a path through shared dirs to a private leaf (make -j)",
	setup_walk, run_walk, NULL);
static const struct bench_workload wl_churn = WORKLOAD("churn",
	"stat/unlink/create in place in --dirs dirs, each with its create lock, while a "
	"shrinker prunes the LRU",
	setup_churn, run_churn, shrinker);
static const struct bench_workload wl_mixed = WORKLOAD("mixed",
	"a blend of hot, final, walk and churn ops by --mix weight",
	setup_mixed, run_mixed, mixed_shrinker);

const struct bench_workload *const bench_workloads[] = {
	[WL_HOT] = &wl_hot, [WL_FINAL] = &wl_final, [WL_WALK] = &wl_walk,
	[WL_CHURN] = &wl_churn, [WL_MIXED] = &wl_mixed,
};
const unsigned int bench_nr_workloads = DCSIM_ARRAY_SIZE(bench_workloads);

const struct bench_workload *bench_workload_find(const char *name)
{
	for (unsigned int i = 0; i < bench_nr_workloads; i++)
		if (!strcmp(bench_workloads[i]->name, name))
			return bench_workloads[i];
	return NULL;
}
