// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The JSON reader behind --compare (json.h): recursive descent over the
 * text, one allocation per container.  Depth is bounded so a hostile file
 * cannot exhaust the stack.
 */

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define JSON_MAX_DEPTH	64

struct parser {
	const char *p;
	const char *start;
	char *err;
	unsigned int errlen;
	bool failed;
};

static void fail(struct parser *ps, const char *what)
{
	if (ps->failed)
		return;
	ps->failed = true;
	snprintf(ps->err, ps->errlen, "%s at byte %ld", what, (long)(ps->p - ps->start));
}

static void skip_ws(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
		ps->p++;
}

static bool parse_value(struct parser *ps, struct json *out, unsigned int depth);

static char *parse_string(struct parser *ps)
{
	size_t cap = 16, len = 0;
	char *s = malloc(cap);

	if (!s) {
		fail(ps, "out of memory");
		return NULL;
	}
	ps->p++;	/* the opening quote */
	while (*ps->p != '"') {
		char c = *ps->p++;

		if (!c || (unsigned char)c < 0x20) {
			fail(ps, "unterminated string");
			free(s);
			return NULL;
		}
		if (c == '\\') {
			c = *ps->p++;
			switch (c) {
			case '"': case '\\': case '/': break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u': {
				unsigned int u;

				if (sscanf(ps->p, "%4x", &u) != 1 || !isxdigit((unsigned char)ps->p[3])) {
					fail(ps, "bad \\u escape");
					free(s);
					return NULL;
				}
				ps->p += 4;
				c = u < 0x80 ? (char)u : '?';	/* reports are ASCII */
				break;
			}
			default:
				fail(ps, "bad escape");
				free(s);
				return NULL;
			}
		}
		if (len + 2 > cap) {
			char *t = realloc(s, cap *= 2);

			if (!t) {
				fail(ps, "out of memory");
				free(s);
				return NULL;
			}
			s = t;
		}
		s[len++] = c;
	}
	ps->p++;
	s[len] = 0;
	return s;
}

static bool add_item(struct parser *ps, struct json *c, unsigned int *cap, char *key,
		     unsigned int depth)
{
	if (c->n == *cap) {
		unsigned int ncap = *cap ? *cap * 2 : 8;
		struct json *v = realloc(c->v, ncap * sizeof(*v));
		char **k = c->type == JSON_OBJ ? realloc(c->keys, ncap * sizeof(*k)) : NULL;

		if (v)
			c->v = v;
		if (k)
			c->keys = k;
		if (!v || (c->type == JSON_OBJ && !k)) {
			fail(ps, "out of memory");
			free(key);
			return false;
		}
		*cap = ncap;
	}
	memset(&c->v[c->n], 0, sizeof(c->v[0]));
	if (c->type == JSON_OBJ)
		c->keys[c->n] = key;
	c->n++;
	return parse_value(ps, &c->v[c->n - 1], depth + 1);
}

static bool parse_container(struct parser *ps, struct json *out, unsigned int depth)
{
	char close = *ps->p == '{' ? '}' : ']';
	unsigned int cap = 0;

	out->type = close == '}' ? JSON_OBJ : JSON_ARR;
	ps->p++;
	skip_ws(ps);
	if (*ps->p == close) {
		ps->p++;
		return true;
	}
	for (;;) {
		char *key = NULL;

		skip_ws(ps);
		if (out->type == JSON_OBJ) {
			if (*ps->p != '"') {
				fail(ps, "expected a member name");
				return false;
			}
			key = parse_string(ps);
			if (!key)
				return false;
			skip_ws(ps);
			if (*ps->p++ != ':') {
				free(key);
				fail(ps, "expected ':'");
				return false;
			}
		}
		if (!add_item(ps, out, &cap, key, depth))
			return false;
		skip_ws(ps);
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p == close) {
			ps->p++;
			return true;
		}
		fail(ps, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
		return false;
	}
}

static bool parse_value(struct parser *ps, struct json *out, unsigned int depth)
{
	if (depth > JSON_MAX_DEPTH) {
		fail(ps, "nested too deeply");
		return false;
	}
	skip_ws(ps);
	switch (*ps->p) {
	case '{':
	case '[':
		return parse_container(ps, out, depth);
	case '"':
		out->type = JSON_STR;
		out->str = parse_string(ps);
		return out->str != NULL;
	case 't':
	case 'f':
	case 'n': {
		static const char *const words[] = { "true", "false", "null" };

		for (int i = 0; i < 3; i++) {
			size_t l = strlen(words[i]);

			if (!strncmp(ps->p, words[i], l)) {
				ps->p += l;
				out->type = i == 2 ? JSON_NULL : JSON_BOOL;
				out->b = i == 0;
				return true;
			}
		}
		fail(ps, "unknown word");
		return false;
	}
	default: {
		char *end;

		if (*ps->p != '-' && !isdigit((unsigned char)*ps->p)) {
			fail(ps, "unexpected character");
			return false;
		}
		out->type = JSON_NUM;
		out->num = strtod(ps->p, &end);
		if (end == ps->p) {
			fail(ps, "bad number");
			return false;
		}
		ps->p = end;
		return true;
	}
	}
}

static void json_release(struct json *j)
{
	for (unsigned int i = 0; i < j->n; i++) {
		json_release(&j->v[i]);
		if (j->keys)
			free(j->keys[i]);
	}
	free(j->v);
	free(j->keys);
	free(j->str);
}

void json_free(struct json *j)
{
	if (!j)
		return;
	json_release(j);
	free(j);
}

struct json *json_parse(const char *text, char *err, unsigned int errlen)
{
	struct parser ps = { .p = text, .start = text, .err = err, .errlen = errlen };
	struct json *j = calloc(1, sizeof(*j));

	if (!j) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (parse_value(&ps, j, 0)) {
		skip_ws(&ps);
		if (*ps.p)
			fail(&ps, "text after the value");
	}
	if (ps.failed) {
		json_free(j);
		return NULL;
	}
	return j;
}

const struct json *json_get(const struct json *j, const char *key)
{
	if (!j || j->type != JSON_OBJ)
		return NULL;
	for (unsigned int i = 0; i < j->n; i++)
		if (!strcmp(j->keys[i], key))
			return &j->v[i];
	return NULL;
}

double json_num_of(const struct json *j)
{
	return j && j->type == JSON_NUM ? j->num : NAN;
}

const char *json_str_of(const struct json *j)
{
	return j && j->type == JSON_STR ? j->str : NULL;
}
