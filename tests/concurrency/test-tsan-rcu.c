// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ThreadSanitizer must see an access made outside any RCU read-side section
 * racing with the RCU free of the object (TSan builds; elsewhere the test
 * is skipped).  src/base/rcu.c orders a callback only after the read-side
 * sections that were running at call_rcu() time; this checks that it does
 * not order more.
 *
 * The reader reads the object outside any section and tells the updater
 * (relaxed: no happens-before) to unlink it and call_rcu() its free; then
 * runs read-side sections of its own.  With one global sync object
 * released by every unlock and acquired by every callback (src/base/rcu.c
 * before issue 10), those later sections could order the read before the
 * free.  Variants "open" (the read inside a section still open at
 * call_rcu() time) and "ended" (inside a section that ended before
 * call_rcu(), which RCU orders before the grace period too) must stay
 * silent.
 *
 * Usage: test-tsan-rcu (runs the three variants in child processes)
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dcsim/atomic.h>
#include <dcsim/rcu.h>

struct obj {
	struct dcsim_rcu_head head;
	int val;
};

static struct obj *gp;
static int step;		/* relaxed hand-shake between the two threads */
static enum { V_BAD, V_OPEN, V_ENDED } which;
static volatile int sink;	/* volatile: the read of the object must stay */
static int freed;

static void wait_step(int n)
{
	while (__atomic_load_n(&step, __ATOMIC_RELAXED) < n)
		sched_yield();
}

static void set_step(int n)
{
	__atomic_store_n(&step, n, __ATOMIC_RELAXED);
}

static void obj_free(struct dcsim_rcu_head *head)
{
	free(head);
	__atomic_store_n(&freed, 1, __ATOMIC_RELAXED);
}

static void *reader(void *arg)
{
	struct obj *o;

	(void)arg;
	/*
	 * Register with liburcu first: registration (and unregistration at
	 * exit) takes liburcu's registry mutex, which TSan does see and which
	 * would order our read before the next grace period by itself.
	 */
	dcsim_rcu_read_lock();
	dcsim_rcu_read_unlock();
	if (which != V_BAD)
		dcsim_rcu_read_lock();
	o = dcsim_load_acquire(&gp);
	sink = o->val;			/* plain read of the object */
	if (which == V_ENDED)
		dcsim_rcu_read_unlock();	/* ends before call_rcu(): still ordered */
	set_step(1);
	wait_step(2);			/* the updater has called call_rcu() */
	if (which == V_OPEN)
		dcsim_rcu_read_unlock();
	/*
	 * Sections begun after call_rcu(): with one global sync object
	 * acquired by the callback they ordered a V_BAD read before the free
	 * whenever they ended before the callback ran.
	 */
	for (int i = 0; i < 100; i++) {
		dcsim_rcu_read_lock();
		dcsim_rcu_read_unlock();
	}
	/* Stay registered until the callback has run (see above). */
	while (!__atomic_load_n(&freed, __ATOMIC_RELAXED))
		usleep(1000);
	return NULL;
}

static int child(void)
{
	pthread_t t;
	struct obj *o = calloc(1, sizeof(*o));

	if (!o)
		return 2;
	o->val = 42;
	dcsim_store_release(&gp, o);
	if (pthread_create(&t, NULL, reader, NULL))
		return 2;
	wait_step(1);
	DCSIM_WRITE_ONCE(gp, NULL);
	dcsim_call_rcu(&o->head, obj_free);
	set_step(2);
	/* Not dcsim_rcu_barrier(): liburcu's own barrier bookkeeping is invisible to TSan. */
	pthread_join(t, NULL);
	return 0;
}

/* Run this program as a child with @variant; return its exit status and output. */
static int run(const char *self, const char *variant, char *out, size_t len)
{
	int pfd[2], status;
	size_t off = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pfd[1], 2);
		close(pfd[0]);
		setenv("TSAN_OPTIONS", "halt_on_error=1 exitcode=66", 1);
		execl(self, self, variant, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	while ((n = read(pfd[0], out + off, len - 1 - off)) > 0 && off + (size_t)n < len - 1)
		off += (size_t)n;
	out[off] = '\0';
	close(pfd[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	static char out[1 << 16];
	int rc, failed = 0;

	if (argc == 2) {
		which = !strcmp(argv[1], "open") ? V_OPEN : !strcmp(argv[1], "ended") ? V_ENDED : V_BAD;
		return child();
	}
#if !defined(__SANITIZE_THREAD__)
	puts("not a ThreadSanitizer build: skipped");
	return 77;
#endif
	rc = run(argv[0], "bad", out, sizeof(out));
	/* The race must be the reader's read against the free, nothing else. */
	printf("read outside a section, freed by RCU: exit %d, %s\n", rc,
	       strstr(out, "ThreadSanitizer: data race") && strstr(out, " reader ") ?
	       "race with the reader reported" : "no report of the reader");
	if (rc != 66 || !strstr(out, "ThreadSanitizer: data race") || !strstr(out, " reader ") ||
	    !strstr(out, " free ")) {
		fputs(out, stdout);
		failed++;
	}
	for (int v = 0; v < 2; v++) {
		const char *name = v ? "ended" : "open";

		rc = run(argv[0], name, out, sizeof(out));
		printf("read inside a section %s at call_rcu(): exit %d, %s\n",
		       v ? "that had ended" : "still open", rc,
		       strstr(out, "ThreadSanitizer") ? "report (wrong)" : "silent");
		if (rc != 0 || strstr(out, "ThreadSanitizer")) {
			fputs(out, stdout);
			failed++;
		}
	}
	return failed ? 1 : 0;
}
