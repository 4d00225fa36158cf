// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The generic HTM layer: policy, one-time detection, statistics and the
 * portable decoding of abort statuses.
 *
 * "Live" is decided once (and again on dcsim_htm_set_policy()):
 *   off   - never;
 *   auto  - when detection found usable HTM (x86: RTM and not
 *           RTM_ALWAYS_ABORT; POWER: the HTM hwcap);
 *   force - whenever the instructions execute without faulting, which a
 *           SIGILL-guarded trial checks first.  QEMU implements them as
 *           always-aborting, so force there exercises every abort path.
 */

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/htm.h>
#include <dcsim/stats.h>

#include "htm-backend.h"
#include "internal.h"
#include "thread.h"

static pthread_mutex_t htm_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dcsim_htm_info htm_info;
static bool htm_detected;
static int htm_init_error;
static bool htm_live;	/* read on every begin: relaxed, set while quiescent */

/* SIGILL guard for the force probe.  Runs with the htm lock held. */
static sigjmp_buf probe_env;

static void probe_sigill(int sig)
{
	(void)sig;
	siglongjmp(probe_env, 1);
}

/* Run @fn under a SIGILL guard.  Return: 0, or -ENOTSUP if it faulted. */
static int htm_try_exec(void (*fn)(void))
{
	struct sigaction sa, old;
	int ret = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = probe_sigill;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGILL, &sa, &old))
		return -ENOTSUP;
	if (sigsetjmp(probe_env, 1) == 0)
		fn();
	else
		ret = -ENOTSUP;
	sigaction(SIGILL, &old, NULL);
	return ret;
}

static void htm_detect_locked(void)
{
	if (htm_detected)
		return;
	memset(&htm_info, 0, sizeof(htm_info));
	htm_info.backend = htm_hw_backend;
	htm_hw_detect(&htm_info);
	htm_detected = true;
}

static int htm_apply_locked(enum dcsim_htm_policy policy)
{
	bool live = false;
	int err = 0;

	htm_detect_locked();
	htm_info.policy = policy;
	htm_info.force_faulted = false;
	switch (policy) {
	case DCSIM_HTM_OFF:
		break;
	case DCSIM_HTM_AUTO:
		live = htm_info.cpu_has_htm;
		break;
	case DCSIM_HTM_FORCE:
		if (htm_info.backend == DCSIM_HTM_BACKEND_NONE) {
			err = -ENOTSUP;
		} else if (htm_info.cpu_has_htm) {
			live = true;
		} else if (htm_try_exec(htm_hw_probe_body) == 0) {
			live = true;
		} else {
			htm_info.force_faulted = true;
			err = -ENOTSUP;
		}
		break;
	default:
		return -EINVAL;
	}
	htm_info.live = live;
	__atomic_store_n(&htm_live, live, __ATOMIC_RELEASE);
	return err;
}

int dcsim_htm_policy_parse(const char *str, enum dcsim_htm_policy *out)
{
	if (!str)
		return -EINVAL;
	if (!strcmp(str, "auto"))
		*out = DCSIM_HTM_AUTO;
	else if (!strcmp(str, "off"))
		*out = DCSIM_HTM_OFF;
	else if (!strcmp(str, "force"))
		*out = DCSIM_HTM_FORCE;
	else
		return -EINVAL;
	return 0;
}

const char *dcsim_htm_policy_name(enum dcsim_htm_policy policy)
{
	switch (policy) {
	case DCSIM_HTM_AUTO:	return "auto";
	case DCSIM_HTM_OFF:	return "off";
	case DCSIM_HTM_FORCE:	return "force";
	}
	return "invalid";
}

const char *dcsim_htm_backend_name(enum dcsim_htm_backend backend)
{
	switch (backend) {
	case DCSIM_HTM_BACKEND_NONE:	return "none";
	case DCSIM_HTM_BACKEND_X86_RTM:	return "x86-rtm";
	case DCSIM_HTM_BACKEND_POWER:	return "power";
	case DCSIM_HTM_BACKEND_SIM:	return "sim";
	}
	return "invalid";
}

const char *dcsim_htm_cause_name(enum dcsim_htm_cause cause)
{
	switch (cause) {
	case DCSIM_HTM_CAUSE_CONFLICT:	return "conflict";
	case DCSIM_HTM_CAUSE_CAPACITY:	return "capacity";
	case DCSIM_HTM_CAUSE_EXPLICIT:	return "explicit";
	case DCSIM_HTM_CAUSE_NESTED:	return "nested";
	case DCSIM_HTM_CAUSE_DEBUG:	return "debug/interrupt";
	case DCSIM_HTM_CAUSE_UNKNOWN:	return "unknown";
	case DCSIM_HTM_CAUSE_DISABLED:	return "disabled";
	case DCSIM_HTM_CAUSE_NR:	break;
	}
	return "invalid";
}

int dcsim_htm_init(void)
{
	const char *env;
	enum dcsim_htm_policy policy = DCSIM_HTM_AUTO;
	int err;

	pthread_mutex_lock(&htm_lock);
	if (htm_detected) {
		err = htm_init_error;
		pthread_mutex_unlock(&htm_lock);
		return err;
	}
	env = getenv("DCSIM_HTM");
	/* "sim" (instrumented flavour) selects the simulated backend; the hardware stays off. */
	if (htm_sim_take_env(env)) {
		policy = DCSIM_HTM_OFF;
		env = NULL;
	}
	if (env && dcsim_htm_policy_parse(env, &policy)) {
		fprintf(stderr, "dcsim: DCSIM_HTM='%s' is invalid: use auto, off or force; "
			"HTM stays off\n", env);
		htm_apply_locked(DCSIM_HTM_OFF);
		err = -EINVAL;
	} else {
		err = htm_apply_locked(policy);
		if (err == -ENOTSUP)
			fprintf(stderr, "dcsim: DCSIM_HTM=force, but %s; HTM stays off\n",
				htm_info.backend == DCSIM_HTM_BACKEND_NONE ?
				"this build has no HTM backend" :
				"the CPU faults on the HTM instructions (SIGILL)");
	}
	htm_init_error = err;
	pthread_mutex_unlock(&htm_lock);
	return err;
}

/* Detect and read DCSIM_HTM when the library is loaded, as liburcu does. */
__attribute__((constructor)) static void htm_ctor(void)
{
	dcsim_htm_init();
}

int dcsim_htm_set_policy(enum dcsim_htm_policy policy)
{
	int err;

	pthread_mutex_lock(&htm_lock);
	err = htm_apply_locked(policy);
	pthread_mutex_unlock(&htm_lock);
	return err;
}

void dcsim_htm_get_info(struct dcsim_htm_info *info)
{
	pthread_mutex_lock(&htm_lock);
	htm_detect_locked();
	*info = htm_info;
	pthread_mutex_unlock(&htm_lock);
}

bool dcsim_htm_live(void)
{
	if (htm_sim_owns_thread())
		return htm_sim_live();
	return __atomic_load_n(&htm_live, __ATOMIC_RELAXED);
}

/* Kernel-caused aborts on POWER (arch/powerpc/include/uapi/asm/tm.h). */
#define POWER_TM_CAUSE_KERNEL_MIN	0xd0
#define POWER_TM_CAUSE_KERNEL_MAX	0xe2

/* IBM bit numbering: bit 0 is the most significant of 64. */
#define TEXASR_BIT(n)			(1ull << (63 - (n)))
#define TEXASR_FAILURE_CODE(t)		((uint8_t)((t) >> 56))
#define TEXASR_PERSISTENT		TEXASR_BIT(7)
#define TEXASR_DISALLOWED		TEXASR_BIT(8)
#define TEXASR_NESTING_OVERFLOW		TEXASR_BIT(9)
#define TEXASR_FOOTPRINT_OVERFLOW	TEXASR_BIT(10)
#define TEXASR_SELF_INDUCED_CONFLICT	TEXASR_BIT(11)
#define TEXASR_NONTX_CONFLICT		TEXASR_BIT(12)
#define TEXASR_TX_CONFLICT		TEXASR_BIT(13)
#define TEXASR_TLBIE_CONFLICT		TEXASR_BIT(14)
#define TEXASR_IFETCH_CONFLICT		TEXASR_BIT(16)
#define TEXASR_ABORT			TEXASR_BIT(31)
#define TEXASR_ANY_CONFLICT		(TEXASR_SELF_INDUCED_CONFLICT | TEXASR_NONTX_CONFLICT | \
					 TEXASR_TX_CONFLICT | TEXASR_TLBIE_CONFLICT | \
					 TEXASR_IFETCH_CONFLICT)

struct dcsim_htm_abort dcsim_htm_decode_x86(uint32_t st)
{
	struct dcsim_htm_abort a = { .cause = DCSIM_HTM_CAUSE_UNKNOWN };

	a.retry = !!(st & DCSIM_HTM_X86_RETRY);
	if (st & DCSIM_HTM_X86_EXPLICIT) {
		a.cause = DCSIM_HTM_CAUSE_EXPLICIT;
		a.code = (uint8_t)DCSIM_HTM_X86_CODE(st);
	} else if (st & DCSIM_HTM_X86_CONFLICT) {
		a.cause = DCSIM_HTM_CAUSE_CONFLICT;
	} else if (st & DCSIM_HTM_X86_CAPACITY) {
		a.cause = DCSIM_HTM_CAUSE_CAPACITY;
	} else if (st & DCSIM_HTM_X86_DEBUG) {
		a.cause = DCSIM_HTM_CAUSE_DEBUG;
	} else if (st & DCSIM_HTM_X86_NESTED) {
		a.cause = DCSIM_HTM_CAUSE_NESTED;
	}
	return a;
}

struct dcsim_htm_abort dcsim_htm_decode_power(uint64_t t)
{
	struct dcsim_htm_abort a = { .cause = DCSIM_HTM_CAUSE_UNKNOWN };
	uint8_t fc = TEXASR_FAILURE_CODE(t);

	/* The low bit of the failure code is the "persistent" bit. */
	a.retry = !(t & TEXASR_PERSISTENT);
	if (t & TEXASR_ABORT) {
		a.cause = DCSIM_HTM_CAUSE_EXPLICIT;
		a.code = fc;
	} else if (t & TEXASR_NESTING_OVERFLOW) {
		a.cause = DCSIM_HTM_CAUSE_NESTED;
	} else if (t & TEXASR_FOOTPRINT_OVERFLOW) {
		a.cause = DCSIM_HTM_CAUSE_CAPACITY;
	} else if (t & TEXASR_ANY_CONFLICT) {
		a.cause = DCSIM_HTM_CAUSE_CONFLICT;
	} else if (fc >= POWER_TM_CAUSE_KERNEL_MIN && fc <= POWER_TM_CAUSE_KERNEL_MAX) {
		/* treclaim by the kernel: interrupt, syscall, signal, ... */
		a.cause = DCSIM_HTM_CAUSE_DEBUG;
	}
	return a;
}

struct dcsim_htm_abort dcsim_htm_decode(dcsim_htm_status_t st)
{
	struct dcsim_htm_abort a = { .cause = DCSIM_HTM_CAUSE_UNKNOWN };

	if (st == DCSIM_HTM_DISABLED) {
		a.cause = DCSIM_HTM_CAUSE_DISABLED;
		return a;
	}
	/* Simulated statuses have the RTM layout whatever the hardware backend. */
	if (htm_sim_status(st))
		return dcsim_htm_decode_x86((uint32_t)st);
	switch (htm_hw_backend) {
	case DCSIM_HTM_BACKEND_X86_RTM:
	case DCSIM_HTM_BACKEND_SIM:
		return dcsim_htm_decode_x86((uint32_t)st);
	case DCSIM_HTM_BACKEND_POWER:
		return dcsim_htm_decode_power(st);
	case DCSIM_HTM_BACKEND_NONE:
		break;
	}
	return a;
}

/* Called after a failed begin, outside any transaction (also by htm-sim). */
void htm_count_abort(dcsim_htm_status_t st)
{
	struct dcsim_htm_abort a = dcsim_htm_decode(st);
	struct dcsim_thread *t = dcsim_thread_self();

	dcsim_counter_add(&t->stats.v[DCSIM_STAT_HTM_ABORTS], 1);
	dcsim_counter_add(&t->stats.v[DCSIM_STAT_HTM_ABORT_FIRST + a.cause], 1);
	if (a.cause == DCSIM_HTM_CAUSE_EXPLICIT)
		dcsim_counter_add(&t->stats.htm_explicit_code[a.code], 1);
}

/*
 * The attempt is counted before the transaction starts (a counter written
 * inside it would be rolled back on abort), the abort after it is over.
 */
dcsim_htm_status_t dcsim_htm_begin(void)
{
	dcsim_htm_status_t st;

	/* Explorer threads (and, refusing, anyone under DCSIM_HTM=sim). */
	if (htm_sim_owns_thread())
		return htm_sim_begin_nojmp();
	if (unlikely(!__atomic_load_n(&htm_live, __ATOMIC_RELAXED)))
		return DCSIM_HTM_DISABLED;
	dcsim_stat_inc(DCSIM_STAT_HTM_ATTEMPTS);
	st = htm_hw_begin();
	if (st != DCSIM_HTM_STARTED)
		htm_count_abort(st);
	return st;
}

void dcsim_htm_count_commit(void)
{
	dcsim_stat_inc(DCSIM_STAT_HTM_COMMITS);
}

/*
 * XTEST runs only where detection found HTM.  Under force without it (QEMU,
 * whose XTEST faults while its XBEGIN always aborts) no transaction can be
 * running, so false is the right answer.
 */
bool dcsim_htm_test(void)
{
	if (htm_sim_in_txn())
		return true;
	if (htm_sim_owns_thread())
		return false;
	if (!__atomic_load_n(&htm_live, __ATOMIC_RELAXED) || !htm_info.cpu_has_htm)
		return false;
	return htm_hw_test();
}
