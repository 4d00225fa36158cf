// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The engine's hook table (src/base/hooks.h): how the primitives reach the
 * explorer without naming it.  Registered when the library is loaded,
 * before src/base/htm.c's own constructor reads DCSIM_HTM (whose "sim"
 * this table's htm_take_env answers).
 */

#include "../base/hooks.h"
#include "internal.h"

static const struct dcsim_hooks engine_hooks = {
	.sched_point		= explore_sched_point,
	.spin_note		= strict_spin_note,
	.spin_assert_held	= strict_spin_assert_held,
	.spin_site		= window_spin_site,
	.lock_set_class		= lockdep_set_class,
	.lock_set_class_array	= lockdep_set_class_array,
	.running		= explore_running,
	.htm_take_env		= sim_take_env,
	.htm_owns_thread	= sim_owns_thread,
	.htm_live		= sim_live,
	.htm_begin_nojmp	= sim_begin_nojmp,
	.htm_in_txn		= sim_in_txn,
	.htm_prepare		= sim_prepare,
	.htm_start		= sim_start,
	.htm_resume		= sim_resume,
	.htm_abort		= sim_abort,
	.htm_end		= sim_end,
};

void explore_hooks_install(void)
{
	if (dcsim_hooks_get() != &engine_hooks)
		dcsim_hooks_register(&engine_hooks);
}

__attribute__((constructor(DCSIM_HOOKS_CTOR_PRIORITY))) static void engine_hooks_ctor(void)
{
	explore_hooks_install();
}
