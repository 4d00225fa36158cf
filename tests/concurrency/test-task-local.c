// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Task-local state under every hand-off (<dcsim/task-local.h>): a logical
 * thread's copy of a registered __thread variable survives the other
 * threads' turns, a new logical thread starts from zero, and each one's
 * exit runs when its pool goes, and the controller's copy is its own.  The
 * library's own task-local state (slot, statistics, magazines, the kernel
 * code's tally, the RCU nesting) goes through the same registry.  With fibers
 * all of them share one pthread, so this fails if a switch does not move
 * the variables.  Exit 0, or 1 with what went wrong.
 */

#include <stdio.h>
#include <string.h>

#include <dcsim/explore.h>
#include <dcsim/lockref.h>
#include <dcsim/task-local.h>

#define NT	3
#define ROUNDS	20

static __thread unsigned long mine;
static unsigned long exits;		/* the controller's pthread only, under fibers */
static unsigned long exits_sum;

static void *mine_addr(void)
{
	return &mine;
}

static void mine_exit(void)
{
	__atomic_add_fetch(&exits, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&exits_sum, mine, __ATOMIC_RELAXED);
}

static struct dcsim_task_local mine_tl = {
	.addr = mine_addr, .size = sizeof(mine), .exit = mine_exit,
};

__attribute__((constructor)) static void mine_init(void)
{
	dcsim_task_local_register(&mine_tl);
}

struct state {
	struct dcsim_lockref ref;
};

static struct state st;

static void *setup(void *arg)
{
	(void)arg;
	dcsim_lockref_init(&st.ref, 1);
	return &st;
}

static void body(void *arg, unsigned int tid)
{
	struct state *s = arg;

	/* A fresh logical thread's copy is zero; a reused one's is its own. */
	if (mine != 0 && mine != 1000 + tid) {
		dcsim_explore_fail("T%u starts with another thread's copy (%lu)", tid, mine);
		return;
	}
	mine = 1000 + tid;
	for (int i = 0; i < ROUNDS; i++) {
		/* Schedule points: the other threads run here and write their copies. */
		dcsim_lockref_get(&s->ref);
		dcsim_lockref_put_return(&s->ref);
		dcsim_explore_yield();
		if (mine != 1000 + tid) {
			dcsim_explore_fail("T%u's copy is %lu after a switch", tid, mine);
			return;
		}
	}
}

int main(void)
{
	static const enum dcsim_explore_handoff hs[] = {
		DCSIM_EXPLORE_HANDOFF_FIBER, DCSIM_EXPLORE_HANDOFF_UCONTEXT,
		DCSIM_EXPLORE_HANDOFF_PTHREAD,
	};
	struct dcsim_scenario sc = {
		.name = "task-local", .nthreads = NT, .setup = setup, .thread = body,
	};
	int bad = 0;

	for (size_t i = 0; i < sizeof(hs) / sizeof(hs[0]); i++) {
		struct dcsim_explore_opts o;
		struct dcsim_explore_result r;
		unsigned long e0 = exits, s0 = exits_sum;
		int rc;

		dcsim_explore_opts_init(&o);
		o.iterations = 50;
		o.handoff = hs[i];
		mine = 7;	/* the controller's own copy, which no logical thread may see */
		rc = dcsim_explore_run(&sc, &o, &r);
		printf("%-8s: %lu executions, %s%s\n", dcsim_explore_handoff_name(hs[i]), r.executions,
		       rc ? "FAILED: " : "ok", rc ? r.failure : "");
		bad += rc != 0;
		if (mine != 7) {
			printf("  ^ the controller's copy is %lu after the run\n", mine);
			bad++;
		}
		/* Fibers end with their pool, on this pthread: each one's exit, its copy installed. */
		if (hs[i] != DCSIM_EXPLORE_HANDOFF_PTHREAD &&
		    (exits - e0 != NT || exits_sum - s0 != 3 * 1000 + 0 + 1 + 2)) {
			printf("  ^ %lu exits with copies summing to %lu, want %d and %d\n", exits - e0,
			       exits_sum - s0, NT, 3 * 1000 + 3);
			bad++;
		}
	}
	return bad ? 1 : 0;
}
