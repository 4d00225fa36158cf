/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_TASK_LOCAL_H
#define DCSIM_TASK_LOCAL_H

/*
 * Task-local state: thread-local variables that belong to a logical thread
 * (a task, in the kernel's word) rather than to the pthread that runs it.
 *
 * Semantics: the explorer can run several logical threads on one pthread,
 * switching between them in user space at schedule points (fibers).  A
 * __thread variable would then be shared by all of them: a per-thread
 * statistics block, a magazine of free objects, the "what did this put do"
 * tally that the kernel-code glue reads back after each put, the RCU
 * reader's nesting count.  Each such variable is registered here once (from
 * a constructor); on every switch the engine saves the outgoing logical
 * thread's bytes of each registered variable and installs the incoming
 * one's, so each logical thread sees its own copy, starting from zero as a
 * new pthread's would.  Outside the explorer nothing changes: a pthread
 * uses its __thread variables as always.
 *
 * Usage:
 *	static __thread struct foo foo;
 *	static void *foo_addr(void) { return &foo; }
 *	static struct dcsim_task_local foo_tl = {
 *		.addr = foo_addr, .size = sizeof(foo), .exit = foo_exit,
 *	};
 *	__attribute__((constructor)) static void foo_tl_init(void)
 *	{
 *		dcsim_task_local_register(&foo_tl);
 *	}
 *
 * Ordering: register before any exploration starts (constructors do); the
 * list is only pushed to, never changed, so a reader sees a prefix of it.
 */

#include <stddef.h>

#include <dcsim/compiler.h>

/**
 * struct dcsim_task_local - one registered thread-local variable.
 * @addr: the calling pthread's copy of the variable
 * @size: its size in bytes
 * @exit: optional: a logical thread ends, with its copy installed (what
 *        a pthread key destructor would do at thread exit); NULL: none
 * @next: the registry's link (set by dcsim_task_local_register())
 */
struct dcsim_task_local {
	void *(*addr)(void);
	size_t size;
	void (*exit)(void);
	struct dcsim_task_local *next;
};

/** dcsim_task_local_register() - add @tl to the registry (once per @tl). */
DCSIM_API void dcsim_task_local_register(struct dcsim_task_local *tl);

/** dcsim_task_locals() - the registry, newest first. Return: its head, or NULL. */
DCSIM_API struct dcsim_task_local *dcsim_task_locals(void);

#endif /* DCSIM_TASK_LOCAL_H */
