// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the host did while we measured: load average, CPU time stolen by
 * the hypervisor and used by other processes (deltas of /proc/stat over the
 * run), and frequency hints.  A figure measured on a busy host is noisier
 * and may be biased (a worker preempted while it holds a lock); the report
 * says so instead of leaving the reader to guess.
 */

#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

/* A busy host: any of these over the run (fractions of all CPU time). */
#define BUSY_LOAD	0.5	/* 1-minute load before we started */
#define BUSY_STEAL	0.02
#define BUSY_OTHERS	0.10

double bench_loadavg(void)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double l = -1;

	if (f) {
		if (fscanf(f, "%lf", &l) != 1)
			l = -1;
		fclose(f);
	}
	return l;
}

static bool read_stat(unsigned long long v[8])
{
	FILE *f = fopen("/proc/stat", "r");
	int n = 0;

	if (!f)
		return false;
	/* cpu  user nice system idle iowait irq softirq steal ... */
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	return n == 8;
}

static double self_cpu_s(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return NAN;
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* "cpu MHz" of every CPU in /proc/cpuinfo: the current clock, a hint only. */
static void cpu_mhz(double *min, double *max)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	*min = *max = NAN;
	while (f && fgets(line, sizeof(line), f)) {
		double mhz;

		if (strncmp(line, "cpu MHz", 7) || sscanf(strchr(line, ':') ? strchr(line, ':') + 1 :
							  "", "%lf", &mhz) != 1)
			continue;
		if (!(mhz >= *min))
			*min = mhz;
		if (!(mhz <= *max))
			*max = mhz;
	}
	if (f)
		fclose(f);
}

static void read_word(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = 0;
	buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

void bench_hostmon_start(struct bench_hostmon *m)
{
	memset(m, 0, sizeof(*m));
	m->load = bench_loadavg();
	m->have_stat = read_stat(m->stat);
	m->self_cpu_s = self_cpu_s();
	m->wall_s = wall_s();
	cpu_mhz(&m->mhz_min, &m->mhz_max);
}

static void add_why(struct bench_host *h, const char *fmt, double v)
{
	size_t off = strlen(h->busy_why);

	snprintf(h->busy_why + off, sizeof(h->busy_why) - off, fmt, off ? ", " : "", v);
	h->busy = true;
}

/* Fill the run's host figures of @h from @start to now. */
void bench_hostmon_end(const struct bench_hostmon *start, struct bench_host *h)
{
	unsigned long long now[8];
	char buf[64];
	long hz = sysconf(_SC_CLK_TCK);

	h->load_before = start->load;
	h->load_after = bench_loadavg();
	h->steal_frac = h->others_frac = h->self_cpus = NAN;
	if (start->have_stat && read_stat(now) && hz > 0) {
		double total = 0, busy, steal, self;

		for (int i = 0; i < 8; i++)
			total += (double)(now[i] - start->stat[i]);
		/* busy = everything but idle and iowait; steal is not ours to use */
		steal = (double)(now[7] - start->stat[7]);
		busy = total - (double)(now[3] - start->stat[3]) - (double)(now[4] - start->stat[4]) -
		       steal;
		self = (self_cpu_s() - start->self_cpu_s) * (double)hz;
		if (total > 0) {
			h->steal_frac = steal / total;
			h->others_frac = fmax(0, busy - self) / total;
		}
		h->self_cpus = (self / (double)hz) / fmax(wall_s() - start->wall_s, 1e-9);
	}
	h->mhz_min_before = start->mhz_min;
	h->mhz_max_before = start->mhz_max;
	cpu_mhz(&h->mhz_min_after, &h->mhz_max_after);
	read_word("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", h->governor,
		  sizeof(h->governor));
	h->boost = -1;
	read_word("/sys/devices/system/cpu/cpufreq/boost", buf, sizeof(buf));
	if (buf[0]) {
		h->boost = buf[0] == '1';
	} else {
		read_word("/sys/devices/system/cpu/intel_pstate/no_turbo", buf, sizeof(buf));
		if (buf[0])
			h->boost = buf[0] == '0';
	}

	h->busy = false;
	h->busy_why[0] = 0;
	if (h->load_before > BUSY_LOAD)
		add_why(h, "%sload %.2f before the run", h->load_before);
	if (h->steal_frac > BUSY_STEAL)
		add_why(h, "%ssteal %.1f%%", 100 * h->steal_frac);
	if (h->others_frac > BUSY_OTHERS)
		add_why(h, "%sother processes used %.0f%% of the CPUs", 100 * h->others_frac);
}
