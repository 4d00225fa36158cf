// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The trace format (docs/trace-format.md): one cache operation a line,
 * dentries named by path, "#" comments, a "dcsim-trace 1" header.
 *
 * Paths are strings built from the names given at alloc time ("/" is the
 * root), so two dentries can have the same path (an unhashed /a and a new
 * /a).  A reference "P" means the newest dentry allocated with path P;
 * "P#K" the K-th (from 1).  The printer uses the plain form whenever it
 * names the newest one, so hand-written traces rarely need "#K".
 */

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/compiler.h>
#include <dcsim/parse.h>

#include "diff.h"

#define TRACE_HEADER	"dcsim-trace 1"
/* The longest line: an operation, a reference and a keyword, or a comment. */
#define TRACE_LINE_MAX	(2 * TRACE_REF_MAX + 64)

void diff_ref(const struct spec *s, uint32_t id, char *buf, size_t len)
{
	char p[TRACE_PATH_MAX], q[TRACE_PATH_MAX];
	unsigned int k = 0, rank = 0;

	diff_path(s, id, p, sizeof(p));
	for (uint32_t i = 1; i < s->next_id; i++) {
		diff_path(s, i, q, sizeof(q));
		if (strcmp(p, q))
			continue;
		k++;
		if (i == id)
			rank = k;
	}
	if (rank == k)
		snprintf(buf, len, "%s", p);
	else
		snprintf(buf, len, "%s#%u", p, rank);
}

/* "PARENT/NAME" for alloc and lookup: the parent's reference, then the name. */
static void child_ref(const struct spec *s, uint32_t parent, const char *name, char *buf,
		      size_t len)
{
	char p[TRACE_REF_MAX];

	diff_ref(s, parent, p, sizeof(p));
	/* A long name is cut, as in every other line of a report. */
	if (snprintf(buf, len, "%s%s%s", p, strcmp(p, "/") ? "/" : "", name) < 0)
		buf[0] = '\0';
}

void diff_format_step(const struct spec *s, const struct step *st, char *buf, size_t len)
{
	const char *op = diff_op_names[st->op];
	char r[TRACE_REF_MAX + sizeof(((struct spec_dentry *)0)->name) + 1];

	switch (st->op) {
	case OP_ALLOC:
	case OP_LOOKUP:
		child_ref(s, st->a, st->name, r, sizeof(r));
		snprintf(buf, len, "%s %s", op, r);
		return;
	case OP_PRUNE:
		snprintf(buf, len, "prune %u", st->arg);
		return;
	case OP_SHRINK_ALL:
		snprintf(buf, len, "shrink_all");
		return;
	default:
		break;
	}
	diff_ref(s, st->a, r, sizeof(r));
	switch (st->op) {
	case OP_ADD:
		snprintf(buf, len, "add %s %s", r, st->arg & 1 ? "positive" : "negative");
		return;
	case OP_SET_OP:
		snprintf(buf, len, "set_op %s %s", r, st->arg & 1 ? "never" : "always");
		return;
	case OP_SET_FLAGS:
		snprintf(buf, len, "set_flags %s %s", r, st->arg & 1 ? "dontcache" : "disconnected");
		return;
	default:
		snprintf(buf, len, "%s %s", op, r);
	}
}

void trace_print(FILE *f, const struct trace *t, const char *comment)
{
	struct run *r = calloc(1, sizeof(*r));
	char line[TRACE_LINE_MAX];

	fprintf(f, "%s\n", TRACE_HEADER);
	if (comment)
		fprintf(f, "# %s\n", comment);
	if (!r)
		return;
	spec_init(&r->spec, DCSIM_RETAIN_LRU_THEN_REFERENCED);
	r->held[spec_alloc_root(&r->spec, "/")] = 1;
	for (size_t i = 0; i < t->n; i++) {
		if (!diff_valid(r, &t->s[i]))
			continue;
		diff_format_step(&r->spec, &t->s[i], line, sizeof(line));
		fprintf(f, "%s\n", line);
		diff_apply(r, &t->s[i]);
	}
	free(r);
}

void trace_release(struct trace *t)
{
	free(t->s);
	free(t->strings);
	memset(t, 0, sizeof(*t));
}

/* ---- the parser ------------------------------------------------------------ */

struct parser {
	const char *file;
	unsigned int line;
	char *err;
	size_t errlen;
	struct run *r;			/* the spec, run as the lines are read */
	char *strings;			/* names, NUL-separated (t->strings) */
	size_t nstr, capstr;
};

static int __attribute__((format(printf, 2, 3))) perr(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(p->err, p->errlen, "%s:%u: ", p->file, p->line);
	if (n < 0 || (size_t)n >= p->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/*
 * Resolve a reference "P" or "P#K" to a spec id; 0 if none.  The whole of
 * P is compared: a P longer than any path names nothing (never the dentry
 * whose path is P cut short).
 */
static uint32_t resolve(const struct spec *s, const char *ref)
{
	char q[TRACE_PATH_MAX];
	const char *hash = strrchr(ref, '#');
	size_t plen = hash ? (size_t)(hash - ref) : strlen(ref);
	uint64_t want = 0;
	unsigned int k = 0;
	uint32_t last = 0;

	if (plen >= sizeof(q))
		return 0;
	if (hash && dcsim_parse_u64(hash + 1, 1, SPEC_MAX, &want))
		return 0;
	for (uint32_t i = 1; i < s->next_id; i++) {
		diff_path(s, i, q, sizeof(q));
		if (strlen(q) != plen || memcmp(ref, q, plen))
			continue;
		last = i;
		if (++k == want)
			return i;
	}
	return want ? 0 : last;
}

/* Split "PARENTREF/NAME": the parent's id and the name (kept in p->strings). */
static int split_child(struct parser *p, char *arg, uint32_t *parent, size_t *name_off)
{
	char *slash = strrchr(arg, '/');
	size_t n;

	if (!slash || !slash[1] || arg[0] != '/')
		return perr(p, "want a path /PARENT/NAME, got '%s'", arg);
	n = strlen(slash + 1);
	if (strchr(slash + 1, '#'))
		return perr(p, "'#' is not allowed in a new name ('%s')", slash + 1);
	if (n >= sizeof(p->r->spec.d[0].name))
		return perr(p, "name '%s' is longer than %zu characters", slash + 1,
			    sizeof(p->r->spec.d[0].name) - 1);
	if (slash == arg) {
		*parent = 1;
	} else {
		*slash = '\0';
		*parent = resolve(&p->r->spec, arg);
		if (!*parent) {
			int rc = perr(p, "no dentry '%s'", arg);

			*slash = '/';
			return rc;
		}
		*slash = '/';
	}
	if (p->nstr + n + 1 > p->capstr) {
		size_t cap = (p->capstr + n + 1) * 2;
		char *s = realloc(p->strings, cap);

		if (!s)
			return -ENOMEM;
		p->strings = s;
		p->capstr = cap;
	}
	memcpy(p->strings + p->nstr, slash + 1, n + 1);
	*name_off = p->nstr;
	p->nstr += n + 1;
	return 0;
}

static int kw(const char *s, const char *a, const char *b, uint32_t *out)
{
	if (s && !strcmp(s, a)) {
		*out = 0;
		return 0;
	}
	if (s && !strcmp(s, b)) {
		*out = 1;
		return 0;
	}
	return -1;
}

/* One operation line into @st (name as an offset into p->strings, in st->name). */
static int parse_line(struct parser *p, char *line, struct step *st)
{
	char *tok[4] = { 0 };
	int nt = 0, op = -1;
	size_t off = 0;

	for (char *s = strtok(line, " \t"); s && nt < 4; s = strtok(NULL, " \t"))
		tok[nt++] = s;
	if (nt == 4)
		return perr(p, "too many words");
	if (!strcmp(tok[0], "shrink"))
		tok[0] = (char *)"shrink_all";
	for (int i = OP_ALLOC; i < OP_TRACE_NR; i++)
		if (!strcmp(tok[0], diff_op_names[i]))
			op = i;
	if (op < 0)
		return perr(p, "unknown operation '%s'", tok[0]);
	memset(st, 0, sizeof(*st));
	st->op = (uint8_t)op;
	switch (op) {
	case OP_SHRINK_ALL:
		if (nt != 1)
			return perr(p, "shrink_all takes no argument");
		return 0;
	case OP_PRUNE: {
		uint64_t n;
		int rc = nt == 2 ? dcsim_parse_u64(tok[1], 1, 1000000, &n) : -EINVAL;

		if (rc)
			return perr(p, "prune: count '%s': %s (want 'prune N', N in 1..1000000)",
				    nt == 2 ? tok[1] : "", dcsim_parse_strerror(rc));
		st->arg = (uint32_t)n;
		return 0;
	}
	case OP_ALLOC:
	case OP_LOOKUP: {
		int rc;

		if (nt != 2)
			return perr(p, "want '%s /PARENT/NAME'", tok[0]);
		rc = split_child(p, tok[1], &st->a, &off);
		if (rc)
			return rc;
		st->name = (const char *)(uintptr_t)(off + 1);	/* fixed up by the caller */
		return 0;
	}
	default:
		break;
	}
	if (nt < 2)
		return perr(p, "%s wants a dentry", tok[0]);
	st->a = resolve(&p->r->spec, tok[1]);
	if (!st->a)
		return perr(p, "no dentry '%s'", tok[1]);
	switch (op) {
	case OP_ADD:
		if (nt == 2) {
			st->arg = 1;
			return 0;
		}
		if (kw(tok[2], "negative", "positive", &st->arg))
			return perr(p, "want 'add PATH [positive|negative]'");
		return 0;
	case OP_SET_OP:
		if (nt != 3 || kw(tok[2], "always", "never", &st->arg))
			return perr(p, "want 'set_op PATH always|never'");
		return 0;
	case OP_SET_FLAGS:
		if (nt != 3 || kw(tok[2], "disconnected", "dontcache", &st->arg))
			return perr(p, "want 'set_flags PATH dontcache|disconnected'");
		return 0;
	default:
		if (nt != 2)
			return perr(p, "%s takes one dentry", tok[0]);
		return 0;
	}
}

int trace_parse_stream(FILE *f, const char *path, struct trace *t, char *err, size_t errlen)
{
	struct parser p = { .file = path, .err = err, .errlen = errlen };
	char *buf = NULL;
	size_t bufcap = 0, cap = 0;
	bool header = false;
	ssize_t len;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	p.r = calloc(1, sizeof(*p.r));
	if (!p.r)
		return -ENOMEM;
	spec_init(&p.r->spec, DCSIM_RETAIN_LRU_THEN_REFERENCED);
	p.r->held[spec_alloc_root(&p.r->spec, "/")] = 1;
	while (!rc && (len = getline(&buf, &bufcap, f)) >= 0) {
		char *s = buf, *hash, *e;
		struct step st;

		p.line++;
		if ((size_t)len >= TRACE_LINE_MAX) {
			rc = perr(&p, "line too long (more than %zu characters)",
				  (size_t)TRACE_LINE_MAX - 1);
			break;
		}
		/* Text after a NUL would be dropped unseen: the line is refused. */
		if (strlen(buf) != (size_t)len) {
			rc = perr(&p, "NUL byte in the line");
			break;
		}
		/* A comment starts at a '#' that begins a word ("/a#2" is a reference). */
		for (hash = s; (hash = strchr(hash, '#')); hash++)
			if (hash == s || isspace((unsigned char)hash[-1]))
				break;
		if (hash)
			*hash = '\0';
		while (isspace((unsigned char)*s))
			s++;
		for (e = s + strlen(s); e > s && isspace((unsigned char)e[-1]);)
			*--e = '\0';
		if (!*s)
			continue;
		if (!header) {
			if (strcmp(s, TRACE_HEADER)) {
				rc = perr(&p, "want the header line '%s' first", TRACE_HEADER);
				break;
			}
			header = true;
			continue;
		}
		rc = parse_line(&p, s, &st);
		if (rc)
			break;
		if (st.op == OP_ALLOC || st.op == OP_LOOKUP)
			st.name = p.strings + ((uintptr_t)st.name - 1);
		if (!diff_valid(p.r, &st)) {
			rc = perr(&p, "'%s' is not valid here (the dentry must be held; add: "
				  "unhashed, with a parent, no hashed twin; set_op: unhashed; "
				  "alloc: at most 3 deep)", s);
			break;
		}
		diff_apply(p.r, &st);
		if (t->n == cap) {
			struct step *ns = realloc(t->s, (cap = cap * 2 + 16) * sizeof(*ns));

			if (!ns) {
				rc = -ENOMEM;
				break;
			}
			t->s = ns;
		}
		/* Names are offsets until the string table stops moving. */
		if (st.name)
			st.name = (const char *)(uintptr_t)(st.name - p.strings + 1);
		t->s[t->n++] = st;
	}
	free(buf);
	if (!rc && ferror(f))
		rc = perr(&p, "read error");
	if (!rc && !header)
		rc = perr(&p, "empty trace: want the header line '%s'", TRACE_HEADER);
	for (size_t i = 0; !rc && i < t->n; i++)
		if (t->s[i].name)
			t->s[i].name = p.strings + ((uintptr_t)t->s[i].name - 1);
	t->strings = p.strings;
	free(p.r);
	if (rc)
		trace_release(t);
	return rc;
}

int trace_parse(const char *path, struct trace *t, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	int rc;

	if (!f) {
		rc = -errno;
		memset(t, 0, sizeof(*t));
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	rc = trace_parse_stream(f, path, t, err, errlen);
	fclose(f);
	return rc;
}
