// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Choosing the next logical thread: random, PCT and bounded-preemption
 * DFS (dfs.c), and a forced schedule (DCSIM_EXPLORE_SCHEDULE) ahead of them.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/explore.h>
#include <dcsim/parse.h>

#include "internal.h"

/* ---- choosing the next thread ---- */

static uint32_t runnable_mask(struct explorer *ex)
{
	uint32_t m = 0;

	for (unsigned int i = 0; i < ex->pool->n; i++)
		if (ex->pool->lt[i].state == LT_RUNNABLE && !strict_is_off(&ex->strict, i))
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

static int pick_pct(const struct ex_pct *pct, const struct explore_pool *pool, unsigned long step,
		    struct lthread *cur, uint32_t en)
{
	int best = -1;

	/* At the i-th change point the running thread drops below everyone. */
	if (cur) {
		for (unsigned int i = 0; i < pct->nchange; i++) {
			if (pct->change[i] == step) {
				cur->prio = i;	/* initial priorities are all >= d */
				break;
			}
		}
	}
	for (unsigned int i = 0; i < pool->n; i++)
		if ((en & (1u << i)) && (best < 0 || pool->lt[i].prio > pool->lt[best].prio))
			best = (int)i;
	return best;
}

/* ex->lock held.  Return: the next thread, or -1 if none is runnable. */
int pick(struct explorer *ex, struct lthread *cur)
{
	uint32_t en = runnable_mask(ex), parked;
	int c, again;

	if (!en)
		return -1;
	/* Every decision: lasso.c notes the state, and may repeat a cycle. */
	again = lasso_point(ex, en);
	/*
	 * window.c: a parked thread is left out of the choice below, but not
	 * out of what lasso.c sees (a cycle it never ran in is not fair).
	 */
	parked = window_parked_mask(ex, en);
	if (ex->dec.n < ex->dec.nforced) {
		c = ex->dec.forced[ex->dec.n];
		if (c < 0 || c >= (int)ex->pool->n || !(en & (1u << c))) {
			fprintf(stderr, "dcsim-explore: '%s': forced schedule names thread %d at "
				"decision %zu, which cannot run there; continuing with the lowest\n",
				ex->sc->name, c, ex->dec.n);
			c = lowest(en);
		}
	} else if (ex->strict.rescue >= 0 && (en & (1u << ex->strict.rescue))) {
		/* strict.c: a thread on a CPU of its own that the mode starved. */
		c = ex->strict.rescue;
		ex->strict.rescue = -1;
	} else if (again >= 0) {
		c = again;
	} else {
		uint32_t may = en & ~parked;

		switch (ex->o.mode) {
		case DCSIM_EXPLORE_PCT:
			c = pick_pct(&ex->pct, ex->pool, ex->step, cur, may);
			break;
		case DCSIM_EXPLORE_DFS:
			c = dfs_pick(&ex->dfs, ex->dec.n, ex->sc->name, cur, en);
			break;
		case DCSIM_EXPLORE_RANDOM:
		default:
			c = nth_bit(may, (unsigned int)splitmix64_below(&ex->rng, (uint64_t)__builtin_popcount(may)));
			break;
		}
	}
	window_chosen(ex, c);
	if (ex->dec.n == ex->dec.cap) {
		ex->dec.cap = ex->dec.cap ? 2 * ex->dec.cap : 4096;
		ex->dec.d = xrealloc(ex->dec.d, ex->dec.cap);
	}
	ex->dec.d[ex->dec.n++] = (int8_t)c;
	return c;
}

/*
 * "TID[*COUNT],..." into dec->forced.  Every number goes through the one
 * parser with its range, and the total is bounded before anything is
 * allocated: a COUNT near 2^64 must not wrap nforced + cnt into a tiny
 * buffer that memset() then overruns.  Return: 0 or -EINVAL.
 */
int parse_schedule(struct ex_decisions *dec, const char *s)
{
	dec->nforced = 0;
	while (s && *s) {
		size_t len = strcspn(s, ","), tlen = strcspn(s, "*,");
		char tbuf[24], cbuf[24];
		uint64_t tid, cnt = 1;

		if (!tlen || tlen >= sizeof(tbuf))
			return -EINVAL;
		snprintf(tbuf, sizeof(tbuf), "%.*s", (int)tlen, s);
		if (dcsim_parse_u64(tbuf, 0, DCSIM_EXPLORE_MAX_THREADS - 1, &tid))
			return -EINVAL;
		if (tlen < len) {
			size_t clen = len - tlen - 1;

			if (!clen || clen >= sizeof(cbuf))
				return -EINVAL;
			snprintf(cbuf, sizeof(cbuf), "%.*s", (int)clen, s + tlen + 1);
			if (dcsim_parse_u64(cbuf, 1, SCHEDULE_MAX, &cnt))
				return -EINVAL;
		}
		if (cnt > SCHEDULE_MAX - dec->nforced)
			return -EINVAL;
		dec->forced = xrealloc(dec->forced, dec->nforced + cnt);
		memset(dec->forced + dec->nforced, (int)tid, cnt);
		dec->nforced += cnt;
		s += len;
		/* "1,,2" and a trailing "," are errors, not empty entries. */
		if (*s == ',' && !*++s)
			return -EINVAL;
	}
	return 0;
}
