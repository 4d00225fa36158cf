// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dcsim-check --kernel-patch: the coverage of the change.  kpatch.py
 * builds the kernel objects with gcov counters (--coverage) and writes the
 * lines the patches changed; each suite's processes write their counts
 * into a directory of their own (GCOV_PREFIX), flushed before they exit;
 * after the suites, "kpatch.py coverage" reads them with gcov and prints
 * one record per changed line that has code, which this file turns into
 * the report: per suite and over all suites, the changed lines reached
 * (and how often), the sides of their conditions taken, and the lines
 * that never ran.
 */

#define _GNU_SOURCE	/* nftw(), strsignal(), RTLD_DEFAULT */
#include <dlfcn.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define COV_MAX_LINES	4096
#define COV_MAX_SUITES	8

/* One changed line: its place, and per suite its count and condition sides taken. */
struct cov_line {
	char file[64];
	int line;
	char func[64];
	bool code;			/* gcov saw code on it */
	unsigned long count[COV_MAX_SUITES];
	uint64_t taken[COV_MAX_SUITES];	/* bit i: outcome i of its conditions happened */
	unsigned int sides;		/* condition outcomes gcov records for it (<= 64) */
};

static struct {
	bool on;
	char dir[PATH_MAX];		/* one subdirectory per suite */
	char entry[PATH_MAX];		/* the build's cache directory */
	char script[PATH_MAX + 32];	/* kpatch.py */
	const char *suites[COV_MAX_SUITES];
	unsigned int nsuites;
	struct cov_line *lines;
	size_t nlines;
} cov;

static void (*plugin_flush(void))(void)
{
	void (*fn)(void);

	/* A function pointer from dlsym(): POSIX allows the conversion. */
	*(void **)&fn = dlsym(RTLD_DEFAULT, "dcsim_plugin_flush");
	return fn;
}

int check_cov_begin(const char *so, const char *root)
{
	const char *tmp = getenv("TMPDIR");
	char *slash;

	if (!plugin_flush())
		return 0;		/* a build without counters: nothing to report */
	snprintf(cov.entry, sizeof(cov.entry), "%s", so);
	slash = strrchr(cov.entry, '/');
	if (slash)
		*slash = '\0';
	snprintf(cov.script, sizeof(cov.script), "%s/kernel-code/kpatch.py", root);
	snprintf(cov.dir, sizeof(cov.dir), "%s/dcsim-coverage.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(cov.dir)) {
		fprintf(stderr, "dcsim-check: coverage: mkdtemp %s: %s\n", cov.dir, strerror(errno));
		return -1;
	}
	/*
	 * libgcov writes PREFIX/<object path less STRIP components>.gcda: a
	 * large STRIP leaves the object's name (dput.gcda, lockref.gcda).
	 */
	setenv("GCOV_PREFIX_STRIP", "4096", 1);
	check_cov_suite("in-process");
	cov.on = true;
	return 0;
}

bool check_cov_active(void)
{
	return cov.on;
}

void check_cov_suite(const char *suite)
{
	char d[PATH_MAX + 64];

	if (!cov.dir[0])
		return;
	snprintf(d, sizeof(d), "%s/%s", cov.dir, suite);
	setenv("GCOV_PREFIX", d, 1);
}

void check_cov_flush(void)
{
	void (*fn)(void) = cov.on ? plugin_flush() : NULL;

	if (fn)
		fn();
	/* What a loaded library would print at exit, which _exit() skips. */
	*(void **)&fn = dlsym(RTLD_DEFAULT, "dcsim_plugin_exit");
	if (fn)
		fn();
}

void check_cov_ran(const char *suite)
{
	for (unsigned int i = 0; i < cov.nsuites; i++)
		if (!strcmp(cov.suites[i], suite))
			return;
	if (cov.on && cov.nsuites < COV_MAX_SUITES)
		cov.suites[cov.nsuites++] = suite;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static struct cov_line *cov_find(const char *file, int line)
{
	for (size_t i = 0; i < cov.nlines; i++)
		if (cov.lines[i].line == line && !strcmp(cov.lines[i].file, file))
			return &cov.lines[i];
	return NULL;
}

static int suite_index(const char *suite)
{
	for (unsigned int i = 0; i < cov.nsuites; i++)
		if (!strcmp(cov.suites[i], suite))
			return (int)i;
	return -1;
}

/* One record of "kpatch.py coverage" (its docstring has the format). */
static void cov_record(const char *rec)
{
	char suite[64], file[64], func[64], sides[80];
	unsigned long count;
	struct cov_line *l;
	int line, s;

	if (sscanf(rec, "CHANGED %63s %d %63s", file, &line, func) == 3) {
		if (cov.nlines == COV_MAX_LINES || cov_find(file, line))
			return;
		l = &cov.lines[cov.nlines++];
		memset(l, 0, sizeof(*l));
		snprintf(l->file, sizeof(l->file), "%s", file);
		snprintf(l->func, sizeof(l->func), "%s", func);
		l->line = line;
	} else if (sscanf(rec, "COV %63s %63s %d %lu %79s", suite, file, &line, &count,
			  sides) == 5) {
		l = cov_find(file, line);
		s = suite_index(suite);
		if (!l || s < 0)
			return;
		l->code = true;
		l->count[s] = count;
		l->sides = 0;
		l->taken[s] = 0;
		for (const char *c = sides; *c == '0' || *c == '1'; c++, l->sides++)
			if (*c == '1' && l->sides < 64)
				l->taken[s] |= 1ull << l->sides;
		if (l->sides > 64)
			l->sides = 64;
	}
}

/* Run "kpatch.py coverage ENTRY DIR..." and read its records. */
static int cov_collect(void)
{
	const char *argv[8 + COV_MAX_SUITES];
	char dirs[COV_MAX_SUITES][PATH_MAX + 64], line[512];
	unsigned int argc = 0;
	int p[2], status;
	pid_t pid;
	FILE *f;

	argv[argc++] = "python3";
	argv[argc++] = cov.script;
	argv[argc++] = "coverage";
	argv[argc++] = cov.entry;
	for (unsigned int i = 0; i < cov.nsuites; i++) {
		snprintf(dirs[i], sizeof(dirs[i]), "%s/%s", cov.dir, cov.suites[i]);
		argv[argc++] = dirs[i];
	}
	argv[argc] = NULL;
	if (pipe(p))
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return close(p[0]), close(p[1]), -1;
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	while (f && fgets(line, sizeof(line), f))
		cov_record(line);
	if (f)
		fclose(f);
	else
		close(p[0]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return 0;
}

/* Suite @s (-1: all together): how often @l ran; in @taken, its condition sides taken. */
static unsigned long line_count(const struct cov_line *l, int s, unsigned int *taken)
{
	unsigned long n = 0;
	uint64_t mask = 0;

	for (unsigned int i = 0; i < cov.nsuites; i++) {
		if (s >= 0 && (int)i != s)
			continue;
		n += l->count[i];
		mask |= l->taken[i];
	}
	*taken = (unsigned int)__builtin_popcountll(mask);
	return n;
}

/*
 * One summary line: "SUITE: changed lines reached R/T, condition sides
 * S/U; fs/dcache.c:1094, 1096 never ran".  Return: the lines never run.
 */
static unsigned int cov_summary(FILE *out, const char *name, int s)
{
	unsigned int lines = 0, reached = 0, sides = 0, taken = 0, missed = 0;
	const char *last_file = NULL;

	for (size_t i = 0; i < cov.nlines; i++) {
		const struct cov_line *l = &cov.lines[i];
		unsigned int t;

		if (!l->code)
			continue;
		lines++;
		if (line_count(l, s, &t))
			reached++;
		sides += l->sides;
		taken += t;
	}
	fprintf(out, "dcsim-check: coverage of the change: %s: changed lines reached %u/%u",
		name, reached, lines);
	if (sides)
		fprintf(out, ", condition sides taken %u/%u", taken, sides);
	for (size_t i = 0; i < cov.nlines; i++) {
		const struct cov_line *l = &cov.lines[i];
		unsigned int t;

		if (!l->code || line_count(l, s, &t))
			continue;
		if (!missed++ || strcmp(last_file, l->file))
			fprintf(out, "%s %s:%d", missed == 1 ? ";" : ",", l->file, l->line);
		else
			fprintf(out, ", %d", l->line);
		last_file = l->file;
	}
	fprintf(out, "%s\n", missed ? " never ran" : "");
	return missed;
}

/* Per changed line with code: how often each suite ran it, and the sides taken. */
static void cov_table(FILE *out)
{
	for (size_t i = 0; i < cov.nlines; i++) {
		const struct cov_line *l = &cov.lines[i];
		unsigned int t;

		if (!l->code)
			continue;
		fprintf(out, "dcsim-check:   %s:%d %s():", l->file, l->line, l->func);
		for (unsigned int s = 0; s < cov.nsuites; s++)
			fprintf(out, " %s %lu", cov.suites[s], l->count[s]);
		line_count(l, -1, &t);
		if (l->sides)
			fprintf(out, "; condition sides taken %u/%u", t, l->sides);
		fputc('\n', out);
	}
}

void check_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
	fputc('"', f);
}

/* The "coverage" member of --json (docs/dcsim-check.schema.json). */
static void cov_json(FILE *f, const struct check_cov_total *tot)
{
	bool first = true;

	fprintf(f, "\"coverage\": {\"lines\": %u, \"reached\": %u, \"missed\": %u, "
		"\"sides\": %u, \"sides_taken\": %u, \"changed\": [", tot->lines, tot->reached,
		tot->missed, tot->sides, tot->taken);
	for (size_t i = 0; i < cov.nlines; i++) {
		const struct cov_line *l = &cov.lines[i];
		unsigned int t;

		if (!l->code)
			continue;
		fprintf(f, "%s{\"file\": ", first ? "" : ", ");
		check_json_str(f, l->file);
		fprintf(f, ", \"line\": %d, \"function\": ", l->line);
		check_json_str(f, l->func);
		fputs(", \"counts\": {", f);
		for (unsigned int s = 0; s < cov.nsuites; s++) {
			fprintf(f, "%s", s ? ", " : "");
			check_json_str(f, cov.suites[s]);
			fprintf(f, ": %lu", l->count[s]);
		}
		line_count(l, -1, &t);
		fprintf(f, "}, \"sides\": %u, \"sides_taken\": %u}", l->sides, t);
		first = false;
	}
	fputs("]}", f);
}

int check_cov_report(FILE *out, bool require, struct check_cov_total *tot, FILE *json)
{
	unsigned int missed = 0, nocode = 0;
	int rc = 0;

	memset(tot, 0, sizeof(*tot));
	if (!cov.on) {
		if (json)
			fputs("\"coverage\": null", json);
		return 0;
	}
	check_cov_suite("in-process");
	check_cov_flush();
	cov.lines = calloc(COV_MAX_LINES, sizeof(*cov.lines));
	if (!cov.lines || cov_collect()) {
		fputs("dcsim-check: coverage of the change: not measured (kpatch.py coverage "
		      "failed, above: why)\n", out);
		rc = require ? 3 : 0;
		goto out;
	}
	for (size_t i = 0; i < cov.nlines; i++) {
		unsigned int t;

		if (!cov.lines[i].code) {
			nocode++;
			continue;
		}
		tot->lines++;
		if (line_count(&cov.lines[i], -1, &t))
			tot->reached++;
		tot->sides += cov.lines[i].sides;
		tot->taken += t;
	}
	if (!tot->lines) {
		fprintf(out, "dcsim-check: coverage of the change: none of the %zu changed lines "
			"has code of its own (comments, declarations, braces)\n", cov.nlines);
		goto out;
	}
	for (unsigned int s = 0; s < cov.nsuites; s++)
		cov_summary(out, cov.suites[s], (int)s);
	cov_table(out);
	missed = cov_summary(out, "all suites", -1);
	if (nocode)
		fprintf(out, "dcsim-check: coverage of the change: %u changed lines have no code "
			"of their own and are not counted\n", nocode);
	if (missed)
		fprintf(out, "dcsim-check: %s: %u changed line%s never ran: the suites did not "
			"check %s%s\n", require ? "FAIL" : "warning", missed, missed > 1 ? "s" : "",
			missed > 1 ? "them" : "it",
			require ? " (--require-coverage)" : " (--require-coverage makes this a failure)");
	rc = missed && require ? 3 : 0;
out:
	tot->missed = missed;
	if (json && tot->lines)
		cov_json(json, tot);
	else if (json)
		fputs("\"coverage\": null", json);
	nftw(cov.dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(cov.lines);
	cov.lines = NULL;
	cov.on = false;
	return rc;
}
