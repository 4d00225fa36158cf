// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The one dispatcher of the checkers' operations onto the executable spec
 * (ops.h): a trace step (diff-step.c) and a scenario call
 * (dcache-scenario-spec.c) both come here.
 */

#include <stdio.h>
#include <string.h>

#include "ops.h"
#include "spec.h"

unsigned int spec_split_path(const char *path, char (*buf)[16], const char **names)
{
	unsigned int n = 0;

	while (*path && n < WALK_MAX) {
		size_t len = strcspn(path, "/");

		snprintf(buf[n], sizeof(buf[n]), "%.*s", (int)len, path);
		names[n] = buf[n];
		n++;
		path += len;
		path += *path == '/';
	}
	return n;
}

unsigned long spec_apply(struct spec *s, enum spec_op op, uint32_t a, uint32_t n,
			 const char *name)
{
	uint32_t id;

	switch (op) {
	case OP_ALLOC:
		return spec_alloc(s, a, name);
	case OP_ADD:
		spec_add(s, a, n & 1);
		return 0;
	case OP_REHASH:
		spec_rehash(s, a);
		return 0;
	case OP_LOOKUP:
	case OP_LOOKUP_HIT:
	case OP_LOOKUP_MISS:
		return spec_lookup(s, a, name);
	case OP_DGET:
		spec_dget(s, a);
		return 0;
	case OP_DGET_PARENT:
		return spec_dget_parent(s, a);
	case OP_DPUT:
		spec_dput(s, a);
		return 0;
	case OP_DROP:
		spec_drop(s, a);
		return 0;
	case OP_DELETE:
		spec_delete(s, a);
		return 0;
	case OP_INVALIDATE:
		spec_invalidate(s, a);
		return 0;
	case OP_SET_OP:
		spec_set_op(s, a, (enum spec_op_kind)n);
		return 0;
	case OP_SET_FLAGS:
		spec_set_flags(s, a, n);
		return 0;
	case OP_PRUNE:
		return spec_prune(s, n);
	case OP_SHRINK_ALL:
		return spec_shrink_all(s);
	case OP_CREATE:
		spec_create(s, a);
		return 0;
	case OP_GENOCIDE:
		return spec_genocide(s, a);
	case OP_ALLOC_ADD:
		id = spec_alloc(s, a, name);
		spec_add(s, id, true);
		return id;
	case OP_WALK: {
		char buf[WALK_MAX][16];
		const char *names[WALK_MAX];
		unsigned int nr = spec_split_path(name, buf, names);

		return spec_walk(s, a, names, nr);
	}
	case OP_RENAME:
		spec_rename(s, a, n);
		return 0;
	case OP_DPUT_UNOWNED:	/* the spec has no misuse: the model only warns */
	case OP_END:
	case OP_NR:
		break;
	}
	return 0;
}
