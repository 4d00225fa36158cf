// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The checkers' child-process runner (<dcsim/child.h>): fork, run the
 * body, hand its result back as bytes on a pipe, and say how the child
 * ended (done, crashed, hung, lost, cut) from its wait status, its time
 * limit and the record it shares with the parent, never from its report.
 */

#define _GNU_SOURCE	/* strsignal() */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dcsim/child.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void __attribute__((noreturn)) child_body(struct dcsim_child *c, int fd)
{
	static unsigned char res[DCSIM_CHILD_RES_MAX];
	int rc;

	/* The explorer writes its part of a report to fd 2 itself. */
	dup2(fileno(c->out), 2);
	rc = c->fn(c->arg, c->shared, res);
	fflush(stdout);
	fflush(stderr);
	if (write(fd, res, c->res_size) != (ssize_t)c->res_size)
		_exit(2);
	_exit(rc < 0 ? 2 : rc);
}

int dcsim_child_start(struct dcsim_child *c)
{
	pid_t parent;
	int p[2], err;

	if (!c || !c->fn || c->res_size > DCSIM_CHILD_RES_MAX || (c->res_size && !c->res))
		return -EINVAL;
	c->end = DCSIM_CHILD_RUNNING;
	c->status = c->signal = 0;
	c->seconds = 0;
	c->killed = c->cut = false;
	c->pid = -1;
	c->fd = -1;
	memset(&c->where, 0, sizeof(c->where));
	c->out = tmpfile();
	if (!c->out)
		return -errno;
	c->shared = mmap(NULL, sizeof(*c->shared), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c->shared == MAP_FAILED) {
		err = -errno;
		c->shared = NULL;
		dcsim_child_free(c);
		return err;
	}
	memset(c->shared, 0, sizeof(*c->shared));
	if (pipe(p)) {
		err = -errno;
		dcsim_child_free(c);
		return err;
	}
	fflush(NULL);
	c->t0 = now();
	parent = getpid();
	c->pid = fork();
	if (c->pid < 0) {
		err = -errno;
		close(p[0]);
		close(p[1]);
		dcsim_child_free(c);
		return err;
	}
	if (c->pid == 0) {
		/*
		 * Die with the parent: one killed outright (a CI runner's
		 * timeout, kill -9) would leave a hung child spinning for
		 * ever.  A parent gone before the prctl() is seen in getppid().
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(2);
		close(p[0]);
		child_body(c, p[1]);
	}
	close(p[1]);
	c->fd = p[0];
	return 0;
}

/* @c's child is gone with @status: how it ended, and its result. */
static void child_ended(struct dcsim_child *c, int status)
{
	bool got = false;

	c->seconds = now() - c->t0;
	c->pid = -1;
	memcpy(&c->where, c->shared, sizeof(c->where));
	if (c->res_size)
		memset(c->res, 0, c->res_size);
	/* It wrote its result before it exited: the pipe holds it, or nothing. */
	if (c->fd >= 0) {
		got = read(c->fd, c->res ? c->res : (void *)&c->where, c->res_size) ==
		      (ssize_t)c->res_size;
		close(c->fd);
		c->fd = -1;
	}
	if (WIFSIGNALED(status)) {
		c->signal = WTERMSIG(status);
		if (c->cut)
			c->end = DCSIM_CHILD_CUT;
		/* Its time limit, ours or the explorer's watchdog's: a hang. */
		else if (c->killed || c->where.exec.hung || c->signal == SIGALRM)
			c->end = DCSIM_CHILD_HUNG;
		else
			c->end = DCSIM_CHILD_CRASHED;
		if (c->res_size)
			memset(c->res, 0, c->res_size);
		return;
	}
	c->status = WIFEXITED(status) ? WEXITSTATUS(status) : 2;
	c->end = got ? DCSIM_CHILD_DONE : DCSIM_CHILD_LOST;
}

int dcsim_child_wait(struct dcsim_child *c, unsigned int n)
{
	unsigned int sleep_us = 1000;

	for (;;) {
		bool any = false, timed = false;

		for (unsigned int i = 0; i < n; i++) {
			int status;
			pid_t r;

			if (c[i].end != DCSIM_CHILD_RUNNING || c[i].pid <= 0)
				continue;
			any = true;
			r = waitpid(c[i].pid, &status, WNOHANG);
			if (r < 0 && errno != EINTR)
				return -errno;
			if (r == c[i].pid) {
				child_ended(&c[i], status);
				return (int)i;
			}
			if (c[i].timeout_s && !c[i].killed && !c[i].cut) {
				timed = true;
				if (now() - c[i].t0 >= c[i].timeout_s &&
				    !kill(c[i].pid, SIGKILL))
					c[i].killed = true;
			}
		}
		if (!any)
			return -ECHILD;
		if (n == 1 && !timed) {
			/* One child, no time limit: nothing to poll for. */
			int status;
			pid_t r = waitpid(c[0].pid, &status, 0);

			if (r == c[0].pid) {
				child_ended(&c[0], status);
				return 0;
			}
			if (r < 0 && errno != EINTR)
				return -errno;
			continue;
		}
		/* Polls from 1 ms up to 50 ms: quick children end quickly, long ones cost little. */
		usleep(sleep_us);
		if (sleep_us < 50000)
			sleep_us *= 2;
	}
}

void dcsim_child_cut(struct dcsim_child *c)
{
	if (c->end == DCSIM_CHILD_RUNNING && c->pid > 0 && !c->cut && !kill(c->pid, SIGKILL))
		c->cut = true;
}

int dcsim_child_run(struct dcsim_child *c)
{
	int rc = dcsim_child_start(c);

	if (rc)
		return rc;
	do
		rc = dcsim_child_wait(c, 1);
	while (rc == -EINTR);
	return rc < 0 ? rc : 0;
}

FILE *dcsim_child_report(struct dcsim_child *c)
{
	if (!c->out)
		return NULL;
	fflush(c->out);
	rewind(c->out);
	return c->out;
}

void dcsim_child_free(struct dcsim_child *c)
{
	if (c->pid > 0) {
		/* Never leave one behind. */
		kill(c->pid, SIGKILL);
		while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
			;
		c->pid = -1;
	}
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	if (c->out)
		fclose(c->out);
	c->out = NULL;
	if (c->shared)
		munmap(c->shared, sizeof(*c->shared));
	c->shared = NULL;
}

const char *dcsim_child_end_name(const struct dcsim_child *c)
{
	switch (c->end) {
	case DCSIM_CHILD_DONE:
		return c->status == 0 ? "passed" : c->status == 1 ? "failed" : "error";
	case DCSIM_CHILD_CRASHED:
		return "crashed";
	case DCSIM_CHILD_HUNG:
		return "hung";
	case DCSIM_CHILD_LOST:
		return "no result";
	case DCSIM_CHILD_CUT:
		return "cut";
	default:
		return "running";
	}
}

char *dcsim_child_replay(const struct dcsim_child *c, const char *prefix, const char *fallback,
			 char *buf, size_t len)
{
	const struct dcsim_checker_where *w = &c->where;
	int n;

	if (!len)
		return buf;
	if (w->scenario[0] && w->exec.exec_no) {
		n = snprintf(buf, len, "%s --suites explore --scenario %s --explore-mode %s "
			     "--execution-seed %#" PRIx64, prefix, w->scenario, w->mode,
			     w->exec.exec_seed);
		if (n > 0 && (size_t)n < len && !strcmp(w->mode, "pct"))
			snprintf(buf + n, len - (size_t)n, " --pct-steps %lu", w->exec.pct_steps);
		return buf;
	}
	snprintf(buf, len, "%s %s", prefix, fallback);
	return buf;
}
