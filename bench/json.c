// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Loading and dumping the bench's JSON reports with jansson (json.h).
 */

#include "json.h"

json_t *bench_json_load(const char *path, const char *what)
{
	json_error_t err;
	/* no duplicate members: a report never has them, a damaged file may */
	json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &err);

	if (j)
		return j;
	if (err.line < 0)	/* jansson's text: "unable to open PATH: REASON" */
		fprintf(stderr, "dcsim-bench: %s: cannot read '%s' (%s)\n", what, path, err.text);
	else
		fprintf(stderr, "dcsim-bench: %s: '%s' is not JSON: %s at line %d, column %d\n",
			what, path, err.text, err.line, err.column);
	return NULL;
}

int bench_json_dump(json_t *j, FILE *f)
{
	if (!j || json_dumpf(j, f, BENCH_JSON_DUMP_FLAGS))
		return -1;
	return fputc('\n', f) == EOF ? -1 : 0;
}
