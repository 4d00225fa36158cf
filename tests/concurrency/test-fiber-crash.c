// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A crash in a logical thread still gets its report and replay line under
 * every hand-off, a stack overflow included: a fiber's stack has a guard
 * page, and the crash handler runs on an alternate signal stack (without
 * one, the overflowing fiber has no stack left to report on).  Each case
 * runs in a child process; the parent reads its stderr.  Exit 0, or 1.
 */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dcsim/explore.h>
#include <dcsim/lockref.h>

static struct dcsim_lockref ref;
static int overflow;
static int *volatile nowhere;	/* NULL: the crash */

static void *setup(void *arg)
{
	(void)arg;
	dcsim_lockref_init(&ref, 1);
	return &ref;
}

/* Deep enough for any fiber stack; each frame's buffer is written, so it is used. */
static __attribute__((noinline)) int recurse(int n)
{
	volatile char buf[4096];

	buf[0] = (char)n;
	buf[sizeof(buf) - 1] = (char)n;
	return n ? recurse(n - 1) + buf[0] + buf[sizeof(buf) - 1] : 0;
}

static void body(void *s, unsigned int tid)
{
	dcsim_lockref_get(s);
	if (tid == 1) {
		if (overflow)
			recurse(1 << 20);
		else
			*nowhere = 1;
	}
	dcsim_lockref_put_return(s);
}

/* Run one crashing exploration in a child; Return: 0 if its report is complete. */
static int one(enum dcsim_explore_handoff h, bool ovf)
{
	char out[65536];
	size_t len = 0;
	int p[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(p))
		return 1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct dcsim_scenario sc = {
			.name = "fiber-crash", .nthreads = 2, .setup = setup, .thread = body,
		};
		struct dcsim_explore_opts o;
		struct dcsim_explore_result r;

		close(p[0]);
		dup2(p[1], 2);
		overflow = ovf;
		dcsim_explore_opts_init(&o);
		o.iterations = 5;
		o.handoff = h;
		dcsim_explore_run(&sc, &o, &r);
		_exit(0);	/* not reached: the crash kills the child */
	}
	close(p[1]);
	while (len < sizeof(out) - 1 && (n = read(p[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	if (!WIFSIGNALED(status) || !strstr(out, "crashed with signal") ||
	    !strstr(out, "replay: DCSIM_EXPLORE_SCENARIO='fiber-crash'")) {
		printf("  ^ %s%s: child %s %d, report%s found\n", dcsim_explore_handoff_name(h),
		       ovf ? ", stack overflow" : "", WIFSIGNALED(status) ? "killed by signal" :
		       "exited with", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
		       strstr(out, "replay: ") ? "" : " not");
		return 1;
	}
	printf("%-8s%s: crash reported with its replay line\n", dcsim_explore_handoff_name(h),
	       ovf ? ", stack overflow" : "");
	return 0;
}

int main(void)
{
	int bad = 0;

	bad += one(DCSIM_EXPLORE_HANDOFF_FIBER, false);
	bad += one(DCSIM_EXPLORE_HANDOFF_UCONTEXT, false);
	bad += one(DCSIM_EXPLORE_HANDOFF_PTHREAD, false);
	/* Fibers only: a pthread's own stack overflow is the kernel's business. */
	bad += one(DCSIM_EXPLORE_HANDOFF_FIBER, true);
	bad += one(DCSIM_EXPLORE_HANDOFF_UCONTEXT, true);
	return bad ? 1 : 0;
}
