// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-explore: RCU under the explorer, which chooses when each grace
 * period ends: a reader inside its section never sees its object freed, a
 * reader outside one is overtaken by the free, and unbalanced sections
 * fail the execution.
 */

#include "explore-tests.h"

/* ---- RCU: grace periods chosen by the explorer ---- */

struct robj {
	struct dcsim_rcu_head head;	/* at offset 0: not mistaken for a dentry */
	int freed;
};

struct rcu_state {
	struct robj *p;
	struct robj *obj;		/* for teardown */
	int variant;			/* 0: reader in a section, 1: reader outside */
	int saw_freed, got;
};

static void robj_cb(struct dcsim_rcu_head *head)
{
	struct robj *o = (struct robj *)(void *)head;

	/* Stands for the free: the reader must never see it inside its section. */
	DCSIM_WRITE_ONCE(o->freed, 1);
}

static void *setup_rcu(void *arg)
{
	struct rcu_state *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	s->obj = calloc(1, sizeof(*s->obj));
	assert_non_null(s->obj);
	s->p = s->obj;
	s->variant = (int)(intptr_t)arg;
	return s;
}

static void teardown_rcu(void *state)
{
	struct rcu_state *s = state;

	free(s->obj);
	free(s);
}

static void rcu_thread(void *state, unsigned int tid)
{
	struct rcu_state *s = state;

	if (tid == 0) {
		struct robj *o;

		if (s->variant == 2)
			dcsim_rcu_read_unlock();	/* misuse: never locked */
		if (s->variant != 1)
			dcsim_rcu_read_lock();
		o = dcsim_load_acquire(&s->p);
		if (o) {
			s->got = 1;
			dcsim_explore_yield();
			dcsim_explore_yield();
			if (DCSIM_READ_ONCE(o->freed))
				s->saw_freed = 1;
		}
		if (s->variant != 1 && s->variant != 3)	/* 3: returns inside the section */
			dcsim_rcu_read_unlock();
	} else {
		struct robj *o = dcsim_xchg(&s->p, NULL);

		dcsim_call_rcu(&o->head, robj_cb);
		dcsim_explore_yield();
		dcsim_explore_yield();
	}
}

static void rcu_check(void *state)
{
	struct rcu_state *s = state;

	if (s->saw_freed)
		dcsim_explore_fail("the reader saw its object freed after %s",
				   s->variant ? "reading it outside a section" : "a grace period");
}

static struct dcsim_explore_result run_rcu(int variant, unsigned long iters)
{
	struct dcsim_scenario sc = {
		.name = "rcu-grace-period", .nthreads = 2, .setup = setup_rcu,
		.thread = rcu_thread, .check = rcu_check, .teardown = teardown_rcu,
		.arg = (void *)(intptr_t)variant,
	};
	struct dcsim_explore_opts o = opts_for(DCSIM_EXPLORE_RANDOM, iters);
	struct dcsim_explore_result r;

	o.quiet = true;
	(void)dcsim_explore_run(&sc, &o, &r);
	return r;
}

void test_rcu_grace_period(void **unused)
{
	struct dcsim_explore_result r;
	(void)unused;

	/* A reader inside its section never sees the callback run... */
	r = run_rcu(0, 2000);
	assert_int_equal(r.failures, 0);
	/* ...though callbacks do run inside executions, not only at quiescence. */
	assert_true(r.rcu_callbacks > 0);
	/* A reader outside any section is not waited for: the free overtakes it. */
	r = run_rcu(1, 2000);
	assert_int_equal(r.failures, 1);
	assert_non_null(strstr(r.failure, "outside a section"));
	/* Unbalanced sections fail the execution. */
	r = run_rcu(2, 10);
	assert_int_equal(r.failures, 1);
	assert_non_null(strstr(r.failure, "without rcu_read_lock()"));
	r = run_rcu(3, 10);
	assert_int_equal(r.failures, 1);
	assert_non_null(strstr(r.failure, "inside an RCU read-side section"));
}
