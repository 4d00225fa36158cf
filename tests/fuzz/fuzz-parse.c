// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer harness: the one number parser (<dcsim/parse.h>), which every
 * option of dcsim-check and dcsim-bench, the trace and schedule readers go
 * through.  Beyond "no crash": a value it accepts lies in the range asked
 * for, and prints back to the same number.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/parse.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	uint64_t v, lo, hi, list[8];
	double d;
	int n;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	/* The range from the first bytes, so that both ends get tried. */
	lo = size ? data[0] % 16 : 0;
	hi = size > 1 ? (data[1] & 1 ? UINT64_MAX : lo + data[1]) : UINT64_MAX;
	if (!dcsim_parse_u64(s, lo, hi, &v)) {
		char back[32];

		if (v < lo || v > hi)
			abort();
		/* Decimal, or 0x hex: either way the text names v. */
		snprintf(back, sizeof(back), strncmp(s, "0x", 2) && strncmp(s, "0X", 2) ?
			 "%" PRIu64 : "%" PRIx64, v);
		if (strcmp(back, strncmp(s, "0x", 2) && strncmp(s, "0X", 2) ? s : s + 2) &&
		    strtoull(s, NULL, 0) != v)
			abort();
	}
	if (!dcsim_parse_double(s, -1e9, 1e9, &d) && !(d >= -1e9 && d <= 1e9))
		abort();
	n = dcsim_parse_u64_list(s, lo, hi, list, 8);
	if (n == 0 || n > 8)
		abort();
	for (int i = 0; i < n; i++)
		if (list[i] < lo || list[i] > hi)
			abort();
	if (n < 0 && n != -EINVAL && n != -ERANGE && n != -E2BIG)
		abort();
	free(s);
	return 0;
}
