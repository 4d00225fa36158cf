/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_BENCH_JSON_H
#define DCSIM_BENCH_JSON_H

/*
 * A small JSON reader for --compare: enough for dcsim-bench's own reports
 * (objects, arrays, numbers, strings without \u escapes beyond ASCII,
 * true/false/null), strict about syntax so a damaged file is refused.
 */

#include <stdbool.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ };

struct json {
	enum json_type type;
	bool b;
	double num;
	char *str;
	unsigned int n;		/* array items or object members */
	struct json *v;		/* [n] */
	char **keys;		/* [n], objects only */
};

/* Parse @text; Return: the value, or NULL with a message in @err. */
struct json *json_parse(const char *text, char *err, unsigned int errlen);
void json_free(struct json *j);
/* Member @key of object @j, or NULL. */
const struct json *json_get(const struct json *j, const char *key);
/* Number value, NAN if @j is not a number (null included). */
double json_num_of(const struct json *j);
const char *json_str_of(const struct json *j);	/* NULL if not a string */

#endif /* DCSIM_BENCH_JSON_H */
