/* SPDX-License-Identifier: GPL-2.0 */
/* rcu_read_lock()/rcu_read_unlock() onto dcsim's RCU (liburcu, or the explorer's). */
#ifndef _KC_RCUPDATE_H
#define _KC_RCUPDATE_H

#include <dcsim/rcu.h>

#define rcu_read_lock()		dcsim_rcu_read_lock()
#define rcu_read_unlock()	dcsim_rcu_read_unlock()

#endif
