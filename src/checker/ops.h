/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_CHECKER_OPS_H
#define DCSIM_CHECKER_OPS_H

/*
 * The checkers' one vocabulary of cache operations: the steps of a trace
 * (diff.h, trace.c, docs/trace-format.md) and the calls of a scenario's
 * programs (scenario.h) are both enum spec_op, and both run on the
 * executable spec through one dispatcher, spec_apply() (spec-op.c).
 *
 * The trace operations come first, in the trace language's order (the
 * random trace generator draws them by index, so the order is part of
 * every seed's trace); a trace holds none from OP_TRACE_NR on.  OP_END is
 * zero so that the unset entries of a scenario's program end it.
 */

#include <stdint.h>

#include "spec.h"

enum spec_op {
	OP_END,			/* the end of a scenario program; never in a trace */
	OP_ALLOC,		/* d_alloc(a, name) */
	OP_ADD,			/* d_add(a): positive if n & 1 */
	OP_REHASH,		/* d_rehash(a) */
	OP_LOOKUP,		/* d_lookup(a, name) */
	OP_DGET,		/* dget(a) */
	OP_DGET_PARENT,		/* dget_parent(a) */
	OP_DPUT,		/* dput(a) */
	OP_DROP,		/* d_drop(a) */
	OP_DELETE,		/* d_delete(a) */
	OP_INVALIDATE,		/* d_invalidate(a) */
	OP_SET_OP,		/* d_set_d_op(a, n: enum spec_op_kind) */
	OP_SET_FLAGS,		/* d_set_flags(a, n: the flags) */
	OP_PRUNE,		/* prune(n) */
	OP_SHRINK_ALL,		/* shrink_all() */
	OP_CREATE,		/* create in place: d_instantiate(a) under the parent's create lock */
	OP_GENOCIDE,		/* d_genocide(a) + shrink_dcache_parent(a): the pins dropped */
	OP_TRACE_NR,
	/* Scenario programs only. */
	OP_ALLOC_ADD = OP_TRACE_NR,	/* d_alloc(a, name) + d_add(positive) */
	OP_WALK,		/* path_walk(a, name: "x/y"): NULL or positive */
	OP_LOOKUP_HIT,		/* OP_LOOKUP which must find it */
	OP_LOOKUP_MISS,		/* OP_LOOKUP which must not */
	OP_DPUT_UNOWNED,	/* misuse: dput(a) without owning a reference (nothing on the spec) */
	OP_RENAME,		/* d_move(a) into the directory n (a scenario: its slot dst) */
	OP_NR
};

#define WALK_MAX	4	/* components of an OP_WALK path */

/* Split @path ("a/f") into @names, in @buf.  Return: the number of components. */
unsigned int spec_split_path(const char *path, char (*buf)[16], const char **names);

/**
 * spec_apply() - one operation on the spec: the one dispatcher of traces
 * and scenarios.
 * @s:    the spec
 * @op:   the operation
 * @a:    the dentry it acts on (for alloc, lookup, walk: the parent or start)
 * @n:    add: positive if n & 1; set_op: the enum spec_op_kind; set_flags:
 *        the flags; prune: how many to scan; rename: the new parent
 * @name: alloc, lookup, alloc+add: the name; walk: the path ("x/y")
 *
 * The caller has checked that @op is valid in @s's state.
 * Return: the dentry the operation hands out (alloc, lookup and its
 * variants, dget_parent, alloc+add, walk; 0: none), the number of dentries
 * killed (prune, shrink_all), the number of pins dropped (genocide),
 * otherwise 0.
 */
unsigned long spec_apply(struct spec *s, enum spec_op op, uint32_t a, uint32_t n,
			 const char *name);

#endif /* DCSIM_CHECKER_OPS_H */
