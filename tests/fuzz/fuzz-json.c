// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer harness: dcsim-bench's report readers (--from, --compare; bench/from.c,
 * bench/compare.c) on arbitrary bytes.  The input is written to a file (the
 * readers take paths); the report goes to /dev/null.  A refusal must be
 * exit code 2; anything read must not trip ASan or UBSan (a real of 1e300
 * converted to an integer, once).
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "bench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64], other[64];
static FILE *null;

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *seed = getenv("FUZZ_JSON_GOOD");

	(void)argc;
	(void)argv;
	snprintf(path, sizeof(path), "/tmp/fuzz-json.%d.json", (int)getpid());
	snprintf(other, sizeof(other), "%s", seed ? seed : "");
	null = fopen("/dev/null", "w");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "w");
	int rc;

	if (!f)
		abort();
	fwrite(data, 1, size, f);
	fclose(f);
	rc = bench_from(path, size & 1 ? BENCH_FMT_JSON : BENCH_FMT_TABLE, NULL, null);
	if (rc != 0 && rc != 1 && rc != 2)
		abort();
	if (other[0]) {
		rc = bench_compare(other, path, BENCH_FMT_TABLE, NULL, null);
		if (rc != 0 && rc != 1 && rc != 2)
			abort();
	}
	unlink(path);
	return 0;
}
