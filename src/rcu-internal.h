/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_SRC_RCU_INTERNAL_H
#define DCSIM_SRC_RCU_INTERNAL_H

struct dcsim_thread;

/* Called from the thread destructor: unregister from liburcu if needed. */
void __dcsim_rcu_thread_exit(struct dcsim_thread *t);

#endif
