/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_FLAVOUR_ATOMIC_H
#define DCSIM_FLAVOUR_ATOMIC_H

/*
 * <dcsim/atomic.h> in the instrumented build: every access macro first
 * calls dcsim_sched_point().  Included by <dcsim/atomic.h>; do not include
 * it directly.
 */

#ifndef DCSIM_ATOMIC_H
#error "include <dcsim/atomic.h>, not <dcsim/flavour/atomic.h>"
#endif

/**
 * dcsim_sched_point() - hook called before each shared access (instrumented build)
 * @acc:  kind of access
 * @addr: address about to be accessed (NULL for fences)
 * @size: bytes accessed
 * @func: function making the access, for interleaving traces
 * @line: source line of the access
 *
 * Passes the access on to the engine's hook table (src/base/hooks.h).
 * Without an active explorer this returns at once.  Inside a simulated
 * transaction it never yields; it logs stores for rollback and may abort.
 */
DCSIM_API void dcsim_sched_point(enum dcsim_access acc, const volatile void *addr,
				 unsigned int size, const char *func, int line);
#define dcsim_sp_point(acc, p) \
	dcsim_sched_point((acc), (p), (unsigned int)sizeof(*(p)), __func__, __LINE__)
#define dcsim_sp_fence(acc) dcsim_sched_point((acc), NULL, 0u, __func__, __LINE__)

/**
 * struct dcsim_step_frame - what an interleaving trace says about a step
 * beyond its own function and line (kernel code built for a patch check)
 * @caller:      label of the calling frame the trace names (for a patch:
 *               the nearest caller inside a patched function, else the
 *               immediate caller), or NULL for none
 * @caller_line: the line of the call in @caller
 * @changed:     the step ran a line the patch under check changed: its
 *               own line, or a call on its stack that sits on one
 */
struct dcsim_step_frame {
	const char *caller;
	int caller_line;
	bool changed;
};

/**
 * dcsim_step_frame_set() - name the frame of this logical thread's next
 * schedule points (instrumented build)
 * @f: the frame, valid until it is replaced; NULL: none
 *
 * The setting moves with the logical thread (it is task-local,
 * <dcsim/task-local.h>): set it before dcsim_sched_point() and restore
 * the old one after, and a switch to another logical thread in between
 * cannot lend it to that thread's steps.
 *
 * Return: the frame set before.
 */
DCSIM_API const struct dcsim_step_frame *dcsim_step_frame_set(const struct dcsim_step_frame *f);

#endif /* DCSIM_FLAVOUR_ATOMIC_H */
