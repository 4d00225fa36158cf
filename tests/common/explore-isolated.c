// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One dentry cache exploration in a child process; see explore-isolated.h.
 * The child is the checkers' runner's (<dcsim/child.h>): the exploration's
 * result comes back as a record, how the child ended and at which
 * execution it died as data, never read from its report.
 */

#define _GNU_SOURCE	/* strsignal() */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/child.h>

#include "explore-isolated.h"

struct isolated {
	const struct dcsim_dput_strategy *s;
	enum dcsim_dcache_scenario scn;
	const struct dcsim_explore_opts *o;
	enum dcsim_dcache_fault fault;
};

/* What the child sends back. */
struct isolated_res {
	int rc;
	struct dcsim_explore_result r;
};

static int isolated_body(void *arg, struct dcsim_checker_where *where, void *out)
{
	const struct isolated *a = arg;
	struct dcsim_explore_opts o = *a->o;
	struct isolated_res *res = out;

	/* The execution in progress, for a child that dies in it. */
	if (!o.where)
		o.where = &where->exec;
	dcsim_dcache_set_fault(a->fault);
	res->rc = dcsim_explore_dcache(a->s, a->scn, &o, &res->r);
	return res->rc < 0 ? res->rc : 0;
}

struct explore_outcome explore_isolated(const struct dcsim_dput_strategy *s,
					enum dcsim_dcache_scenario scn,
					const struct dcsim_explore_opts *o,
					enum dcsim_dcache_fault fault)
{
	struct explore_outcome out = { .rc = 2 };
	struct isolated a = { .s = s, .scn = scn, .o = o, .fault = fault };
	struct isolated_res res;
	struct dcsim_child c = {
		.fn = isolated_body, .arg = &a, .res = &res, .res_size = sizeof(res),
	};

	if (dcsim_child_run(&c))
		return out;
	if (getenv("DCSIM_TEST_VERBOSE") && dcsim_child_report(&c)) {
		char buf[4096];
		size_t n;

		while ((n = fread(buf, 1, sizeof(buf), c.out)) > 0)
			fwrite(buf, 1, n, stderr);
	}
	if (c.end == DCSIM_CHILD_DONE && c.status != 2) {
		out.rc = res.rc;
		out.first = res.r.first_failure;
		out.executions = res.r.executions;
		out.callbacks = res.r.rcu_callbacks;
		out.stale = res.r.stale_loads;
		out.conflicts = res.r.htm_conflicts;
		snprintf(out.failure, sizeof(out.failure), "%.150s", res.r.failure);
	} else if (c.end == DCSIM_CHILD_CRASHED || c.end == DCSIM_CHILD_HUNG) {
		/* Died: at the execution its explorer was in. */
		out.rc = -1;
		out.first = out.executions = c.where.exec.exec_no;
		snprintf(out.failure, sizeof(out.failure), "%s with signal %d (%s)",
			 c.end == DCSIM_CHILD_HUNG ? "hung, killed" : "crashed", c.signal,
			 strsignal(c.signal));
	}
	dcsim_child_free(&c);
	return out;
}
