/* SPDX-License-Identifier: GPL-2.0 */
/*
 * WARN_ON()/WARN_ON_ONCE() (include/asm-generic/bug.h): the condition's
 * value, with a report through dcsim's warning counter (<dcsim/warn.h>), so
 * that the suites' "no warning fired" checks see the kernel code's WARNs.
 */
#ifndef _KC_BUG_H
#define _KC_BUG_H

#include <kc/compiler.h>

#define WARN_ON(cond) __extension__ ({						\
	int __kc_w = !!(cond);							\
	if (unlikely(__kc_w))							\
		kc_warn(NULL, __FILE__, __LINE__, __func__, #cond);		\
	unlikely(__kc_w);							\
})

#define WARN_ON_ONCE(cond) __extension__ ({					\
	static int __kc_warned;							\
	int __kc_w = !!(cond);							\
	if (unlikely(__kc_w))							\
		kc_warn(&__kc_warned, __FILE__, __LINE__, __func__, #cond);	\
	unlikely(__kc_w);							\
})

#endif
