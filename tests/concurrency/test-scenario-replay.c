// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dcsim_checker_explore() with a scenario to replay (--scenario): a name
 * that is no execution of the strategy is refused before any unit is
 * offered, and a replay whose one unit is not taken (a --jobs taker that
 * runs it elsewhere, or nowhere) is an error, not "0 explorations, ok".
 * A good name replays exactly one exploration.
 */

#include <errno.h>
#include <stdio.h>

#include <dcsim/checker.h>
#include <dcsim/strategy.h>

static unsigned long offered;

static bool take_none(void *arg, unsigned long unit)
{
	(void)arg;
	(void)unit;
	offered++;
	return false;
}

static int replay(const char *name, bool taker, struct dcsim_checker_result *res)
{
	struct dcsim_checker_opts o;
	FILE *null = fopen("/dev/null", "w");
	int rc;

	dcsim_checker_opts_init(&o);
	o.scenario = name;
	o.explore_mode = "random";
	o.execution_seed = 1;
	o.quiet = true;
	o.progress = null;
	o.report = null;
	if (taker)
		o.take_unit = take_none;
	offered = 0;
	rc = dcsim_checker_explore(dcsim_strategy_lookup("fast"), &o, res);
	if (null)
		fclose(null);
	return rc;
}

int main(void)
{
	struct dcsim_checker_result res;
	int failed = 0, rc;

	rc = replay("unlink-alias/fast/off", false, &res);
	if (rc != 0 || res.runs != 1) {
		fprintf(stderr, "FAIL: a good name: rc %d, %lu explorations, want 0 and 1\n", rc,
			res.runs);
		failed = 1;
	}
	rc = replay("prune-vs-dorp/fast/off", true, &res);
	if (rc != -EINVAL || offered) {
		fprintf(stderr, "FAIL: an unknown name: rc %d, %lu units offered, want -EINVAL "
			"and none\n", rc, offered);
		failed = 1;
	}
	rc = replay("unlink-alias/fast/off", true, &res);
	if (rc != -EINVAL) {
		fprintf(stderr, "FAIL: a replay whose unit was not taken: rc %d (%lu explorations), "
			"want -EINVAL\n", rc, res.runs);
		failed = 1;
	}
	if (!failed)
		printf("scenario-replay: a good name replays one exploration; an unknown name and "
		       "an empty replay are errors\n");
	return failed;
}
