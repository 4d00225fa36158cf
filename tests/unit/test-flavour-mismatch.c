// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Compiled against the other build flavour's <dcsim/config.h> and linked
 * with this build's library: the first calls must refuse with a message
 * that says what is wrong, not run (a normal-header strategy under the
 * instrumented library would see every simulated transaction abort).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <dcsim/cache.h>
#include <dcsim/strategy.h>

static enum dcsim_dput_path never_called(struct dcsim_dentry *d)
{
	(void)d;
	return DCSIM_DPUT_PATH_LOCKED;
}

static const struct dcsim_dput_strategy mismatched = {
	.name = "flavour-mismatch",
	.description = "registered from code built for the other flavour",
	.dput = never_called,
};

static int failures;

static void expect(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "FAIL: %s\n", what);
		failures++;
	}
}

int main(void)
{
	static char buf[8192];
	FILE *tmp = tmpfile();
	int saved = dup(2), err, e_named, e_cfg;
	struct dcsim_cache *named, *cfg;
	size_t n;

	if (!tmp || saved < 0)
		return 99;
	/* Capture what the library says on stderr. */
	fflush(stderr);
	dup2(fileno(tmp), 2);
	err = dcsim_strategy_register(&mismatched);
	errno = 0;
	named = dcsim_cache_create_named(NULL);
	e_named = errno;
	errno = 0;
	cfg = dcsim_cache_create(NULL);
	e_cfg = errno;
	fflush(stderr);
	dup2(saved, 2);
	rewind(tmp);
	n = fread(buf, 1, sizeof(buf) - 1, tmp);
	buf[n] = '\0';
	fputs(buf, stderr);

	printf("header flavour %u, library flavour %u\n", DCSIM_HEADER_FLAVOUR,
	       dcsim_library_flavour());
	expect(DCSIM_HEADER_FLAVOUR != dcsim_library_flavour(), "built for the other flavour");
	expect(err == -ELIBBAD, "dcsim_strategy_register() returns -ELIBBAD");
	expect(!dcsim_strategy_lookup("flavour-mismatch"), "the strategy is not registered");
	expect(!named && e_named == ELIBBAD, "dcsim_cache_create_named() is NULL, errno ELIBBAD");
	expect(!cfg && e_cfg == ELIBBAD, "dcsim_cache_create() is NULL, errno ELIBBAD");
	expect(strstr(buf, "dcsim: dcsim_strategy_register() refused") != NULL,
	       "message for dcsim_strategy_register()");
	expect(strstr(buf, "dcsim: dcsim_cache_create_named() refused") != NULL,
	       "message for dcsim_cache_create_named()");
	expect(strstr(buf, "dcsim: dcsim_cache_create() refused") != NULL,
	       "message for dcsim_cache_create()");
#if DCSIM_INSTRUMENT
	expect(strstr(buf, "compiled against the instrumented (dcsim-instrumented.pc, libdcsim-instrumented) headers "
		       "but is linked with the normal (dcsim.pc, libdcsim) library") != NULL,
	       "message names both flavours");
	expect(strstr(buf, "pkg-config --cflags --libs dcsim`") != NULL, "message gives the fix");
#else
	expect(strstr(buf, "compiled against the normal (dcsim.pc, libdcsim) headers "
		       "but is linked with the instrumented (dcsim-instrumented.pc, libdcsim-instrumented) library") != NULL,
	       "message names both flavours");
	expect(strstr(buf, "pkg-config --cflags --libs dcsim-instrumented`") != NULL,
	       "message gives the fix");
#endif
	/* The stamp itself accepts the library's own flavour. */
	expect(dcsim_flavour_match(dcsim_library_flavour(), "self") == 0, "own flavour accepted");
	if (!failures)
		printf("flavour mismatch refused with a message\n");
	return failures ? 1 : 0;
}
