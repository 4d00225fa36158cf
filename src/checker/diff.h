/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_CHECKER_DIFF_H
#define DCSIM_CHECKER_DIFF_H

/*
 * Internals of the differential runner (diff.c) and of the trace format
 * (trace.c, docs/trace-format.md), the one trace language of the tree.
 * Hidden: not dcsim_-prefixed, so not exported from libdcsim-instrumented; a test
 * that builds on it links the checker archive (checker_internal_dep).
 *
 * A trace is a list of steps over dentry ids; ids are the spec's, given in
 * allocation order (the root is 1).  A step that is invalid in the state
 * reached (its dentry not held, say) is skipped by the runner, which is what
 * lets a random trace be shrunk by deleting steps; a trace read from a file
 * must have no invalid step.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ops.h"
#include "spec.h"

/* The steps' operations are the checkers' one vocabulary (ops.h): OP_ALLOC .. OP_CREATE. */

extern const char *const diff_op_names[OP_TRACE_NR];

/*
 * @a: the dentry (alloc, lookup: the parent); @arg: add: positive;
 * set_op: 1 never / 0 always; set_flags: 1 dontcache / 0 disconnected;
 * prune: the number to scan; @name: alloc, lookup (not owned).
 */
struct step {
	uint8_t op;
	uint32_t a;
	uint32_t arg;
	const char *name;
};

struct trace {
	uint64_t seed;
	size_t n;
	struct step *s;
	char *strings;		/* names of a parsed trace (owned), or NULL */
};

/* One run of a trace: the spec, the cache (optional) and the held refs. */
struct run {
	struct spec spec;
	struct dcsim_cache *c;
	struct dcsim_dentry *ptr[SPEC_MAX + 1];
	int32_t held[SPEC_MAX + 1];
	char err[4096];
};

bool diff_valid(const struct run *r, const struct step *st);
/* Record a mismatch in r->err.  Return: false. */
bool __attribute__((format(printf, 2, 3))) diff_mismatch(struct run *r, const char *fmt, ...);
/* Bind spec id @id to the cache's new dentry @d.  Return: false on a mismatch. */
bool diff_got_new(struct run *r, uint32_t id, struct dcsim_dentry *d);
/* The path of the dentry with cache id @id, as the spec knows it, into @buf. */
void diff_id_path(struct run *r, uint64_t id, char *buf, size_t len);
/* Apply @st to the spec (and the cache if r->c).  Return: false on a mismatch. */
bool diff_apply(struct run *r, const struct step *st);

/* The suite's relative frequencies of the operations. */
extern const unsigned int diff_default_weights[OP_TRACE_NR];
/* dput-heavy frequencies, for tests that compare put paths. */
extern const unsigned int diff_dput_weights[OP_TRACE_NR];

/*
 * diff_generate() - a random trace of up to @steps valid steps from @seed
 * (t->s allocated, free with trace_release()): operations drawn with
 * @weights (OP_TRACE_NR entries; a 0 never draws that operation; NULL: the
 * suite's), each valid in the spec's state where it runs.  The same seed
 * and weights give the same trace everywhere (src/base/rng.h).
 */
void diff_generate(struct trace *t, uint64_t seed, size_t steps, const unsigned int *weights);

/*
 * The longest path of a spec dentry, with its NUL: at most 8 components of
 * a name (struct spec_dentry.name) each.  Buffers that hold a path or a
 * reference are this size, so that paths are never compared cut.
 */
#define TRACE_PATH_MAX	(8 * (sizeof(((struct spec_dentry *)0)->name) + 1) + 1)
/* A reference: a path and "#K". */
#define TRACE_REF_MAX	(TRACE_PATH_MAX + 24)

/* The full path of spec dentry @id ("/", "/a/b"), into @buf. */
void diff_path(const struct spec *s, uint32_t id, char *buf, size_t len);
/*
 * The reference to @id in a trace line: its path, or "PATH#K" if it is not
 * the newest dentry allocated with that path (K counts from 1).
 */
void diff_ref(const struct spec *s, uint32_t id, char *buf, size_t len);
/* One step as a trace line (no newline), in the state before it runs. */
void diff_format_step(const struct spec *s, const struct step *st, char *buf, size_t len);

/*
 * trace_print() - the valid steps of @t as a trace file, to @f; @comment
 * (may be NULL) goes on a comment line after the header.
 */
void trace_print(FILE *f, const struct trace *t, const char *comment);

/*
 * trace_parse() - read a trace file.  Return: 0, -errno if unreadable, or
 * -EINVAL with "FILE:LINE: why" in @err.
 */
int trace_parse(const char *path, struct trace *t, char *err, size_t errlen);
/* trace_parse() on an open stream; @path names it in messages. */
int trace_parse_stream(FILE *f, const char *path, struct trace *t, char *err, size_t errlen);

void trace_release(struct trace *t);

#endif /* DCSIM_CHECKER_DIFF_H */
