/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_CHILD_H
#define DCSIM_CHILD_H

/*
 * The one child-process runner of the checkers (instrumented build only):
 * a check run in a child process, so that a crash or a hang of the code
 * under test is a result, never the end of the caller.  dcsim-check's
 * suites (--jobs), the corpus runner and the tests' isolated explorations
 * all run their children through it.
 *
 * Semantics: dcsim_child_start() forks; the child's stderr goes to a
 * temporary file the parent reads afterwards (dcsim_child_report()), the
 * child runs @fn, sends the bytes @fn left in its result buffer over a
 * pipe and exits with @fn's return (0 passed, 1 failed, a negative errno
 * as 2).  A record in memory shared with the child (struct
 * dcsim_checker_where) says which exploration and execution it was in,
 * so that a child that died can be replayed to the one execution that
 * killed it.  The parent learns how the child ended as data, never by
 * reading its report:
 *
 *   DCSIM_CHILD_DONE     it exited and its result arrived (status 0/1/2)
 *   DCSIM_CHILD_CRASHED  it died of a signal: a crash of the code under test
 *   DCSIM_CHILD_HUNG     it ran past its time limit and was killed, or the
 *                        explorer's watchdog found a phase that never ended
 *                        and aborted it
 *   DCSIM_CHILD_LOST     it exited without sending its result
 *   DCSIM_CHILD_CUT      its caller stopped it (dcsim_child_cut())
 *
 * A child dies with its parent (SIGKILL, PR_SET_PDEATHSIG): strictly, with
 * the thread that started it, so start children from a thread that
 * outlives them.
 *
 * Ordering: the shared record is written by the child's explorer before
 * each execution; the parent reads it after waitpid(), which orders every
 * write of the dead child before the read.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include <dcsim/checker.h>
#include <dcsim/compiler.h>

enum dcsim_child_end {
	DCSIM_CHILD_RUNNING,
	DCSIM_CHILD_DONE,
	DCSIM_CHILD_CRASHED,
	DCSIM_CHILD_HUNG,
	DCSIM_CHILD_LOST,
	DCSIM_CHILD_CUT,
};

/**
 * typedef dcsim_child_fn - the body a child runs
 * @arg:   the caller's argument
 * @where: the record shared with the parent; pass it on as
 *         dcsim_checker_opts.where (or its exec as dcsim_explore_opts.where)
 * @res:   the child's copy of the result buffer, zeroed; what it holds at
 *         the return is sent to the parent
 *
 * Return: 0 (passed), 1 (a check failed), or a negative errno.
 */
typedef int dcsim_child_fn(void *arg, struct dcsim_checker_where *where, void *res);

/**
 * struct dcsim_child - one child process (the caller's memory; the fields
 * below the line are the runner's)
 * @fn, @arg:  what it runs
 * @res:       where the parent receives the result (@res_size bytes)
 * @res_size:  at most DCSIM_CHILD_RES_MAX
 * @timeout_s: time limit in seconds; 0: none (the explorer's watchdog
 *             still aborts a hung phase)
 * @end:       how it ended (DCSIM_CHILD_RUNNING until then)
 * @status:    DCSIM_CHILD_DONE, _LOST: its exit status
 * @signal:    DCSIM_CHILD_CRASHED, _HUNG, _CUT: the signal it died of
 * @seconds:   how long it ran
 * @where:     where its explorer was last (a copy, valid once it ended)
 */
struct dcsim_child {
	dcsim_child_fn *fn;
	void *arg;
	void *res;
	size_t res_size;
	unsigned int timeout_s;

	enum dcsim_child_end end;
	int status, signal;
	double seconds;
	struct dcsim_checker_where where;
	/* ---- the runner's ---- */
	pid_t pid;
	int fd;
	FILE *out;
	struct dcsim_checker_where *shared;
	double t0;
	bool killed, cut;
};

#define DCSIM_CHILD_RES_MAX	4096

/**
 * dcsim_child_start() - fork @c's child and run its body there
 * @c: filled by the caller up to @timeout_s
 *
 * Return: 0 with the child running, or a negative errno (nothing left to
 * wait for, nothing leaked).
 */
DCSIM_API int dcsim_child_start(struct dcsim_child *c);

/**
 * dcsim_child_wait() - wait until one of @n running children ends
 * @c: the children; those that already ended are skipped
 * @n: how many
 *
 * Kills a child past its time limit (SIGKILL: it ends as
 * DCSIM_CHILD_HUNG).  Return: the index of the child that ended (its
 * @end, @status, @signal, @seconds, @where and result filled), -ECHILD
 * when none is running, or another negative errno.
 */
DCSIM_API int dcsim_child_wait(struct dcsim_child *c, unsigned int n);

/** dcsim_child_cut() - stop @c (SIGKILL); dcsim_child_wait() then says DCSIM_CHILD_CUT. */
DCSIM_API void dcsim_child_cut(struct dcsim_child *c);

/**
 * dcsim_child_run() - start @c and wait for it
 *
 * Return: 0 with @c ended, or a negative errno (it did not start).
 */
DCSIM_API int dcsim_child_run(struct dcsim_child *c);

/**
 * dcsim_child_report() - the child's stderr (its progress and report)
 *
 * Return: the file, rewound, or NULL; it stays @c's (dcsim_child_free()).
 */
DCSIM_API FILE *dcsim_child_report(struct dcsim_child *c);

/** dcsim_child_free() - release what @c holds (an ended child); @c may be started again. */
DCSIM_API void dcsim_child_free(struct dcsim_child *c);

/**
 * dcsim_child_end_name() - "passed", "failed", "error", "crashed", "hung",
 * "no result" or "cut": how @c ended, in one word for a report
 */
DCSIM_API const char *dcsim_child_end_name(const struct dcsim_child *c);

/**
 * dcsim_child_replay() - the options that replay @c's failure, crash or
 * hang: the one execution its explorer was in (scenario, mode, seed),
 * else @fallback (the suite's own options)
 * @prefix: the command that starts the replay ("dcsim-check --strategy x")
 *
 * Return: @buf, always terminated.
 */
DCSIM_API char *dcsim_child_replay(const struct dcsim_child *c, const char *prefix,
				   const char *fallback, char *buf, size_t len);

#endif /* DCSIM_CHILD_H */
