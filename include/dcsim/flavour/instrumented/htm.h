/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_FLAVOUR_HTM_H
#define DCSIM_FLAVOUR_HTM_H

/*
 * <dcsim/htm.h> in the instrumented build: the simulated backend, driven by
 * the deterministic explorer, beside the hardware one.  Included by
 * <dcsim/htm.h>; do not include it directly.
 *
 * Each dcsim_htm_sim_*() below is a thin entry of the primitives layer
 * that passes the call on to the engine's hook table (src/base/hooks.h).
 */

#ifndef DCSIM_HTM_H
#error "include <dcsim/htm.h>, not <dcsim/flavour/htm.h>"
#endif

#include <setjmp.h>

DCSIM_API bool dcsim_htm_sim_in_txn(void);
DCSIM_API __attribute__((noreturn)) void dcsim_htm_sim_abort(uint8_t code);
DCSIM_API void dcsim_htm_sim_end(void);

/*
 * A simulated status has the x86 RTM layout in its low 32 bits and
 * DCSIM_HTM_SIM_MARK above them, so that dcsim_htm_decode() recognises it
 * whatever hardware backend was compiled.
 */
#define DCSIM_HTM_SIM_MARK		((dcsim_htm_status_t)1 << 32)
#define DCSIM_HTM_SIM_STATUS(st)	(((st) >> 32) == 1)

/*
 * Internal to the dcsim_htm_begin() macro below.  dcsim_htm_sim_prepare()
 * returns the calling logical thread's jump buffer when a new simulated
 * transaction is to start (it is a schedule point), NULL when the ordinary
 * function must decide (hardware, HTM off, or a nested begin).
 */
DCSIM_API jmp_buf *dcsim_htm_sim_prepare(const char *func, int line);
DCSIM_API dcsim_htm_status_t dcsim_htm_sim_start(void *cfa, void *ra);
DCSIM_API dcsim_htm_status_t dcsim_htm_sim_resume(void);

/*
 * dcsim_htm_begin() in the instrumented build.  Hardware returns from XBEGIN a
 * second time on abort with every store undone; the simulation gets the
 * second return from setjmp(), which must therefore be called in the frame
 * of the code that begins the transaction: hence a macro.  Two rules follow
 * that hardware does not impose: the function that begins a transaction
 * must not return before it ends (its frame is the jump target), and the
 * transaction body must not change local variables that the abort path
 * reads (setjmp restores registers, not the stack; shared memory written
 * through <dcsim/atomic.h> is rolled back exactly).  Callers in the library
 * keep both; -Wclobbered is off in the instrumented build because it cannot tell.
 * The first rule is checked: begin records its frame (the CFA and return
 * address of the function it expands in), and a commit or an abort whose
 * frame is no longer on the stack (a helper that wraps dcsim_htm_begin()
 * and returns the status) fails the execution with a message naming the
 * rule, instead of resuming in a dead frame.
 * (dcsim_htm_begin)() is the exported function, used when the macro
 * decides that no simulated transaction is to start.
 */
#define dcsim_htm_begin() __extension__ ({					\
	dcsim_htm_status_t dcsim_hst_;						\
	jmp_buf *dcsim_jb_ = dcsim_htm_sim_prepare(__func__, __LINE__);	\
	if (!dcsim_jb_) {							\
		/* Bind our PLT slot for dcsim_htm_end() outside the txn. */	\
		(void)dcsim_htm_sim_in_txn();					\
		dcsim_hst_ = (dcsim_htm_begin)();				\
	} else if (setjmp(*dcsim_jb_) == 0)					\
		dcsim_hst_ = dcsim_htm_sim_start(__builtin_dwarf_cfa(),	\
						  __builtin_return_address(0));	\
	else									\
		dcsim_hst_ = dcsim_htm_sim_resume();				\
	dcsim_hst_;								\
})

#define dcsim_htm_sim_abort_if_active(code)					\
	do {									\
		if (dcsim_htm_sim_in_txn())					\
			dcsim_htm_sim_abort(code);				\
	} while (0)

/* Commit a simulated transaction if one is running.  Return: true if it did. */
static inline bool dcsim_htm_sim_end_if_active(void)
{
	if (!dcsim_htm_sim_in_txn())
		return false;
	dcsim_htm_sim_end();
	return true;
}

#endif /* DCSIM_FLAVOUR_HTM_H */
