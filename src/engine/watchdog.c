// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The watchdog: a time limit on each phase of an execution.
 */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <dcsim/explore.h>

#include "internal.h"

/* ---- the watchdog ---- */

/*
 * Deadlocks and livelocks are found at schedule points, so two kinds of
 * hang escape that detection: setup, check and teardown run on the
 * controller thread, where nothing is a schedule point, and a logical
 * thread may loop without reaching one.  Either used to hang the checker
 * silently (say, a user strategy's unlock of an unheld d_lock in setup,
 * leaving a ticket that is never served).  So each phase of an execution
 * runs under a time limit, DCSIM_EXPLORE_WATCHDOG seconds (default 60; 0:
 * off).  A hung phase cannot be unwound (it holds whatever it holds), so
 * the watchdog reports the scenario, the phase and the replay line, and
 * aborts the process.
 *
 * Arming costs a clock read and a few stores, no system call: the phase is
 * published seqlock-style (wd.seq odd while it changes) and the watchdog
 * thread polls it once a second, so a phase that has not changed across
 * a poll and is older than the limit has hung.
 */
static struct {
	unsigned long secs;		/* limit; 0: off */
	unsigned long seq;		/* odd while phase/start change */
	const char *phase;		/* NULL: no phase armed */
	uint64_t start_ns;
	bool started;			/* this process has its watchdog thread */
	pthread_mutex_t lock;		/* serialises starting it */
} wd = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t wd_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void wd_set(const char *phase)
{
	__atomic_add_fetch(&wd.seq, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&wd.start_ns, wd_now(), __ATOMIC_SEQ_CST);
	__atomic_store_n(&wd.phase, phase, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&wd.seq, 1, __ATOMIC_SEQ_CST);
}

static __attribute__((noreturn)) void wd_expire(struct explorer *ex, const char *phase,
							unsigned long secs)
{
	/* Best effort, as crash_handler(): the process is about to die. */
	snprintf(ex->msg, sizeof(ex->msg), "watchdog: %s has not returned after %lu s", phase, secs);
	fprintf(stderr, "dcsim-explore: WATCHDOG: scenario '%s', execution %lu: %s has not "
		"returned after %lu s (DCSIM_EXPLORE_WATCHDOG).  It hangs where the deadlock "
		"and livelock detection cannot see: setup, check and teardown run on the "
		"controller thread, and a logical thread may loop without a schedule point "
		"(a lock never released, or one corrupted by an unlock of a lock not held, "
		"would do it).  Aborting.\n", ex->sc ? ex->sc->name : "?", ex->exec_no, phase, secs);
	report_failure(ex, stderr);
	/* Said before the abort: a parent that reads it knows the hang from a crash. */
	if (ex->o.where)
		__atomic_store_n(&ex->o.where->hung, 1u, __ATOMIC_SEQ_CST);
	signal(SIGABRT, SIG_DFL);
	abort();
}

static void *wd_main(void *arg)
{
	struct explorer *ex = explore_ctx();
	unsigned long last_seq = 0;

	(void)arg;
	for (;;) {
		unsigned long secs = __atomic_load_n(&wd.secs, __ATOMIC_SEQ_CST);
		unsigned long s1, s2;
		const char *phase;
		uint64_t start;

		sleep(1);
		if (!secs)
			continue;
		s1 = __atomic_load_n(&wd.seq, __ATOMIC_SEQ_CST);
		phase = __atomic_load_n(&wd.phase, __ATOMIC_SEQ_CST);
		start = __atomic_load_n(&wd.start_ns, __ATOMIC_SEQ_CST);
		s2 = __atomic_load_n(&wd.seq, __ATOMIC_SEQ_CST);
		if ((s1 & 1) || s1 != s2 || !phase) {
			last_seq = s1;
			continue;
		}
		/* The same phase as at the last poll, and older than the limit. */
		if (s1 == last_seq && wd_now() - start >= (uint64_t)secs * 1000000000ull)
			wd_expire(ex, phase, secs);
		last_seq = s1;
	}
	return NULL;
}

/* A forked child has no watchdog thread: the next phase starts one. */
static void wd_atfork_child(void)
{
	wd.started = false;
	pthread_mutex_init(&wd.lock, NULL);
}

static void wd_start(void)
{
	static bool atfork;
	pthread_attr_t attr;
	pthread_t t;

	pthread_mutex_lock(&wd.lock);
	if (__atomic_load_n(&wd.started, __ATOMIC_RELAXED)) {
		pthread_mutex_unlock(&wd.lock);
		return;
	}
	if (!atfork) {
		pthread_atfork(NULL, NULL, wd_atfork_child);
		atfork = true;
	}
	__atomic_store_n(&wd.started, true, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&wd.lock);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, wd_main, NULL))
		fputs("dcsim-explore: cannot start the watchdog thread; hangs outside the "
		      "explored threads will not be reported\n", stderr);
	pthread_attr_destroy(&attr);
}

/* Arm the watchdog for @phase of the current execution (NULL: disarm). */
void wd_phase(const char *phase)
{
	if (!__atomic_load_n(&wd.secs, __ATOMIC_RELAXED))
		return;
	if (!__atomic_load_n(&wd.started, __ATOMIC_RELAXED))
		wd_start();
	wd_set(phase);
}

void wd_set_limit(unsigned long secs)
{
	__atomic_store_n(&wd.secs, secs, __ATOMIC_SEQ_CST);
}
