/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_SRC_HOOKS_H
#define DCSIM_SRC_HOOKS_H

/*
 * The one seam between the primitives and the exploration engine above
 * them (instrumented build only).
 *
 * A shared access (<dcsim/atomic.h>), a lock operation (<dcsim/spinlock.h>)
 * and a transaction (<dcsim/htm.h>, src/base/htm.c) must let the explorer
 * watch and steer them, yet nothing below the engine may call it by name:
 * data flows one way, model -> lockref -> spinlock/htm -> atomic, and the
 * checkers sit on top.  So the engine fills one table of function pointers
 * and registers it when the library is loaded, the way liburcu picks its
 * flavour through struct rcu_flavor_struct; the primitives' entry points
 * (src/base/hooks.c: dcsim_sched_point(), dcsim_spin_note() and the other
 * lock notes, dcsim_lock_set_class(), dcsim_htm_sim_*()) call through it.  Before registration, or in a
 * library without an engine, every entry returns at once as "no explorer
 * here".  The normal build has neither the table nor the calls: its
 * <dcsim/flavour/atomic.h>, spinlock.h and htm.h fold every hook to nothing.
 *
 * The same file holds the other half of the seam, <dcsim/describe.h>'s
 * describer: the model registers it here, the engine reads it from here.
 */

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>

#include <dcsim/atomic.h>
#include <dcsim/describe.h>
#include <dcsim/htm.h>
#include <dcsim/lockdep.h>
#include <dcsim/spinlock.h>

/**
 * struct dcsim_hooks - what the engine does at the primitives' hook points.
 *
 * Every member must be set; each is called only after dcsim_hooks_register().
 *
 * @sched_point:     before each shared access; see dcsim_sched_point()
 * @spin_note:       after each lock operation; see dcsim_spin_note()
 * @spin_assert_held: lockdep_assert_held(); see dcsim_spin_assert_held()
 * @spin_site:       the caller's place for its next lock operations; see
 *                   dcsim_spin_site()
 * @lock_set_class:  a lock's class for the lock order validator; see
 *                   dcsim_lock_set_class() (<dcsim/lockdep.h>)
 * @lock_set_class_array: the same for an array of locks
 * @running:         is an exploration running in this process?
 * @htm_take_env:    DCSIM_HTM=@env at load time: true if @env names the
 *                   simulated backend ("sim"), which is then selected
 * @htm_owns_thread: does the simulated backend take this thread's calls
 *                   (an explorer thread, or any thread under DCSIM_HTM=sim)?
 * @htm_live:        for an owned thread: may it begin a transaction?
 * @htm_begin_nojmp: for an owned thread: dcsim_htm_begin() reached as a
 *                   function (no frame to resume in)
 * @htm_in_txn:      is this thread inside a simulated transaction?
 * @htm_prepare:     dcsim_htm_sim_prepare(): the jump buffer, or NULL
 * @htm_start:       dcsim_htm_sim_start()
 * @htm_resume:      dcsim_htm_sim_resume()
 * @htm_abort:       dcsim_htm_sim_abort(); does not return
 * @htm_end:         dcsim_htm_sim_end()
 */
struct dcsim_hooks {
	void (*sched_point)(enum dcsim_access acc, const volatile void *addr,
			    unsigned int size, const char *func, int line);
	void (*spin_note)(enum dcsim_spin_event ev, const dcsim_spinlock_t *lock,
			  unsigned int subclass, const char *func, int line);
	void (*spin_assert_held)(const dcsim_spinlock_t *lock, const char *lock_name,
				 const char *what, const char *object);
	void (*spin_site)(const char *func, int line);
	void (*lock_set_class)(const void *lock, const struct dcsim_lock_class *cls);
	void (*lock_set_class_array)(const void *first, size_t n, size_t stride,
				     const struct dcsim_lock_class *cls);
	bool (*running)(void);
	bool (*htm_take_env)(const char *env);
	bool (*htm_owns_thread)(void);
	bool (*htm_live)(void);
	dcsim_htm_status_t (*htm_begin_nojmp)(void);
	bool (*htm_in_txn)(void);
	jmp_buf *(*htm_prepare)(const char *func, int line);
	dcsim_htm_status_t (*htm_start)(void *cfa, void *ra);
	dcsim_htm_status_t (*htm_resume)(void);
	__attribute__((noreturn)) void (*htm_abort)(uint8_t code);
	void (*htm_end)(void);
};

/**
 * dcsim_hooks_register() - install the engine's table (NULL: none).
 *
 * Called once by the engine from a load-time constructor that runs before
 * the primitives' own (src/base/htm.c reads DCSIM_HTM through it), while
 * no other thread exists.  Return: nothing; the table must outlive the
 * process.
 */
void dcsim_hooks_register(const struct dcsim_hooks *hooks);

/* The registered table, or NULL. */
const struct dcsim_hooks *dcsim_hooks_get(void);

/* The describer the model registered (<dcsim/describe.h>), or NULL. */
const struct dcsim_explore_describer *dcsim_describer_get(void);

/*
 * The frame dcsim_step_frame_set() named for this logical thread's
 * schedule points, or NULL: the engine's schedule log keeps it per step.
 */
const struct dcsim_step_frame *dcsim_step_frame_get(void);

/* Constructor priority of dcsim_hooks_register()'s caller (1..100 are the toolchain's). */
#define DCSIM_HOOKS_CTOR_PRIORITY	101

#endif /* DCSIM_SRC_HOOKS_H */
