// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer harness: the trace parser (src/checker/trace.c) on arbitrary
 * bytes.  A trace it accepts must print back (trace_print()) to a trace
 * that parses again to the same steps: what the parser lets through is
 * something the replay and the report understand.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace t, u;
	char err[512], *text = NULL;
	size_t len = 0;
	FILE *f;

	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	if (trace_parse_stream(f, "fuzz", &t, err, sizeof(err))) {
		fclose(f);
		/* Every refusal says where. */
		if (strncmp(err, "fuzz:", 5))
			abort();
		return 0;
	}
	fclose(f);
	f = open_memstream(&text, &len);
	if (!f)
		abort();
	trace_print(f, &t, NULL);
	fclose(f);
	f = fmemopen(text, len, "r");
	if (!f || trace_parse_stream(f, "printed", &u, err, sizeof(err))) {
		fprintf(stderr, "the printed trace does not parse: %s\n%s", err, text);
		abort();
	}
	fclose(f);
	if (u.n != t.n)
		abort();
	for (size_t i = 0; i < t.n; i++)
		if (u.s[i].op != t.s[i].op || u.s[i].a != t.s[i].a || u.s[i].arg != t.s[i].arg ||
		    !u.s[i].name != !t.s[i].name ||
		    (t.s[i].name && strcmp(u.s[i].name, t.s[i].name)))
			abort();
	trace_release(&t);
	trace_release(&u);
	free(text);
	return 0;
}
