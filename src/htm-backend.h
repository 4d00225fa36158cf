/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_SRC_HTM_BACKEND_H
#define DCSIM_SRC_HTM_BACKEND_H

/*
 * The seam between the generic HTM layer (src/htm.c: policy, detection
 * bookkeeping, statistics, decoding) and the one hardware backend compiled
 * for the target (htm-x86.c, htm-power.c or htm-none.c).  The simulated
 * backend of the check build plugs in above this, in <dcsim/htm.h>.
 */

#include <dcsim/htm.h>

extern const enum dcsim_htm_backend __dcsim_htm_hw_backend;

/* Fill the raw detection fields, cpu_has_htm and cpu[]; no HTM instruction. */
void __dcsim_htm_hw_detect(struct dcsim_htm_info *info);

/*
 * Execute begin/end/test once under a SIGILL guard (for the force policy).
 * Return: 0 if the CPU accepted them, -ENOTSUP if it faulted.
 */
int __dcsim_htm_hw_probe(void);

/* Raw backend operations; only called while the layer is live. */
dcsim_htm_status_t __dcsim_htm_hw_begin(void);
bool __dcsim_htm_hw_test(void);

/* Account an abort status in the calling thread's statistics. */
void __dcsim_htm_count_abort(dcsim_htm_status_t st);

/* For the backends: the generic SIGILL-guarded call used by the probes. */
int __dcsim_htm_try_exec(void (*fn)(void));

#endif
