// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Bounded-preemption depth-first search (DCSIM_EXPLORE_DFS): the tree of
 * decisions, one node per decision of the current execution, replayed up
 * to the deepest node with an alternative left and explored afresh below
 * it.  Its functions see the tree (struct ex_dfs) and what the caller
 * hands them, never the rest of the explorer.
 */

#include <stdio.h>

#include <dcsim/explore.h>

#include "internal.h"

/*
 * ex->lock held, at decision @di of the execution of scenario @sc_name:
 * the replayed choice while the tree has one, else a new node that keeps
 * @cur running (no preemption) or takes the lowest runnable thread.
 * Return: the thread to run, one of @en.
 */
int dfs_pick(struct ex_dfs *dfs, size_t di, const char *sc_name, const struct lthread *cur,
	     uint32_t en)
{
	int prev = cur ? (int)cur->id : CTL;
	bool prev_runnable = cur && (en & (1u << cur->id));
	struct dfs_node *nd;
	int c;

	if (di < dfs->replay_len) {
		nd = &dfs->nodes[di];
		if (nd->enabled == en && nd->prev == prev) {
			c = nd->chosen;
			goto out;
		}
		/* The scenario is not deterministic; explore from here afresh. */
		fprintf(stderr, "dcsim-explore: '%s': dfs replay diverged at decision %zu "
			"(nondeterministic scenario?)\n", sc_name, di);
		dfs->replay_len = dfs->n = di;
	}
	if (dfs->n == dfs->cap) {
		dfs->cap = dfs->cap ? 2 * dfs->cap : 1024;
		dfs->nodes = xrealloc(dfs->nodes, dfs->cap * sizeof(*dfs->nodes));
	}
	nd = &dfs->nodes[dfs->n++];
	/* Default: no preemption, else the lowest runnable thread. */
	c = prev_runnable ? prev : __builtin_ctz(en);
	nd->enabled = (uint16_t)en;
	nd->tried = (uint16_t)(1u << c);
	nd->chosen = (int8_t)c;
	nd->prev = (int8_t)prev;
	nd->preempt = (uint16_t)dfs->preempt;
out:
	if (prev_runnable && c != prev)
		dfs->preempt++;
	return c;
}

/*
 * Backtrack to the deepest decision with an untried alternative that keeps
 * the preemptions within @bound.  Return: false when the tree is exhausted.
 */
bool dfs_next(struct ex_dfs *dfs, unsigned int bound)
{
	while (dfs->n) {
		struct dfs_node *nd = &dfs->nodes[dfs->n - 1];
		bool prev_runnable = nd->prev >= 0 && (nd->enabled & (1u << nd->prev));

		for (int c = 0; c < DCSIM_EXPLORE_MAX_THREADS; c++) {
			unsigned int cost;

			if (!(nd->enabled & (1u << c)) || (nd->tried & (1u << c)))
				continue;
			nd->tried |= (uint16_t)(1u << c);
			cost = prev_runnable && c != nd->prev;
			if (nd->preempt + cost > bound)
				continue;
			nd->chosen = (int8_t)c;
			dfs->replay_len = dfs->n;
			return true;
		}
		dfs->n--;
	}
	return false;
}
