// SPDX-License-Identifier: LGPL-2.1-or-later
/* One dentry cache exploration in a child process; see explore-isolated.h. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/wait.h>
#include <unistd.h>

#include "explore-isolated.h"

/* The child's last line on stderr: its result, after the explorer's report. */
#define RESULT_FMT_OUT	"\nRESULT rc=%d first=%lu executions=%lu callbacks=%lu stale=%lu " \
			"conflicts=%lu failure=%.150s\n"
#define RESULT_FMT_IN	"\nRESULT rc=%d first=%lu executions=%lu callbacks=%lu stale=%lu " \
			"conflicts=%lu failure=%159[^\n]"

static void __attribute__((noreturn)) child(int fd, const struct dcsim_dput_strategy *s,
					    enum dcsim_dcache_scenario scn,
					    const struct dcsim_explore_opts *o,
					    enum dcsim_dcache_fault fault)
{
	struct dcsim_explore_result r;
	int rc;

	dup2(fd, 2);
	dcsim_dcache_set_fault(fault);
	rc = dcsim_explore_dcache(s, scn, o, &r);
	fprintf(stderr, RESULT_FMT_OUT, rc, r.first_failure, r.executions, r.rcu_callbacks,
		r.stale_loads, r.htm_conflicts, r.failure);
	fflush(stderr);
	_exit(rc < 0 ? 2 : rc);
}

struct explore_outcome explore_isolated(const struct dcsim_dput_strategy *s,
					enum dcsim_dcache_scenario scn,
					const struct dcsim_explore_opts *o,
					enum dcsim_dcache_fault fault)
{
	struct explore_outcome out = { .rc = 2 };
	static char buf[1 << 16];
	size_t len = 0;
	ssize_t n;
	int pfd[2], status;
	pid_t pid;
	const char *p;

	if (pipe(pfd))
		return out;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return out;
	}
	if (pid == 0) {
		close(pfd[0]);
		child(pfd[1], s, scn, o, fault);
	}
	close(pfd[1]);
	while ((n = read(pfd[0], buf + len, sizeof(buf) - 1 - len)) > 0) {
		len += (size_t)n;
		if (len == sizeof(buf) - 1) {
			/* keep the tail: the RESULT line comes last */
			memmove(buf, buf + len / 2, len - len / 2);
			len -= len / 2;
		}
	}
	buf[len] = '\0';
	close(pfd[0]);
	waitpid(pid, &status, 0);
	if (getenv("DCSIM_TEST_VERBOSE"))
		fputs(buf, stderr);
	p = strstr(buf, "\nRESULT ");
	if (p && WIFEXITED(status)) {
		sscanf(p, RESULT_FMT_IN, &out.rc, &out.first, &out.executions, &out.callbacks,
		       &out.stale, &out.conflicts, out.failure);
		return out;
	}
	/* Died: the crash report says at which execution. */
	out.rc = -1;
	p = strstr(buf, "', execution ");
	if (p)
		out.first = out.executions = strtoul(p + strlen("', execution "), NULL, 10);
	p = strstr(buf, "crashed with");
	if (!p)
		p = WIFSIGNALED(status) ? "killed by a signal" : "exited abnormally";
	snprintf(out.failure, sizeof(out.failure), "%.*s", (int)strcspn(p, "\n"), p);
	return out;
}
