// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The values of dcsim-bench's options: numbers, lists of them, workload
 * names and mix weights, each refused with a message that names the
 * option (exit status 2).  The option table itself is dcsim-bench.c's.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dcsim/parse.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

#include "bench.h"

#define PROG "dcsim-bench"

/* Say what is wrong with the command line.  Return: 2, the usage exit status. */
int bench_bad(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n(try '" PROG " --help')\n", stderr);
	return 2;
}

/* An unsigned integer in [min, max] (<dcsim/parse.h>); Return: 0 or -1. */
int bench_parse_uint(const char *s, unsigned long long min, unsigned long long max,
		      unsigned long long *out)
{
	uint64_t v;

	if (dcsim_parse_u64(s, min, max, &v))
		return -1;
	*out = v;
	return 0;
}

/* --@opt's whole number in [min, max] into *@out.  Return: 0, or 2 (said why). */
int bench_opt_uint(const char *opt, const char *arg, unsigned long long min,
		    unsigned long long max, unsigned int *out)
{
	unsigned long long v;

	if (bench_parse_uint(arg, min, max, &v))
		return bench_bad("--%s wants a whole number in %llu..%llu, got '%s'", opt, min, max, arg);
	*out = (unsigned int)v;
	return 0;
}

/*
 * Comma list of unsigned numbers in [min, max] (<dcsim/parse.h>: no empty
 * element, nothing that wraps); Return: count, or -1 on a bad element.
 */
int bench_parse_list(const char *s, unsigned long long min, unsigned long long max,
		      unsigned int *out, unsigned int cap)
{
	uint64_t v[BENCH_MAX_THREADS];
	int n;

	if (max > UINT_MAX || cap > DCSIM_ARRAY_SIZE(v))
		return -1;
	n = dcsim_parse_u64_list(s, min, max, v, cap);
	for (int i = 0; i < n; i++)
		out[i] = (unsigned int)v[i];
	return n > 0 ? n : -1;
}

static int add_group(struct bench_config *cfg, const char *name,
		     const struct bench_workload *wl)
{
	for (unsigned int i = 0; i < cfg->nr_groups; i++)
		if (!strcmp(cfg->groups[i].name, name))
			return 0;	/* named twice: once is enough */
	if (cfg->nr_groups >= DCSIM_ARRAY_SIZE(cfg->groups))
		return bench_bad("too many workloads");
	cfg->groups[cfg->nr_groups++] = (struct bench_group){ .name = name, .wl = wl };
	return 0;
}

/* --workloads: the groups to run, in order (NULL: all).  Return: 0, or 2 (said why). */
int bench_parse_workloads(struct bench_config *cfg, const char *list)
{
	char buf[256], *save, *tok;

	if (!list) {
		for (unsigned int i = 0; i < bench_nr_workloads; i++)
			add_group(cfg, bench_workloads[i]->name, bench_workloads[i]);
		return 0;
	}
	if (!*list || strlen(list) >= sizeof(buf))
		return bench_bad("--workloads wants a comma list of workloads");
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct bench_workload *wl = bench_workload_find(tok);
		int err;

		if (!wl) {
			fprintf(stderr, PROG ": unknown workload '%s'; known:", tok);
			for (unsigned int i = 0; i < bench_nr_workloads; i++)
				fprintf(stderr, " %s", bench_workloads[i]->name);
			fputc('\n', stderr);
			return 2;
		}
		err = add_group(cfg, wl->name, wl);
		if (err)
			return err;
	}
	return 0;
}

/* --mix: the weight of each workload in the mixed group.  Return: 0, or 2 (said why). */
int bench_parse_mix(struct bench_config *cfg, const char *spec)
{
	char buf[256], *save, *tok;

	if (!*spec || strlen(spec) >= sizeof(buf))
		return bench_bad("--mix wants NAME=WEIGHT pairs, e.g. hot=1,walk=4");
	memset(cfg->shape.mix, 0, sizeof(cfg->shape.mix));
	strcpy(buf, spec);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		unsigned long long w;
		unsigned int i;

		if (!eq)
			return bench_bad("--mix: '%s' is not NAME=WEIGHT", tok);
		*eq = 0;
		for (i = 0; i < bench_nr_workloads; i++)
			if (!strcmp(bench_workloads[i]->name, tok))
				break;
		if (i == bench_nr_workloads || !strcmp(tok, "mixed"))
			return bench_bad("--mix: '%s' is not a workload that can be mixed", tok);
		if (bench_parse_uint(eq + 1, 0, 1000000, &w))
			return bench_bad("--mix: weight for %s must be 0..1000000, got '%s'", tok, eq + 1);
		cfg->shape.mix[i] = (unsigned int)w;
	}
	for (unsigned int i = 0; i < bench_nr_workloads; i++)
		if (cfg->shape.mix[i])
			return 0;
	return bench_bad("--mix: every weight is zero");
}

/* A number in (min, max] (a trailing % divides by 100 when @pct); Return: 0 or -1. */
int bench_parse_double(const char *s, double min, double max, bool pct, double *out)
{
	char buf[64];
	size_t n = s ? strlen(s) : 0;
	double d;

	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n + 1);
	if (pct && buf[n - 1] == '%')
		buf[n - 1] = '\0';
	if (dcsim_parse_double(buf, -HUGE_VAL, HUGE_VAL, &d))
		return -1;
	if (pct && s[n - 1] == '%')
		d /= 100;
	if (!(d > min) || d > max)
		return -1;
	*out = d;
	return 0;
}
