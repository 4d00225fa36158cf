// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The explorer's settings: defaults, names, and the one reader of the
 * environment, dcsim_explore_opts_from_env().
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/explore.h>

#include "internal.h"

#define DEFAULT_SEED	0x5eed0dc5u

const char *dcsim_explore_mode_name(enum dcsim_explore_mode mode)
{
	switch (mode) {
	case DCSIM_EXPLORE_RANDOM:	return "random";
	case DCSIM_EXPLORE_PCT:		return "pct";
	case DCSIM_EXPLORE_DFS:		return "dfs";
	}
	return "invalid";
}

const char *dcsim_explore_htm_name(enum dcsim_explore_htm htm)
{
	switch (htm) {
	case DCSIM_EXPLORE_HTM_OFF:		return "off";
	case DCSIM_EXPLORE_HTM_COMMIT:		return "sim-commit";
	case DCSIM_EXPLORE_HTM_ABORTS:		return "sim-aborts";
	case DCSIM_EXPLORE_HTM_CONFLICTS:	return "sim-conflicts";
	}
	return "invalid";
}

const char *dcsim_explore_sched_name(enum dcsim_explore_sched sched)
{
	switch (sched) {
	case DCSIM_EXPLORE_SCHED_FAIR:		return "fair";
	case DCSIM_EXPLORE_SCHED_STRICT:	return "strict";
	case DCSIM_EXPLORE_SCHED_RT:		return "rt";
	case DCSIM_EXPLORE_SCHED_WINDOW:	return "window";
	}
	return "invalid";
}

int dcsim_explore_sched_parse(const char *name, enum dcsim_explore_sched *out)
{
	/* The names are dcsim_explore_sched_name()'s: one table for both ways. */
	for (int s = DCSIM_EXPLORE_SCHED_FAIR; name && s <= DCSIM_EXPLORE_SCHED_WINDOW; s++) {
		if (!strcmp(name, dcsim_explore_sched_name((enum dcsim_explore_sched)s))) {
			*out = (enum dcsim_explore_sched)s;
			return 0;
		}
	}
	return -EINVAL;
}

static unsigned long env_ulong(const char *name, unsigned long def)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end) {
		fprintf(stderr, "dcsim-explore: ignoring %s='%s': not a number\n", name, s);
		return def;
	}
	return v;
}

unsigned long dcsim_explore_scale(void)
{
	unsigned long s = env_ulong("DCSIM_EXPLORE_SCALE", 1);

	return s ? s : 1;
}

void dcsim_explore_opts_init(struct dcsim_explore_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = DCSIM_EXPLORE_RANDOM;
	o->seed = DEFAULT_SEED;
	o->iterations = 1000;
	o->pct_depth = 3;
	o->preemption_bound = 2;
	o->max_steps = 200000;
	o->htm = DCSIM_EXPLORE_HTM_OFF;
	o->abort_permille = 20;
	o->report_steps = 80;
	o->watchdog_secs = 60;
	o->sched = DCSIM_EXPLORE_SCHED_FAIR;
	o->strict_window = 400;
	o->strict_steps = 20000;
	o->lasso_repeats = 128;
	o->window_ops = 1;
	o->window_steps = 2000;
}

void dcsim_explore_opts_from_env(struct dcsim_explore_opts *o)
{
	const char *m = getenv("DCSIM_EXPLORE_MODE");

	/* A base seed the caller chose stays; this replaces the default only. */
	if (o->seed == DEFAULT_SEED)
		o->seed = env_ulong("DCSIM_EXPLORE_BASE_SEED", o->seed);
	if (m && *m) {
		if (!strcmp(m, "random"))
			o->mode = DCSIM_EXPLORE_RANDOM;
		else if (!strcmp(m, "pct"))
			o->mode = DCSIM_EXPLORE_PCT;
		else if (!strcmp(m, "dfs"))
			o->mode = DCSIM_EXPLORE_DFS;
		else
			fprintf(stderr, "dcsim-explore: ignoring DCSIM_EXPLORE_MODE='%s'\n", m);
	}
	o->iterations = env_ulong("DCSIM_EXPLORE_ITERS", o->iterations);
	m = getenv("DCSIM_EXPLORE_MEMORY");
	if (m && *m) {
		if (!strcmp(m, "sc"))
			o->memory = DCSIM_EXPLORE_MEM_SC;
		else if (!strcmp(m, "relaxed-rmw"))
			o->memory = DCSIM_EXPLORE_MEM_RELAXED_RMW;
		else
			fprintf(stderr, "dcsim-explore: ignoring DCSIM_EXPLORE_MEMORY='%s' "
				"(want sc or relaxed-rmw)\n", m);
	}
	if (getenv("DCSIM_EXPLORE_SEED")) {
		o->replay = true;
		o->replay_seed = env_ulong("DCSIM_EXPLORE_SEED", 0);
	}
	m = getenv("DCSIM_EXPLORE_SCENARIO");
	if (m && *m)
		o->scenario = m;
	m = getenv("DCSIM_EXPLORE_SCHEDULE");
	if (m)
		o->schedule = m;
	o->pct_steps = env_ulong("DCSIM_EXPLORE_PCT_STEPS", o->pct_steps);
	o->report_steps = env_ulong("DCSIM_EXPLORE_TRACE", o->report_steps);
	o->watchdog_secs = env_ulong("DCSIM_EXPLORE_WATCHDOG", o->watchdog_secs);
	o->lasso_repeats = env_ulong("DCSIM_EXPLORE_LASSO", o->lasso_repeats);
	m = getenv("DCSIM_EXPLORE_SCHED");
	if (m && *m && dcsim_explore_sched_parse(m, &o->sched))
		fprintf(stderr, "dcsim-explore: ignoring DCSIM_EXPLORE_SCHED='%s' "
			"(want fair, strict, rt or window)\n", m);
	m = getenv("DCSIM_EXPLORE_WINDOW_DUMP");
	if (m && *m)
		o->window_dump = m;
	o->window_ops = env_ulong("DCSIM_EXPLORE_WINDOW_OPS", o->window_ops);
	o->window_steps = env_ulong("DCSIM_EXPLORE_WINDOW_STEPS", o->window_steps);
	m = getenv("DCSIM_EXPLORE_WINDOW_TARGET");
	if (m && *m)
		o->window_target = m;
}
