// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Misuse that used to hang or crash a checker ends with a diagnosis (check
 * build).  Each case runs in a child process whose stderr is captured:
 *
 *  - locked-final: a strategy that calls dcsim_dput_locked_final() without
 *    d_lock: a WARNING, and the dentry scenario fails cleanly (it used to
 *    hang in scenario setup, on the controller thread);
 *  - hang-setup / hang-teardown / hang-thread: a hang where the deadlock
 *    detection cannot see (a lock taken twice on the controller thread, a
 *    logical thread looping without a schedule point): the watchdog names
 *    the scenario and the phase, and aborts;
 *  - frame-abort / frame-end: dcsim_htm_begin() wrapped in a helper that
 *    returns the status (the simulated HTM's frame rule): a message naming
 *    the rule and a failed execution, where the abort used to longjmp into
 *    a dead frame (SIGSEGV).
 */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dcsim/atomic.h>
#include <dcsim/cache.h>
#include <dcsim/explore-dcache.h>
#include <dcsim/explore.h>
#include <dcsim/htm.h>
#include <dcsim/spinlock.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

static int failures;

static void expect(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	if (!ok)
		failures++;
}

/* ---- locked-final: the slow path entered without d_lock ---- */

static enum dcsim_dput_path final_unlocked_dput(struct dcsim_dentry *d)
{
	/* The bug: the contract says "with d_lock held". */
	dcsim_dput_locked_final(d, DCSIM_RETAIN_LRU_THEN_REFERENCED);
	return DCSIM_DPUT_PATH_LOCKED;
}

static const struct dcsim_dput_strategy final_unlocked = {
	.name = "final-unlocked",
	.description = "calls dcsim_dput_locked_final() without d_lock (a bug)",
	.dput = final_unlocked_dput,
	.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
};

static int child_locked_final(void)
{
	struct dcsim_explore_opts opts;
	struct dcsim_explore_result res;
	unsigned long w = dcsim_warn_count();
	int rc;

	if (dcsim_strategy_register(&final_unlocked))
		return 10;
	dcsim_explore_opts_init(&opts);
	dcsim_explore_opts_from_env(&opts);
	opts.iterations = 20;
	rc = dcsim_explore_dcache(&final_unlocked, DCSIM_DSCN_FINAL_DPUTS, &opts, &res);
	fprintf(stderr, "child: rc %d, warnings %lu, failure: %s\n", rc, dcsim_warn_count() - w,
		res.failure);
	return rc == 1 && dcsim_warn_count() > w ? 0 : 11;
}

/* ---- hangs outside the deadlock detection ---- */

static dcsim_spinlock_t hang_lock;
static int dummy;

static void *hang_setup(void *arg)
{
	(void)arg;
	dcsim_spin_lock_init(&hang_lock);
	dcsim_spin_lock(&hang_lock);
	dcsim_spin_lock(&hang_lock);	/* never served */
	return &dummy;
}

static void *ok_setup(void *arg)
{
	(void)arg;
	dcsim_spin_lock_init(&hang_lock);
	return &dummy;
}

static void hang_teardown(void *state)
{
	(void)state;
	dcsim_spin_lock(&hang_lock);
	dcsim_spin_lock(&hang_lock);
}

static void nop_thread(void *state, unsigned int tid)
{
	(void)state;
	(void)tid;
	dcsim_explore_yield();
}

static void loop_thread(void *state, unsigned int tid)
{
	volatile int forever = 1;

	(void)state;
	(void)tid;
	while (forever)
		;	/* no schedule point: invisible to the livelock detection */
}

static int child_hang(int which)
{
	static const struct dcsim_scenario scs[] = {
		{ .name = "hang-setup", .nthreads = 1, .setup = hang_setup, .thread = nop_thread },
		{ .name = "hang-teardown", .nthreads = 1, .setup = ok_setup, .thread = nop_thread,
		  .teardown = hang_teardown },
		{ .name = "hang-thread", .nthreads = 2, .setup = ok_setup, .thread = loop_thread },
	};
	struct dcsim_explore_opts opts;

	dcsim_explore_opts_init(&opts);

	dcsim_explore_opts_from_env(&opts);
	opts.iterations = 3;
	dcsim_explore_run(&scs[which], &opts, NULL);
	return 12;	/* not reached: the watchdog aborts */
}

/* ---- the simulated HTM's frame rule ---- */

static int shared_x;

/* The bug: the frame that called setjmp() is gone when the caller goes on. */
static __attribute__((noinline)) dcsim_htm_status_t my_begin(void)
{
	return dcsim_htm_begin();
}

static __attribute__((noinline)) void frame_body(int do_abort)
{
	if (my_begin() == DCSIM_HTM_STARTED) {
		DCSIM_WRITE_ONCE(shared_x, 1);
		if (do_abort)
			dcsim_htm_abort(0x42);
		dcsim_htm_end();
	}
}

static void frame_abort_thread(void *state, unsigned int tid)
{
	(void)state;
	(void)tid;
	frame_body(1);
}

static void frame_end_thread(void *state, unsigned int tid)
{
	(void)state;
	(void)tid;
	frame_body(0);
}

static int child_frame(bool do_abort)
{
	const struct dcsim_scenario sc = {
		.name = do_abort ? "frame-abort" : "frame-end",
		.nthreads = 1,
		.thread = do_abort ? frame_abort_thread : frame_end_thread,
		.arg = &shared_x,
	};
	struct dcsim_explore_opts opts;
	struct dcsim_explore_result res;
	int rc;

	dcsim_explore_opts_init(&opts);

	dcsim_explore_opts_from_env(&opts);
	opts.iterations = 5;
	opts.htm = DCSIM_EXPLORE_HTM_COMMIT;
	rc = dcsim_explore_run(&sc, &opts, &res);
	fprintf(stderr, "child: rc %d, failure: %s\n", rc, res.failure);
	return rc == 1 && strstr(res.failure, "frame rule") ? 0 : 13;
}

/* ---- the harness ---- */

struct outcome {
	int status;		/* waitpid() status */
	char err[16384];	/* the child's stderr */
};

static void run_child(int (*fn)(int), int arg, const char *watchdog, struct outcome *o)
{
	int fd[2];
	pid_t pid;
	size_t n = 0;
	ssize_t r;

	if (pipe(fd))
		abort();
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		close(fd[0]);
		dup2(fd[1], 2);
		if (watchdog)
			setenv("DCSIM_EXPLORE_WATCHDOG", watchdog, 1);
		_exit(fn(arg));
	}
	close(fd[1]);
	while (n < sizeof(o->err) - 1 && (r = read(fd[0], o->err + n, sizeof(o->err) - 1 - n)) > 0)
		n += (size_t)r;
	o->err[n] = '\0';
	/* Drain the rest so that the child never blocks on a full pipe. */
	while (read(fd[0], &(char){ 0 }, 1) > 0)
		;
	close(fd[0]);
	waitpid(pid, &o->status, 0);
	if (getenv("VERBOSE") || !WIFEXITED(o->status) || WEXITSTATUS(o->status))
		fprintf(stderr, "---- child stderr ----\n%.4000s\n", o->err);
}

static int fn_locked_final(int arg) { (void)arg; return child_locked_final(); }
static int fn_hang(int arg) { return child_hang(arg); }
static int fn_frame(int arg) { return child_frame(arg != 0); }

static bool exited_ok(const struct outcome *o)
{
	return WIFEXITED(o->status) && WEXITSTATUS(o->status) == 0;
}

static bool aborted(const struct outcome *o)
{
	return WIFSIGNALED(o->status) && WTERMSIG(o->status) == SIGABRT;
}

int main(void)
{
	static struct outcome o;
	static const char *const phases[] = { "setup", "teardown", "the threads' run" };
	static const struct dcsim_scenario warm = {
		.name = "warm-up", .nthreads = 1, .setup = ok_setup, .thread = nop_thread,
	};
	struct dcsim_explore_opts opts;

	/*
	 * Start this process's watchdog first: the children below are forked
	 * with it running, and each must start its own (a thread does not
	 * survive fork()).
	 */
	dcsim_explore_opts_init(&opts);
	dcsim_explore_opts_from_env(&opts);
	opts.iterations = 1;
	expect(dcsim_explore_run(&warm, &opts, NULL) == 0, "warm-up exploration");

	run_child(fn_locked_final, 0, NULL, &o);
	expect(exited_ok(&o), "locked-final: the scenario fails cleanly, no hang");
	expect(strstr(o.err, "dcsim: WARNING:") && strstr(o.err, "dcsim_dput_locked_final"),
	       "locked-final: a WARNING in dcsim_dput_locked_final()");

	for (int i = 0; i < 3; i++) {
		char want[96], what[128];

		run_child(fn_hang, i, "1", &o);
		snprintf(what, sizeof(what), "watchdog: a hang in %s aborts the process", phases[i]);
		expect(aborted(&o), what);
		snprintf(want, sizeof(want), ": %s has not returned after 1 s", phases[i]);
		snprintf(what, sizeof(what), "watchdog: the report names the scenario and %s",
			 phases[i]);
		expect(strstr(o.err, "dcsim-explore: WATCHDOG: scenario 'hang-") && strstr(o.err, want),
		       what);
		expect(strstr(o.err, "replay: DCSIM_EXPLORE_SCENARIO='hang-") != NULL,
		       "watchdog: with a replay line");
	}

	for (int a = 1; a >= 0; a--) {
		run_child(fn_frame, a, NULL, &o);
		expect(exited_ok(&o), a ? "frame-abort: a failed execution, not a crash" :
					  "frame-end: a failed execution, not a crash");
		expect(strstr(o.err, "has returned before the transaction ended") &&
		       strstr(o.err, "my_begin"),
		       a ? "frame-abort: the rule and the helper named" :
			   "frame-end: the rule and the helper named");
	}
	return failures ? 1 : 0;
}
