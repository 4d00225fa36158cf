/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_HTM_H
#define DCSIM_HTM_H

/*
 * Portable hardware transactional memory.
 *
 *	dcsim_htm_status_t st = dcsim_htm_begin();
 *	if (st == DCSIM_HTM_STARTED) {
 *		... reads and writes, all or nothing ...
 *		if (bad)
 *			dcsim_htm_abort(CODE);	   // resumes at begin, st = abort
 *		dcsim_htm_end();
 *	} else {
 *		... fallback, with dcsim_htm_decode(st) telling why ...
 *	}
 *
 * As with RTM's xbegin, an abort discards every store made since begin and
 * returns from dcsim_htm_begin() a second time, now with an abort status.
 * The fallback must always be correct: a transaction may abort for any
 * reason at any time (interrupts, cache pressure, conflicts, no HTM at all).
 *
 * Backends: x86 RTM, POWER HTM (ISA 2.07), none, and in the instrumented build a
 * simulated HTM driven by the deterministic explorer.  The hardware backend
 * is chosen at build time for the target; whether it is used is decided once
 * at run time from CPU detection and the policy (DCSIM_HTM=auto|off|force or
 * dcsim_htm_set_policy()).  Nothing executes an HTM instruction unless the
 * policy allows it, so the library runs on CPUs without HTM.
 *
 * The status is the backend's raw value (RTM's EAX, POWER's TEXASR), which
 * dcsim_htm_decode() turns into a portable cause, code and retry hint.
 */

#include <stdbool.h>
#include <stdint.h>

#include <dcsim/compiler.h>
#include <dcsim/config.h>

typedef uint64_t dcsim_htm_status_t;

#define DCSIM_HTM_STARTED	(~(dcsim_htm_status_t)0)
/* Returned by dcsim_htm_begin() when the policy keeps HTM off. */
#define DCSIM_HTM_DISABLED	(~(dcsim_htm_status_t)1)

enum dcsim_htm_backend {
	DCSIM_HTM_BACKEND_NONE,
	DCSIM_HTM_BACKEND_X86_RTM,
	DCSIM_HTM_BACKEND_POWER,
	DCSIM_HTM_BACKEND_SIM,
};

enum dcsim_htm_policy {
	DCSIM_HTM_AUTO,		/* use HTM only where detected and sound */
	DCSIM_HTM_OFF,		/* never execute an HTM instruction */
	DCSIM_HTM_FORCE,	/* execute regardless of detection (QEMU) */
};

enum dcsim_htm_cause {
	DCSIM_HTM_CAUSE_CONFLICT,	/* another agent touched our footprint */
	DCSIM_HTM_CAUSE_CAPACITY,	/* footprint overflow */
	DCSIM_HTM_CAUSE_EXPLICIT,	/* dcsim_htm_abort(code) */
	DCSIM_HTM_CAUSE_NESTED,		/* nesting depth exceeded */
	DCSIM_HTM_CAUSE_DEBUG,		/* debug trap or interrupt */
	DCSIM_HTM_CAUSE_UNKNOWN,	/* hardware gave no reason (e.g. RTM status 0) */
	DCSIM_HTM_CAUSE_DISABLED,	/* not started: the policy keeps HTM off */
	DCSIM_HTM_CAUSE_NR
};

struct dcsim_htm_abort {
	enum dcsim_htm_cause cause;
	uint8_t code;		/* explicit abort code, valid for CAUSE_EXPLICIT */
	bool retry;		/* hardware says a retry may succeed */
};

/* What detection found and what the policy made of it. */
struct dcsim_htm_info {
	enum dcsim_htm_backend backend;		/* compiled hardware backend */
	enum dcsim_htm_policy policy;
	bool cpu_has_htm;	/* detection: usable HTM present */
	bool live;		/* dcsim_htm_begin() executes transactions */
	bool force_faulted;	/* force: the CPU rejected the instructions */
	/* raw detection inputs */
	uint32_t x86_cpuid7_ebx, x86_cpuid7_edx;	/* leaf 7 subleaf 0 */
	bool x86_rtm, x86_rtm_always_abort;
	uint64_t power_hwcap2;
	bool power_htm, power_htm_nosc, power_htm_no_suspend;
	char cpu[64];		/* brand string or AT_PLATFORM */
};

/* x86: abort codes must be compile-time constants (XABORT imm8). */
#define DCSIM_HTM_X86_EXPLICIT	(1u << 0)
#define DCSIM_HTM_X86_RETRY	(1u << 1)
#define DCSIM_HTM_X86_CONFLICT	(1u << 2)
#define DCSIM_HTM_X86_CAPACITY	(1u << 3)
#define DCSIM_HTM_X86_DEBUG	(1u << 4)
#define DCSIM_HTM_X86_NESTED	(1u << 5)
#define DCSIM_HTM_X86_CODE(st)	(((st) >> 24) & 0xffu)

/**
 * dcsim_htm_begin() - start a transaction.
 * Return: DCSIM_HTM_STARTED inside the transaction; otherwise the abort
 * status (DCSIM_HTM_DISABLED when HTM is not live).  Counts the attempt and,
 * after an abort, the cause in the calling thread's statistics.
 */
DCSIM_API dcsim_htm_status_t dcsim_htm_begin(void);

/** dcsim_htm_count_commit() - account a commit; called by dcsim_htm_end(). */
DCSIM_API void dcsim_htm_count_commit(void);

/** dcsim_htm_test() - true if the caller is inside a transaction. */
DCSIM_API bool dcsim_htm_test(void);

/** dcsim_htm_live() - true if dcsim_htm_begin() executes transactions. */
DCSIM_API bool dcsim_htm_live(void);

/** dcsim_htm_decode() - decode a status returned by dcsim_htm_begin(). */
DCSIM_API struct dcsim_htm_abort dcsim_htm_decode(dcsim_htm_status_t status);
DCSIM_API struct dcsim_htm_abort dcsim_htm_decode_x86(uint32_t eax);
DCSIM_API struct dcsim_htm_abort dcsim_htm_decode_power(uint64_t texasr);

/**
 * dcsim_htm_init() - detect and apply DCSIM_HTM from the environment.
 * Runs once (also implicitly at load).  Return: 0, -EINVAL if DCSIM_HTM is
 * not auto, off or force (HTM then stays off), or -ENOTSUP if force was
 * asked for and the CPU faulted on the instructions (HTM then stays off).
 */
DCSIM_API int dcsim_htm_init(void);

/**
 * dcsim_htm_set_policy() - change the policy; call while no transaction runs.
 * Return: 0, -EINVAL for an unknown policy, -ENOTSUP as for dcsim_htm_init().
 */
DCSIM_API int dcsim_htm_set_policy(enum dcsim_htm_policy policy);

/** dcsim_htm_policy_parse() - "auto", "off" or "force".  Return: 0 or -EINVAL. */
DCSIM_API int dcsim_htm_policy_parse(const char *str, enum dcsim_htm_policy *out);

DCSIM_API const char *dcsim_htm_policy_name(enum dcsim_htm_policy policy);
DCSIM_API const char *dcsim_htm_backend_name(enum dcsim_htm_backend backend);
DCSIM_API const char *dcsim_htm_cause_name(enum dcsim_htm_cause cause);
DCSIM_API void dcsim_htm_get_info(struct dcsim_htm_info *info);

/*
 * The build flavour's part (<dcsim/flavour/htm.h>): in the instrumented
 * build the simulated backend and a dcsim_htm_begin() macro that can resume
 * after a simulated abort; in both, dcsim_htm_sim_abort_if_active() and
 * dcsim_htm_sim_end_if_active() for dcsim_htm_abort() and dcsim_htm_end().
 */
#include <dcsim/flavour/htm.h>

/*
 * The commit and abort instructions are emitted inline, by hand-encoded
 * bytes or a local .machine directive, so no -mrtm/-mhtm is needed at the
 * call site.  Inline matters for commit: a call through a lazily bound PLT
 * slot inside a transaction enters the dynamic linker, whose XSAVE aborts
 * the transaction and rolls back the GOT update, so the slot would never
 * resolve and every transaction would abort.
 */
#if defined(__x86_64__) && DCSIM_HTM_HW_X86
/* XABORT imm8 */
#define dcsim_htm_hw_abort(code)						\
	__asm__ __volatile__(".byte 0xc6, 0xf8, %c0"				\
			     :: "i" ((unsigned char)(code)) : "memory")
/* XEND */
#define dcsim_htm_hw_end()							\
	__asm__ __volatile__(".byte 0x0f, 0x01, 0xd5" ::: "memory")
#elif defined(__powerpc64__) && DCSIM_HTM_HW_POWER
#define dcsim_htm_hw_abort(code)						\
	__asm__ __volatile__(".machine push\n\t.machine power8\n\t"		\
			     "tabort. %0\n\t.machine pop"			\
			     :: "r" ((unsigned long)(code)) : "memory", "cr0")
#define dcsim_htm_hw_end()							\
	__asm__ __volatile__(".machine push\n\t.machine power8\n\t"		\
			     "tend.\n\t.machine pop" ::: "memory", "cr0")
#else
#define dcsim_htm_hw_abort(code)	((void)(code))
#define dcsim_htm_hw_end()		((void)0)
#endif

/** dcsim_htm_end() - commit the current transaction; counts the commit. */
static inline void dcsim_htm_end(void)
{
	if (dcsim_htm_sim_end_if_active())
		return;
	dcsim_htm_hw_end();
	dcsim_htm_count_commit();
}

/*
 * dcsim_htm_abort(code) - abort the current transaction with an 8-bit
 * constant code.  Only valid inside a started transaction.
 */
#define dcsim_htm_abort(code)							\
	do {									\
		dcsim_htm_sim_abort_if_active(code);				\
		dcsim_htm_hw_abort(code);					\
	} while (0)

#endif /* DCSIM_HTM_H */
