/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/htm.h> of kernel/patches/0001 over dcsim's HTM (<dcsim/htm.h>):
 * hardware RTM or POWER HTM in normal builds, the explorer's simulated HTM
 * in instrumented builds.  Same contract: htm_begin() returns HTM_STARTED, or
 * returns again after an abort with an x86-layout status; htm_abort(code)
 * resumes there with @code in bits 31:24; htm_end() commits.
 *
 * htm_begin() must expand in the frame of the function that begins the
 * transaction (the simulated backend's setjmp() lives there), hence macros.
 * The static key of patch 0002 is dcsim's HTM policy: live when the policy
 * lets transactions run (DCSIM_HTM=auto on an RTM CPU, force, or the
 * explorer's sim-commit/sim-aborts).
 */
#ifndef _KC_LINUX_HTM_H
#define _KC_LINUX_HTM_H

#include <kc/compiler.h>

#include <dcsim/htm.h>

#define BIT(n)			(1u << (n))

/* htm_begin() started a transaction; never a valid abort status. */
#define HTM_STARTED		(~0u)

#define HTM_ABORT_EXPLICIT	BIT(0)	/* htm_abort() was called */
#define HTM_ABORT_RETRY		BIT(1)	/* might succeed if retried */
#define HTM_ABORT_CONFLICT	BIT(2)	/* another CPU touched our data */
#define HTM_ABORT_CAPACITY	BIT(3)	/* the footprint did not fit */
#define HTM_ABORT_DEBUG		BIT(4)	/* debug exception */
#define HTM_ABORT_NESTED	BIT(5)	/* aborted inside a nested transaction */
#define HTM_ABORT_CODE(status)	(((status) >> 24) & 0xff)

#define htm_available()		dcsim_htm_live()
#define htm_probe()		dcsim_htm_live()
#define htm_begin()		kc_htm_status(dcsim_htm_begin())
#define htm_end()		do { dcsim_htm_end(); kc_htm_committed(); } while (0)
#define htm_abort(code)		dcsim_htm_abort(code)
#define htm_test()		dcsim_htm_test()

/* jump_label: DEFINE_STATIC_KEY_FALSE(dcache_htm_key) is dcsim's policy. */
#define static_branch_unlikely(key)	dcsim_htm_live()
#define static_key_enabled(key)		dcsim_htm_live()

#endif
