// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The build-flavour stamp (<dcsim/flavour.h>): the library knows how it
 * was built, and the first calls of a user compare that with the flavour
 * of the headers the user compiled against.
 */

#include <errno.h>
#include <stdio.h>

#include <dcsim/flavour.h>

static const char *flavour_name(unsigned int f)
{
	switch (f) {
	case DCSIM_FLAVOUR_NORMAL:	return "normal (dcsim.pc, libdcsim)";
	case DCSIM_FLAVOUR_INSTRUMENTED:	return "instrumented (dcsim-instrumented.pc, libdcsim-instrumented)";
	}
	return "unknown";
}

unsigned int dcsim_library_flavour(void)
{
	return DCSIM_HEADER_FLAVOUR;
}

int dcsim_flavour_match(unsigned int header_flavour, const char *what)
{
	if (dcsim_likely(header_flavour == DCSIM_HEADER_FLAVOUR))
		return 0;
	/*
	 * Refused every time, not once: each refused call fails, and a caller
	 * that ignores the error should still see why the next one failed.
	 */
	fprintf(stderr,
		"dcsim: %s refused: the caller was compiled against the %s headers "
		"but is linked with the %s library.  The flavours differ in their "
		"headers: %s.  Rebuild it with `pkg-config --cflags --libs %s`.\n",
		what ? what : "call", flavour_name(header_flavour),
		flavour_name(DCSIM_HEADER_FLAVOUR),
		DCSIM_HEADER_FLAVOUR == DCSIM_FLAVOUR_INSTRUMENTED ?
		"without the instrumented headers none of its accesses is a schedule point "
		"and every simulated transaction it begins aborts, so the checkers "
		"would pass it without seeing it" :
		"the instrumented headers make its accesses call schedule-point hooks and "
		"its dcsim_htm_begin() the simulated HTM, neither in this library",
		DCSIM_HEADER_FLAVOUR == DCSIM_FLAVOUR_INSTRUMENTED ? "dcsim-instrumented" : "dcsim");
	errno = ELIBBAD;
	return -ELIBBAD;
}
