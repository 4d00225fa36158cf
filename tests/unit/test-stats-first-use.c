// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A cache's counter blocks are not zeroed when it is made: each is zeroed
 * by its slot's first count (src/model/stats.c), and the readers skip a
 * block that never counted.  Here every block of a new cache is filled
 * with garbage first, as reused heap memory may be; then two threads use
 * the cache while a third, with a lower slot, counts only elsewhere, so
 * that the readers' walk passes a block below the high-water mark that
 * was never zeroed.  The sums must be exact (and the invariants, which
 * compare the gauges with the tree, must hold), and a reset must keep the
 * gauges.  Without the zeroing at first use, or without the readers'
 * skip, the garbage shows in the sums.
 */

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "dcache.h"

static struct dcsim_cache *c, *other;
static struct dcsim_dentry *root;
static pthread_barrier_t both_in, done;

/* Holds a slot (counting in the other cache) while the users run. */
static void *elsewhere(void *arg)
{
	struct dcsim_dentry *r = dcsim_d_alloc_root(other, "elsewhere");

	(void)arg;
	pthread_barrier_wait(&both_in);
	pthread_barrier_wait(&done);
	dcsim_dput(r);
	return NULL;
}

static void *user(void *arg)
{
	struct dcsim_dentry *d = dcsim_d_alloc(root, arg);

	dcsim_d_add(d, false);
	dcsim_dput(d);
	return NULL;
}

static int check(bool cond, const char *what)
{
	if (!cond)
		fprintf(stderr, "FAIL: %s\n", what);
	return !cond;
}

int main(void)
{
	struct dcsim_cache_stats st;
	struct dcsim_held_ref held;
	pthread_t e, u[2];
	char rep[1024] = "";
	unsigned int gap = 0, v;
	int failed = 0;

	c = dcsim_cache_create_named("fast");
	other = dcsim_cache_create_named("fast");
	if (!c || !other)
		return 1;
	/* Reused memory: nothing in a block that never counted is zero. */
	for (unsigned int t = 0; t < DCSIM_MAX_THREADS; t++)
		if (!c->slot_used[t])
			memset(&c->pcpu[t], 0xa5, sizeof(c->pcpu[t]));
	root = dcsim_d_alloc_root(c, "/");
	pthread_barrier_init(&both_in, NULL, 2);
	pthread_barrier_init(&done, NULL, 2);
	pthread_create(&e, NULL, elsewhere, NULL);
	pthread_barrier_wait(&both_in);		/* its slot is taken: the users get higher ones */
	pthread_create(&u[0], NULL, user, "a");
	pthread_join(u[0], NULL);
	pthread_create(&u[1], NULL, user, "b");
	pthread_join(u[1], NULL);
	pthread_barrier_wait(&done);
	pthread_join(e, NULL);

	for (unsigned int t = 0; t < c->nr_slots; t++)
		gap += !c->slot_used[t];
	failed |= check(gap > 0, "no unused block below the high-water mark: the test made no gap");
	dcsim_cache_stats_read(c, &st);
	failed |= check(st.v[DCSIM_CS_ALLOC] == 3, "alloc != 3");
	failed |= check(st.v[DCSIM_CS_NR_DENTRY] == 3, "nr_dentry != 3");
	failed |= check(st.v[DCSIM_CS_NR_HASHED] == 2, "nr_hashed != 2");
	failed |= check(st.v[DCSIM_CS_DPUT] == 2, "dput != 2");
	for (unsigned int s = 0; s < DCSIM_CS_NR; s++)
		failed |= check(st.v[s] >= 0 && st.v[s] < 100, dcsim_cache_stat_name(s));
	held = (struct dcsim_held_ref){ root, 1 };
	v = dcsim_cache_verify(c, &held, 1, DCSIM_VERIFY_REFS_EXACT, rep, sizeof(rep));
	if (check(v == 0, "invariants"))
		fprintf(stderr, "%s", rep);
	failed |= v != 0;

	dcsim_cache_stats_reset(c);
	dcsim_cache_stats_read(c, &st);
	failed |= check(st.v[DCSIM_CS_ALLOC] == 0 && st.v[DCSIM_CS_DPUT] == 0,
			"reset left an event counter");
	failed |= check(st.v[DCSIM_CS_NR_DENTRY] == 3 && st.v[DCSIM_CS_NR_HASHED] == 2 &&
			st.v[DCSIM_CS_NR_LRU] == 2, "reset lost a gauge");

	dcsim_dput(root);
	dcsim_cache_destroy(c);
	dcsim_cache_destroy(other);
	pthread_barrier_destroy(&both_in);
	pthread_barrier_destroy(&done);
	if (!failed)
		printf("stats-first-use: %u never-used block(s) below the mark skipped, sums exact\n",
		       gap);
	return failed;
}
