// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dcsim-htm-probe: what HTM this host offers and what a trial run of
 * transactions does on it.
 *
 *   dcsim-htm-probe [--policy auto|off|force] [--trials N]
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/config.h>
#include <dcsim/htm.h>
#include <dcsim/stats.h>

static void usage(FILE *f)
{
	fputs("usage: dcsim-htm-probe [--policy auto|off|force] [--trials N]\n"
	      "Prints the CPU, the HTM backend, the detection bits, the policy, and\n"
	      "the outcome of N trial transactions (default 1000).\n"
	      "The policy defaults to $DCSIM_HTM, else auto.\n", f);
}

static volatile unsigned long trial_word;

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "trials", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct dcsim_htm_info info;
	struct dcsim_stats before, after;
	enum dcsim_htm_policy policy;
	long trials = 1000;
	const char *policy_arg = NULL;
	int c, err;

	while ((c = getopt_long(argc, argv, "p:n:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			policy_arg = optarg;
			break;
		case 'n': {
			char *end;

			errno = 0;
			trials = strtol(optarg, &end, 10);
			if (errno || *end || trials <= 0 || trials > 100000000) {
				fprintf(stderr, "dcsim-htm-probe: --trials wants a count in 1..100000000, got '%s'\n",
					optarg);
				return 2;
			}
			break;
		}
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "dcsim-htm-probe: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}

	err = dcsim_htm_init();
	if (err == -EINVAL)
		return 2;	/* the library already said why */
	if (policy_arg) {
		if (dcsim_htm_policy_parse(policy_arg, &policy)) {
			fprintf(stderr, "dcsim-htm-probe: --policy must be auto, off or force, got '%s'\n",
				policy_arg);
			return 2;
		}
		err = dcsim_htm_set_policy(policy);
	}
	dcsim_htm_get_info(&info);

	printf("cpu:        %s\n", info.cpu);
	printf("backend:    %s (compiled)%s\n", dcsim_htm_backend_name(info.backend),
	       DCSIM_INSTRUMENT ? ", instrumented build" : "");
	switch (info.backend) {
	case DCSIM_HTM_BACKEND_X86_RTM:
		printf("detection:  CPUID.(EAX=7,ECX=0): EBX=0x%08x EDX=0x%08x\n",
		       info.x86_cpuid7_ebx, info.x86_cpuid7_edx);
		printf("            RTM (EBX bit 11): %s; RTM_ALWAYS_ABORT (EDX bit 11): %s\n",
		       info.x86_rtm ? "present" : "absent",
		       info.x86_rtm_always_abort ? "set" : "clear");
		break;
	case DCSIM_HTM_BACKEND_POWER:
		printf("detection:  AT_HWCAP2=0x%08" PRIx64 ": HTM %s, HTM_NOSC %s, HTM_NO_SUSPEND %s\n",
		       info.power_hwcap2, info.power_htm ? "yes" : "no",
		       info.power_htm_nosc ? "yes" : "no",
		       info.power_htm_no_suspend ? "yes" : "no");
		break;
	default:
		printf("detection:  none (no HTM backend in this build)\n");
		break;
	}
	printf("hardware:   %s\n", info.cpu_has_htm ? "usable HTM present" :
	       info.backend == DCSIM_HTM_BACKEND_X86_RTM ?
			(info.x86_rtm ? "RTM present but always aborts (RTM_ALWAYS_ABORT)" :
					"RTM is absent on this CPU") :
	       info.backend == DCSIM_HTM_BACKEND_POWER ? "POWER HTM is absent" :
	       "no HTM");
	printf("policy:     %s -> %s\n", dcsim_htm_policy_name(info.policy),
	       info.live ? "transactions are executed" :
	       info.force_faulted ? "NOT executed: the CPU faulted on the instructions (SIGILL)" :
	       "NOT executed");
	if (err == -ENOTSUP && info.policy == DCSIM_HTM_FORCE)
		printf("            force refused; every dput strategy uses its fallback path\n");

	if (!info.live) {
		printf("trial:      skipped (%ld transactions not attempted)\n", trials);
		return 0;
	}

	dcsim_stats_read_thread(&before);
	for (long i = 0; i < trials; i++) {
		if (dcsim_htm_begin() == DCSIM_HTM_STARTED) {
			trial_word++;
			dcsim_htm_end();
		}
	}
	dcsim_stats_read_thread(&after);

	uint64_t attempts = after.v[DCSIM_STAT_HTM_ATTEMPTS] - before.v[DCSIM_STAT_HTM_ATTEMPTS];
	uint64_t commits = after.v[DCSIM_STAT_HTM_COMMITS] - before.v[DCSIM_STAT_HTM_COMMITS];
	uint64_t aborts = after.v[DCSIM_STAT_HTM_ABORTS] - before.v[DCSIM_STAT_HTM_ABORTS];

	printf("trial:      %" PRIu64 " transactions: %" PRIu64 " committed, %" PRIu64 " aborted\n",
	       attempts, commits, aborts);
	for (int cause = 0; cause < DCSIM_HTM_CAUSE_NR; cause++) {
		int s = DCSIM_STAT_HTM_ABORT_FIRST + cause;
		uint64_t n = after.v[s] - before.v[s];

		if (n)
			printf("            aborted (%s): %" PRIu64 "\n",
			       dcsim_htm_cause_name(cause), n);
	}
	if (commits == 0)
		printf("verdict:    every transaction aborted (emulated or disabled HTM); "
		       "only fallback paths can run here\n");
	else
		printf("verdict:    transactions commit (%.1f%%)\n", 100.0 * commits / attempts);
	return 0;
}
