// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dcsim-stress: real threads, random operation mixes on one shared tree,
 * then the invariants.  For every strategy (or the one named):
 *
 *   1. build root/d0..dD-1, each with a few files, all cached and unused;
 *   2. T threads run random mixes of lookup, dget/dput, dget_parent,
 *      d_alloc+d_add of their own names, d_drop, d_delete, d_invalidate,
 *      DONTCACHE, holding up to a few references across operations, and
 *      the shrinker (dcsim_prune), for --ops operations or --seconds;
 *   3. join, drop what is held, then dcsim_cache_verify() with exact
 *      reference accounting (only the root's reference is outside);
 *   4. dcsim_shrink_all() must leave only the root, nothing leaked
 *      (allocs - frees == 1), no misuse warning; destroy the cache;
 *   5. in an instrumented build, no lock order report (the validator of
 *      real threads, docs/lock-order.md).
 *
 *   dcsim-stress [--threads T] [--ops N | --seconds S] [--strategy NAME] [--seed S]
 *
 * Defaults: T = online CPUs (at most 64), 20000 operations per thread, every
 * strategy.  Exit status 0 if every strategy passed.  One result row per
 * strategy on stdout; progress and failures on stderr.
 *
 * The suite itself is src/checker/stress.c (dcsim_checker_stress(), also run by
 * dcsim-check): part of the instrumented build's library, compiled into this
 * program in normal builds.
 */

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dcsim/checker.h>
#include <dcsim/htm.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

#define MAX_THREADS	64

static void usage(void)
{
	fputs("usage: dcsim-stress [--threads T] [--ops N | --seconds S] [--strategy NAME] "
	      "[--seed S]\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "ops", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 's' },
		{ "strategy", required_argument, NULL, 'S' },
		{ "seed", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int nthreads = ncpu < 1 ? 1 : ncpu > MAX_THREADS ? MAX_THREADS : (unsigned int)ncpu;
	long ops = 20000;
	double seconds = 0;
	const char *only = NULL;
	uint64_t seed = 0x57e55;
	int c, failed = 0, ran = 0;
	struct dcsim_checker_opts opts;

	while ((c = getopt_long(argc, argv, "t:n:s:S:r:", lopts, NULL)) != -1) {
		switch (c) {
		case 't':
			nthreads = (unsigned int)strtoul(optarg, NULL, 0);
			if (nthreads < 1 || nthreads > MAX_THREADS) {
				fprintf(stderr, "dcsim-stress: --threads wants 1..%d\n", MAX_THREADS);
				return 2;
			}
			break;
		case 'n':
			ops = strtol(optarg, NULL, 0);
			seconds = 0;
			break;
		case 's':
			seconds = strtod(optarg, NULL);
			ops = 0;
			break;
		case 'S':
			only = optarg;
			break;
		case 'r':
			seed = strtoull(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || (ops <= 0 && seconds <= 0))
		usage();
	dcsim_warn_set_quiet(false);
	dcsim_checker_opts_init(&opts);
	opts.report = stderr;
	fprintf(stderr, "dcsim-stress: %u threads, %s, seed %#" PRIx64 ", HTM %s\n", nthreads,
		seconds > 0 ? "timed" : "counted", seed, dcsim_htm_live() ? "live" : "off");
	for (size_t i = 0; i < dcsim_strategy_count(); i++) {
		const struct dcsim_dput_strategy *s = dcsim_strategy_get(i);

		if (only && strcmp(only, s->name))
			continue;
		ran++;
		opts.seed = seed;
		failed += dcsim_checker_stress(s, nthreads, ops, seconds, &opts, NULL) != 0;
	}
	if (!ran) {
		fprintf(stderr, "dcsim-stress: no strategy named '%s'\n", only);
		return 2;
	}
	return failed ? 1 : 0;
}
