// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The hand-off differential: every dentry cache scenario, random walk and
 * PCT, HTM off (and, for a strategy that uses HTM, simulated transactions
 * committing and aborting), explored with the pthread hand-off and with
 * the fiber hand-offs (hand-written switch and ucontext).  Results must be
 * identical field by field: executions, steps, the hash of every
 * execution's schedule, failures, the first failing execution's seed and
 * message but for its addresses (seed, mode and step estimate are what the
 * replay line is made of), HTM and RCU counts, and the
 * dentry cache's post-condition counts.  Then a failure found under one
 * hand-off is replayed under the other and must fail the same way.
 *
 *   test-explore-handoff [--iters N] [--fault NAME] [--sched NAME] [strategy...]
 *
 * Default: 250 executions per exploration (dcsim-check's default budget),
 * the strategies fast and k612 (where the build has the kernel's code).  --fault plants a model fault, so that
 * failures, reports and replays are compared too; --sched explores with
 * strict priorities or the window-directed scheduler.  Exit 0 identical,
 * 1 a difference, 2 usage.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/dcache-cover.h>
#include <dcsim/explore-dcache.h>
#include <dcsim/explore.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

static const enum dcsim_explore_handoff handoffs[] = {
	DCSIM_EXPLORE_HANDOFF_PTHREAD, DCSIM_EXPLORE_HANDOFF_FIBER, DCSIM_EXPLORE_HANDOFF_UCONTEXT,
};
#define NH	(sizeof(handoffs) / sizeof(handoffs[0]))

struct outcome {
	int rc;
	struct dcsim_explore_result r;
	unsigned long post_checked, post_skipped;
	unsigned long spec[DCSIM_SPEC_CHECK_NR];
};

static enum dcsim_explore_sched sched = DCSIM_EXPLORE_SCHED_FAIR;

static int run(const struct dcsim_dput_strategy *s, int scn, enum dcsim_explore_mode mode,
	       enum dcsim_explore_htm htm, unsigned long iters, enum dcsim_explore_handoff h,
	       const struct dcsim_explore_opts *replay_of, struct outcome *out)
{
	struct dcsim_explore_opts o;
	unsigned long c0, s0, c1, s1, sp0[DCSIM_SPEC_CHECK_NR];

	dcsim_explore_opts_init(&o);
	o.mode = mode;
	o.seed = 0x5eed0000u + (uint64_t)scn * 1000 + (uint64_t)mode * 100 + htm;
	o.iterations = iters;
	o.htm = htm;
	o.abort_permille = 60;
	o.keep_going = true;
	o.quiet = true;
	o.handoff = h;
	o.sched = sched;
	if (replay_of) {
		o.replay = true;
		o.replay_seed = replay_of->replay_seed;
		o.pct_steps = replay_of->pct_steps;
		o.keep_going = false;
	}
	dcsim_dcache_post_checks(&c0, &s0);
	dcsim_dcache_spec_checks(sp0);
	memset(out, 0, sizeof(*out));
	out->rc = dcsim_explore_dcache(s, (enum dcsim_dcache_scenario)scn, &o, &out->r);
	dcsim_dcache_post_checks(&c1, &s1);
	dcsim_dcache_spec_checks(out->spec);
	for (int i = 0; i < DCSIM_SPEC_CHECK_NR; i++)
		out->spec[i] -= sp0[i];
	out->post_checked = c1 - c0;
	out->post_skipped = s1 - s0;
	return out->rc;
}

/*
 * @msg without its addresses: objects come from malloc, whose placement
 * differs between hand-offs (and between a run and its replay), and the
 * messages name objects by path as well.
 */
static const char *unaddressed(const char *msg, char *buf, size_t len)
{
	size_t o = 0;

	for (const char *p = msg; *p && o + 4 < len; p++) {
		if (p[0] == '0' && p[1] == 'x') {
			memcpy(buf + o, "0x#", 3);
			o += 3;
			p += 2;
			while (p[0] && strchr("0123456789abcdef", p[0]))
				p++;
			p--;
			continue;
		}
		buf[o++] = *p;
	}
	buf[o] = '\0';
	return buf;
}

static bool same_failure(const char *a, const char *b)
{
	char ua[1024], ub[1024];

	return !strcmp(unaddressed(a, ua, sizeof(ua)), unaddressed(b, ub, sizeof(ub)));
}

#define SAME(field)								\
	do {									\
		if (a->field != b->field) {					\
			printf("  %s differs: %s %llu, %s %llu\n", #field,	\
			       dcsim_explore_handoff_name(ha),			\
			       (unsigned long long)a->field,			\
			       dcsim_explore_handoff_name(hb),			\
			       (unsigned long long)b->field);			\
			diff = true;						\
		}								\
	} while (0)

static bool differ(const struct outcome *a, enum dcsim_explore_handoff ha,
		   const struct outcome *b, enum dcsim_explore_handoff hb)
{
	bool diff = false;

	SAME(rc);
	SAME(r.executions);
	SAME(r.failures);
	SAME(r.first_failure);
	SAME(r.failure_seed);
	SAME(r.failure_pct_steps);
	SAME(r.steps);
	SAME(r.max_steps_seen);
	SAME(r.schedule_hash);
	SAME(r.htm_commits);
	SAME(r.htm_aborts);
	SAME(r.htm_conflicts);
	SAME(r.htm_capacity_aborts);
	SAME(r.rcu_callbacks);
	SAME(r.stale_loads);
	SAME(r.preemptions);
	SAME(r.lasso_tries);
	SAME(r.lasso_demotions);
	SAME(r.skipped);
	SAME(post_checked);
	SAME(post_skipped);
	for (int i = 0; i < DCSIM_SPEC_CHECK_NR; i++)
		SAME(spec[i]);
	if (!same_failure(a->r.failure, b->r.failure)) {
		printf("  failure differs:\n    %s: %s\n    %s: %s\n", dcsim_explore_handoff_name(ha),
		       a->r.failure, dcsim_explore_handoff_name(hb), b->r.failure);
		diff = true;
	}
	return diff;
}

int main(int argc, char **argv)
{
	static const enum dcsim_explore_htm htms[] = {
		DCSIM_EXPLORE_HTM_OFF, DCSIM_EXPLORE_HTM_COMMIT, DCSIM_EXPLORE_HTM_ABORTS,
	};
	static const enum dcsim_explore_mode modes[] = { DCSIM_EXPLORE_RANDOM, DCSIM_EXPLORE_PCT };
	const char *names[32];
	unsigned long iters = 250, runs = 0, failing = 0, replays = 0;
	int nnames = 0, bad = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--iters") && i + 1 < argc) {
			iters = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--fault") && i + 1 < argc) {
			int f = dcsim_dcache_fault_lookup(argv[++i]);

			if (f < 0) {
				fprintf(stderr, "test-explore-handoff: no fault '%s'\n", argv[i]);
				return 2;
			}
			dcsim_dcache_set_fault((enum dcsim_dcache_fault)f);
		} else if (!strcmp(argv[i], "--sched") && i + 1 < argc) {
			if (dcsim_explore_sched_parse(argv[++i], &sched)) {
				fprintf(stderr, "test-explore-handoff: no scheduling '%s'\n", argv[i]);
				return 2;
			}
		} else if (argv[i][0] == '-' || nnames == 32) {
			fprintf(stderr, "usage: test-explore-handoff [--iters N] [--fault NAME] "
				"[--sched NAME] [strategy...]\n");
			return 2;
		} else {
			names[nnames++] = argv[i];
		}
	}
	if (!nnames) {
		names[nnames++] = "fast";
		/* The kernel's code is not built into sanitizer builds of the explorer. */
		if (dcsim_strategy_lookup("k612"))
			names[nnames++] = "k612";
		else
			printf("k612 is not in this build: fast only\n");
	}
	dcsim_warn_set_quiet(true);
	for (int n = 0; n < nnames; n++) {
		const struct dcsim_dput_strategy *s = dcsim_strategy_lookup(names[n]);

		if (!s) {
			fprintf(stderr, "test-explore-handoff: no strategy '%s'\n", names[n]);
			return 2;
		}
		for (size_t h = 0; h < sizeof(htms) / sizeof(htms[0]); h++) {
			if (htms[h] != DCSIM_EXPLORE_HTM_OFF && !(s->flags & DCSIM_STRATEGY_USES_HTM))
				continue;
			for (int scn = 0; scn < DCSIM_DSCN_NR; scn++) {
				for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
					struct outcome o[NH];

					for (size_t k = 0; k < NH; k++)
						run(s, scn, modes[m], htms[h], iters, handoffs[k], NULL,
						    &o[k]);
					if (o[0].r.skipped)
						continue;
					runs++;
					for (size_t k = 1; k < NH; k++) {
						if (!differ(&o[0], handoffs[0], &o[k], handoffs[k]))
							continue;
						printf("^ %s/%s/%s, mode %s: %s and %s differ\n",
						       dcsim_dcache_scenario_name(scn), s->name,
						       dcsim_explore_htm_name(htms[h]),
						       dcsim_explore_mode_name(modes[m]),
						       dcsim_explore_handoff_name(handoffs[0]),
						       dcsim_explore_handoff_name(handoffs[k]));
						bad++;
					}
					if (!o[0].r.failures)
						continue;
					failing++;
					/* The failure's replay, under every hand-off: the same failure. */
					for (size_t k = 0; k < NH; k++) {
						struct dcsim_explore_opts rep = { 0 };
						struct outcome again;

						rep.replay_seed = o[0].r.failure_seed;
						rep.pct_steps = o[0].r.failure_pct_steps;
						run(s, scn, modes[m], htms[h], iters, handoffs[k], &rep,
						    &again);
						replays++;
						if (again.rc != 1 ||
						    !same_failure(again.r.failure, o[0].r.failure)) {
							printf("^ %s/%s/%s, mode %s: the replay of seed %#" PRIx64
							       " under %s gives \"%s\", not \"%s\"\n",
							       dcsim_dcache_scenario_name(scn), s->name,
							       dcsim_explore_htm_name(htms[h]),
							       dcsim_explore_mode_name(modes[m]),
							       o[0].r.failure_seed,
							       dcsim_explore_handoff_name(handoffs[k]),
							       again.r.failure, o[0].r.failure);
							bad++;
						}
					}
				}
			}
		}
	}
	printf("hand-off differential: %lu explorations x %zu hand-offs, %lu executions each; "
	       "%lu with failures, %lu replays; %d differences\n", runs, NH, iters, failing,
	       replays, bad);
	if (!runs) {
		printf("nothing ran\n");
		return 1;
	}
	return bad ? 1 : 0;
}
