/* SPDX-License-Identifier: GPL-2.0 */
/* Shim of <linux/export.h> for kernel-code/: nothing is exported here. */
#ifndef _KC_LINUX_EXPORT_H
#define _KC_LINUX_EXPORT_H

#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)

#endif
