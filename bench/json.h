/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_BENCH_JSON_H
#define DCSIM_BENCH_JSON_H

/*
 * The bench's JSON goes through jansson (libjansson-dev): the reports are
 * built as jansson values and dumped, --compare and --from load them back.
 * These helpers only fit jansson to the reports' conventions: a figure that
 * is not finite is written as null and read back as NAN, and reals keep 17
 * significant digits, so a saved report reads back to the same doubles.
 */

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

/* The flags every report is dumped with: 17 digits round-trip a double. */
#define BENCH_JSON_DUMP_FLAGS	(JSON_INDENT(1) | JSON_REAL_PRECISION(17))

/* A real, or null when @v is not finite (JSON has no NaN). */
static inline json_t *bj_real(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static inline json_t *bj_uint(uint64_t v)
{
	return json_integer((json_int_t)v);
}

/* A string, or null for NULL; bytes that are not UTF-8 are kept as they are. */
static inline json_t *bj_str(const char *s)
{
	json_t *j;

	if (!s)
		return json_null();
	j = json_string(s);
	return j ? j : json_string_nocheck(s);
}

/* Number value (integer or real), NAN if @j is not a number (null included). */
static inline double bj_num(const json_t *j)
{
	return json_is_number(j) ? json_number_value(j) : NAN;
}

/* Member @key of object @obj as a number or string (NAN / NULL if absent). */
static inline double bj_get_num(const json_t *obj, const char *key)
{
	return bj_num(json_object_get(obj, key));
}

static inline const char *bj_get_str(const json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

/*
 * Load the JSON file @path.  Return: the value (json_decref() it), or NULL
 * after a message naming @what (the option) and jansson's line and column.
 */
json_t *bench_json_load(const char *path, const char *what);

/* Dump @j to @f with BENCH_JSON_DUMP_FLAGS and a final newline; Return: 0 or -1. */
int bench_json_dump(json_t *j, FILE *f);

#endif /* DCSIM_BENCH_JSON_H */
