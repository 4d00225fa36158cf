/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_FLAVOUR_H
#define DCSIM_FLAVOUR_H

/*
 * The build-flavour stamp.
 *
 * dcsim comes in two flavours that differ in their headers, not only in
 * their library: the normal build (libdcsim, dcsim.pc) and the instrumented build
 * (-Dinstrument=true: libdcsim-instrumented, dcsim-instrumented.pc), whose <dcsim/atomic.h>
 * makes every shared access a schedule point and whose <dcsim/htm.h> makes
 * dcsim_htm_begin() a setjmp()-based macro.  Code compiled against one
 * flavour's headers and linked with the other's library runs, but wrongly:
 * under the explorer none of its accesses is a schedule point and every
 * transaction it begins aborts, so a buggy strategy passes without a word.
 *
 * So the calls a user makes first (dcsim_strategy_register(),
 * dcsim_cache_create(), dcsim_cache_create_named()) are macros that pass
 * DCSIM_HEADER_FLAVOUR, the flavour of the headers the caller was compiled
 * with, to dcsim_flavour_match() before the real function.  A mismatch is
 * refused: a message on stderr naming both flavours and the fix, and the
 * call fails with -ELIBBAD (or NULL and errno ELIBBAD).  A call through a
 * function pointer, (dcsim_cache_create)(cfg), is not checked.
 */

#include <dcsim/compiler.h>
#include <dcsim/config.h>

#define DCSIM_FLAVOUR_NORMAL	1u
#define DCSIM_FLAVOUR_INSTRUMENTED	2u

/*
 * DCSIM_HEADER_FLAVOUR, the flavour of the headers being compiled, is one
 * of the two above; <dcsim/config.h>, which each flavour generates and
 * installs for itself, defines it.
 */

/** dcsim_library_flavour() - DCSIM_FLAVOUR_NORMAL or _INSTRUMENTED: how the library was built. */
DCSIM_API unsigned int dcsim_library_flavour(void);

/**
 * dcsim_flavour_match() - refuse a caller compiled for the other flavour.
 * @header_flavour: DCSIM_HEADER_FLAVOUR as the caller's headers define it
 * @what: the refused call, for the message (e.g. "dcsim_cache_create()")
 *
 * Return: 0 if @header_flavour is the library's; otherwise -ELIBBAD with
 * errno set to ELIBBAD, after printing what is wrong and how to rebuild.
 */
DCSIM_API int dcsim_flavour_match(unsigned int header_flavour, const char *what);

#endif /* DCSIM_FLAVOUR_H */
