/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_DESCRIBE_H
#define DCSIM_DESCRIBE_H

/*
 * What the explorer asks of the code it explores (instrumented flavour only).
 *
 * The explorer (src/engine/) knows no dentry.  Its reports name an
 * address ("'/d/f'.d_lock" rather than 0x7f..) and its RCU model poisons
 * an object freed through call_rcu() until its grace period is over; for
 * both it asks a describer, which the model registers from its instrumented-only
 * glue (src/model/describe.c) when the library is loaded.  Calls go
 * one way: the model registers, the engine calls back.
 *
 * Ordering: the engine calls the describer with its own lock held (one
 * logical thread runs at a time), or after the run, or from its crash
 * handler; describe() must therefore not take a lock that model code can
 * hold at a schedule point.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dcsim/compiler.h>
#include <dcsim/rcu.h>

struct dcsim_explore_describer {
	/*
	 * The object and field an access of @size at @addr touches, as text
	 * ("'/d/f'.d_lock").  Return: false if @addr is none of the
	 * describer's objects (@buf is then left alone).
	 */
	bool (*describe)(uintptr_t addr, unsigned int size, char *buf, size_t len);
	/*
	 * The object @head belongs to, if it is one of the describer's objects
	 * queued for freeing (and the engine may poison it: fill its @size
	 * bytes until the grace period is over, put them back before the end
	 * check and the real callback).  Return: its start, or NULL.
	 */
	void *(*rcu_object)(struct dcsim_rcu_head *head, size_t *size);
	/* An execution begins: names recorded for the previous one are stale. */
	void (*exec_begin)(void);
};

/**
 * dcsim_explore_set_describer() - register @d (NULL: none).  One describer
 * per process; a second registration replaces the first.
 */
DCSIM_API void dcsim_explore_set_describer(const struct dcsim_explore_describer *d);

/**
 * dcsim_explore_running() - is dcsim_explore_run() running in this process?
 * For a describer, to record names only while a report may need them.
 */
DCSIM_API bool dcsim_explore_running(void);

#endif /* DCSIM_DESCRIBE_H */
