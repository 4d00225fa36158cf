// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A forced schedule (dcsim_explore_opts.schedule, DCSIM_EXPLORE_SCHEDULE)
 * that cannot be read is an error of dcsim_explore_run(), never a run
 * without it: a count that would wrap the total (once a memset of
 * SIZE_MAX into a 1-byte buffer), a negative or octal number, an empty
 * entry, a thread the explorer cannot have.  A good one still runs.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <dcsim/atomic.h>
#include <dcsim/explore.h>

static unsigned long shared;

static void *setup(void *arg)
{
	(void)arg;
	shared = 0;
	return &shared;	/* non-NULL: setup succeeded */
}

static void body(void *state, unsigned int tid)
{
	(void)state;
	(void)tid;
	dcsim_atomic_add(&shared, 1);
}

static int run(const char *schedule)
{
	struct dcsim_scenario sc = { .name = "schedule", .nthreads = 2, .setup = setup,
				     .thread = body };
	struct dcsim_explore_opts o;
	struct dcsim_explore_result r;

	dcsim_explore_opts_init(&o);
	o.iterations = 2;
	o.quiet = true;
	o.schedule = schedule;
	return dcsim_explore_run(&sc, &o, &r);
}

int main(void)
{
	static const char *const bad[] = {
		"0*2,0*18446744073709551615", "0*18446744073709551616", "0*16777217",
		"1*-1", "-1", "0*010", "0*0", "0,,1", "0,", ",0", "0*", "*2", "x", "0 *2",
		"99", "0*1x", "0*16777216,1",
	};
	static const char *const good[] = { "", "0", "0*2,1*3", "1,0,1", "0*16777216" };
	int failed = 0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = run(bad[i]);

		if (rc != -EINVAL) {
			fprintf(stderr, "FAIL: schedule '%s' gave %d, want -EINVAL\n", bad[i], rc);
			failed = 1;
		}
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		int rc = run(good[i]);

		if (rc != 0) {
			fprintf(stderr, "FAIL: schedule '%s' gave %d, want 0\n", good[i], rc);
			failed = 1;
		}
	}
	if (!failed)
		printf("explore-schedule: %zu bad schedules refused, %zu good ones run\n",
		       sizeof(bad) / sizeof(bad[0]), sizeof(good) / sizeof(good[0]));
	return failed;
}
