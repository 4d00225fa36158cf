// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The primitives' entry points of the instrumented build, each a call
 * through the engine's hook table (src/base/hooks.h), and the describer
 * slot of <dcsim/describe.h>.
 *
 * The table pointer is written by a load-time constructor before any other
 * thread exists (or again by dcsim_explore_run() before it starts its
 * threads), so every later read sees it; the reads acquire, pairing with
 * the release of the write, so that a registration made while other
 * threads run still shows them the table filled.
 */

#include <stdio.h>
#include <stdlib.h>

#include <dcsim/describe.h>
#include <dcsim/task-local.h>

#include "hooks.h"

static const struct dcsim_hooks *hooks;
static const struct dcsim_explore_describer *describer;

void dcsim_hooks_register(const struct dcsim_hooks *h)
{
	__atomic_store_n(&hooks, h, __ATOMIC_RELEASE);
}

const struct dcsim_hooks *dcsim_hooks_get(void)
{
	return __atomic_load_n(&hooks, __ATOMIC_ACQUIRE);
}

void dcsim_sched_point(enum dcsim_access acc, const volatile void *addr,
		       unsigned int size, const char *func, int line)
{
	const struct dcsim_hooks *h = dcsim_hooks_get();

	if (h)
		h->sched_point(acc, addr, size, func, line);
}

/*
 * Task-local, so that it moves with its logical thread: one that blocks
 * between dcsim_step_frame_set() and the restore (a spinning lock) must
 * not lend its frame to the steps of the thread that runs meanwhile.
 */
static __thread const struct dcsim_step_frame *step_frame;

static void *step_frame_addr(void)
{
	return &step_frame;
}

static struct dcsim_task_local step_frame_tl = {
	.addr = step_frame_addr, .size = sizeof(step_frame),
};

__attribute__((constructor)) static void step_frame_tl_init(void)
{
	dcsim_task_local_register(&step_frame_tl);
}

const struct dcsim_step_frame *dcsim_step_frame_set(const struct dcsim_step_frame *f)
{
	const struct dcsim_step_frame *old = step_frame;

	step_frame = f;
	return old;
}

const struct dcsim_step_frame *dcsim_step_frame_get(void)
{
	return step_frame;
}

void dcsim_spin_note(enum dcsim_spin_event ev, const dcsim_spinlock_t *lock,
		     unsigned int subclass, const char *func, int line)
{
	const struct dcsim_hooks *h = dcsim_hooks_get();

	if (h)
		h->spin_note(ev, lock, subclass, func, line);
}

void dcsim_spin_assert_held(const dcsim_spinlock_t *lock, const char *lock_name,
			    const char *what, const char *object)
{
	const struct dcsim_hooks *h = dcsim_hooks_get();

	if (h)
		h->spin_assert_held(lock, lock_name, what, object);
}

void dcsim_spin_site(const char *func, int line)
{
	const struct dcsim_hooks *h = dcsim_hooks_get();

	if (h)
		h->spin_site(func, line);
}

void dcsim_lock_set_class(const void *lock, const struct dcsim_lock_class *cls)
{
	const struct dcsim_hooks *h = dcsim_hooks_get();

	if (h)
		h->lock_set_class(lock, cls);
}

void dcsim_lock_set_class_array(const void *first, size_t n, size_t stride,
				const struct dcsim_lock_class *cls)
{
	const struct dcsim_hooks *h = dcsim_hooks_get();

	if (h)
		h->lock_set_class_array(first, n, stride, cls);
}

bool dcsim_htm_sim_in_txn(void)
{
	const struct dcsim_hooks *h = dcsim_hooks_get();

	return h && h->htm_in_txn();
}

jmp_buf *dcsim_htm_sim_prepare(const char *func, int line)
{
	const struct dcsim_hooks *h = dcsim_hooks_get();

	return h ? h->htm_prepare(func, line) : NULL;
}

/*
 * Start, resume, abort and end follow a begin or run inside a simulated
 * transaction, which only a registered engine creates: without one they
 * are API misuse, refused loudly rather than left to crash.
 */
static const struct dcsim_hooks *hooks_needed(const char *what)
{
	const struct dcsim_hooks *h = dcsim_hooks_get();

	if (!h) {
		fprintf(stderr, "dcsim: %s without the exploration engine: no simulated "
			"transaction can be running\n", what);
		abort();
	}
	return h;
}

dcsim_htm_status_t dcsim_htm_sim_start(void *cfa, void *ra)
{
	return hooks_needed("dcsim_htm_sim_start()")->htm_start(cfa, ra);
}

dcsim_htm_status_t dcsim_htm_sim_resume(void)
{
	return hooks_needed("dcsim_htm_sim_resume()")->htm_resume();
}

void dcsim_htm_sim_abort(uint8_t code)
{
	hooks_needed("dcsim_htm_sim_abort()")->htm_abort(code);
}

void dcsim_htm_sim_end(void)
{
	hooks_needed("dcsim_htm_sim_end()")->htm_end();
}

bool dcsim_explore_running(void)
{
	const struct dcsim_hooks *h = dcsim_hooks_get();

	return h && h->running();
}

void dcsim_explore_set_describer(const struct dcsim_explore_describer *d)
{
	__atomic_store_n(&describer, d, __ATOMIC_RELEASE);
}

const struct dcsim_explore_describer *dcsim_describer_get(void)
{
	return __atomic_load_n(&describer, __ATOMIC_ACQUIRE);
}
