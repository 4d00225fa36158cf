/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_SRC_HTM_BACKEND_H
#define DCSIM_SRC_HTM_BACKEND_H

/*
 * The seam between the generic HTM layer (src/base/htm.c: policy, detection
 * bookkeeping, statistics, decoding) and the one hardware backend compiled
 * for the target (htm-x86.c, htm-power.c or htm-none.c), and the simulated
 * backend stacked over it in the instrumented flavour (src/engine/htm-sim.c).
 */

#include <dcsim/htm.h>

/* The instrumented flavour's <dcsim/htm.h> makes dcsim_htm_begin() a macro; the layer defines the function. */
#undef dcsim_htm_begin

extern const enum dcsim_htm_backend htm_hw_backend;

/* Fill the raw detection fields, cpu_has_htm and cpu[]; no HTM instruction. */
void htm_hw_detect(struct dcsim_htm_info *info);

/*
 * Begin and end one transaction (for the force policy).  May fault with
 * SIGILL on a CPU without HTM: htm.c runs it under a guard.
 */
void htm_hw_probe_body(void);

/* Raw backend operations; only called while the layer is live. */
dcsim_htm_status_t htm_hw_begin(void);
bool htm_hw_test(void);

/* Account an abort status in the calling thread's statistics. */
void htm_count_abort(dcsim_htm_status_t st);

/*
 * The simulated backend.  It takes the calls of the threads it owns (the
 * explorer's logical threads, and under DCSIM_HTM=sim every thread, which
 * it then refuses) before the hardware backend sees them.  It lives in the
 * engine (src/engine/htm-sim.c), reached through the hook table
 * (hooks.h); without a registered engine it owns no thread.  The normal
 * flavour has no simulated backend, and these fold to constants, so its
 * begin costs nothing more.
 */
#if DCSIM_INSTRUMENT
#include "hooks.h"

/* Return: true if @env names the simulated backend ("sim"), now selected. */
static inline bool htm_sim_take_env(const char *env)
{
	const struct dcsim_hooks *h = dcsim_hooks_get();

	return h && h->htm_take_env(env);
}

static inline bool htm_sim_owns_thread(void)
{
	const struct dcsim_hooks *h = dcsim_hooks_get();

	return h && h->htm_owns_thread();
}

/* For an owned thread (so with an engine): may it begin a transaction? */
static inline bool htm_sim_live(void)
{
	return dcsim_hooks_get()->htm_live();
}

/* For an owned thread: dcsim_htm_begin() reached as a function (no frame to resume in). */
static inline dcsim_htm_status_t htm_sim_begin_nojmp(void)
{
	return dcsim_hooks_get()->htm_begin_nojmp();
}

/* Is a simulated status (RTM layout, whatever the hardware backend)? */
static inline bool htm_sim_status(dcsim_htm_status_t st)
{
	return DCSIM_HTM_SIM_STATUS(st);
}

static inline bool htm_sim_in_txn(void)
{
	return dcsim_htm_sim_in_txn();
}
#else
static inline bool htm_sim_take_env(const char *env)
{
	(void)env;
	return false;
}
static inline bool htm_sim_owns_thread(void)
{
	return false;
}
static inline bool htm_sim_live(void)
{
	return false;
}
static inline dcsim_htm_status_t htm_sim_begin_nojmp(void)
{
	return DCSIM_HTM_DISABLED;
}
static inline bool htm_sim_status(dcsim_htm_status_t st)
{
	(void)st;
	return false;
}
static inline bool htm_sim_in_txn(void)
{
	return false;
}
#endif

#endif
