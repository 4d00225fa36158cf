// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel-code function tables (kernel-code/glue.c) have no silent cap:
 * every function registered is found by address, however many are loaded
 * (the corpus plugin adds several per entry, and a capped table once
 * dropped the overflow, so that traces named a neighbour and coverage
 * counted nothing for it).  Registers several thousand functions past the
 * constructors' own, in two calls as two plugin loads would, and looks each
 * one up; then a line table added after its function is still linked to it.
 * Exit: 0 pass, 1 a lookup failed.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kc/funcs.h>

#define N_FAKE	5000	/* well past any fixed table of a few thousand */

static char text[N_FAKE];	/* one byte of "code" per fake function */
static struct kc_func fake[N_FAKE];
static char names[N_FAKE][16];

static const struct kc_line row = { .off = 0, .line = 4242, .changed = 0 };

int main(void)
{
	struct kc_lines lines = {
		.func = NULL, .variant = "fake-variant", .label = "last_fake() fs/dcache.c",
		.size = 1, .rows = &row, .n = 1,
	};
	int bad = 0, line = 0;
	const char *where;

	for (int i = 0; i < N_FAKE; i++) {
		snprintf(names[i], sizeof(names[i]), "fake_%d", i);
		fake[i] = (struct kc_func){ names[i], &text[i], "fake-variant" };
	}
	kc_funcs_add(fake, N_FAKE / 2);
	kc_funcs_add(fake + N_FAKE / 2, N_FAKE - N_FAKE / 2);
	for (int i = 0; i < N_FAKE; i++) {
		const char *got = kc_func_name(&text[i]);

		if (strcmp(got, names[i]) && bad++ < 5)
			printf("test-kc-funcs: FAIL: function %d of %d named \"%s\", not %s\n",
			       i, N_FAKE, got, names[i]);
	}
	lines.func = names[N_FAKE - 1];
	kc_lines_add(&lines, 1);
	/* kc_func_where() takes a return address: one past the call. */
	where = kc_func_where(&text[N_FAKE - 1] + 1, &line);
	if (strcmp(where, lines.label) || line != 4242) {
		printf("test-kc-funcs: FAIL: the last function's line table is not linked "
		       "(\"%s\", line %d)\n", where, line);
		bad++;
	}
	if (bad)
		return printf("test-kc-funcs: %d lookups failed\n", bad), 1;
	printf("test-kc-funcs: %d functions registered and found by address\n", N_FAKE);
	return 0;
}
