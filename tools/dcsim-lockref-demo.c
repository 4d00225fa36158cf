// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dcsim-lockref-demo: T threads take and drop references on one lockref
 * while one of them now and then holds the lock, then report that the
 * count came back exact and how often the cmpxchg path fell back.
 *
 *   dcsim-lockref-demo [--threads T] [--ops N]
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <dcsim/lockref.h>
#include <dcsim/stats.h>

static struct dcsim_lockref ref;
static long nr_ops = 1000000;

static void *worker(void *arg)
{
	long id = (long)arg;

	for (long i = 0; i < nr_ops; i++) {
		dcsim_lockref_get(&ref);
		/* Thread 0 sometimes takes the lock, forcing others to fall back. */
		if (id == 0 && (i & 1023) == 0) {
			dcsim_spin_lock(&ref.lock);
			dcsim_spin_unlock(&ref.lock);
		}
		if (!dcsim_lockref_put_not_zero(&ref)) {
			fprintf(stderr, "dcsim-lockref-demo: put_not_zero failed with a reference held\n");
			exit(1);
		}
	}
	return NULL;
}

static long parse_long(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max) {
		fprintf(stderr, "dcsim-lockref-demo: %s wants %ld..%ld, got '%s'\n", opt, min, max, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "ops", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	long nr_threads = 2;
	pthread_t tids[64];
	struct dcsim_stats st;
	struct timespec t0, t1;
	int c;

	while ((c = getopt_long(argc, argv, "t:n:h", opts, NULL)) != -1) {
		switch (c) {
		case 't': nr_threads = parse_long("--threads", optarg, 1, 64); break;
		case 'n': nr_ops = parse_long("--ops", optarg, 1, 1000000000L); break;
		case 'h':
			puts("usage: dcsim-lockref-demo [--threads 1..64] [--ops N]");
			return 0;
		default:
			return 2;
		}
	}

	dcsim_lockref_init(&ref, 1);
	dcsim_stats_reset();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < nr_threads; i++)
		pthread_create(&tids[i], NULL, worker, (void *)i);
	for (long i = 0; i < nr_threads; i++)
		pthread_join(tids[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	dcsim_stats_read(&st);

	double secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("lockref demo: %ld threads x %ld get/put pairs in %.3f s (%.1f ns per pair per thread)\n",
	       nr_threads, nr_ops, secs, secs * 1e9 / (double)nr_ops);
	printf("final count:  %d (expected 1) %s\n", ref.count, ref.count == 1 ? "OK" : "WRONG");
	printf("cmpxchg retries: %" PRIu64 ", lock fallbacks: %" PRIu64 "\n",
	       st.v[DCSIM_STAT_LOCKREF_RETRIES], st.v[DCSIM_STAT_LOCKREF_FALLBACKS]);
	return ref.count == 1 ? 0 : 1;
}
